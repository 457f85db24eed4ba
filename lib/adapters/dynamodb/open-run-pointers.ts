import type { ExecutionState } from '../../core/execution-state.js';
import { executionTimeoutSeconds } from '../../core/limits.js';
import type { OpenPointerChange } from '../../ports/run-store.js';
import type { TableRef } from './client.js';
import { isDynamoError } from './doc-client.js';
import { keys } from './keys.js';
import { backoff, isLockConflict, type TransactItem } from './transact.js';

/**
 * A workflowId's open-run pointer (one item per domain and workflowId) and the fences that keep it
 * honest. A start writes its pointer first and its run's state item second, each one write unit;
 * a crash between the two (the process killed, a Lambda container timed out) leaves a pointer to a
 * run that was never written. Whoever next wants the workflowId and finds its pointer's run missing
 * writes a fence where that run's state item would go, on the same condition the state's own put
 * carries (no item there yet): exactly one of the two lands. Once the fence is there the run can
 * never be written, so the pointer is nobody's and is taken over at once; if the state landed first,
 * the run exists and holds the workflowId. A start merely slow between its writes loses the
 * workflowId to the one that fenced it (its state's put fails), as it would have lost a plain race.
 * docs/start-atomicity.md has the reasoning.
 */

/** Attempts at a workflowId's pointer when other starts keep changing it. */
export const POINTER_ATTEMPTS = 5;
/** How long after its run's start-to-close timeout a pointer expires: a day, for a timeout fired late. */
const POINTER_EXPIRY_MARGIN_SECONDS = 86_400;
/**
 * How long a fence stays (DynamoDB TTL): far past the longest any write of the start it bars may
 * still be on its way (a Lambda function lives 15 minutes at most; a request's retries, minutes).
 */
const FENCE_LIFETIME_SECONDS = 86_400;
/** The entity of a fence item: never a run, so no reader takes it for one, nor the outbox. */
export const FENCE_ENTITY = 'FencedRun';

export type AcquirePointer = Extract<OpenPointerChange, { kind: 'acquire' }>;

/** What the pointers need to know of a run: its state, 'expired' (retention passed), or not there. */
export type RunReader = (runId: string) => Promise<ExecutionState | 'expired' | undefined>;

/**
 * When the pointer to `run` expires (DynamoDB TTL, epoch seconds): a close leaves its pointer, so this
 * is what removes it, once the run can no longer be open (its start-to-close timeout has passed).
 * Undefined, for no run in hand: a pointer that stays until a start takes it over.
 */
export function pointerExpiry(run: ExecutionState | undefined): number | undefined {
  if (run === undefined) return undefined;
  const timeout = executionTimeoutSeconds(run.config.executionStartToCloseTimeout);
  if (!Number.isFinite(timeout)) return undefined;
  return Math.ceil(run.startTimestamp + timeout + POINTER_EXPIRY_MARGIN_SECONDS);
}

export class OpenRunPointers {
  constructor(
    private readonly table: TableRef,
    private readonly nowSeconds: () => number,
    private readonly readRun: RunReader,
  ) {}

  /**
   * Points a workflowId at a new run unless another run of it is open. A pointer is written before
   * its run's state and left by its run's close, so it may name a run that is closed, gone (expired)
   * or never written (its start crashed, or is between its writes): each is taken over, conditionally
   * on the pointer still naming that run, the last once it is fenced (see fence).
   */
  async acquire(p: AcquirePointer, expiresAt: number | undefined): Promise<boolean> {
    let stale: string | undefined;
    let locked: unknown;
    for (let attempt = 0; attempt < POINTER_ATTEMPTS; attempt++) {
      try {
        await this.table.doc.put({
          TableName: this.table.tableName,
          Item: this.record(p.domain, p.workflowId, p.runId, expiresAt),
          ...acquireCondition(stale),
        });
        return true;
      } catch (error) {
        // A transaction in flight holds the pointer (a continue-as-new moving it, a child start
        // taking it): DynamoDB refuses the put at once with TransactionConflictException (DynamoDB
        // Local waits for the lock instead). The pointer as it was tells whose it is, as after a
        // failed condition; a pause lets the transaction finish before the next try.
        locked = isLockConflict(error) ? error : undefined;
        if (locked !== undefined) await backoff(attempt);
        else if (!isDynamoError(error, 'ConditionalCheckFailedException')) throw error;
      }
      const held = await this.heldBy(p);
      if (held === 'this run') return true;
      if (held === 'open') return false;
      stale = held.stale;
    }
    // A transaction still held the pointer at the last try: nobody is known to hold the workflowId,
    // so the start is not refused as already started but answered busy (ThrottlingException, which
    // clients retry).
    if (locked !== undefined) throw locked;
    // Other starts kept changing the pointer: one of them holds the workflowId now.
    return false;
  }

