/**
 * IAM's evaluation of identity-based policies for one request: a statement applies when its action,
 * its resource and every one of its conditions match; an applicable Deny decides (explicit deny),
 * else an applicable Allow (allow), else nothing does (implicit deny).
 */
import { conditionHolds, takesPolicyVariables } from './iam-conditions.js';
import type { ConditionContext } from './iam-keys.js';
import { arnMatch, wildcardMatch } from './iam-match.js';
import type { PolicyDocument, PolicyStatement } from './iam-policy.js';

export interface AccessRequest {
  /** `swf:PollForActivityTask`, `swf:ScheduleActivityTask`, `iam:PassRole`. */
  readonly action: string;
  /** The resource's ARN: a domain's, a role's. */
  readonly resource: string;
  readonly context: ConditionContext;
}

export type Verdict = 'allow' | 'explicit-deny' | 'implicit-deny';

export function evaluate(policies: readonly PolicyDocument[], request: AccessRequest): Verdict {
  let allowed = false;
  for (const policy of policies) {
    const expand =
      policy.version === '2012-10-17'
        ? (value: string) => expandVariables(value, request.context)
        : (value: string) => value;
    for (const statement of policy.statements) {
      if (!applies(statement, request, expand)) continue;
      if (statement.effect === 'Deny') return 'explicit-deny';
      allowed = true;
    }
  }
  return allowed ? 'allow' : 'implicit-deny';
}

/**
 * The verdict for one request that names its resource in several ways (ListDomains: the ARN of every
 * domain as this service writes it, and as SWF's reference documents it): an explicit deny of any
 * name denies, else an allow of any name allows.
 */
export function evaluateAny(
  policies: readonly PolicyDocument[],
  requests: readonly AccessRequest[],
): Verdict {
  const verdicts = requests.map((r) => evaluate(policies, r));
  if (verdicts.includes('explicit-deny')) return 'explicit-deny';
  return verdicts.includes('allow') ? 'allow' : 'implicit-deny';
}

function applies(
  statement: PolicyStatement,
  request: AccessRequest,
  expand: (value: string) => string | undefined,
): boolean {
  // Action names are case-insensitive in IAM; ARNs are not.
  const actionHit = statement.action.patterns.some((p) => wildcardMatch(p, request.action, true));
  if (actionHit === statement.action.negated) return false;
  const resourceHit = statement.resource.patterns.some((p) => {
    const pattern = expand(p);
    return pattern !== undefined && arnMatch(pattern, request.resource);
  });
  if (resourceHit === statement.resource.negated) return false;
  return statement.conditions.every((c) =>
    conditionHolds(c, request.context, takesPolicyVariables(c.operator) ? expand : (v) => v),
  );
}

/**
 * A value with its policy variables (`${aws:username}`) replaced by the request's values, or undefined
 * when one names a key the request lacks or holds several values (IAM then matches nothing with it).
 */
export function expandVariables(value: string, context: ConditionContext): string | undefined {
  let missing = false;
  const expanded = value.replace(/\$\{([^}]*)\}/g, (_whole, name: string) => {
    const values = context.get(name.trim().toLowerCase());
    if (values?.length !== 1) {
      missing = true;
      return '';
    }
    return values[0] ?? '';
  });
  return missing ? undefined : expanded;
}
