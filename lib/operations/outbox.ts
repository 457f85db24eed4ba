/**
 * The outbox: what a committed change of a run's state asks of the world besides the commit itself
 * (lib/core/outbox.ts lists it as effects), carried out by the stream consumer, each effect by its
 * own module under outbox/.
 */
import { assertNever } from '../core/assert-never.js';
import type { ExecutionState } from '../core/execution-state.js';
import { type OutboxEffect, outboxEffects } from '../core/outbox.js';
import type { DeadlineScheduler } from '../ports/deadline-scheduler.js';
import type { OperationDeps } from './context.js';
import { applyChildPolicy, notifyParent, startChild } from './outbox/children.js';
import { disarmAlarm } from './outbox/deadline-effects.js';
import { deliverExternal } from './outbox/external-requests.js';
import { runLambdaFunction } from './outbox/lambda-functions.js';
import { expireClosedRun, syncVisibility } from './visibility-sync.js';

export { fireRunDeadline } from './outbox/deadline-effects.js';
export { runLambdaTask } from './outbox/lambda-functions.js';

export interface OutboxDeps extends OperationDeps {
  readonly scheduler: DeadlineScheduler;
}

/** Carries out what one committed change of a run's state asks for (see lib/core/outbox.ts). */
export async function carryOutRunChange(
  deps: OutboxDeps,
  before: ExecutionState | undefined,
  after: ExecutionState,
  alreadyArmed = false,
): Promise<void> {
  for (const effect of outboxEffects(before, after)) {
    if (effect.kind === 'arm' && alreadyArmed) continue;
    await carryOut(deps, effect);
  }
}

/** Arms a change's new deadlines (cheap, idempotent, order-free: the stream handler does these first). */
export async function armDeadlines(
  deps: OutboxDeps,
  before: ExecutionState | undefined,
  after: ExecutionState,
): Promise<void> {
  const arms = outboxEffects(before, after).filter((e) => e.kind === 'arm');
  await Promise.all(arms.map((effect) => carryOut(deps, effect)));
}

async function carryOut(deps: OutboxDeps, effect: OutboxEffect): Promise<void> {
  switch (effect.kind) {
    case 'arm':
      return deps.scheduler.arm({
        runId: effect.deadline.runId,
        key: effect.deadline.key,
        at: effect.deadline.at,
      });
    case 'disarm':
      return disarmAlarm(deps, effect.deadline, effect.closed);
    case 'deliver-external':
      return deliverExternal(deps, effect.runId, effect.initiatedEventId);
    case 'start-child':
      return startChild(deps, effect.runId, effect.initiatedEventId);
    case 'notify-parent':
      return notifyParent(deps, effect.child);
    case 'apply-child-policy':
      return applyChildPolicy(deps, effect.parent, effect.policy, effect.children);
    case 'invoke-lambda':
      return runLambdaFunction(deps, effect.runId, effect.scheduledEventId);
    case 'sync-visibility':
      return syncVisibility(deps, effect.before, effect.after);
    case 'expire-run':
      return expireClosedRun(deps, effect.run);
    default:
      return assertNever(effect);
  }
}
