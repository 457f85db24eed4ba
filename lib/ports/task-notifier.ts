import type { ExecutionState } from '../core/execution-state.js';
import type { HistoryEvent } from '../core/history-event.js';
import type { QueuedTaskRef, TaskKind } from '../core/task-queue.js';

/**
 * What a waiting poller does to a task handed straight to it: start it on the state that has just
 * scheduled it (`events` are that state's new events), or refuse (undefined) and keep waiting.
 */
export type HandoffStarter = (
  state: ExecutionState,
  task: QueuedTaskRef,
  events: readonly HistoryEvent[],
) => { state: ExecutionState; events: HistoryEvent[]; result: unknown } | undefined;

/** An idle poller set aside for one commit: given the task if the commit lands, released if not. */
export interface Reservation {
  readonly start: HandoffStarter;
  deliver(result: unknown): void;
  release(): void;
}

/** One poller's wait: woken by a notify, its time running out, its signal, or a task handed to it. */
export interface PollWait {
  /** Resolves with the handed task's result, or undefined when the poller should look at the queue. */
  readonly done: Promise<{ readonly result: unknown } | undefined>;
  /**
   * From now on (the poller has found its queue empty) a commit that schedules a task on this list may
   * start it for this poller in the same transaction: a task with a poller waiting never touches the
   * queue. Once reserved, the wait ends only by delivery or release.
   */
  acceptHandoff(start: HandoffStarter): void;
  /** Whether the wait ended only because its time ran out (no notify, signal or handoff). */
  endedByTime(): boolean;
}

/**
 * Wakes long polls the moment a task is queued on their list, and hands tasks to idle pollers. In one
 * process (the local server) this is immediate; across Lambda containers it does nothing and polls fall
 * back to re-reading the queue.
 */
export interface TaskNotifier {
  /** Whether every task queued where its pollers wait wakes them (in one process), so none need look on time alone. */
  readonly wakesOnQueue: boolean;
  notify(kind: TaskKind, domain: string, taskList: string): void;
  /** A wait until the next notify for that list, `ms` passing, `signal` firing, or a handoff. */
  wait(kind: TaskKind, domain: string, taskList: string, ms: number, signal: AbortSignal): PollWait;
  /** Sets aside one idle poller that accepts handoffs on that list, if there is one. */
  reserve(kind: TaskKind, domain: string, taskList: string): Reservation | undefined;
  /**
   * A task started for a poll whose caller left before it could be answered (the task's commit was
   * landing as it went): handed to the next poll on its list in this process, which answers with it.
   */
  orphan(kind: TaskKind, domain: string, taskList: string, result: unknown): void;
  /** Takes a task a poll's caller left (see orphan), if one waits on that list. */
  adopt(kind: TaskKind, domain: string, taskList: string): { readonly result: unknown } | undefined;
  /**
   * Whether a poller whose wait ran out should read its list's queue again: in one process every task
   * queued there wakes its pollers, so one look per list per `intervalMs` stands for them all (the
   * first caller in an interval is told yes, the others no). Where no wake reaches, always yes.
   */
  lookDue(kind: TaskKind, domain: string, taskList: string, intervalMs: number): boolean;
  /** Pollers currently waiting on that list in this process. */
  waiting(kind: TaskKind, domain: string, taskList: string): number;
  /**
   * Lets one poller of this process at a time go for a queue entry: the release to call when it is
   * done with it, or undefined while another poller of the process is on it (the caller moves on to
   * the next entry instead of reading the same run to lose the same race).
   */
  goFor(entry: QueuedTaskRef): (() => void) | undefined;
}
