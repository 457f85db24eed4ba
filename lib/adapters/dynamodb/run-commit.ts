import { randomBytes } from 'node:crypto';
import type { ExecutionState } from '../../core/execution-state.js';
import type { HistoryEvent } from '../../core/history-event.js';
import { type QueuedTaskRef, queuedTasks } from '../../core/task-queue.js';
import type {
  CommitOutcome,
  HistoryPage,
  LoadedRun,
  OpenPointerChange,
  RunWrite,
} from '../../ports/run-store.js';
import type { TableRef } from './client.js';
import { isDynamoError } from './doc-client.js';
import { type HistoryPageRequest, parseEvents } from './history-chunks.js';
import { keys } from './keys.js';
import {
  type AcquirePointer,
  type OpenRunPointers,
  POINTER_ATTEMPTS,
  pointerExpiry,
} from './open-run-pointers.js';
import type { RunCommitItems, RunItems } from './run-commit-items.js';
import { commitCount, versionOf } from './run-versions.js';
import { STATE_APART } from './state-parts.js';
import type { TaskQueueItems } from './task-queue-items.js';
import { isLockConflict, type TransactItem, transactWrite } from './transact.js';

/** DynamoDB's limit on one transaction's items. */
const MAX_TRANSACTION_ITEMS = 100;

/** What a transaction item is to the commit: which failed condition means what. */
type Role = 'state' | 'acquire' | 'pointer' | 'other';

interface RoledItem {
  readonly item: TransactItem;
  readonly role: Role;
}

const sameBytes = (a: unknown, b: unknown) =>
  a instanceof Uint8Array && b instanceof Uint8Array ? Buffer.from(a).equals(b) : a === b;

/** What a commit reads and writes besides its own items. */
export interface RunCommitParts {
  readonly table: TableRef;
  readonly items: RunCommitItems;
  readonly queue: TaskQueueItems;
  readonly pointers: OpenRunPointers;
  readonly loadRun: (runId: string) => Promise<LoadedRun | undefined>;
  readonly readHistory: (runId: string, page: HistoryPageRequest) => Promise<HistoryPage>;
}

/**
 * A run's change is one conditional write of its state item, guarded by its version. The item also
 * holds the run's latest events (`recent`) while it stays within one write unit; a commit that would
 * outgrow it first writes the events already committed as a history chunk (any writer that read the
 * same version writes the same chunk, and a chunk never shrinks: see HistoryChunks.put), then keeps
 * only its own. So a change costs one write of about 1 KB, not a transaction of the state and a chunk.
 *
 * The queue entries of tasks the commit schedules are written before it (a poller that finds one
 * before the commit lands leaves it: see entryStatus); those it withdraws or claims are removed after
 * it, and those of a commit that does not land are taken back (see withdrawUnlanded). A commit of one
 * run without pointer changes is a PutItem; anything more is one transaction.
 */
export class RunCommit {
  constructor(private readonly parts: RunCommitParts) {}

  async commit(
    writes: readonly RunWrite[],
    pointers: readonly OpenPointerChange[],
  ): Promise<CommitOutcome> {
    // Marks the entries this attempt writes ahead of its commit, so it can take back its own only.
    const attempt = randomBytes(6).toString('base64url');
    const runs = writes.map((write) => this.parts.items.build(write, attempt));
    await Promise.all(runs.flatMap((run) => run.before.map((step) => step())));
    const outcome = await this.write(runs, pointers, writes);
    if (outcome === 'committed')
      await this.parts.queue.removeEntries(runs.flatMap((run) => run.after));
    else await this.withdrawUnlanded(writes, attempt);
    return outcome;
  }

  /** The cheapest write that carries the commit: one put, a start's two, or a transaction. */
  private async write(
    runs: readonly RunItems[],
    pointers: readonly OpenPointerChange[],
    writes: readonly RunWrite[],
  ): Promise<CommitOutcome> {
    const only = runs.length === 1 && runs[0]?.chunks.length === 0 ? runs[0] : undefined;
    const pointer = pointers.length <= 1 ? pointers[0] : undefined;
    if (only !== undefined && pointers.length === 0) return this.putState(only);
    if (only !== undefined && pointer?.kind === 'acquire')
      return this.startRun(only, pointer, writes[0]?.state);
    return this.transactTakingOver(runs, pointers, writes);
  }

