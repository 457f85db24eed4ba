import type { TaskKind } from '../core/task-queue.js';

/**
 * Wakes long polls the moment a task is queued on their list. In one process (the local server) this is
 * immediate; across Lambda containers it does nothing and polls fall back to re-reading the queue.
 */
export interface TaskNotifier {
  notify(kind: TaskKind, domain: string, taskList: string): void;
  /** Resolves on the next notify for that list, when `ms` pass, or when `signal` fires. */
  wait(
    kind: TaskKind,
    domain: string,
    taskList: string,
    ms: number,
    signal: AbortSignal,
  ): Promise<void>;
  /** Pollers currently waiting on that list in this process. */
  waiting(kind: TaskKind, domain: string, taskList: string): number;
}
