/**
 * A duration: seconds as a number, or text such as `'90s'`, `'5m'`, `'1h'`, `'30d'`. The same forms
 * the SDK's workflows take.
 */
export type Duration = number | `${number}${'s' | 'm' | 'h' | 'd'}` | `${number}`;

const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** The milliseconds a duration names; a RangeError for anything that is not one. */
export function durationMs(duration: Duration, what = 'duration'): number {
  const ms = typeof duration === 'number' ? duration * 1_000 : parse(duration, what);
  if (!Number.isFinite(ms) || ms < 0)
    throw new RangeError(
      `${what} must be a duration of 0 seconds or more, not ${String(duration)}`,
    );
  return ms;
}

function parse(text: string, what: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([smhd]?)$/.exec(text.trim());
  if (match === null)
    throw new RangeError(
      `${what} must be seconds or a number with a unit (s, m, h, d), such as '30d', not '${text}'`,
    );
  return Number(match[1]) * (UNIT_MS[match[2] || 's'] ?? 1_000);
}
