import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ThrottlingException } from '../../core/faults.js';
import { type DocClient, isDynamoError } from './doc-client.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The outcome of one conditional transaction: done, or the indexes of the items whose condition failed. */
export type TransactOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly failed: readonly number[] };

const MAX_CONFLICT_RETRIES = 8;
const CANCELED = 'TransactionCanceledException';
/** Cancellation reasons that say DynamoDB throttled the transaction's items. */
export const THROTTLED_REASONS: ReadonlySet<string> = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
]);

/**
 * Runs a TransactWriteItems and turns a cancellation into data: which conditions failed. Conflicts with
 * another transaction in flight (TransactionConflict) are retried with jittered backoff, since the other
 * writer's outcome may make ours succeed.
 */
export async function transactWrite(
  doc: DocClient,
  items: readonly TransactItem[],
  /** Report a conflict that outlasts the retries as a failure with no failed condition, not an error. */
  options: { readonly conflictAsOutcome?: boolean } = {},
): Promise<TransactOutcome> {
  for (let attempt = 0; ; attempt++) {
    try {
      await doc.transactWrite({ TransactItems: [...items] });
      return { ok: true };
    } catch (error) {
      if (!isConflict(error)) {
        if (!isDynamoError(error, CANCELED)) throw error;
        const reasons = error.CancellationReasons ?? [];
        const failed = reasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : []));
        if (failed.length > 0) return { ok: false, failed };
        // DynamoDB throttled an item of it: a transient failure, to be tried again later (a stream record's
        // batch is retried, an API client retries a ThrottlingException), not the request's fault.
        if (reasons.some((r) => THROTTLED_REASONS.has(r.Code ?? '')))
          throw new ThrottlingException('DynamoDB throttled the transaction; try again', {
            cause: error,
          });
        throw error;
      }
      // DynamoDB Local reports a conflict only after waiting out a lock, and the SDK has already retried:
      // a caller that re-reads gets on faster than another wait would.
      const waitedForLock = !isDynamoError(error, CANCELED);
      if (
        attempt >= MAX_CONFLICT_RETRIES ||
        (waitedForLock && options.conflictAsOutcome === true)
      ) {
        // Still conflicting: a caller that can re-read and decide again does so, as after a lost race.
        if (options.conflictAsOutcome === true) return { ok: false, failed: [] };
        // Other writers of the same items kept winning: the request may be tried again later, as
        // one over SWF's rate is (400, which clients retry after a pause), not a failure (500).
        throw new ThrottlingException(
          `Other requests kept changing the same records through ${MAX_CONFLICT_RETRIES + 1} attempts; try again`,
          { cause: error },
        );
      }
      await backoff(attempt);
    }
  }
}

/**
 * Another transaction held an item: TransactionConflict on DynamoDB; on DynamoDB Local, whose lock
 * waits are shorter, an InternalServerError "...waiting for a lock...".
 */
function isConflict(error: unknown): boolean {
  if (isDynamoError(error, CANCELED)) {
    const reasons = error.CancellationReasons ?? [];
    return (
      !reasons.some((r) => r.Code === 'ConditionalCheckFailed') &&
      reasons.some((r) => r.Code === 'TransactionConflict')
    );
  }
  return isLockConflict(error);
}

/**
 * A single-item write that met a transaction holding its item: TransactionConflictException on
 * DynamoDB, "...waiting for a lock..." on DynamoDB Local. The writer re-reads and decides again.
 */
export function isLockConflict(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === 'TransactionConflictException' ||
      (error.name === 'InternalServerError' && error.message.includes('waiting for a lock')))
  );
}

export const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * 2 ** attempt));