  /**
   * Takes back the entries a commit that did not land wrote ahead of it. Left, they would be counted
   * by CountPending* and read by every poll until one found them stale: the task they name is
   * scheduled at another moment, or not at all, by the commit that won (their sort key holds the
   * scheduling time). A run that was not created can only have its own (its runId was new). An entry
   * of an existing run may share its key with a task another writer committed (the same task scheduled
   * in the same millisecond), so it is removed only when the run, read after the conflict, does not
   * hold that task queued, and only while it is still this attempt's (a later writer's put of the same
   * key stays). Best effort, as removals are: a poller drops what is left once it finds it stale.
   */
  private async withdrawUnlanded(writes: readonly RunWrite[], attempt: string): Promise<void> {
    const { queue } = this.parts;
    await queue.removeEntries(writes.flatMap((w) => (w.base === undefined ? w.queue.add : [])));
    const existing = writes.filter((w) => w.base !== undefined && w.queue.add.length > 0);
    try {
      await Promise.all(existing.map((write) => this.withdrawUnheld(write, attempt)));
    } catch {
      // see TaskQueueItems.removeEntries
    }
  }

  /** Removes this attempt's entries of tasks `write` scheduled that its run does not hold queued. */
  private async withdrawUnheld(write: RunWrite, attempt: string): Promise<void> {
    const { queue } = this.parts;
    const current = await this.parts.loadRun(write.state.execution.runId);
    const held = new Set(queuedTasks(current?.state).map((task) => queue.entryId(task)));
    const unheld = write.queue.add.filter((task: QueuedTaskRef) => !held.has(queue.entryId(task)));
    await Promise.all(unheld.map((task) => queue.dropOwnEntry(task, attempt)));
  }

