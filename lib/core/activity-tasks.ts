/** Activity tasks: handing one out and its three worker outcomes. */
import type { ActivityState, ExecutionState } from './execution-state.js';
import { Transition } from './transition.js';

export function startActivityTask(
  state: ExecutionState,
  activity: ActivityState,
  identity: string | undefined,
  now: number,
): Transition {
  const t = new Transition(state, now);
  t.record({
    eventType: 'ActivityTaskStarted',
    attributes: {
      ...(identity === undefined ? {} : { identity }),
      scheduledEventId: activity.scheduledEventId,
    },
  });
  return t;
}

export type ActivityOutcome =
  | { readonly kind: 'completed'; readonly result?: string }
  | { readonly kind: 'failed'; readonly reason?: string; readonly details?: string }
  | { readonly kind: 'canceled'; readonly details?: string };

/** The worker's answer for a started activity: its closing event, then the decision task it owes. */
export function closeActivityTask(
  state: ExecutionState,
  activity: ActivityState,
  outcome: ActivityOutcome,
  now: number,
): Transition {
  const ids = {
    scheduledEventId: activity.scheduledEventId,
    startedEventId: activity.startedEventId ?? 0,
  };
  const t = new Transition(state, now);
  switch (outcome.kind) {
    case 'completed':
      t.record({
        eventType: 'ActivityTaskCompleted',
        attributes: { ...optional('result', outcome.result), ...ids },
      });
      break;
    case 'failed':
      t.record({
        eventType: 'ActivityTaskFailed',
        attributes: {
          ...optional('reason', outcome.reason),
          ...optional('details', outcome.details),
          ...ids,
        },
      });
      break;
    case 'canceled':
      t.record({
        eventType: 'ActivityTaskCanceled',
        attributes: {
          ...optional('details', outcome.details),
          ...ids,
          ...optional('latestCancelRequestedEventId', activity.latestCancelRequestedEventId),
        },
      });
      break;
  }
  t.scheduleDecisionTaskIfOwed();
  return t;
}

/** `{ [key]: value }` when the value is present, `{}` otherwise: optional members are omitted, never null. */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}
