/**
 * IAM's condition operators: String, Numeric, Date, Bool, Binary, IP address, ARN and Null, with the
 * IfExists suffix and the ForAnyValue / ForAllValues set qualifiers. How a condition reads a key:
 * - no qualifier: a positive operator holds when some value of the key matches some policy value; a
 *   negated one (StringNotEquals, NotIpAddress, …) when no value of the key matches any policy value;
 *   a key that is absent fails a positive operator and passes a negated one;
 * - ForAnyValue: some value of the key passes (absent: fails); ForAllValues: every value passes
 *   (absent: passes);
 * - IfExists: an absent key passes; a present one is judged as without the suffix;
 * - Null: `true` holds when the key is absent, `false` when it is present.
 */
import type { ConditionContext } from './iam-keys.js';
import { arnMatch, ipInRange, parseIpRange, wildcardMatch } from './iam-match.js';
import type { PolicyCondition } from './iam-policy.js';

const POSITIVE = [
  'StringEquals',
  'StringEqualsIgnoreCase',
  'StringLike',
  'NumericEquals',
  'NumericLessThan',
  'NumericLessThanEquals',
  'NumericGreaterThan',
  'NumericGreaterThanEquals',
  'DateEquals',
  'DateLessThan',
  'DateLessThanEquals',
  'DateGreaterThan',
  'DateGreaterThanEquals',
  'Bool',
  'BinaryEquals',
  'IpAddress',
  'ArnEquals',
  'ArnLike',
  'Null',
] as const;

/** Each negated operator and the positive one it negates. */
const NEGATED = {
  StringNotEquals: 'StringEquals',
  StringNotEqualsIgnoreCase: 'StringEqualsIgnoreCase',
  StringNotLike: 'StringLike',
  NumericNotEquals: 'NumericEquals',
  DateNotEquals: 'DateEquals',
  NotIpAddress: 'IpAddress',
  ArnNotEquals: 'ArnEquals',
  ArnNotLike: 'ArnLike',
} as const;

type PositiveOperator = (typeof POSITIVE)[number];
export type BaseOperator = PositiveOperator | keyof typeof NEGATED;

export const isBaseOperator = (name: string): name is BaseOperator =>
  POSITIVE.some((o) => o === name) || Object.hasOwn(NEGATED, name);

const positiveOf = (operator: BaseOperator): PositiveOperator =>
  Object.hasOwn(NEGATED, operator)
    ? NEGATED[operator as keyof typeof NEGATED]
    : (operator as PositiveOperator);

export const isNegated = (operator: BaseOperator) => positiveOf(operator) !== operator;

/** Operators whose policy values may hold policy variables and wildcards: text, not numbers. */
const TEXTUAL = new Set<PositiveOperator>([
  'StringEquals',
  'StringEqualsIgnoreCase',
  'StringLike',
  'ArnEquals',
  'ArnLike',
]);
export const takesPolicyVariables = (operator: BaseOperator) => TEXTUAL.has(positiveOf(operator));

/**
 * A policy's condition value as text, or what is wrong with it for this operator (IAM refuses a
 * number that is not one, a date that is not one, an IP range that is not one).
 */
export function parseConditionValue(
  operator: BaseOperator,
  raw: unknown,
): string | { problem: string } {
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean')
    return { problem: 'is not a string, a number or a boolean' };
  const text = String(raw);
  const kind = positiveOf(operator);
  if (kind.startsWith('Numeric') && toNumber(text) === undefined)
    return { problem: 'is no number' };
  if (kind.startsWith('Date') && toTime(text) === undefined)
    return { problem: 'is no date (ISO 8601, or seconds since the epoch)' };
  if ((kind === 'Bool' || kind === 'Null') && !/^(true|false)$/i.test(text))
    return { problem: 'is neither true nor false' };
  if (kind === 'IpAddress' && parseIpRange(text) === undefined)
    return { problem: 'is no IP address or CIDR range' };
  return text;
}

/**
 * Whether the condition holds for the request's keys. `expand` resolves the policy variables of a
 * textual value (undefined: it names a key the request lacks, and that value matches nothing).
 */
export function conditionHolds(
  condition: PolicyCondition,
  context: ConditionContext,
  expand: (value: string) => string | undefined,
): boolean {
  const present = context.get(condition.key) ?? [];
  if (condition.operator === 'Null')
    return condition.values.some((v) => (v.toLowerCase() === 'true') === (present.length === 0));
  if (present.length === 0) {
    if (condition.ifExists) return true;
    if (condition.set !== undefined) return condition.set === 'ForAllValues';
    return isNegated(condition.operator);
  }
  const kind = positiveOf(condition.operator);
  const textual = TEXTUAL.has(kind);
  const policyValues = condition.values.flatMap((v) => {
    const resolved = textual ? expand(v) : v;
    return resolved === undefined ? [] : [resolved];
  });
  const negated = isNegated(condition.operator);
  // A value of the key "passes" when it matches a policy value (positive) or none (negated).
  const passes = (value: string) => policyValues.some((p) => matches(kind, value, p)) !== negated;
  if (condition.set === 'ForAllValues') return present.every(passes);
  if (condition.set === 'ForAnyValue') return present.some(passes);
  return negated ? present.every(passes) : present.some(passes);
}

function matches(kind: PositiveOperator, value: string, policy: string): boolean {
  switch (kind) {
    case 'StringEquals':
      return value === policy;
    case 'StringEqualsIgnoreCase':
      return value.toLowerCase() === policy.toLowerCase();
    case 'StringLike':
      return wildcardMatch(policy, value);
    case 'NumericEquals':
    case 'NumericLessThan':
    case 'NumericLessThanEquals':
    case 'NumericGreaterThan':
    case 'NumericGreaterThanEquals':
      return compare(kind.slice('Numeric'.length), toNumber(value), toNumber(policy));
    case 'DateEquals':
    case 'DateLessThan':
    case 'DateLessThanEquals':
    case 'DateGreaterThan':
    case 'DateGreaterThanEquals':
      return compare(kind.slice('Date'.length), toTime(value), toTime(policy));
    case 'Bool':
      return value.toLowerCase() === policy.toLowerCase();
    case 'BinaryEquals':
      return value === policy;
    case 'IpAddress': {
      const range = parseIpRange(policy);
      return range !== undefined && ipInRange(value, range);
    }
    case 'ArnEquals':
    case 'ArnLike':
      return arnMatch(policy, value);
    case 'Null':
      return false; // judged above, on the key's presence
  }
}

/** `Equals`, `LessThan`, … of two numbers; a value that is no number matches nothing. */
function compare(relation: string, a: number | undefined, b: number | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  if (relation === 'Equals') return a === b;
  if (relation === 'LessThan') return a < b;
  if (relation === 'LessThanEquals') return a <= b;
  if (relation === 'GreaterThan') return a > b;
  return a >= b;
}

function toNumber(text: string): number | undefined {
  if (!/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(text)) return undefined;
  return Number(text);
}

/** A date in ISO 8601 or epoch seconds, as epoch milliseconds. */
function toTime(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text))
    return undefined;
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : time;
}
