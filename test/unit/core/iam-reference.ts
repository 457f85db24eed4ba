/**
 * A naive IAM evaluator, written straight from IAM's documented rules with none of the evaluator's
 * code (regular expressions for wildcards, a table of operators, every statement collected before a
 * verdict): the property test holds lib/core/iam-evaluate.ts to it.
 */

type Json = Record<string, unknown>;
export type Context = Record<string, string[]>;

const globToRegExp = (glob: string, flags = '') =>
  new RegExp(
    `^${[...glob]
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\/-]/g, '\\$&')))
      .join('')}$`,
    `s${flags}`,
  );

const arnLike = (pattern: string, arn: string) => {
  if (pattern === '*') return true;
  const cut = (s: string) => {
    const parts = s.split(':');
    return parts.length < 6 ? undefined : [...parts.slice(0, 5), parts.slice(5).join(':')];
  };
  const p = cut(pattern);
  const a = cut(arn);
  return (
    p !== undefined && a !== undefined && p.every((part, i) => globToRegExp(part).test(a[i] ?? ''))
  );
};

const ipv4 = (s: string) => s.split('.').reduce((n, o) => n * 256n + BigInt(o), 0n);
function ipv6(s: string): bigint {
  const [left = '', right] = s.split('::');
  const l = left === '' ? [] : left.split(':');
  const r = right === undefined || right === '' ? [] : right.split(':');
  const all = right === undefined ? l : [...l, ...Array(8 - l.length - r.length).fill('0'), ...r];
  return all.reduce((n, g) => n * 65536n + BigInt(Number.parseInt(g, 16)), 0n);
}
function inCidr(ip: string, cidr: string): boolean {
  const [base = '', bits] = cidr.split('/');
  const v6 = base.includes(':');
  if (v6 !== ip.includes(':')) return false;
  const width = v6 ? 128 : 32;
  const keep = BigInt(width - Number(bits ?? width));
  const num = v6 ? ipv6 : ipv4;
  return num(ip) >> keep === num(base) >> keep;
}
const date = (s: string) => (/^\d+$/.test(s) ? Number(s) * 1000 : Date.parse(s));

/** Each positive operator: does a context value match a policy value? */
const POSITIVE: Record<string, (c: string, p: string) => boolean> = {
  StringEquals: (c, p) => c === p,
  StringEqualsIgnoreCase: (c, p) => c.toLowerCase() === p.toLowerCase(),
  StringLike: (c, p) => globToRegExp(p).test(c),
  NumericEquals: (c, p) => Number(c) === Number(p),
  NumericLessThan: (c, p) => Number(c) < Number(p),
  NumericLessThanEquals: (c, p) => Number(c) <= Number(p),
  NumericGreaterThan: (c, p) => Number(c) > Number(p),
  NumericGreaterThanEquals: (c, p) => Number(c) >= Number(p),
  DateEquals: (c, p) => date(c) === date(p),
  DateLessThan: (c, p) => date(c) < date(p),
  DateLessThanEquals: (c, p) => date(c) <= date(p),
  DateGreaterThan: (c, p) => date(c) > date(p),
  DateGreaterThanEquals: (c, p) => date(c) >= date(p),
  Bool: (c, p) => c.toLowerCase() === p.toLowerCase(),
  BinaryEquals: (c, p) => c === p,
  IpAddress: (c, p) => inCidr(c, p),
  ArnEquals: (c, p) => arnLike(p, c),
  ArnLike: (c, p) => arnLike(p, c),
};
const NEGATED: Record<string, string> = {
  StringNotEquals: 'StringEquals',
  StringNotEqualsIgnoreCase: 'StringEqualsIgnoreCase',
  StringNotLike: 'StringLike',
  NumericNotEquals: 'NumericEquals',
  DateNotEquals: 'DateEquals',
  NotIpAddress: 'IpAddress',
  ArnNotEquals: 'ArnEquals',
  ArnNotLike: 'ArnLike',
};

function substitute(value: string, context: Context, variables: boolean): string | undefined {
  if (!variables) return value;
  let ok = true;
  const out = value.replace(/\$\{([^}]*)\}/g, (_m, name: string) => {
    const found = Object.entries(context).find(
      ([k]) => k.toLowerCase() === name.trim().toLowerCase(),
    );
    if (found === undefined || found[1].length !== 1) ok = false;
    return found?.[1][0] ?? '';
  });
  return ok ? out : undefined;
}

function conditionTrue(name: string, key: string, raw: unknown, context: Context, vars: boolean) {
  const policy = (Array.isArray(raw) ? raw : [raw]).map(String);
  const values =
    Object.entries(context).find(([k]) => k.toLowerCase() === key.toLowerCase())?.[1] ?? [];
  const [set, bareName] = name.includes(':') ? name.split(':') : [undefined, name];
  let op = bareName ?? '';
  const ifExists = op.endsWith('IfExists');
  if (ifExists) op = op.slice(0, -8);
  if (op === 'Null')
    return policy.some((p) => (p.toLowerCase() === 'true') === (values.length === 0));
  if (values.length === 0 && ifExists) return true;
  const negatedOf = NEGATED[op];
  const base = POSITIVE[negatedOf ?? op];
  if (base === undefined) throw new Error(`reference: no operator ${op}`);
  const textual = /^(String|Arn)/.test(negatedOf ?? op);
  const resolved = policy.flatMap((p) => {
    const s = substitute(p, context, vars && textual);
    return s === undefined ? [] : [s];
  });
  const hit = (v: string) => resolved.some((p) => base(v, p));
  const passes = (v: string) => (negatedOf === undefined ? hit(v) : !hit(v));
  if (set === 'ForAllValues') return values.every(passes);
  if (set === 'ForAnyValue') return values.length > 0 && values.some(passes);
  if (values.length === 0) return negatedOf !== undefined;
  return negatedOf === undefined ? values.some(passes) : values.every(passes);
}

const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : [String(v)]);

export function referenceEvaluate(
  policies: Json[],
  request: { action: string; resource: string; context: Context },
): 'allow' | 'explicit-deny' | 'implicit-deny' {
  const applicable: string[] = [];
  for (const policy of policies) {
    const vars = policy.Version === '2012-10-17';
    const statements = Array.isArray(policy.Statement) ? policy.Statement : [policy.Statement];
    for (const s of statements as Json[]) {
      const actions = list(s.Action ?? s.NotAction);
      const actionHit = actions.some((a) => globToRegExp(a, 'i').test(request.action));
      if (s.Action !== undefined ? !actionHit : actionHit) continue;
      const resources = list(s.Resource ?? s.NotResource);
      const resourceHit = resources.some((r) => {
        const p = substitute(r, request.context, vars);
        return p !== undefined && arnLike(p, request.resource);
      });
      if (s.Resource !== undefined ? !resourceHit : resourceHit) continue;
      const conditions = Object.entries((s.Condition ?? {}) as Record<string, Json>).flatMap(
        ([op, block]) => Object.entries(block).map(([key, raw]) => ({ op, key, raw })),
      );
      if (!conditions.every((c) => conditionTrue(c.op, c.key, c.raw, request.context, vars)))
        continue;
      applicable.push(String(s.Effect));
    }
  }
  if (applicable.includes('Deny')) return 'explicit-deny';
  return applicable.includes('Allow') ? 'allow' : 'implicit-deny';
}
