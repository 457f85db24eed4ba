import { UnknownResourceFault } from '../core/faults.js';
import { type PushedTaskRef, pushedTasks, taskKey } from '../core/task-queue.js';
import type { LoadedRun } from '../ports/execution-store.js';
import { PUSHED_TASK_SOURCE, type PushedTaskEvent } from '../ports/task-push.js';
import type { OperationDeps } from './context.js';
import type { StartedFromQueue } from './long-poll.js';
import { mutateRun } from './run-mutation.js';

/**
 * Starts a task of a push task list in one conditional commit, as a poll's claim does, if the run's
 * latest state still has it waiting for this function (`pushedTasks`): not started already (a stream
 * record handled again), withdrawn, or of a closed run. Undefined when nothing was started, or the run
 * is gone.
 */
export async function startPushed<T>(
  deps: OperationDeps,
  task: PushedTaskRef,
  start: (loaded: LoadedRun) => StartedFromQueue<T>,
): Promise<T | undefined> {
  const waiting = (loaded: LoadedRun) =>
    pushedTasks(loaded.state).some((t) => taskKey(t) === taskKey(task) && t.target === task.target);
  try {
    return await mutateRun(deps, task.runId, (loaded) => {
      if (!waiting(loaded)) return { write: false, result: undefined };
      const started = start(loaded);
      return { write: true, result: started.result, state: started.state, events: started.events };
    });
  } catch (error) {
    if (error instanceof UnknownResourceFault) return undefined;
    throw error;
  }
}

/** What the function of a push task list is invoked with: the poll's answer for the task. */
export const pushedEvent = (task: PushedTaskRef, answer: object): PushedTaskEvent => ({
  source: PUSHED_TASK_SOURCE,
  kind: task.kind,
  domain: task.domain,
  taskList: task.taskList,
  task: answer as Record<string, unknown>,
});

/**
 * Invokes the function with a task started for it. Its start is committed: a retry of the stream record
 * would find it started and push nothing, so a failure is logged (the task times out, start-to-close, as
 * one whose worker died would) and the record's other effects go on.
 */
export async function deliverPushed(
  deps: OperationDeps,
  task: PushedTaskRef,
  event: PushedTaskEvent,
): Promise<void> {
  try {
    await deps.push.push(task.target, event);
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    console.error(
      JSON.stringify({
        level: 'error',
        message: 'pushed task not delivered: it will time out',
        target: task.target,
        kind: task.kind,
        runId: task.runId,
        scheduledEventId: task.scheduledEventId,
        reason,
      }),
    );
  }
}
