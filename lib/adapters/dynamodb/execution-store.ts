import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import type { ExecutionState } from '../../core/execution-state.js';
import type { HistoryEvent } from '../../core/history-event.js';
import type { QueueChanges, QueuedTaskRef, TaskKind } from '../../core/task-queue.js';
import type {
  ActivityHeartbeat,
  CommitOutcome,
  DeadLetter,
  ExecutionStore,
  HistoryPage,
  LoadedRun,
  OpenPointerChange,
  QueueEntry,
  RunWrite,
} from '../../ports/execution-store.js';
import type { TableRef } from './client.js';
import { keys } from './keys.js';
import { packJson, unpackJson } from './packed-json.js';
import { type TransactItem, transactWrite } from './transact.js';

/** DynamoDB's limits on one transaction (100 items) and one item (400 KB, kept well clear of). */
const MAX_TRANSACTION_ITEMS = 100;
const MAX_CHUNK_CHARS = 300_000;

type Role = 'state' | 'claim' | 'acquire' | 'pointer' | 'other';

export interface ExecutionStoreOptions {
  /** Partitions per task list (see keys.queuePartition). Changing it strands queued tasks: fix it per table. */
  readonly queueShards?: number;
  /**
   * The clock (epoch seconds) retention is judged by: a run whose `expiresAt` has passed is gone, even
   * before DynamoDB's TTL (which is lazy) deletes it.
   */
  readonly nowSeconds?: () => number;
}

export class DynamoExecutionStore implements ExecutionStore {
  private readonly shards: number;
  private readonly nowSeconds: () => number;

  constructor(
    private readonly table: TableRef,
    options: ExecutionStoreOptions = {},
  ) {
    this.shards = options.queueShards ?? 1;
    this.nowSeconds = options.nowSeconds ?? (() => Date.now() / 1000);
  }

  /**
   * One TransactWriteItems for everything that must hold together: each run's state (guarded by its
   * version), its new history chunk, the claimed queue entry, the open-run pointer. Queue writes that do
   * not fit in the transaction follow it; a missing removal is harmless (a claim re-checks the state).
   */
  async commit(
    writes: readonly RunWrite[],
    pointers: readonly OpenPointerChange[],
  ): Promise<CommitOutcome> {
    const core: { item: TransactItem; role: Role }[] = [];
    const deferred: TransactItem[] = [];
    for (const write of writes) this.runItems(write, core, deferred);
    for (const pointer of pointers) core.push(this.pointerItem(pointer));
    const room = MAX_TRANSACTION_ITEMS - core.length;
    if (room < 0) throw new Error(`a commit of ${core.length} items exceeds one transaction`);
    if (deferred.length > room) {
      // The stream consumer finishes the queue writes that follow the transaction (see runChange).
      for (const c of core) {
        const item = c.role === 'state' ? c.item.Put?.Item : undefined;
        if (item !== undefined) item.queueDeferred = true;
      }
    }
    const items = [...core.map((c) => c.item), ...deferred.slice(0, room)];
    const outcome = await transactWrite(this.table.doc, items, { conflictAsOutcome: true });
    if (!outcome.ok) {
      const roles = outcome.failed.map((i) => core[i]?.role ?? 'other');
      if (roles.includes('claim')) return 'claim-lost';
      if (roles.includes('acquire')) return 'already-open';
      return 'conflict';
    }
    await this.sendDeferred(deferred.slice(room));
    return 'committed';
  }

