/**
 * IAM identity-based policy documents, read and checked the way IAM reads them: Version, and
 * statements of Effect, Action or NotAction, Resource or NotResource and Condition. A document that
 * IAM would refuse, or whose conditions name a key this service never supplies, is refused with a
 * message naming the principal and the statement (PolicyError). Evaluation: iam-evaluate.ts.
 */
import { type BaseOperator, isBaseOperator, parseConditionValue } from './iam-conditions.js';
import { isSupportedConditionKey, SUPPORTED_KEY_HINT } from './iam-keys.js';

export type PolicyVersion = '2008-10-17' | '2012-10-17';

export interface PolicyDocument {
  /** Policy variables (`${aws:username}`) are read only in 2012-10-17 documents, as in IAM. */
  readonly version: PolicyVersion;
  readonly statements: readonly PolicyStatement[];
}

/** Patterns an element matches; `negated` for NotAction and NotResource. */
export interface PatternList {
  readonly negated: boolean;
  readonly patterns: readonly string[];
}

export interface PolicyStatement {
  /** `statement 2 (Sid "Poll")`: how messages name it. */
  readonly label: string;
  readonly effect: 'Allow' | 'Deny';
  readonly action: PatternList;
  readonly resource: PatternList;
  readonly conditions: readonly PolicyCondition[];
}

export interface PolicyCondition {
  readonly operator: BaseOperator;
  readonly set: 'ForAnyValue' | 'ForAllValues' | undefined;
  readonly ifExists: boolean;
  /** The key in lower case: IAM reads condition keys case-insensitively. */
  readonly key: string;
  readonly values: readonly string[];
}

/** A policy IAM would not accept; the message names the principal, the statement and the fault. */
export class PolicyError extends Error {
  override readonly name = 'PolicyError';
}

const VERSIONS: readonly PolicyVersion[] = ['2008-10-17', '2012-10-17'];
const STATEMENT_KEYS = new Set([
  'Sid',
  'Effect',
  'Action',
  'NotAction',
  'Resource',
  'NotResource',
  'Condition',
]);

/**
 * Reads one identity-based policy document (the JSON value, already parsed). `owner` names whose
 * policy it is in messages: `principal "AKIA…"`.
 */
export function parsePolicyDocument(value: unknown, owner: string): PolicyDocument {
  const fail = (message: string): never => {
    throw new PolicyError(`${owner}: ${message}`);
  };
  if (!isObject(value)) return fail('the policy must be a JSON object with a Statement');
  const unknown = Object.keys(value).find(
    (k) => k !== 'Version' && k !== 'Statement' && k !== 'Id',
  );
  if (unknown !== undefined) fail(`unknown policy element "${unknown}"`);
  const version = value.Version ?? '2008-10-17';
  if (typeof version !== 'string' || !VERSIONS.some((v) => v === version))
    fail(`Version must be "2012-10-17" or "2008-10-17", not ${JSON.stringify(version)}`);
  const raw = value.Statement;
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  if (list.length === 0) fail('the policy has no Statement');
  return {
    version: version as PolicyVersion,
    statements: list.map((s: unknown, i) => parseStatement(s, i, owner)),
  };
}

function parseStatement(value: unknown, index: number, owner: string): PolicyStatement {
  const sid = isObject(value) && typeof value.Sid === 'string' ? ` (Sid "${value.Sid}")` : '';
  const label = `statement ${index + 1}${sid}`;
  const fail = (message: string): never => {
    throw new PolicyError(`${owner}: ${label}: ${message}`);
  };
  if (!isObject(value)) return fail('a statement must be a JSON object');
  if ('Principal' in value || 'NotPrincipal' in value)
    fail('an identity-based policy names no Principal: the principal is whom it is attached to');
  const unknown = Object.keys(value).find((k) => !STATEMENT_KEYS.has(k));
  if (unknown !== undefined) fail(`unknown statement element "${unknown}"`);
  if (value.Sid !== undefined && typeof value.Sid !== 'string') fail('Sid must be a string');
  if (value.Effect !== 'Allow' && value.Effect !== 'Deny')
    fail(`Effect must be "Allow" or "Deny", not ${JSON.stringify(value.Effect)}`);
  return {
    label,
    effect: value.Effect as 'Allow' | 'Deny',
    action: patternList(value, 'Action', fail, checkAction),
    resource: patternList(value, 'Resource', fail, checkResource),
    conditions: value.Condition === undefined ? [] : parseConditions(value.Condition, fail),
  };
}

