import { randomBytes, randomInt } from 'node:crypto';
import type { ExecutionState } from '../../core/execution-state.js';
import type { HistoryEvent } from '../../core/history-event.js';
import { cutText } from '../../core/limits.js';
import { outboxEffects } from '../../core/outbox.js';
import { type QueuedTaskRef, queuedTasks, type TaskKind } from '../../core/task-queue.js';
import type { DeadLetter, DeadLetterStore } from '../../ports/dead-letter-store.js';
import type { ActivityHeartbeat, HeartbeatStore } from '../../ports/heartbeat-store.js';
import type { LambdaTaskClaims } from '../../ports/lambda-task-claims.js';
import type {
  CommitOutcome,
  HistoryPage,
  LoadedRun,
  OpenPointerChange,
  RunStore,
  RunWrite,
} from '../../ports/run-store.js';
import type { QueueEntry, TaskQueueStore } from '../../ports/task-queue-store.js';
import { toWireItem } from './attribute-values.js';
import { queryPages, type TableRef } from './client.js';
import { isDynamoError } from './doc-client.js';
import { itemSize } from './item-size.js';
import { type ItemKey, keys } from './keys.js';
import {
  type AcquirePointer,
  OpenRunPointers,
  POINTER_ATTEMPTS,
  pointerExpiry,
} from './open-run-pointers.js';
import { packJson, unpackJson } from './packed-json.js';
import { outboxRecords } from './table-schema.js';
import { isLockConflict, type TransactItem, transactWrite } from './transact.js';

/** DynamoDB's limits on one transaction (100 items) and one item (400 KB, kept well clear of). */
const MAX_TRANSACTION_ITEMS = 100;
/** UTF-8 bytes of events' JSON per history chunk (deflate never grows them by more than a few bytes). */
const MAX_CHUNK_BYTES = 300_000;
/**
 * A run's packed state stays in its item up to this many bytes, beside at most MAX_RECENT_BYTES of
 * recent events. A bigger one (a run holding the inputs of many children or Lambda tasks it has not
 * started yet, say) is written apart, in parts of STATE_PART_BYTES, before the commit; the item names
 * them. Such a change costs its state's size in write units, as any write of that much data does.
 */
const STATE_INLINE_BYTES = 256 * 1024;
const STATE_PART_BYTES = 300_000;
/**
 * A run's latest events stay in its state item while the item is no bigger than this: one write unit.
 * Past it, the events already committed move to a history chunk and the item keeps the new ones.
 */
const STATE_ITEM_BUDGET = 1024;
/** A commit whose own events pack to more than this writes them as chunks, in its transaction. */
const MAX_RECENT_BYTES = 64 * 1024;

/**
 * A state item's `version` is its run's count of commits times VERSION_NONCES plus a random nonce of
 * the commit attempt that wrote it. Each commit is guarded by the version it replaces, as a counter
 * would be; the nonce tells two writers' commits of the same count apart when their bytes are the same
 * (two identical signals, one worker's two polls claiming one task, in the same millisecond), so a
 * retried write whose first try was lost does not take the other's landed commit for its own (see
 * ownCommitIn). It stays one number in the attribute an earlier release reads and writes, so the two
 * serve one table side by side through a rollout (that release writes its version plus one, which
 * this one reads as the same count or the next); a bare count it left reads as a count of its
 * thousands. Three digits of nonce: every byte of the item is paid for on every change of the run.
 */
const VERSION_NONCES = 1_000;
const commitCount = (version: number) => Math.floor(version / VERSION_NONCES);
const nextVersion = (base: number | undefined) =>
  (commitCount(base ?? 0) + 1) * VERSION_NONCES + randomInt(VERSION_NONCES);
/** A state item's version (undefined: not a state item). */
function versionOf(item: Record<string, unknown> | undefined): number | undefined {
  const version = item?.version;
  return typeof version === 'number' ? version : undefined;
}

type Role = 'state' | 'acquire' | 'pointer' | 'other';

/**
 * Partitions a task list's queue is spread over. Each task is two writes to its list's queue (its entry
 * put and removed) and a partition key takes 1,000 write units a second, so one key would hold a list
 * to about 500 tasks a second; four reach SWF's 2,000 a second per task list. Every poll reads all of
 * them (they are queried at once).
 */