  private runItems(
    write: RunWrite,
    core: { item: TransactItem; role: Role }[],
    deferred: TransactItem[],
  ): void {
    const runId = write.state.execution.runId;
    const version = (write.expectedVersion ?? 0) + 1;
    core.push({
      role: 'state',
      item: {
        Put: {
          TableName: this.table.tableName,
          Item: {
            ...keys.runState(runId),
            ...stateAttributes(write.state),
            version,
            state: packJson(write.state),
            ...(write.expiresAt?.state === undefined ? {} : { expiresAt: write.expiresAt.state }),
          },
          ConditionExpression:
            write.expectedVersion === undefined ? 'attribute_not_exists(pk)' : 'version = :v',
          ...(write.expectedVersion === undefined
            ? {}
            : { ExpressionAttributeValues: { ':v': write.expectedVersion } }),
        },
      },
    });
    for (const chunk of chunksOf(write.events)) {
      const first = chunk[0]?.eventId ?? 0;
      core.push({
        role: 'other',
        item: {
          Put: {
            TableName: this.table.tableName,
            Item: {
              ...keys.historyChunk(runId, first),
              entity: 'History',
              first,
              last: first + chunk.length - 1,
              events: packJson(chunk),
              ...(write.expiresAt?.history === undefined
                ? {}
                : { expiresAt: write.expiresAt.history }),
            },
          },
        },
      });
    }
    if (write.claim !== undefined) {
      core.push({
        role: 'claim',
        item: {
          Delete: {
            TableName: this.table.tableName,
            Key: keys.queueEntry(write.claim, this.shards),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
      });
    }
    const claimed = write.claim;
    for (const task of write.queue.remove) {
      if (
        claimed !== undefined &&
        task.kind === claimed.kind &&
        task.scheduledEventId === claimed.scheduledEventId
      )
        continue;
      deferred.push({
        Delete: { TableName: this.table.tableName, Key: keys.queueEntry(task, this.shards) },
      });
    }
    for (const task of write.queue.add) {
      deferred.push({
        Put: { TableName: this.table.tableName, Item: queueItem(task, this.shards) },
      });
    }
  }

  private pointerItem(p: OpenPointerChange): { item: TransactItem; role: Role } {
    const Key = keys.openRun(p.domain, p.workflowId);
    const TableName = this.table.tableName;
    switch (p.kind) {
      case 'acquire':
        return {
          role: 'acquire',
          item: {
            Put: {
              TableName,
              Item: { ...Key, entity: 'OpenRun', runId: p.runId },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        };
      case 'release':
        return {
          role: 'pointer',
          item: {
            Delete: {
              TableName,
              Key,
              ConditionExpression: 'runId = :r',
              ExpressionAttributeValues: { ':r': p.runId },
            },
          },
        };
      case 'move':
        return {
          role: 'pointer',
          item: {
            Put: {
              TableName,
              Item: { ...Key, entity: 'OpenRun', runId: p.to },
              ConditionExpression: 'runId = :r',
              ExpressionAttributeValues: { ':r': p.from },
            },
          },
        };
    }
  }

  private async sendDeferred(items: readonly TransactItem[]): Promise<void> {
    await Promise.all(
      items.map((item) => {
        if (item.Put !== undefined)
          return this.table.doc.send(
            new PutCommand({ TableName: item.Put.TableName, Item: item.Put.Item }),
          );
        if (item.Delete !== undefined)
          return this.table.doc.send(
            new DeleteCommand({ TableName: item.Delete.TableName, Key: item.Delete.Key }),
          );
        return Promise.resolve();
      }),
    );
  }

  async loadRun(runId: string): Promise<LoadedRun | undefined> {
    const { Item } = await this.table.doc.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: keys.runState(runId),
        ConsistentRead: true,
      }),
    );
    if (Item === undefined || !isPacked(Item.state) || typeof Item.version !== 'number')
      return undefined;
    if (typeof Item.expiresAt === 'number' && Item.expiresAt <= this.nowSeconds()) return undefined;
    return { state: parseState(Item.state), version: Item.version };
  }

  async findOpenRun(domain: string, workflowId: string): Promise<string | undefined> {
    const { Item } = await this.table.doc.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: keys.openRun(domain, workflowId),
        ConsistentRead: true,
      }),
    );
    return typeof Item?.runId === 'string' ? Item.runId : undefined;
  }

  /**
   * Events from `after` (inclusive) on, in either direction. Finds the chunk holding `after`, then reads
   * chunks in order until the page is full plus one event, so `next` is set only when more follow.
   */
  async readHistory(
    runId: string,
    page: { after?: number; limit: number; reverse: boolean },
  ): Promise<HistoryPage> {
    const from = page.after ?? (page.reverse ? Number.MAX_SAFE_INTEGER : 1);
    const events: HistoryEvent[] = [];
    const take = (item: Record<string, unknown>) => {
      const chunk = parseEvents(item.events);
      const ordered = page.reverse ? chunk.reverse() : chunk;
      events.push(...ordered.filter((e) => (page.reverse ? e.eventId <= from : e.eventId >= from)));
    };
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
    const next = events[page.limit]?.eventId;
    const shown = events.slice(0, page.limit);
    return next === undefined ? { events: shown } : { events: shown, next };
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
    const result = await this.table.doc.send(
      new QueryCommand({
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
      }),
    );
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
        this.table.doc.send(
          new QueryCommand({
            TableName: this.table.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: {
              ':pk': keys.queuePartition(kind, domain, taskList, shard),
            },
            Limit: limit,
          }),
        ),
      ),
    );
    const items = shards.flatMap((r) => r.Items ?? []);
    items.sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1));
    return items.slice(0, limit).map(toQueueEntry);
  }

  async countQueue(kind: TaskKind, domain: string, taskList: string): Promise<number> {
    let total = 0;
    for (let shard = 0; shard < this.shards; shard++) {
      let startKey: Record<string, unknown> | undefined;
      do {
        const result = await this.table.doc.send(
          new QueryCommand({
            TableName: this.table.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: {
              ':pk': keys.queuePartition(kind, domain, taskList, shard),
            },
            Select: 'COUNT',
            ExclusiveStartKey: startKey,
          }),
        );
        total += result.Count ?? 0;
        startKey = result.LastEvaluatedKey;
      } while (startKey !== undefined);
    }
    return total;
  }

  async dropQueueEntries(entries: readonly QueuedTaskRef[]): Promise<void> {
    await Promise.all(
      entries.map((task) =>
        this.table.doc.send(
          new DeleteCommand({
            TableName: this.table.tableName,
            Key: keys.queueEntry(task, this.shards),
          }),
        ),
      ),
    );
  }

  async applyQueueChanges(changes: QueueChanges): Promise<void> {
    await this.dropQueueEntries(changes.remove);
    await Promise.all(
      changes.add.map((task) =>
        this.table.doc.send(
          new PutCommand({ TableName: this.table.tableName, Item: queueItem(task, this.shards) }),
        ),
      ),
    );
  }

  async putDeadLetter(id: string, record: string, error: string): Promise<void> {
    const at = Date.now();
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: { ...keys.deadLetter(at, id), entity: 'DeadLetter', id, record, error, at },
      }),
    );
  }

  async listDeadLetters(): Promise<DeadLetter[]> {
    const result = await this.table.doc.send(
      new QueryCommand({
        TableName: this.table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.deadLetterPartition },
        ConsistentRead: true,
      }),
    );
    return (result.Items ?? []).map((item) => ({
      id: String(item.id),
      record: String(item.record),
      error: String(item.error),
      at: Number(item.at),
    }));
  }

  /**
   * Open runs, for the local scheduler to re-arm their deadlines when the local server starts. A Scan:
   * used once at local start-up only, never on a request path.
   */
  async scanOpenRuns(): Promise<ExecutionState[]> {
    const states: ExecutionState[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await this.table.doc.send(
        new ScanCommand({
          TableName: this.table.tableName,
          FilterExpression: 'entity = :run AND executionStatus = :open',
          ExpressionAttributeValues: { ':run': 'Run', ':open': 'OPEN' },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of result.Items ?? [])
        if (isPacked(item.state)) states.push(parseState(item.state));
      startKey = result.LastEvaluatedKey;
    } while (startKey !== undefined);
    return states;
  }

  async putHeartbeat(
    runId: string,
    scheduledEventId: number,
    heartbeat: ActivityHeartbeat,
    expiresAt?: number,
  ): Promise<void> {
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: {
          ...keys.heartbeat(runId, scheduledEventId),
          entity: 'Heartbeat',
          ...heartbeat,
          ...(expiresAt === undefined ? {} : { expiresAt }),
        },
      }),
    );
  }

  async getHeartbeat(
    runId: string,
    scheduledEventId: number,
  ): Promise<ActivityHeartbeat | undefined> {
    const { Item } = await this.table.doc.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: keys.heartbeat(runId, scheduledEventId),
        ConsistentRead: true,
      }),
    );
    if (Item === undefined || typeof Item.at !== 'number') return undefined;
    return { at: Item.at, ...(typeof Item.details === 'string' ? { details: Item.details } : {}) };
  }
}

