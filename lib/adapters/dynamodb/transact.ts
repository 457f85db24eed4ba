import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The outcome of one conditional transaction: done, or the indexes of the items whose condition failed. */
export type TransactOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly failed: readonly number[] };

const MAX_CONFLICT_RETRIES = 8;

/**
 * Runs a TransactWriteItems and turns a cancellation into data: which conditions failed. Conflicts with
 * another transaction in flight (TransactionConflict) are retried with jittered backoff, since the other
 * writer's outcome may make ours succeed.
 */
export async function transactWrite(
  doc: DynamoDBDocumentClient,
  items: readonly TransactItem[],
): Promise<TransactOutcome> {
  for (let attempt = 0; ; attempt++) {
    try {
      await doc.send(new TransactWriteCommand({ TransactItems: [...items] }));
      return { ok: true };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const failed = reasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : []));
      if (failed.length > 0) return { ok: false, failed };
      const conflict = reasons.some((r) => r.Code === 'TransactionConflict');
      if (!conflict || attempt >= MAX_CONFLICT_RETRIES) throw error;
      await backoff(attempt);
    }
  }
}

export const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * 2 ** attempt));