export const QUEUE_SHARDS = 4;

export interface ExecutionStoreOptions {
  /**
   * Partitions per task list (see keys.queuePartition). @default QUEUE_SHARDS. Polls read partitions
   * 0 … count-1 and remove an entry from where they found it, so a count may grow (from 1, the count
   * before QUEUE_SHARDS): entries written under the smaller one are still handed out, and removed by
   * the poll that takes them or finds them stale. One whose task is withdrawn otherwise (its run
   * closed, the task cancelled or timed out) is looked for in its new partition, so it is counted by
   * CountPending* until a poll on its list finds it stale. A count that shrinks strands the entries of
   * the partitions no longer read.
   */
  readonly queueShards?: number;
  /**
   * The clock (epoch seconds) retention is judged by: a run whose `expiresAt` has passed is gone, even
   * before DynamoDB's TTL (which is lazy) deletes it.
   */
  readonly nowSeconds?: () => number;
  /** Bytes a state item may reach while it still holds recent events (tests make it small or large). */
  readonly stateItemBudget?: number;
}

/** One run's part of a commit, as items: what goes before the commit, in it, and after it. */
interface RunItems {
  /** History chunks of events committed earlier, and queue entries of the tasks this commit schedules. */
  readonly before: (() => Promise<void>)[];
  readonly state: TransactItem;
  /** Chunks of this commit's own events, when they are too big for the state item. */
  readonly chunks: TransactItem[];
  /** Queue entries withdrawn or claimed by this commit. */
  readonly after: QueuedTaskRef[];
  /** This commit's own events (to tell its own landed commit in the item: see ownCommitIn). */
  readonly events: readonly HistoryEvent[];
}

