import type { QueuedTaskRef, TaskKind } from '../core/task-queue.js';

export interface QueueEntry extends QueuedTaskRef {
  /**
   * The partition the entry was read from (a store's detail): it is removed from there, though another
   * shard count may have written it.
   */
  readonly partition?: string;
  /**
   * The task was named by a wake, not read from the queue: its entry may be gone already (the
   * commit that started it removes it), so a claim that finds the task gone leaves it alone.
   */
  readonly named?: true;
}

/**
 * The queued tasks of each task list: entries written around a commit (RunStore.commit) that tell a
 * poller where to look; the run's state says whether the task is still there.
 */
export interface TaskQueueStore {
  /** The first queued tasks of a list, best priority then oldest first. */
  peekQueue(kind: TaskKind, domain: string, taskList: string, limit: number): Promise<QueueEntry[]>;
  countQueue(kind: TaskKind, domain: string, taskList: string): Promise<number>;
  /** Removes entries that no longer match their execution (best effort; claims re-check anyway). */
  dropQueueEntries(entries: readonly QueuedTaskRef[]): Promise<void>;
}
