import { type Duration, durationSeconds } from './duration.js';
import { ActivityFailedError, ActivityTimedOutError } from './errors.js';

/**
 * How an activity is tried again after it fails or times out. Each wait is a durable timer of
 * `initialInterval × backoffCoefficient^(attempt-1)` seconds, at most `maximumInterval`: the retries
 * are in the history, and a worker restart loses none of them.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included (default 5). */
  readonly maximumAttempts?: number;
  /** The wait before the second attempt (default 1 s). */
  readonly initialInterval?: Duration;
  /** How much each wait grows (default 2). */
  readonly backoffCoefficient?: number;
  /** The longest wait (default 100 × initialInterval). */
  readonly maximumInterval?: Duration;
  /** ActivityTaskFailed reasons that are final: not tried again. */
  readonly nonRetryableReasons?: readonly string[];
  /** Whether a timed-out attempt is tried again (default true). */
  readonly retryTimeouts?: boolean;
}

export const DEFAULT_RETRY_ATTEMPTS = 5;

/** Whether the attempt that failed with `error` (1 for the first) is followed by another. */
export function shouldRetry(policy: RetryPolicy, error: unknown, attempt: number): boolean {
  if (attempt >= (policy.maximumAttempts ?? DEFAULT_RETRY_ATTEMPTS)) return false;
  if (error instanceof ActivityFailedError)
    return !(policy.nonRetryableReasons ?? []).includes(error.reason ?? '');
  return error instanceof ActivityTimedOutError && policy.retryTimeouts !== false;
}

/** The whole seconds to wait after failed attempt `attempt` (1 for the first). */
export function retryDelaySeconds(policy: RetryPolicy, attempt: number): number {
  const initial = durationSeconds(policy.initialInterval ?? 1, 'retry initialInterval');
  const coefficient = policy.backoffCoefficient ?? 2;
  if (!(coefficient >= 1)) throw new RangeError('retry backoffCoefficient must be 1 or more');
  const maximum =
    policy.maximumInterval === undefined
      ? initial * 100
      : durationSeconds(policy.maximumInterval, 'retry maximumInterval');
  return Math.ceil(Math.min(initial * coefficient ** (attempt - 1), maximum));
}

/** A policy's settings checked once, when the activity is defined or called. */
export function checkRetryPolicy(policy: RetryPolicy): void {
  const attempts = policy.maximumAttempts ?? DEFAULT_RETRY_ATTEMPTS;
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new RangeError(
      `retry maximumAttempts must be a whole number of 1 or more, not ${attempts}`,
    );
  retryDelaySeconds(policy, 1);
}
