import type { QueuedTaskRef, TaskKind } from '../core/task-queue.js';

/**
 * A wake channel between processes: where polls wait in processes of their own (Lambda containers),
 * the process that queued a task wakes one waiting poll of its list, naming the task, right after
 * its commit. A lost wake costs latency only: a poll always reads its queue when it starts.
 */
export interface TaskWakes {
  /**
   * Opens the list's channel (made on first use). A wake sent after this resolves reaches the
   * listener's next waits, so a poll listens before it reads its queue.
   */
  listen(kind: TaskKind, domain: string, taskList: string): Promise<WakeListener>;
  /** Wakes one waiting poll per task, if a poll has ever listened on their list. Never throws. */
  wake(tasks: readonly QueuedTaskRef[]): Promise<void>;
}

export interface WakeListener {
  /**
   * Waits up to `ms` for a wake: resolves with the task it names (undefined if it names none), or
   * undefined when the time ran out or the signal fired; rejects when the channel failed. A channel
   * may wait less than `ms` (SQS: whole seconds, at most 20).
   */
  next(ms: number, signal: AbortSignal): Promise<{ readonly task?: QueuedTaskRef } | undefined>;
}