  private async putState(run: RunItems): Promise<CommitOutcome> {
    const put = run.state.Put;
    if (put?.Item === undefined) throw new Error('a state item is written by a Put');
    const ours = put.Item;
    try {
      await this.parts.table.doc.put({ ...put, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
      return 'committed';
    } catch (error) {
      // The client's retry of a put whose first try landed (its answer lost: a timeout, a reset, a
      // 500) fails its condition on the item that try wrote: committed, not a lost race. Only a
      // retry can meet its own first try: a condition failed at the first try is a lost race.
      if (isDynamoError(error, 'ConditionalCheckFailedException'))
        return error.attempts > 1 && (await this.ownCommitIn(error.Item, ours, run.events))
          ? 'committed'
          : 'conflict';
      if (isLockConflict(error)) return 'conflict';
      // Every try failed, and the last may have landed all the same: the item tells. A commit that
      // landed is reported as one, so that what it started or handed over (a task for a waiting
      // poller, a Lambda task) is carried out; one that did not, as the error.
      if (await this.landed(ours, run.events)) return 'committed';
      throw error;
    }
  }

  /**
   * Whether `stored`, a run's state item as it is now, holds the commit that put `ours`, asked only
   * when that commit may have landed unseen (its put was retried, or every try failed): the same
   * version with the same bytes, or a later version whose history holds this commit's own events
   * exactly (other commits landed between its first try and its retry; they may have moved its events
   * into a chunk). The version's nonce tells this commit from another writer's of the same bytes
   * (see run-versions.ts); the item carries no other mark (every byte of it is paid for on every
   * change of the run). Such an identical commit followed by later commits, all before this one's
   * retry, could still pass for it in the history. A commit of no events that later ones followed is
   * not recognised: deciding it again changes nothing.
   */
  private async ownCommitIn(
    stored: Record<string, unknown> | undefined,
    ours: Record<string, unknown>,
    events: readonly HistoryEvent[],
  ): Promise<boolean> {
    const storedVersion = versionOf(stored);
    const version = versionOf(ours);
    if (stored === undefined || storedVersion === undefined || version === undefined) return false;
    if (storedVersion === version)
      return (
        sameBytes(stored.state, ours.state) &&
        sameBytes(stored.recent, ours.recent) &&
        stored[STATE_APART] === ours[STATE_APART]
      );
    // Another writer's commit of the same count (its own nonce), or an older one: not this commit.
    const first = events[0];
    if (commitCount(storedVersion) <= commitCount(version) || first === undefined) return false;
    const { events: found } = await this.parts.readHistory(keys.runIdOf(String(ours.pk)), {
      after: first.eventId,
      limit: events.length,
      reverse: false,
      recent: parseEvents(stored.recent),
    });
    return (
      found.length === events.length &&
      events.every((e, i) => JSON.stringify(found[i]) === JSON.stringify(e))
    );
  }

  /** Whether the state item holds the commit that put `ours` (false when it cannot be read either). */
  private async landed(
    ours: Record<string, unknown>,
    events: readonly HistoryEvent[],
  ): Promise<boolean> {
    try {
      const { Item } = await this.parts.table.doc.get({
        TableName: this.parts.table.tableName,
        Key: { pk: ours.pk, sk: ours.sk },
        ConsistentRead: true,
      });
      return await this.ownCommitIn(Item, ours, events);
    } catch {
      return false;
    }
  }

  /**
   * A new run of one workflowId (at most one open run per workflowId): its pointer first, taking over
   * one left stale (see OpenRunPointers), then its state; a start whose state is not written gives
   * the pointer back. Two writes of one unit each instead of a transaction of both (four). A crash
   * between them leaves a pointer to a run never written, which the next start fences and takes over
   * at once; a start fenced while slow between them finds its state's put refused ('conflict').
   */
  private async startRun(
    run: RunItems,
    pointer: AcquirePointer,
    state: ExecutionState | undefined,
  ): Promise<CommitOutcome> {
    const { pointers } = this.parts;
    if (!(await pointers.acquire(pointer, pointerExpiry(state)))) return 'already-open';
    let outcome: CommitOutcome;
    try {
      outcome = await this.putState(run);
    } catch (error) {
      // A put that threw may have landed (its answer lost), or may land yet (a try still on its
      // way): the start's own fence settles it. Fenced, the run can never be written and the
      // pointer goes; else the run is there, and keeps it (as it does when the fence cannot be
      // written either).
      const barred = await pointers.fence(pointer.runId).catch(() => false);
      if (barred) await pointers.release(pointer);
      throw error;
    }
    if (outcome !== 'committed') await pointers.release(pointer);
    return outcome;
  }

  /**
   * A commit of several runs, or with chunks or a pointer move, as one transaction. A pointer it
   * acquires that is held stale is taken over (the transaction retried, conditional on the stale run).
   */
  private async transactTakingOver(
    runs: readonly RunItems[],
    pointers: readonly OpenPointerChange[],
    writes: readonly RunWrite[],
  ): Promise<CommitOutcome> {
    const stale = new Map<AcquirePointer, string>();
    for (let attempt = 0; attempt < POINTER_ATTEMPTS; attempt++) {
      const outcome = await this.transact(
        this.transactionItems(runs, pointers, stale, writes),
        runs,
      );
      if (outcome !== 'already-open') return outcome;
      for (const p of pointers) {
        if (p.kind !== 'acquire') continue;
        const held = await this.parts.pointers.heldBy(p);
        if (held === 'open') return 'already-open';
        if (held === 'this run' || held.stale === undefined) stale.delete(p);
        else stale.set(p, held.stale);
      }
    }
    return 'already-open';
  }

  /** The transaction's items: the runs' state items and chunks, then the pointers it moves. */
  private transactionItems(
    runs: readonly RunItems[],
    pointers: readonly OpenPointerChange[],
    stale: ReadonlyMap<AcquirePointer, string>,
    writes: readonly RunWrite[],
  ): RoledItem[] {
    const stateOf = (runId: string) => writes.find((w) => w.state.execution.runId === runId)?.state;
    const pointerItem = (pointer: OpenPointerChange): RoledItem =>
      pointer.kind === 'acquire'
        ? {
            item: this.parts.pointers.item(pointer, stateOf(pointer.runId), stale.get(pointer)),
            role: 'acquire',
          }
        : { item: this.parts.pointers.item(pointer, stateOf(pointer.to)), role: 'pointer' };
    const items: RoledItem[] = [
      ...runs.flatMap((run) => [
        { item: run.state, role: 'state' as const },
        ...run.chunks.map((item) => ({ item, role: 'other' as const })),
      ]),
      ...pointers.map(pointerItem),
    ];
    if (items.length > MAX_TRANSACTION_ITEMS)
      throw new Error(`a commit of ${items.length} items exceeds one transaction`);
    return items;
  }

  private async transact(
    items: readonly RoledItem[],
    runs: readonly RunItems[],
  ): Promise<CommitOutcome> {
    let outcome: Awaited<ReturnType<typeof transactWrite>>;
    try {
      outcome = await transactWrite(
        this.parts.table.doc,
        items.map((c) => c.item),
        { conflictAsOutcome: true },
      );
    } catch (error) {
      // Every try failed, and one may have landed all the same (its answer lost: a timeout, a 500):
      // a transaction lands whole, so its first run's state item tells, as a single put's does.
      const first = runs[0];
      const ours = first?.state.Put?.Item;
      if (first !== undefined && ours !== undefined && (await this.landed(ours, first.events)))
        return 'committed';
      throw error;
    }
    if (outcome.ok) return 'committed';
    const roles = outcome.failed.map((i) => items[i]?.role ?? 'other');
    return roles.includes('acquire') ? 'already-open' : 'conflict';
  }
}
