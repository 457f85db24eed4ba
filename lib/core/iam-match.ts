/** IAM's matching primitives: wildcard patterns, ARNs and IP ranges. Pure string and number work. */

/**
 * Whether `value` matches `pattern`, where `*` matches any run of characters (none included) and `?`
 * any one character. Linear in the value for each star (the usual greedy match with backtracking to
 * the last star), so a hostile pattern costs no more than a few passes.
 */
export function wildcardMatch(pattern: string, value: string, ignoreCase = false): boolean {
  const p = ignoreCase ? pattern.toLowerCase() : pattern;
  const v = ignoreCase ? value.toLowerCase() : value;
  let pi = 0;
  let vi = 0;
  let star = -1;
  let resume = 0;
  while (vi < v.length) {
    if (pi < p.length && p[pi] === '*') {
      star = pi++;
      resume = vi;
    } else if (pi < p.length && (p[pi] === '?' || p[pi] === v[vi])) {
      pi++;
      vi++;
    } else if (star !== -1) {
      pi = star + 1;
      vi = ++resume;
    } else return false;
  }
  while (pi < p.length && p[pi] === '*') pi++;
  return pi === p.length;
}

/**
 * ARN matching as IAM does it for Resource and the Arn condition operators: the six parts
 * (`arn:partition:service:region:account:resource`, the last one holding any further colons) are
 * matched one by one, each with wildcards; `*` alone matches everything.
 */
export function arnMatch(pattern: string, arn: string): boolean {
  if (pattern === '*') return true;
  const p = arnParts(pattern);
  const a = arnParts(arn);
  if (p === undefined || a === undefined) return false;
  return p.every((part, i) => wildcardMatch(part, a[i] ?? ''));
}

function arnParts(arn: string): string[] | undefined {
  const parts = arn.split(':');
  if (parts.length < 6) return undefined;
  return [...parts.slice(0, 5), parts.slice(5).join(':')];
}

/** An IP range: its family, its first address and its prefix length. */
export interface IpRange {
  readonly family: 4 | 6;
  readonly bits: bigint;
  readonly prefix: number;
}

/** `203.0.113.0/24`, `2001:db8::/32` or a single address; undefined when it is neither. */
export function parseIpRange(text: string): IpRange | undefined {
  const [address = '', prefixText, ...rest] = text.trim().split('/');
  if (rest.length > 0) return undefined;
  const ip = parseIp(address);
  if (ip === undefined) return undefined;
  const width = ip.family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? width : Number(prefixText);
  if (!/^\d*$/.test(prefixText ?? '') || !Number.isInteger(prefix) || prefix < 0 || prefix > width)
    return undefined;
  return { family: ip.family, bits: ip.bits, prefix };
}

export function ipInRange(address: string, range: IpRange): boolean {
  const ip = parseIp(address);
  if (ip === undefined || ip.family !== range.family) return false;
  const width = BigInt(ip.family === 4 ? 32 : 128);
  const shift = width - BigInt(range.prefix);
  return ip.bits >> shift === range.bits >> shift;
}

function parseIp(text: string): { family: 4 | 6; bits: bigint } | undefined {
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return { family: 4, bits: v4 };
  const v6 = parseIpv6(text);
  return v6 === undefined ? undefined : { family: 6, bits: v6 };
}

function parseIpv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let bits = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    bits = (bits << 8n) | BigInt(Number(part));
  }
  return bits;
}

function parseIpv6(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string | undefined) =>
    half === undefined || half === '' ? [] : half.split(':');
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  // An IPv4 address may close the address (::ffff:192.0.2.1): two groups' worth.
  const last = (halves.length === 2 ? tail : head).at(-1);
  const v4 = last?.includes('.') === true ? parseIpv4(last) : undefined;
  if (last?.includes('.') === true && v4 === undefined) return undefined;
  const hexGroups = [...head, ...tail].filter((g) => !g.includes('.'));
  const count = hexGroups.length + (v4 === undefined ? 0 : 2);
  if (halves.length === 2 ? count > 7 : count !== 8) return undefined;
  if (!hexGroups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  const fill = 8 - count;
  const headHex = head.filter((g) => !g.includes('.'));
  const tailHex = tail.filter((g) => !g.includes('.'));
  let bits = 0n;
  const words = [...headHex, ...Array<string>(fill).fill('0'), ...tailHex];
  for (const word of words) bits = (bits << 16n) | BigInt(Number.parseInt(word, 16));
  if (v4 !== undefined) bits = (bits << 32n) | v4;
  return bits;
}
