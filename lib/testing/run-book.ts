/**
 * What a test environment knows of its runs: the latest state of each, as the service commits it. The
 * time skipper reads from it whether every open run waits on deadlines alone, and `awaitClose` waits
 * here for a run's close instead of polling the service.
 */
import { earliestDeadline } from '../core/deadlines.js';
import type { ExecutionState } from '../core/execution-state.js';

type CloseWaiter = (state: ExecutionState) => void;

export class RunBook {
  readonly #states = new Map<string, ExecutionState>();
  readonly #open = new Set<string>();
  readonly #waiters = new Map<string, CloseWaiter[]>();

  /** A committed state of a run. An older one than the run's latest (its commit told late) is ignored. */
  record(state: ExecutionState): void {
    const runId = state.execution.runId;
    const known = this.#states.get(runId);
    if (known !== undefined && (known.status === 'CLOSED' || known.nextEventId > state.nextEventId))
      return;
    this.#states.set(runId, state);
    if (state.status === 'OPEN') {
      this.#open.add(runId);
      return;
    }
    this.#open.delete(runId);
    for (const resolve of this.#waiters.get(runId) ?? []) resolve(state);
    this.#waiters.delete(runId);
  }

  state(runId: string): ExecutionState | undefined {
    return this.#states.get(runId);
  }

  /** The open runs' latest states. */
  *open(): Iterable<ExecutionState> {
    for (const runId of this.#open) {
      const state = this.#states.get(runId);
      if (state !== undefined) yield state;
    }
  }

  /** Resolves with the run's closed state once it closes (at once if it has). */
  closed(runId: string): { readonly done: Promise<ExecutionState>; cancel(): void } {
    const state = this.#states.get(runId);
    if (state?.status === 'CLOSED') return { done: Promise.resolve(state), cancel: () => {} };
    let waiter: CloseWaiter = () => {};
    const done = new Promise<ExecutionState>((resolve) => {
      waiter = resolve;
    });
    this.#waiters.set(runId, [...(this.#waiters.get(runId) ?? []), waiter]);
    return {
      done,
      cancel: () => {
        const left = (this.#waiters.get(runId) ?? []).filter((w) => w !== waiter);
        if (left.length > 0) this.#waiters.set(runId, left);
        else this.#waiters.delete(runId);
      },
    };
  }

  /**
   * The earliest deadline (epoch ms) of the open runs when each of them waits on deadlines alone, and
   * undefined when one has work in progress, or none has a deadline.
   */
  nextDeadlineWhenIdle(): number | undefined {
    let earliest: number | undefined;
    for (const state of this.open()) {
      if (workInProgress(state).length > 0 || this.#hearsOfChild(state)) return undefined;
      const deadline = earliestDeadline(state);
      if (deadline !== undefined && (earliest === undefined || deadline.at * 1000 < earliest))
        earliest = deadline.at * 1000;
    }
    return earliest;
  }

  /** The earliest deadline (epoch ms) of any open run, whatever else it waits on. */
  nextDeadline(): number | undefined {
    let earliest: number | undefined;
    for (const state of this.open()) {
      const deadline = earliestDeadline(state);
      if (deadline !== undefined && (earliest === undefined || deadline.at * 1000 < earliest))
        earliest = deadline.at * 1000;
    }
    return earliest;
  }

  /**
   * Whether a child of the run has closed and the run is yet to hear of it (the outbox tells it): the
   * stream carries the news, but this needs no stream to see it.
   */
  #hearsOfChild(state: ExecutionState): boolean {
    return Object.values(state.children).some(
      (child) => child.runId !== undefined && this.#states.get(child.runId)?.status === 'CLOSED',
    );
  }

  /** Whether some open run has a decision task a decider has started and not answered. */
  hasStartedDecisionTask(): boolean {
    for (const state of this.open()) if (state.decisionTask.status === 'started') return true;
    return false;
  }
}

/**
 * What a run waits on besides its deadlines, in words: tasks queued or started, and what the service
 * still has to carry out for it (a child to start, a signal or cancel request to deliver). Empty when
 * only timers and timeouts remain.
 */
export function workInProgress(state: ExecutionState): string[] {
  if (state.status !== 'OPEN') return [];
  const work: string[] = [];
  const task = state.decisionTask;
  if (task.status === 'scheduled')
    work.push(`a decision task queued on task list "${task.taskList}"`);
  if (task.status === 'started') work.push('a decision task a decider has started');
  for (const a of Object.values(state.activities)) {
    const what = `activity ${a.activityId} (${a.activityType.name} ${a.activityType.version})`;
    work.push(
      a.startedEventId === undefined
        ? `${what} queued on task list "${a.taskList}"`
        : `${what} started by ${a.identity ?? 'a worker'}`,
    );
  }
  for (const fn of Object.values(state.lambdaFunctions))
    work.push(`Lambda function ${fn.id} (${fn.name})`);
  for (const child of Object.values(state.children))
    if (child.runId === undefined) work.push(`the start of child ${child.workflowId}`);
  for (const request of Object.values(state.externalRequests))
    work.push(`a ${request.kind} request to ${request.workflowId}`);
  return work;
}
