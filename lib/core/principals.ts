/**
 * Whose policies apply to a caller. The configuration maps principals (an IAM ARN deployed, an access
 * key id locally) to policy documents; a caller signing with an assumed role's session
 * (`arn:aws:sts::ACCOUNT:assumed-role/NAME/SESSION`) gets the policies of its role
 * (`arn:aws:iam::ACCOUNT:role/NAME`, whatever the role's path), as IAM gives a session its role's.
 */
import { type ConditionContext, conditionContext } from './iam-keys.js';
import { type PolicyDocument, PolicyError, parsePolicyDocument } from './iam-policy.js';

export interface PrincipalPolicies {
  /** The principal as configured (for an assumed role, its role's ARN). */
  readonly principal: string;
  readonly policies: readonly PolicyDocument[];
}

export class PolicySet {
  readonly #byPrincipal: ReadonlyMap<string, readonly PolicyDocument[]>;

  constructor(byPrincipal: ReadonlyMap<string, readonly PolicyDocument[]>) {
    this.#byPrincipal = byPrincipal;
  }

  get size(): number {
    return this.#byPrincipal.size;
  }

  /** The caller's policies, or undefined for a caller the configuration does not name. */
  lookup(caller: string | undefined): PrincipalPolicies | undefined {
    if (caller === undefined) return undefined;
    const exact = this.#byPrincipal.get(caller);
    if (exact !== undefined) return { principal: caller, policies: exact };
    const session = assumedRoleOf(caller);
    if (session === undefined) return undefined;
    for (const [principal, policies] of this.#byPrincipal) {
      const role = roleOf(principal);
      if (
        role !== undefined &&
        role.partition === session.partition &&
        role.account === session.account &&
        role.name === session.name
      )
        return { principal, policies };
    }
    return undefined;
  }
}

/**
 * Reads a configuration of access policies: a JSON object from each principal to one policy document
 * or a list of them. Anything IAM would refuse is a PolicyError naming the principal and statement.
 */
export function parseAccessPolicies(value: unknown, source: string): PolicySet {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new PolicyError(`${source} must be a JSON object from each principal to its policies`);
  const byPrincipal = new Map<string, readonly PolicyDocument[]>();
  for (const [principal, raw] of Object.entries(value)) {
    const owner = `${source}: principal "${principal}"`;
    if (principal.trim() === '') throw new PolicyError(`${source}: a principal is empty`);
    const documents: unknown[] = Array.isArray(raw) ? raw : [raw];
    if (documents.length === 0) throw new PolicyError(`${owner}: no policy document`);
    byPrincipal.set(
      principal,
      documents.map((d, i) =>
        parsePolicyDocument(d, documents.length > 1 ? `${owner}, policy ${i + 1}` : owner),
      ),
    );
  }
  return new PolicySet(byPrincipal);
}

interface RoleName {
  readonly partition: string;
  readonly account: string;
  readonly name: string;
}

/** `arn:P:sts::A:assumed-role/NAME/SESSION` → its role. */
function assumedRoleOf(arn: string): RoleName | undefined {
  const match = /^arn:([\w-]+):sts::(\d{12}):assumed-role\/([^/]+)\/.+$/.exec(arn);
  if (match === null) return undefined;
  return { partition: match[1] ?? '', account: match[2] ?? '', name: match[3] ?? '' };
}

/** `arn:P:iam::A:role/PATH/NAME` → its partition, account and name (the path left out). */
function roleOf(arn: string): RoleName | undefined {
  const match = /^arn:([\w-]+):iam::(\d{12}):role\/(?:.*\/)?([^/]+)$/.exec(arn);
  if (match === null) return undefined;
  return { partition: match[1] ?? '', account: match[2] ?? '', name: match[3] ?? '' };
}

/** What API Gateway's or a function URL's IAM authorizer says of the caller (payload 2.0). */
export interface IamIdentity {
  readonly userArn?: string | undefined;
  readonly accountId?: string | undefined;
  readonly userId?: string | undefined;
}

/**
 * The global condition keys a caller's identity gives (aws:PrincipalArn is the role's ARN for an
 * assumed role's session, as in IAM: the configured one when it names the role with its path).
 */
export function principalKeys(
  identity: IamIdentity,
  configured: string | undefined,
): ConditionContext {
  const arn = identity.userArn;
  const session = arn === undefined ? undefined : assumedRoleOf(arn);
  const type =
    arn === undefined
      ? undefined
      : session !== undefined
        ? 'AssumedRole'
        : /:root$/.test(arn)
          ? 'Account'
          : /:federated-user\//.test(arn)
            ? 'FederatedUser'
            : 'User';
  const principalArn =
    session === undefined
      ? arn
      : (configured ?? `arn:${session.partition}:iam::${session.account}:role/${session.name}`);
  const userName = type === 'User' ? arn?.split('/').at(-1) : undefined;
  return conditionContext({
    'aws:PrincipalArn': principalArn,
    'aws:PrincipalAccount': identity.accountId,
    'aws:PrincipalType': type,
    'aws:userid': identity.userId,
    'aws:username': userName,
  });
}