/** Action or NotAction (Resource or NotResource): exactly one, a string or a list of strings. */
function patternList(
  statement: Record<string, unknown>,
  element: 'Action' | 'Resource',
  fail: (message: string) => never,
  check: (pattern: string) => string | undefined,
): PatternList {
  const positive = statement[element];
  const negative = statement[`Not${element}`];
  if ((positive === undefined) === (negative === undefined))
    fail(`a statement has exactly one of ${element} and Not${element}`);
  const name = positive === undefined ? `Not${element}` : element;
  const raw = positive ?? negative;
  const patterns = Array.isArray(raw) ? raw : [raw];
  if (patterns.length === 0) fail(`${name} is empty`);
  for (const p of patterns) {
    if (typeof p !== 'string') fail(`${name} holds ${JSON.stringify(p)}, not a string`);
    const problem = check(p as string);
    if (problem !== undefined) fail(`${name} "${p as string}" ${problem}`);
  }
  return { negated: positive === undefined, patterns: patterns as string[] };
}

const checkAction = (pattern: string): string | undefined =>
  pattern === '*' || /^[A-Za-z0-9-]+:[A-Za-z0-9*?]+$/.test(pattern)
    ? undefined
    : 'is not an action: expected service:Action (for example swf:PollForActivityTask) or *';

/** `*`, or an ARN: `arn:partition:service:region:account:resource`, wildcards allowed. */
const checkResource = (pattern: string): string | undefined => {
  if (pattern === '*') return undefined;
  const parts = pattern.split(':');
  if (parts.length < 6 || parts[0] !== 'arn' || parts[1] === '' || parts[2] === '')
    return 'is not an ARN: expected arn:partition:service:region:account:resource (for example arn:aws:swf:us-east-1:123456789012:/domain/orders) or *';
  return undefined;
};

function parseConditions(value: unknown, fail: (message: string) => never): PolicyCondition[] {
  if (!isObject(value)) return fail('Condition must be an object of operators');
  return Object.entries(value).flatMap(([name, block]) => {
    const operator = parseOperatorName(name, fail);
    if (!isObject(block)) return fail(`Condition ${name} must be an object of condition keys`);
    return Object.entries(block).map(([key, raw]) => {
      if (!isSupportedConditionKey(key))
        fail(`condition key "${key}" is not one this service supplies (${SUPPORTED_KEY_HINT})`);
      const list = Array.isArray(raw) ? raw : [raw];
      if (list.length === 0) fail(`Condition ${name} "${key}" has no value`);
      const values = list.map((v: unknown) => {
        const parsed = parseConditionValue(operator.operator, v);
        if (typeof parsed !== 'string')
          return fail(`Condition ${name} "${key}": ${JSON.stringify(v)} ${parsed.problem}`);
        return parsed;
      });
      return { ...operator, key: key.toLowerCase(), values };
    });
  });
}

/** `ForAllValues:StringLikeIfExists` → the operator, its set qualifier and IfExists. */
function parseOperatorName(name: string, fail: (message: string) => never) {
  const [first, second, ...rest] = name.split(':');
  const qualified = second !== undefined;
  const set = qualified ? first : undefined;
  const bare = qualified ? second : (first ?? '');
  if (rest.length > 0 || (set !== undefined && set !== 'ForAnyValue' && set !== 'ForAllValues'))
    return fail(`unknown condition operator "${name}"`);
  const ifExists = bare.endsWith('IfExists') && bare !== 'IfExists';
  const operator = ifExists ? bare.slice(0, -'IfExists'.length) : bare;
  if (!isBaseOperator(operator)) return fail(`unknown condition operator "${name}"`);
  if (operator === 'Null' && (ifExists || set !== undefined))
    fail(`unknown condition operator "${name}": Null takes neither IfExists nor a set qualifier`);
  return { operator, set: set as PolicyCondition['set'], ifExists };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
