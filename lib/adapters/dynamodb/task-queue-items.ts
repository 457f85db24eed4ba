import type { QueuedTaskRef, TaskKind } from '../../core/task-queue.js';
import type { QueueEntry, TaskQueueStore } from '../../ports/task-queue-store.js';
import { queryPages, type TableRef } from './client.js';
import { isDynamoError } from './doc-client.js';
import { type ItemKey, keys } from './keys.js';

/**
 * Partitions a task list's queue is spread over. Each task is two writes to its list's queue (its entry
 * put and removed) and a partition key takes 1,000 write units a second, so one key would hold a list
 * to about 500 tasks a second; four reach SWF's 2,000 a second per task list. Every poll reads all of
 * them (they are queried at once).
 */
export const QUEUE_SHARDS = 4;

/** A queue entry's mark of the commit attempt that wrote it (see RunCommit.withdrawUnlanded). */
const QUEUE_WRITER = 'w';

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

/**
 * The task lists' queues: an entry per scheduled task, in one of `shards` partitions of its list,
 * sorted by priority and scheduling time. Commits write and remove the entries; polls read them.
 */
export class TaskQueueItems implements TaskQueueStore {
  constructor(
    private readonly table: TableRef,
    private readonly shards: number,
  ) {}

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

  /** Best effort: an entry left behind is dropped by the next poller that finds it stale. */
  async removeEntries(entries: readonly QueuedTaskRef[]): Promise<void> {
    try {
      await this.dropQueueEntries(entries);
    } catch {
      // see above
    }
  }

  /** Writes a task's entry, marked as written by the commit attempt `attempt`. */
  async putEntry(task: QueuedTaskRef, attempt: string): Promise<void> {
    await this.table.doc.put({
      TableName: this.table.tableName,
      Item: { ...queueItem(task, this.shards), [QUEUE_WRITER]: attempt },
    });
  }

  /** Removes a task's entry while it is still the one the commit attempt `attempt` wrote. */
  async dropOwnEntry(task: QueuedTaskRef, attempt: string): Promise<void> {
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

  /** A queue entry's item key as one string: two tasks with the same one share an item. */
  entryId(task: QueuedTaskRef): string {
    const { pk, sk } = keys.queueEntry(task, this.shards);
    return `${pk}\n${sk}`;
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
}
