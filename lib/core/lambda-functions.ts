/** Lambda tasks of a run: started by the outbox, closed with the invocation's outcome. */
import { lambdaTimedOutBy } from './deadlines.js';
import type { ExecutionState, LambdaState } from './execution-state.js';
import { cutText } from './limits.js';
import { Transition } from './transition.js';

/** The longest result or details, reason and message a Lambda task's events hold. */
const MAX_DATA = 32_768;
const MAX_REASON = 256;
const MAX_MESSAGE = 1_728;

const scheduledFunction = (
  state: ExecutionState,
  scheduledEventId: number,
): LambdaState | undefined =>
  Object.values(state.lambdaFunctions).find((f) => f.scheduledEventId === scheduledEventId);

/** LambdaFunctionStarted, once: a scheduled function that has not started yet. */
export function startLambdaFunction(
  state: ExecutionState,
  scheduledEventId: number,
  now: number,
): Transition | undefined {
  const fn = scheduledFunction(state, scheduledEventId);
  if (state.status !== 'OPEN' || fn === undefined || fn.startedEventId !== undefined)
    return undefined;
  const t = new Transition(state, now);
  t.record({ eventType: 'LambdaFunctionStarted', attributes: { scheduledEventId } });
  return t;
}

export type LambdaOutcome =
  | { readonly kind: 'completed'; readonly result?: string }
  | { readonly kind: 'failed'; readonly reason: string; readonly details?: string }
  | { readonly kind: 'start-failed'; readonly cause: string; readonly message: string }
  | { readonly kind: 'timed-out' };

/** The invocation's outcome for the attempt that started as `startedEventId`. */
export function closeLambdaFunction(
  state: ExecutionState,
  scheduledEventId: number,
  startedEventId: number,
  outcome: LambdaOutcome,
  now: number,
): Transition | undefined {
  const fn = scheduledFunction(state, scheduledEventId);
  if (state.status !== 'OPEN' || fn === undefined || fn.startedEventId !== startedEventId)
    return undefined;
  // An answer that comes after the task's start-to-close timeout (its fire not handled yet) is too
  // late, as a worker's is: the fire records LambdaFunctionTimedOut.
  if (outcome.kind !== 'timed-out' && lambdaTimedOutBy(state, scheduledEventId, now))
    return undefined;
  const ids = { scheduledEventId, startedEventId };
  const t = new Transition(state, now);
  // What a function answers is cut to what its event can hold, as SWF records it.
  switch (outcome.kind) {
    case 'completed':
      t.record({
        eventType: 'LambdaFunctionCompleted',
        attributes: {
          ...ids,
          ...(outcome.result === undefined ? {} : { result: cutText(outcome.result, MAX_DATA) }),
        },
      });
      break;
    case 'failed':
      t.record({
        eventType: 'LambdaFunctionFailed',
        attributes: {
          ...ids,
          reason: cutText(outcome.reason, MAX_REASON),
          ...(outcome.details === undefined ? {} : { details: cutText(outcome.details, MAX_DATA) }),
        },
      });
      break;
    case 'start-failed':
      t.record({
        eventType: 'StartLambdaFunctionFailed',
        attributes: {
          scheduledEventId,
          cause: outcome.cause,
          message: cutText(outcome.message, MAX_MESSAGE),
        },
      });
      break;
    case 'timed-out':
      t.record({
        eventType: 'LambdaFunctionTimedOut',
        attributes: { ...ids, timeoutType: 'START_TO_CLOSE' },
      });
      break;
  }
  t.scheduleDecisionTaskIfOwed();
  return t;
}
