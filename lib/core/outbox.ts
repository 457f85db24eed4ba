/**
 * The stream is the outbox (docs/architecture.md): what a committed change of a run's state asks to happen later or
 * elsewhere is derived from the old and new state alone. Carrying out an effect re-checks the current
 * state, so a record delivered twice, or out of order with a retry, changes nothing.
 */

import type { ChildState, ExecutionState } from './execution-state.js';
import { ownProperty } from './own-property.js';
import { visibilityChanged } from './visibility.js';

export type OutboxEffect =
  /** Arm the run's alarm: one fire for all its deadlines (see withAlarm). */
  | {
      readonly kind: 'arm';
      readonly deadline: { readonly runId: string; readonly key: string; readonly at: number };
    }
  /**
   * Give up an alarm armed earlier that will not be needed: the run closed before it, or a sooner
   * alarm took its place (whose fire arms it again if it is still the earliest then).
   */
  | {
      readonly kind: 'disarm';
      readonly deadline: { readonly runId: string; readonly key: string; readonly at: number };
      /** The run closed: it can never set an alarm again. */
      readonly closed: boolean;
    }
  | { readonly kind: 'deliver-external'; readonly runId: string; readonly initiatedEventId: number }
  | { readonly kind: 'start-child'; readonly runId: string; readonly initiatedEventId: number }
  | { readonly kind: 'notify-parent'; readonly child: ExecutionState }
  | {
      readonly kind: 'apply-child-policy';
      readonly parent: ExecutionState;
      readonly policy: 'TERMINATE' | 'REQUEST_CANCEL';
      readonly children: readonly ChildState[];
    }
  | { readonly kind: 'invoke-lambda'; readonly runId: string; readonly scheduledEventId: number }
  /** What ListOpen/ListClosed show of the run changed: opened, cancel requested, closed. */
  | {
      readonly kind: 'sync-visibility';
      readonly before: ExecutionState | undefined;
      readonly after: ExecutionState;
    }
  /** A closed run (its state, history, heartbeats) disappears after the domain's retention. */
  | { readonly kind: 'expire-run'; readonly run: ExecutionState };

export function outboxEffects(
  before: ExecutionState | undefined,
  after: ExecutionState,
): OutboxEffect[] {
  const runId = after.execution.runId;
  const effects: OutboxEffect[] = [];
  // One fire per run, its alarm (see withAlarm): armed whenever the commit moved it.
  const alarm = after.alarm;
  if (alarm !== undefined && after.status === 'OPEN' && alarm.at !== before?.alarm?.at)
    effects.push({ kind: 'arm', deadline: { runId, key: alarm.key, at: alarm.at } });
  // An alarm only moves later by firing (then it is spent); one overtaken or outlived is disarmed.
  const previous = before?.alarm;
  const outlived = before?.status === 'OPEN' && after.status === 'CLOSED';
  if (previous !== undefined && (outlived || (alarm !== undefined && alarm.at < previous.at)))
    effects.push({
      kind: 'disarm',
      deadline: { runId, key: previous.key, at: previous.at },
      closed: outlived,
    });
  // Signals, cancel requests and child starts go out in the order their decisions were listed (their
  // Initiated events' order): a request to a child started earlier in the same response finds it.
  const initiated: OutboxEffect[] = [];
  for (const id of Object.keys(after.externalRequests)) {
    if (before === undefined || ownProperty(before.externalRequests, id) === undefined)
      initiated.push({ kind: 'deliver-external', runId, initiatedEventId: Number(id) });
  }
  for (const [id, child] of Object.entries(after.children)) {
    if (
      child.initiated !== undefined &&
      (before === undefined || ownProperty(before.children, id) === undefined)
    ) {
      initiated.push({ kind: 'start-child', runId, initiatedEventId: Number(id) });
    }
  }
  effects.push(...initiated.sort((a, b) => initiatedEventId(a) - initiatedEventId(b)));
  for (const fn of Object.values(after.lambdaFunctions)) {
    if (before === undefined || ownProperty(before.lambdaFunctions, fn.id) === undefined)
      effects.push({ kind: 'invoke-lambda', runId, scheduledEventId: fn.scheduledEventId });
  }
  if (before?.status === 'OPEN' && after.status === 'CLOSED') effects.push(...closeEffects(after));
  if (visibilityChanged(before, after)) effects.push({ kind: 'sync-visibility', before, after });
  if (after.status === 'CLOSED' && before?.status !== 'CLOSED')
    effects.push({ kind: 'expire-run', run: after });
  return effects;
}

const initiatedEventId = (effect: OutboxEffect) =>
  effect.kind === 'deliver-external' || effect.kind === 'start-child' ? effect.initiatedEventId : 0;

/**
 * Closing tells the parent (a run that continued as new is not a close to it: its successor will be),
 * and a terminated or timed-out run applies its child policy to its open children.
 */
function closeEffects(after: ExecutionState): OutboxEffect[] {
  const effects: OutboxEffect[] = [];
  if (after.parent !== undefined && after.closeStatus !== 'CONTINUED_AS_NEW')
    effects.push({ kind: 'notify-parent', child: after });
  const policy = appliedChildPolicy(after);
  const children = Object.values(after.children).filter((c) => c.runId !== undefined);
  if ((policy === 'TERMINATE' || policy === 'REQUEST_CANCEL') && children.length > 0) {
    effects.push({ kind: 'apply-child-policy', parent: after, policy, children });
  }
  return effects;
}

function appliedChildPolicy(state: ExecutionState): string | undefined {
  const event = state.closeEvent;
  if (
    event?.eventType === 'WorkflowExecutionTerminated' ||
    event?.eventType === 'WorkflowExecutionTimedOut'
  ) {
    return event.attributes.childPolicy;
  }
  return undefined;
}
