/**
 * SWF's hard limit on an execution's lifetime (a year): no execution start-to-close timeout is longer,
 * and an execution whose timeout is `NONE` (a child's or a continued run's may be) still times out then.
 */
export const MAX_EXECUTION_SECONDS = 31_536_000;

/** An execution's start-to-close timeout in seconds: `NONE` is the one-year limit. */
export const executionTimeoutSeconds = (timeout: string): number =>
  timeout === 'NONE' ? MAX_EXECUTION_SECONDS : Number(timeout);

/**
 * The first `max` UTF-16 units of `text` (SWF's lengths count them), one fewer where the cut would
 * split a surrogate pair: what is recorded stays well-formed text.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** Per-execution quotas SWF documents. */
export const executionLimits = {
  openActivities: 1000,
  openTimers: 1000,
  openChildren: 1000,
  openLambdaFunctions: 1000,
  /** SWF terminates an execution whose history would grow past this (cause EVENT_LIMIT_EXCEEDED). */
  historyEvents: 25_000,
} as const;
