import { sleep } from '../aws-json/sleep.js';
import { describeError, isRetryable, isUnknownResource } from './errors.js';
import type { Logger } from './logger.js';

export { sleep };

/** Resolves when `signal` fires (at once if it already has). */
export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

export type ReportOutcome = 'sent' | 'taskGone' | 'failed';

/**
 * Sends a Respond* call, retrying throttling/5xx/network errors with backoff (a lost response would
 * leave the task to time out). UnknownResourceFault means the task or its execution is gone.
 */
export async function report(
  call: () => Promise<unknown>,
  what: string,
  logger: Logger,
  attempts = 6,
): Promise<ReportOutcome> {
  let attempt = 0;
  try {
    await retrying(() => {
      attempt++;
      return call();
    }, attempts);
    return 'sent';
  } catch (error) {
    // Not retryable, so never retried.
    if (isUnknownResource(error)) {
      logger.debug(`${what}: the task is gone (UnknownResourceFault)`);
      return 'taskGone';
    }
    logger.error(`${what} failed`, { error: describeError(error), attempt });
    return 'failed';
  }
}

/**
 * A call's answer, the call tried again on throttling, 5xx and network errors with backoff (about
 * 6 s over 6 attempts); any other error, or the last, is thrown.
 */
export async function retrying<T>(call: () => Promise<T>, attempts = 6): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isRetryable(error) || attempt >= attempts) throw error;
      await sleep(Math.min(100 * 2 ** attempt, 5_000));
    }
  }
}

/** Listens for process signals (SIGTERM …) until the returned function is called. */
export function onProcessSignals(
  signals: readonly NodeJS.Signals[],
  handler: (signal: NodeJS.Signals) => void,
): () => void {
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}

/**
 * The first `max` UTF-16 units of `text` (SWF's lengths count them), one fewer where the cut would
 * split a surrogate pair: an emoji is never left half there.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** The same, of text that may be absent. */
export const cutOrUndefined = (text: string | undefined, max: number) =>
  text === undefined ? undefined : cutText(text, max);

/** The seconds an SWF duration names (a string of digits); undefined for NONE or anything else. */
export function durationSeconds(timeout: string | undefined): number | undefined {
  return timeout !== undefined && /^\d+$/.test(timeout) ? Number(timeout) : undefined;
}

/** A short, stable identity for pollers: host and pid. */
export const defaultIdentity = (kind: string) => `${kind}-${process.pid}`.slice(0, 256);

/**
 * An AbortSignal that aborts after `ms` (a TimeoutError naming `what`) or when `outer` aborts, until
 * `clear()`. Unlike AbortSignal.timeout and AbortSignal.any, whose signals their timer and sources
 * hold only weakly, the pending timer holds this one: a call that hangs on a promise nothing else
 * references (a dead socket) is still given up, even after a garbage collection.
 */
export function deadlineSignal(
  ms: number,
  what: string,
  outer?: AbortSignal,
): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`${what} took over ${ms} ms`, 'TimeoutError')),
    ms,
  );
  const onOuter = () => controller.abort(outer?.reason);
  if (outer?.aborted) onOuter();
  else outer?.addEventListener('abort', onOuter, { once: true });
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    },
  };
}
