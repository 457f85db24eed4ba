/**
 * The condition keys this service supplies. SWF's own keys (the Developer Guide's "API Summary": each
 * action and decision documents which of them it sets), the global keys it can know about a caller
 * and a request, and iam:PassedToService for passing a lambdaRole. A policy that names any other key
 * is refused: IAM would read that key as missing, which this service cannot tell from absent on AWS
 * (a Deny on aws:MultiFactorAuthPresent, say, would silently never apply).
 */

/** SWF's condition keys, as documented, in lower case (IAM compares key names case-insensitively). */
export const SWF_CONDITION_KEYS: readonly string[] = [
  'swf:activityType.name',
  'swf:activityType.version',
  'swf:workflowType.name',
  'swf:workflowType.version',
  'swf:taskList.name',
  'swf:defaultTaskList.name',
  'swf:name',
  'swf:version',
  'swf:typeFilter.name',
  'swf:typeFilter.version',
  'swf:tagFilter.tag',
  ...[0, 1, 2, 3, 4].map((n) => `swf:tagList.member.${n}`),
];

/** Global keys: what the caller's identity and the request say (see callerContext). */
export const GLOBAL_CONDITION_KEYS: readonly string[] = [
  'aws:CurrentTime',
  'aws:EpochTime',
  'aws:SecureTransport',
  'aws:SourceIp',
  'aws:RequestedRegion',
  'aws:PrincipalArn',
  'aws:PrincipalAccount',
  'aws:PrincipalType',
  'aws:userid',
  'aws:username',
  'iam:PassedToService',
];

const SUPPORTED = new Set([...SWF_CONDITION_KEYS, ...GLOBAL_CONDITION_KEYS].map(lower));

export const isSupportedConditionKey = (key: string) => SUPPORTED.has(key.toLowerCase());

export const SUPPORTED_KEY_HINT =
  "SWF's swf:* keys, aws:CurrentTime, aws:EpochTime, aws:SecureTransport, aws:SourceIp, aws:RequestedRegion, aws:PrincipalArn, aws:PrincipalAccount, aws:PrincipalType, aws:userid, aws:username and iam:PassedToService";

function lower(key: string): string {
  return key.toLowerCase();
}

/** A request's condition keys: lower-case name → its values (a key absent has no entry). */
export type ConditionContext = ReadonlyMap<string, readonly string[]>;

/** Builds a context from named values; undefined and empty lists leave a key absent. */
export function conditionContext(
  values: Readonly<Record<string, string | readonly string[] | undefined>>,
): ConditionContext {
  const context = new Map<string, readonly string[]>();
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const list = typeof value === 'string' ? [value] : value;
    if (list.length > 0) context.set(key.toLowerCase(), list);
  }
  return context;
}