/** Top-level copies of what later readers (visibility, the stream consumer) select on. */
function stateAttributes(state: ExecutionState): Record<string, unknown> {
  return {
    entity: 'Run',
    domain: state.domain,
    workflowId: state.execution.workflowId,
    runId: state.execution.runId,
    executionStatus: state.status,
    startTimestamp: state.startTimestamp,
    ...(state.closeTimestamp === undefined ? {} : { closeTimestamp: state.closeTimestamp }),
  };
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
  };
}

/** Splits a commit's events into chunks that each fit comfortably in one item. */
function chunksOf(events: readonly HistoryEvent[]): HistoryEvent[][] {
  const chunks: HistoryEvent[][] = [];
  let current: HistoryEvent[] = [];
  let size = 0;
  for (const event of events) {
    const eventSize = JSON.stringify(event).length;
    if (current.length > 0 && size + eventSize > MAX_CHUNK_CHARS) {
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

// The table holds what this code wrote: state and events are packed JSON (see packed-json.ts).
const isPacked = (value: unknown): value is string | Uint8Array =>
  typeof value === 'string' || value instanceof Uint8Array;
const parseState = (stored: string | Uint8Array): ExecutionState => unpackJson(stored);
const parseEvents = (stored: unknown): HistoryEvent[] =>
  isPacked(stored) ? unpackJson(stored) : [];