export class DynamoExecutionStore
  implements RunStore, TaskQueueStore, HeartbeatStore, LambdaTaskClaims, DeadLetterStore
{
  private readonly shards: number;
  private readonly nowSeconds: () => number;
  private readonly budget: number;
  private readonly pointers: OpenRunPointers;

  constructor(
    private readonly table: TableRef,
    options: ExecutionStoreOptions = {},
  ) {
    this.shards = options.queueShards ?? QUEUE_SHARDS;
    this.nowSeconds = options.nowSeconds ?? (() => Date.now() / 1000);
    this.budget = options.stateItemBudget ?? STATE_ITEM_BUDGET;
    this.pointers = new OpenRunPointers(table, this.nowSeconds, async (runId) => {
      const stored = await this.readRunItem(runId);
      return stored === 'expired' ? stored : stored?.state;
    });
  }

  /**
   * A run's change is one conditional write of its state item, guarded by its version. The item also
   * holds the run's latest events (`recent`) while it stays within one write unit; a commit that would
   * outgrow it first writes the events already committed as a history chunk (any writer that read the
   * same version writes the same chunk, and a chunk never shrinks: see putChunk), then keeps only its
   * own. So a change costs one write of about 1 KB, not a transaction of the state and a chunk.
   *
   * The queue entries of tasks the commit schedules are written before it (a poller that finds one
   * before the commit lands leaves it: see entryStatus); those it withdraws or claims are removed after
   * it, and those of a commit that does not land are taken back (see withdrawUnlanded). A commit of one
   * run without pointer changes is a PutItem; anything more is one transaction.
   */
  async commit(
    writes: readonly RunWrite[],
    pointers: readonly OpenPointerChange[],
  ): Promise<CommitOutcome> {
    // Marks the entries this attempt writes ahead of its commit, so it can take back its own only.
    const attempt = randomBytes(6).toString('base64url');
    const runs = writes.map((write) => this.runItems(write, attempt));
    await Promise.all(runs.flatMap((run) => run.before.map((step) => step())));
    const only = runs.length === 1 && runs[0]?.chunks.length === 0 ? runs[0] : undefined;
    const pointer = pointers.length <= 1 ? pointers[0] : undefined;
    let outcome: CommitOutcome;
    if (only !== undefined && pointers.length === 0) outcome = await this.putState(only);
    else if (only !== undefined && pointer?.kind === 'acquire')
      outcome = await this.startRun(only, pointer, writes[0]?.state);
    else outcome = await this.transactTakingOver(runs, pointers, writes);
    if (outcome === 'committed') await this.removeEntries(runs.flatMap((run) => run.after));
    else await this.withdrawUnlanded(writes, attempt);
    return outcome;
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
    await this.removeEntries(writes.flatMap((w) => (w.base === undefined ? w.queue.add : [])));
    const existing = writes.filter((w) => w.base !== undefined && w.queue.add.length > 0);
    const entryId = (task: QueuedTaskRef) => queueEntryId(task, this.shards);
    try {
      await Promise.all(
        existing.map(async (write) => {
          const current = await this.loadRun(write.state.execution.runId);
          const held = new Set(queuedTasks(current?.state).map(entryId));
          await Promise.all(
            write.queue.add
              .filter((task) => !held.has(entryId(task)))
              .map((task) => this.dropOwnEntry(task, attempt)),
          );
        }),
      );
    } catch {
      // see removeEntries
    }
  }

  private async dropOwnEntry(task: QueuedTaskRef, attempt: string): Promise<void> {
    try {
      await this.table.doc.delete({
        TableName: this.table.tableName,
        Key: keys.queueEntry(task, this.shards),
        ConditionExpression: '#w = :w',
        ExpressionAttributeNames: { '#w': QUEUE_WRITER },
        ExpressionAttributeValues: { ':w': attempt },
      });
    } catch (error) {
      if (!isDynamoError(error, 'ConditionalCheckFailedException')) throw error;
    }
  }

  private async putState(run: RunItems): Promise<CommitOutcome> {
    const put = run.state.Put;
    if (put?.Item === undefined) throw new Error('a state item is written by a Put');
    const ours = put.Item;
    try {
      await this.table.doc.put({ ...put, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
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
   * (see VERSION_NONCES); the item carries no other mark (every byte of it is paid for on every
   * change of the run). Such an identical commit followed by later commits, all before this one's retry, could
   * still pass for it in the history. A commit of no events that later ones followed is not
   * recognised: deciding it again changes nothing.
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
    const { events: found } = await this.readHistory(keys.runIdOf(String(ours.pk)), {
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
      const { Item } = await this.table.doc.get({
        TableName: this.table.tableName,
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
    if (!(await this.pointers.acquire(pointer, pointerExpiry(state)))) return 'already-open';
    let outcome: CommitOutcome;
    try {
      outcome = await this.putState(run);
    } catch (error) {
      // A put that threw may have landed (its answer lost), or may land yet (a try still on its
      // way): the start's own fence settles it. Fenced, the run can never be written and the
      // pointer goes; else the run is there, and keeps it (as it does when the fence cannot be
      // written either).
      const barred = await this.pointers.fence(pointer.runId).catch(() => false);
      if (barred) await this.pointers.release(pointer);
      throw error;
    }
    if (outcome !== 'committed') await this.pointers.release(pointer);
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
      const outcome = await this.transact(runs, pointers, stale, writes);
      if (outcome !== 'already-open') return outcome;
      for (const p of pointers) {
        if (p.kind !== 'acquire') continue;
        const held = await this.pointers.heldBy(p);
        if (held === 'open') return 'already-open';
        if (held === 'this run' || held.stale === undefined) stale.delete(p);
        else stale.set(p, held.stale);
      }
    }
    return 'already-open';
  }

  private async transact(
    runs: readonly RunItems[],
    pointers: readonly OpenPointerChange[],
    stale: ReadonlyMap<AcquirePointer, string>,
    writes: readonly RunWrite[],
  ): Promise<CommitOutcome> {
    const stateOf = (runId: string) => writes.find((w) => w.state.execution.runId === runId)?.state;
    const core: { item: TransactItem; role: Role }[] = [
      ...runs.flatMap((run) => [
        { item: run.state, role: 'state' as const },
        ...run.chunks.map((item) => ({ item, role: 'other' as const })),
      ]),
      ...pointers.map((pointer) =>
        pointer.kind === 'acquire'
          ? {
              item: this.pointers.item(pointer, stateOf(pointer.runId), stale.get(pointer)),
              role: 'acquire' as const,
            }
          : { item: this.pointers.item(pointer, stateOf(pointer.to)), role: 'pointer' as const },
      ),
    ];
    if (core.length > MAX_TRANSACTION_ITEMS)
      throw new Error(`a commit of ${core.length} items exceeds one transaction`);
    let outcome: Awaited<ReturnType<typeof transactWrite>>;
    try {
      outcome = await transactWrite(
        this.table.doc,
        core.map((c) => c.item),
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
    const roles = outcome.failed.map((i) => core[i]?.role ?? 'other');
    return roles.includes('acquire') ? 'already-open' : 'conflict';
  }

  /** Best effort: an entry left behind is dropped by the next poller that finds it stale. */
  private async removeEntries(entries: readonly QueuedTaskRef[]): Promise<void> {
    try {
      await this.dropQueueEntries(entries);
    } catch {
      // see above
    }
  }

  private runItems(write: RunWrite, attempt: string): RunItems {
    const runId = write.state.execution.runId;
    const base = write.base;
    const version = nextVersion(base?.version);
    const history = write.expiresAt?.history;
    const before: (() => Promise<void>)[] = [];
    const chunks: TransactItem[] = [];
    const packedState = packJson(write.state);
    // A state too big for the item is written apart, under this attempt's name: a writer that loses
    // the race for the same version writes parts of its own, which no item names.
    const apart =
      typeof packedState === 'string' || packedState.byteLength <= STATE_INLINE_BYTES
        ? undefined
        : partsOf(packedState);
    if (apart !== undefined)
      before.push(() =>
        this.putStateParts(runId, attempt, apart, write.expiresAt?.state ?? history),
      );
    // Whether the outbox has anything to do for this change: the same pure function the stream
    // handler runs on the record's old and new images (this write replaces `base`, guarded by its
    // version). Most changes of a run have nothing for it (a task started, a result recorded).
    const outboxWork = outboxEffects(base?.state, write.state).length > 0;
    const stateItem = (recent: readonly HistoryEvent[]): Record<string, unknown> => ({
      ...keys.runState(runId),
      // What the stream's event filter selects on (infra/constructs/swf-outbox.ts): a run's state
      // item, when its change has work for the outbox. Everything else is in the packed state, as
      // every top-level byte is paid for on every change of the run.
      [outboxRecords.entityAttribute]: outboxRecords.entity,
      [outboxRecords.workAttribute]: outboxWork,
      version,
      ...(apart === undefined
        ? { state: packedState }
        : { [STATE_APART]: attempt, [STATE_PARTS]: apart.length }),
      ...(recent.length === 0 ? {} : { recent: packJson(recent) }),
      ...(write.expiresAt?.state === undefined ? {} : { expiresAt: write.expiresAt.state }),
    });
    const prior = base?.recentEvents ?? [];
    let item = stateItem([...prior, ...write.events]);
    if (prior.length > 0 && itemBytes(item) > this.budget) {
      before.push(() => this.putChunk(runId, prior, history));
      item = stateItem(write.events);
    }
    if (item.recent instanceof Uint8Array && item.recent.byteLength > MAX_RECENT_BYTES) {
      item = stateItem([]);
      for (const chunk of chunksOf(write.events))
        chunks.push({
          Put: { TableName: this.table.tableName, Item: this.chunkItem(runId, chunk, history) },
        });
    }
    const state: TransactItem = {
      Put: {
        TableName: this.table.tableName,
        Item: item,
        ConditionExpression: base === undefined ? 'attribute_not_exists(pk)' : 'version = :v',
        ...(base === undefined ? {} : { ExpressionAttributeValues: { ':v': base.version } }),
      },
    };
    for (const task of write.queue.add) {
      before.push(async () => {
        await this.table.doc.put({
          TableName: this.table.tableName,
          Item: { ...queueItem(task, this.shards), [QUEUE_WRITER]: attempt },
        });
      });
    }
    // The claimed entry is usually among the withdrawn tasks (a started task leaves the queue); each
    // item is deleted once.
    const after = new Map<string, QueuedTaskRef>();
    for (const task of [...write.queue.remove, ...(write.claim === undefined ? [] : [write.claim])])
      after.set(queueEntryId(task, this.shards), task);
    return { before, state, chunks, after: [...after.values()], events: write.events };
  }

  private async putStateParts(
    runId: string,
    ref: string,
    parts: readonly Uint8Array[],
    expiresAt: number | undefined,
  ): Promise<void> {
    await Promise.all(
      parts.map((part, index) =>
        this.table.doc.put({
          TableName: this.table.tableName,
          Item: {
            ...keys.statePart(runId, ref, index),
            entity: 'StatePart',
            part,
            ...(expiresAt === undefined ? {} : { expiresAt }),
          },
        }),
      ),
    );
  }

  async readStateApart(runId: string, ref: string, count?: number): Promise<ExecutionState> {
    const parts: Uint8Array[] = [];
    const pages = queryPages(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :parts)',
      ExpressionAttributeValues: {
        ':pk': keys.runPartition(runId),
        ':parts': keys.statePartPrefix(ref),
      },
      ConsistentRead: true,
    });
    for await (const page of pages)
      for (const item of page.Items ?? [])
        if (item.part instanceof Uint8Array) parts.push(item.part);
    // Parts are written before the item that names them, and go only with the run's expiry.
    if (parts.length === 0 || (count !== undefined && parts.length !== count))
      throw new Error(
        `run ${runId}: ${parts.length} parts of its state ${ref}, not ${count ?? 'any'}`,
      );
    return unpackJson(Buffer.concat(parts));
  }

  /** The state an item of a run holds, in it or apart. */
  private async stateIn(runId: string, item: Record<string, unknown>) {
    if (isPacked(item.state)) return parseState(item.state);
    const ref = item[STATE_APART];
    if (typeof ref !== 'string') return undefined;
    const count = item[STATE_PARTS];
    return this.readStateApart(runId, ref, typeof count === 'number' ? count : undefined);
  }

  private chunkItem(
    runId: string,
    events: readonly HistoryEvent[],
    expiresAt: number | undefined,
  ): Record<string, unknown> {
    const first = events[0]?.eventId ?? 0;
    return {
      ...keys.historyChunk(runId, first),
      entity: 'History',
      first,
      last: first + events.length - 1,
      events: packJson(events),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    };
  }

  /**
   * Writes committed events as the chunk keyed by the first. Every writer that loaded the same version
   * writes the same events; a writer that loaded an older version may hold fewer of them than a chunk
   * written since, so a chunk is only ever replaced by one that ends at the same event or later.
   */
  private async putChunk(
    runId: string,
    events: readonly HistoryEvent[],
    expiresAt: number | undefined,
  ): Promise<void> {
    try {
      await this.table.doc.put({
        TableName: this.table.tableName,
        Item: this.chunkItem(runId, events, expiresAt),
        ConditionExpression: 'attribute_not_exists(pk) OR #last <= :last',
        ExpressionAttributeNames: { '#last': 'last' },
        ExpressionAttributeValues: { ':last': (events[0]?.eventId ?? 0) + events.length - 1 },
      });
    } catch (error) {
      // A longer chunk is there already.
      if (!isDynamoError(error, 'ConditionalCheckFailedException')) throw error;
    }
  }

  async loadRun(runId: string): Promise<LoadedRun | undefined> {
    const stored = await this.readRunItem(runId);
    if (stored === undefined || stored === 'expired') return undefined;
    return {
      state: stored.state,
      version: stored.version,
      recentEvents: parseEvents(stored.recent),
    };
  }

  /** A run's state item, or 'expired' once its retention has passed (before TTL's delete). */
  private async readRunItem(
    runId: string,
  ): Promise<{ state: ExecutionState; version: number; recent: unknown } | 'expired' | undefined> {
    const { Item } = await this.table.doc.get({
      TableName: this.table.tableName,
      Key: keys.runState(runId),
      ConsistentRead: true,
    });
    const version = versionOf(Item);
    if (Item === undefined || version === undefined) return undefined;
    if (typeof Item.expiresAt === 'number' && Item.expiresAt <= this.nowSeconds()) return 'expired';
    const state = await this.stateIn(runId, Item);
    return state === undefined ? undefined : { state, version, recent: Item.recent };
  }

  async findOpenRun(domain: string, workflowId: string): Promise<string | undefined> {
    return this.pointers.holder(domain, workflowId);
  }

  /**
   * Events from `after` (inclusive) on, in either direction: the history chunks, then the latest events
   * the state item holds (which win where a chunk written by a slower writer overlaps them). Chunks are
   * read only as far as the page needs: from the one holding `after`, until the page is full plus one
   * event, so `next` is set only when more follow.
   */
  async readHistory(
    runId: string,
    page: {
      after?: number;
      limit: number;
      reverse: boolean;
      recent?: readonly HistoryEvent[];
    },
  ): Promise<HistoryPage> {
    const from = page.after ?? (page.reverse ? Number.MAX_SAFE_INTEGER : 1);
    const recent = page.recent ?? (await this.readRecent(runId));
    const recentFrom = recent[0]?.eventId ?? Number.MAX_SAFE_INTEGER;
    const inPage = (e: HistoryEvent) => (page.reverse ? e.eventId <= from : e.eventId >= from);
    const events: HistoryEvent[] = [];
    const take = (item: Record<string, unknown>) => {
      const chunk = parseEvents(item.events).filter((e) => e.eventId < recentFrom);
      events.push(...(page.reverse ? chunk.reverse() : chunk).filter(inPage));
    };
    if (page.reverse) events.push(...[...recent].reverse().filter(inPage));
    if (page.reverse || from < recentFrom) await this.readChunks(runId, page, from, events, take);
    if (!page.reverse) events.push(...recent.filter(inPage));
    const next = events[page.limit]?.eventId;
    const shown = events.slice(0, page.limit);
    return next === undefined ? { events: shown } : { events: shown, next };
  }

  private async readRecent(runId: string): Promise<HistoryEvent[]> {
    const { Item } = await this.table.doc.get({
      TableName: this.table.tableName,
      Key: keys.runState(runId),
      ProjectionExpression: 'recent',
      ConsistentRead: true,
    });
    return parseEvents(Item?.recent);
  }

  private async readChunks(
    runId: string,
    page: { limit: number; reverse: boolean },
    from: number,
    events: HistoryEvent[],
    take: (item: Record<string, unknown>) => void,
  ): Promise<void> {
    // Chunks are keyed by their first event. Reading forward from event 1 starts at the first chunk;
    // from later on, the chunk holding `from` is the last one that starts at or before it.
    let low = keys.historyChunkSort(1);
    if (!page.reverse && from > 1) {
      const holding = await this.queryChunks(runId, {
        low: 'H|',
        high: keys.historyChunkSort(from),
        forward: false,
        limit: 1,
      });
      const item = holding.items[0];
      if (item !== undefined) {
        take(item);
        low = `${String(item.sk)}\u0000`;
      } else {
        low = keys.historyChunkSort(from);
      }
    }
    let startKey: Record<string, unknown> | undefined;
    while (events.length <= page.limit) {
      const result = await this.queryChunks(runId, {
        low: page.reverse ? 'H|' : low,
        high: page.reverse ? keys.historyChunkSort(Math.min(from, 99_999_999)) : 'H|~',
        forward: !page.reverse,
        ...(startKey === undefined ? {} : { startKey }),
      });
      for (const item of result.items) take(item);
      startKey = result.next;
      if (startKey === undefined) break;
    }
  }

  private async queryChunks(
    runId: string,
    q: {
      low: string;
      high: string;
      forward: boolean;
      limit?: number;
      startKey?: Record<string, unknown>;
    },
  ): Promise<{ items: Record<string, unknown>[]; next?: Record<string, unknown> }> {
    const result = await this.table.doc.query({
      TableName: this.table.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :low AND :high',
      ExpressionAttributeValues: {
        ':pk': keys.runPartition(runId),
        ':low': q.low,
        ':high': q.high,
      },
      ScanIndexForward: q.forward,
      ConsistentRead: true,
      ...(q.limit === undefined ? {} : { Limit: q.limit }),
      ...(q.startKey === undefined ? {} : { ExclusiveStartKey: q.startKey }),
    });
    const items = result.Items ?? [];
    return result.LastEvaluatedKey === undefined
      ? { items }
      : { items, next: result.LastEvaluatedKey };
  }

  async peekQueue(
    kind: TaskKind,
    domain: string,
    taskList: string,
    limit: number,
  ): Promise<QueueEntry[]> {
    const shards = await Promise.all(
      Array.from({ length: this.shards }, (_, shard) =>
        this.table.doc.query({
          TableName: this.table.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: {
            ':pk': keys.queuePartition(kind, domain, taskList, shard),
          },
          Limit: limit,
        }),
      ),
    );
    const items = shards.flatMap((r) => r.Items ?? []);
    items.sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1));
    return items.slice(0, limit).map(toQueueEntry);
  }

  async countQueue(kind: TaskKind, domain: string, taskList: string): Promise<number> {
    let total = 0;
    for (let shard = 0; shard < this.shards; shard++) {
      const pages = queryPages(this.table, {
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.queuePartition(kind, domain, taskList, shard) },
        Select: 'COUNT',
      });
      for await (const page of pages) total += page.Count ?? 0;
    }
    return total;
  }

  async dropQueueEntries(entries: readonly QueuedTaskRef[]): Promise<void> {
    await Promise.all(
      entries.map((task) =>
        this.table.doc.delete({
          TableName: this.table.tableName,
          Key: this.entryKey(task),
        }),
      ),
    );
  }

  /**
   * A queue entry's item key: where it was read from, when it was read (an entry written under another
   * shard count, by a release before QUEUE_SHARDS or a container of one during a rollout, is found in
   * its partition and removed from there), else where this store writes it.
   */
  private entryKey(task: QueuedTaskRef | QueueEntry): ItemKey {
    const key = keys.queueEntry(task, this.shards);
    const read = 'partition' in task ? task.partition : undefined;
    return read === undefined ? key : { ...key, pk: read };
  }

  async putDeadLetter(id: string, record: string, error: string): Promise<void> {
    const at = Date.now();
    // A run's record can be most of an item itself (its state and recent events, both images): the
    // letter keeps the start of it, enough to find the run and the change, and stays one item.
    await this.table.doc.put({
      TableName: this.table.tableName,
      Item: {
        ...keys.deadLetter(at, id),
        entity: 'DeadLetter',
        id,
        record: cut(record, DEAD_LETTER_RECORD_CHARS),
        error: cut(error, DEAD_LETTER_ERROR_CHARS),
        at,
      },
    });
  }

  async listDeadLetters(): Promise<DeadLetter[]> {
    // A letter is up to ~200 KB: a Query page (1 MB) holds a handful, so every page is read.
    const letters: DeadLetter[] = [];
    const pages = queryPages(this.table, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.deadLetterPartition },
      ConsistentRead: true,
    });
    for await (const page of pages)
      for (const item of page.Items ?? [])
        letters.push({
          id: String(item.id),
          record: String(item.record),
          error: String(item.error),
          at: Number(item.at),
        });
    return letters;
  }

  /**
   * Open runs, for the local scheduler to re-arm their deadlines when the local server starts. A Scan:
   * used once at local start-up only, never on a request path.
   */
  async scanOpenRuns(): Promise<ExecutionState[]> {
    const states: ExecutionState[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await this.table.doc.scan({
        TableName: this.table.tableName,
        FilterExpression: 'entity = :run',
        ExpressionAttributeValues: { ':run': 'Run' },
        ExclusiveStartKey: startKey,
      });
      for (const item of result.Items ?? []) {
        const state = await this.stateIn(keys.runIdOf(String(item.pk)), item);
        if (state?.status === 'OPEN') states.push(state);
      }
      startKey = result.LastEvaluatedKey;
    } while (startKey !== undefined);
    return states;
  }

  async claimLambdaTask(
    runId: string,
    scheduledEventId: number,
    expiresAt: number,
  ): Promise<boolean> {
    const claim = randomBytes(6).toString('base64url');
    try {
      await this.table.doc.put({
        TableName: this.table.tableName,
        Item: {
          ...keys.lambdaClaim(runId, scheduledEventId),
          entity: 'LambdaClaim',
          expiresAt,
          [COMMIT_MARK]: claim,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return true;
    } catch (error) {
      // This claim's own put, landed before its retry: claimed.
      if (isDynamoError(error, 'ConditionalCheckFailedException'))
        return error.Item?.[COMMIT_MARK] === claim;
      throw error;
    }
  }

  async putHeartbeat(
    runId: string,
    scheduledEventId: number,
    heartbeat: ActivityHeartbeat,
    expiresAt?: number,
  ): Promise<void> {
    await this.table.doc.put({
      TableName: this.table.tableName,
      Item: {
        ...keys.heartbeat(runId, scheduledEventId),
        entity: 'Heartbeat',
        ...heartbeat,
        ...(expiresAt === undefined ? {} : { expiresAt }),
      },
    });
  }

  async getHeartbeat(
    runId: string,
    scheduledEventId: number,
  ): Promise<ActivityHeartbeat | undefined> {
    const { Item } = await this.table.doc.get({
      TableName: this.table.tableName,
      Key: keys.heartbeat(runId, scheduledEventId),
      ConsistentRead: true,
    });
    if (Item === undefined || typeof Item.at !== 'number') return undefined;
    return { at: Item.at, ...(typeof Item.details === 'string' ? { details: Item.details } : {}) };
  }
}

function queueItem(task: QueuedTaskRef, shards: number): Record<string, unknown> {
  return { ...keys.queueEntry(task, shards), entity: 'QueuedTask', ...task };
}

function toQueueEntry(item: Record<string, unknown>): QueueEntry {
  return {
    kind: item.kind === 'decision' ? 'decision' : 'activity',
    domain: String(item.domain),
    runId: String(item.runId),
    taskList: String(item.taskList),
    taskPriority: String(item.taskPriority),
    scheduledAt: Number(item.scheduledAt),
    scheduledEventId: Number(item.scheduledEventId),
    partition: String(item.pk),
  };
}

/** A queue entry's item key as one string: two tasks with the same one share an item. */
function queueEntryId(task: QueuedTaskRef, shards: number): string {
  const { pk, sk } = keys.queueEntry(task, shards);
  return `${pk}\n${sk}`;
}

/** The mark of a Lambda claim's writer (see claimLambdaTask). */
const COMMIT_MARK = 'w';

const sameBytes = (a: unknown, b: unknown) =>
  a instanceof Uint8Array && b instanceof Uint8Array ? Buffer.from(a).equals(b) : a === b;

/** A queue entry's mark of the commit attempt that wrote it (see withdrawUnlanded). */
const QUEUE_WRITER = 'w';

/**
 * Splits a commit's events into chunks that each fit comfortably in one item, by their UTF-8 bytes (a
 * character outside ASCII takes two to four: counted in characters, a chunk could pass 400 KB).
 */
function chunksOf(events: readonly HistoryEvent[]): HistoryEvent[][] {
  const chunks: HistoryEvent[][] = [];
  let current: HistoryEvent[] = [];
  let size = 0;
  for (const event of events) {
    const eventSize = Buffer.byteLength(JSON.stringify(event));
    if (current.length > 0 && size + eventSize > MAX_CHUNK_BYTES) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(event);
    size += eventSize;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** A packed state's bytes in parts that each fit in one item. */
function partsOf(packed: Uint8Array): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (let at = 0; at < packed.byteLength; at += STATE_PART_BYTES)
    parts.push(packed.subarray(at, at + STATE_PART_BYTES));
  return parts;
}

/** What a dead letter keeps of its record and its error (characters: up to three bytes each). */
const DEAD_LETTER_RECORD_CHARS = 64 * 1024;
const DEAD_LETTER_ERROR_CHARS = 4 * 1024;
const cut = (text: string, chars: number) =>
  text.length <= chars ? text : `${cutText(text, chars)}... (${text.length} characters)`;

const STATE_APART = outboxRecords.apartAttribute;
const STATE_PARTS = outboxRecords.partsAttribute;

// The table holds what this code wrote: state and events are packed JSON (see packed-json.ts).
const isPacked = (value: unknown): value is string | Uint8Array =>
  typeof value === 'string' || value instanceof Uint8Array;
const parseState = (stored: string | Uint8Array): ExecutionState => unpackJson(stored);
const parseEvents = (stored: unknown): HistoryEvent[] =>
  isPacked(stored) ? unpackJson(stored) : [];

/** The item's size by DynamoDB's rules (what its write is billed on). */
const itemBytes = (item: Record<string, unknown>) => itemSize(toWireItem(item));