  /**
   * Whose a workflowId's pointer is, for a start that found it taken: this run's (a retry), an open
   * run's, or nobody's (gone since, or stale: the run it names, to take it over from).
   */
  async heldBy(p: AcquirePointer): Promise<'this run' | 'open' | { stale: string | undefined }> {
    const holder = await this.holder(p.domain, p.workflowId);
    if (holder === undefined) return { stale: undefined };
    if (holder === p.runId) return 'this run';
    return (await this.isStale(holder, p.startedAt)) ? { stale: holder } : 'open';
  }

  /** Best effort, for a start that failed: a pointer left behind is taken over by the next start. */
  async release(p: AcquirePointer): Promise<void> {
    try {
      await this.table.doc.delete({
        TableName: this.table.tableName,
        Key: keys.openRun(p.domain, p.workflowId),
        ConditionExpression: 'runId = :r',
        ExpressionAttributeValues: { ':r': p.runId },
      });
    } catch {
      // see above
    }
  }

  /** The run a workflowId's pointer names, whatever became of it. */
  async holder(domain: string, workflowId: string): Promise<string | undefined> {
    const { Item } = await this.table.doc.get({
      TableName: this.table.tableName,
      Key: keys.openRun(domain, workflowId),
      ConsistentRead: true,
    });
    return typeof Item?.runId === 'string' ? Item.runId : undefined;
  }

  /**
   * Bars a run that is not written from ever being written: an item where its state would go, put
   * on the condition its state's put carries (nothing there). True once the run is barred (by this
   * fence, or one before it: a retried put meets its own first try); false when its state is there.
   */
  async fence(runId: string): Promise<boolean> {
    try {
      await this.table.doc.put({
        TableName: this.table.tableName,
        Item: {
          ...keys.runState(runId),
          entity: FENCE_ENTITY,
          expiresAt: Math.ceil(this.nowSeconds() + FENCE_LIFETIME_SECONDS),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return true;
    } catch (error) {
      if (!isDynamoError(error, 'ConditionalCheckFailedException')) throw error;
      return error.Item?.entity === FENCE_ENTITY;
    }
  }

  /** The pointer a start or a continue-as-new writes in a transaction. */
  item(p: OpenPointerChange, run: ExecutionState | undefined, stale?: string): TransactItem {
    const expiresAt = pointerExpiry(run);
    const TableName = this.table.tableName;
    switch (p.kind) {
      case 'acquire':
        return {
          Put: {
            TableName,
            Item: this.record(p.domain, p.workflowId, p.runId, expiresAt),
            ...acquireCondition(stale),
          },
        };
      case 'move':
        return {
          Put: {
            TableName,
            Item: this.record(p.domain, p.workflowId, p.to, expiresAt),
            ConditionExpression: 'runId = :r',
            ExpressionAttributeValues: { ':r': p.from },
          },
        };
    }
  }

  private record(domain: string, workflowId: string, runId: string, expiresAt?: number) {
    return {
      ...keys.openRun(domain, workflowId),
      entity: 'OpenRun',
      runId,
      since: this.nowSeconds(),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    };
  }

  /**
   * A pointer's run is closed or gone (expired: with a retention of 0 a run is gone as it closes,
   * however recently its pointer was written), or was never written: fenced, so it never will be.
   */
  private async isStale(holder: string, startedAt: number): Promise<boolean> {
    let run = await this.readRun(holder);
    if (run === undefined) {
      if (await this.fence(holder)) return true;
      // Its state landed as the fence was tried: the run exists after all.
      run = await this.readRun(holder);
      if (run === undefined) return false;
    }
    if (run === 'expired') return true;
    // Closed since the new run's start was stamped: open at that moment (see OpenPointerChange).
    return run.status !== 'OPEN' && (run.closeTimestamp ?? 0) <= startedAt;
  }
}

/** A pointer is put where there is none, or over the stale one a reader found (still naming that run). */
const acquireCondition = (stale: string | undefined) =>
  stale === undefined
    ? { ConditionExpression: 'attribute_not_exists(pk)' }
    : {
        ConditionExpression: 'attribute_not_exists(pk) OR runId = :stale',
        ExpressionAttributeValues: { ':stale': stale },
      };
