import type { PushedTaskRef } from '../core/task-queue.js';
import type { OperationDeps } from './context.js';
import { pushedTaskEvent } from './task-start.js';

/** A task a commit started for the function of its push task list, to hand over once it has landed. */
export interface StartedPush {
  readonly task: PushedTaskRef;
  /** What the task's HandoffStarter made of it (see pushHandoff). */
  readonly started: unknown;
}

/**
 * Invokes each function with the task started for it by a commit that has landed. The start is
 * committed either way: a task that cannot be handed over (its function unreachable, its answer
 * unreadable) is logged and times out (start-to-close), as one whose worker took it and died would,
 * and is then scheduled again or reported to the decider. Never rejects.
 */
export async function deliverPushes(
  deps: OperationDeps,
  pushes: readonly StartedPush[],
): Promise<void> {
  await Promise.all(pushes.map((p) => deliverPush(deps, p)));
}

async function deliverPush(deps: OperationDeps, { task, started }: StartedPush): Promise<void> {
  try {
    await deps.push.push(task.target, await pushedTaskEvent(deps, task, started));
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
