/**
 * A duration: seconds as a number, or text such as `'90s'`, `'5m'`, `'1h'`, `'2d'` (or SWF's own
 * digit strings). SWF counts whole seconds, so a fraction rounds up: nothing fires early.
 */
export type Duration = number | `${number}${'s' | 'm' | 'h' | 'd'}` | `${number}`;

/** A timeout that may also be SWF's `'NONE'` (no limit), where SWF allows one. */
export type Timeout = Duration | 'NONE';

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** The whole seconds a duration names; a RangeError for anything that is not one. */
export function durationSeconds(duration: Duration, what = 'duration'): number {
  const seconds = typeof duration === 'number' ? duration : parseText(duration, what);
  if (!Number.isFinite(seconds) || seconds < 0)
    throw new RangeError(
      `${what} must be a duration of 0 seconds or more, not ${String(duration)}`,
    );
  return Math.ceil(seconds);
}

function parseText(text: string, what: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([smhd]?)$/.exec(text.trim());
  if (match === null)
    throw new RangeError(
      `${what} must be seconds or a number with a unit (s, m, h, d), such as '5m', not '${text}'`,
    );
  return Number(match[1]) * (UNIT_SECONDS[match[2] || 's'] ?? 1);
}

/** SWF's text for a timeout: whole seconds, or NONE. */
export function timeoutText(timeout: Timeout, what: string): string {
  return timeout === 'NONE' ? 'NONE' : String(durationSeconds(timeout, what));
}
