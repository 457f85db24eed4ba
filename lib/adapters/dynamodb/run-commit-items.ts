import type { HistoryEvent } from '../../core/history-event.js';
import { outboxEffects } from '../../core/outbox.js';
import type { QueuedTaskRef } from '../../core/task-queue.js';
import type { RunWrite } from '../../ports/run-store.js';
import { toWireItem } from './attribute-values.js';
import type { TableRef } from './client.js';
import { chunksOf, type HistoryChunks } from './history-chunks.js';
import { itemSize } from './item-size.js';
import { keys } from './keys.js';
import { packJson } from './packed-json.js';
import { nextVersion } from './run-versions.js';
import { apartParts, STATE_APART, STATE_PARTS, type StateParts } from './state-parts.js';
import { outboxRecords } from './table-schema.js';
import type { TaskQueueItems } from './task-queue-items.js';
import type { TransactItem } from './transact.js';

/**
 * A run's latest events stay in its state item while the item is no bigger than this: one write unit.
 * Past it, the events already committed move to a history chunk and the item keeps the new ones.
 */
export const STATE_ITEM_BUDGET = 1024;
/** A commit whose own events pack to more than this writes them as chunks, in its transaction. */
const MAX_RECENT_BYTES = 64 * 1024;

/** The item's size by DynamoDB's rules (what its write is billed on). */
const itemBytes = (item: Record<string, unknown>) => itemSize(toWireItem(item));

/** One run's part of a commit, as items: what goes before the commit, in it, and after it. */
export interface RunItems {
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

/** The state item of one commit of a run, given the recent events it is to hold. */
type StateItemOf = (recent: readonly HistoryEvent[]) => Record<string, unknown>;

/** Where a commit's events go: the state item that holds the recent ones, and chunks in the commit. */
interface PlacedEvents {
  readonly item: Record<string, unknown>;
  readonly chunks: TransactItem[];
}

/** Turns one run's write into the items of a commit attempt (see RunCommit). */
export class RunCommitItems {
  constructor(
    private readonly table: TableRef,
    private readonly parts: StateParts,
    private readonly history: HistoryChunks,
    private readonly queue: TaskQueueItems,
    /** Bytes a state item may reach while it still holds recent events. */
    private readonly budget: number,
  ) {}

  /** The items of `write` for the commit attempt `attempt` (the name of what it writes ahead). */
  build(write: RunWrite, attempt: string): RunItems {
    const before: (() => Promise<void>)[] = [];
    const stateItem = this.stateItemOf(write, attempt, before);
    const { item, chunks } = this.placeEvents(write, stateItem, before);
    for (const task of write.queue.add) before.push(() => this.queue.putEntry(task, attempt));
    return {
      before,
      state: this.guardedPut(item, write.base?.version),
      chunks,
      after: this.entriesAfter(write),
      events: write.events,
    };
  }

  /**
   * How the run's state item is built. A state too big for the item is written apart (a step before
   * the commit), under this attempt's name: a writer that loses the race for the same version writes
   * parts of its own, which no item names.
   */
  private stateItemOf(
    write: RunWrite,
    attempt: string,
    before: (() => Promise<void>)[],
  ): StateItemOf {
    const runId = write.state.execution.runId;
    const packedState = packJson(write.state);
    const apart = apartParts(packedState);
    const expiresAt = write.expiresAt?.state ?? write.expiresAt?.history;
    if (apart !== undefined) before.push(() => this.parts.put(runId, attempt, apart, expiresAt));
    const fixed = {
      ...keys.runState(runId),
      ...this.outboxMarks(write),
      version: nextVersion(write.base?.version),
      ...(apart === undefined
        ? { state: packedState }
        : { [STATE_APART]: attempt, [STATE_PARTS]: apart.length }),
    };
    return (recent) => ({
      ...fixed,
      ...(recent.length === 0 ? {} : { recent: packJson(recent) }),
      ...(write.expiresAt?.state === undefined ? {} : { expiresAt: write.expiresAt.state }),
    });
  }

  /**
   * What the stream's event filter selects on (infra/constructs/swf-outbox.ts): a run's state item,
   * when its change has work for the outbox. Whether it has is the same pure function the stream
   * handler runs on the record's old and new images (this write replaces `base`, guarded by its
   * version); most changes of a run have nothing for it (a task started, a result recorded).
   * Everything else is in the packed state, as every top-level byte is paid for on every change.
   */
  private outboxMarks(write: RunWrite): Record<string, unknown> {
    return {
      [outboxRecords.entityAttribute]: outboxRecords.entity,
      [outboxRecords.workAttribute]: outboxEffects(write.base?.state, write.state).length > 0,
    };
  }

  /**
   * Keeps the run's recent events in its state item while it fits the budget; past it, the events
   * committed earlier go to a history chunk first (a step before the commit). A commit's own events
   * too big for the item go as chunks in its transaction.
   */
  private placeEvents(
    write: RunWrite,
    stateItem: StateItemOf,
    before: (() => Promise<void>)[],
  ): PlacedEvents {
    const runId = write.state.execution.runId;
    const history = write.expiresAt?.history;
    const prior = write.base?.recentEvents ?? [];
    let item = stateItem([...prior, ...write.events]);
    if (prior.length > 0 && itemBytes(item) > this.budget) {
      before.push(() => this.history.put(runId, prior, history));
      item = stateItem(write.events);
    }
    if (!(item.recent instanceof Uint8Array && item.recent.byteLength > MAX_RECENT_BYTES))
      return { item, chunks: [] };
    const chunks = chunksOf(write.events).map((chunk) => ({
      Put: { TableName: this.table.tableName, Item: this.history.chunkItem(runId, chunk, history) },
    }));
    return { item: stateItem([]), chunks };
  }

  /** The state item's put, guarded by the version it replaces (none: the run is new). */
  private guardedPut(item: Record<string, unknown>, base: number | undefined): TransactItem {
    return {
      Put: {
        TableName: this.table.tableName,
        Item: item,
        ConditionExpression: base === undefined ? 'attribute_not_exists(pk)' : 'version = :v',
        ...(base === undefined ? {} : { ExpressionAttributeValues: { ':v': base } }),
      },
    };
  }

  /**
   * The queue entries the commit withdraws or claims, removed once it lands. The claimed entry is
   * usually among the withdrawn tasks (a started task leaves the queue); each item is deleted once.
   */
  private entriesAfter(write: RunWrite): QueuedTaskRef[] {
    const after = new Map<string, QueuedTaskRef>();
    for (const task of [...write.queue.remove, ...(write.claim === undefined ? [] : [write.claim])])
      after.set(this.queue.entryId(task), task);
    return [...after.values()];
  }
}
