/**
 * An order that takes weeks: a 30-day return window, then up to 7 days for the customer to confirm
 * (the signal Confirm; without it the order goes ahead), then the card is charged, and while the bank
 * is down each failed charge is tried again after a wait that doubles from an hour up to 6 hours.
 * Shared by the `month-long-order` example and its tests.
 */
import {
  ActivityFailure,
  type ActivityWorker,
  type Decider,
  type Decision,
  decide,
  type WorkflowState,
} from '../lib/sdk/index.js';

export const MONTH_LONG_ORDER = { name: 'MonthLongOrder', version: '1' };
export const CHARGE_CARD = { name: 'ChargeCard', version: '1' };

export const RETURN_WINDOW_SECONDS = 30 * 86_400;
export const CONFIRMATION_SECONDS = 7 * 86_400;
/** The wait after failed charge `attempt` (1 for the first): 1 h, 2 h, 4 h, then 6 h at most. */
export const retryDelaySeconds = (attempt: number) => Math.min(3_600 * 2 ** (attempt - 1), 21_600);
export const MAX_CHARGE_ATTEMPTS = 8;

export interface ChargeRequest {
  readonly orderId: string;
  readonly attempt: number;
}

/** The decider: each step follows from the timers, the signal and the charge's attempts so far. */
export function monthLongOrderDecider(activityTaskList: string): Decider {
  return (state: WorkflowState): Decision[] => {
    const timer = (id: string) => state.timers.get(id)?.status;
    if (timer('return-window') === undefined)
      return [decide.startTimer('return-window', RETURN_WINDOW_SECONDS)];
    if (timer('return-window') !== 'fired') return [];
    const confirmed = state.signals.some((s) => s.signalName === 'Confirm');
    if (!confirmed && timer('confirmation') === undefined)
      return [decide.startTimer('confirmation', CONFIRMATION_SECONDS)];
    if (!confirmed && timer('confirmation') !== 'fired') return [];
    const stopWaiting =
      timer('confirmation') === 'started' ? [decide.cancelTimer('confirmation')] : [];
    return [...stopWaiting, ...charge(state, activityTaskList)];
  };
}

function charge(state: WorkflowState, activityTaskList: string): Decision[] {
  const orderId = state.workflowExecution.workflowId ?? '';
  const attempt = state.activities.get('charge');
  const schedule = (n: number) =>
    decide.scheduleActivityTask({
      activityId: 'charge',
      activityType: CHARGE_CARD,
      taskList: { name: activityTaskList },
      input: JSON.stringify({ orderId, attempt: n } satisfies ChargeRequest),
      scheduleToStartTimeout: 'NONE',
      startToCloseTimeout: 60,
      scheduleToCloseTimeout: 'NONE',
      heartbeatTimeout: 'NONE',
    });
  if (attempt === undefined) return [schedule(1)];
  if (attempt.status === 'completed')
    return [decide.completeWorkflowExecution(`charged on attempt ${attempt.attempts}`)];
  if (attempt.status !== 'failed' && attempt.status !== 'timedOut') return [];
  if (attempt.attempts >= MAX_CHARGE_ATTEMPTS)
    return [decide.failWorkflowExecution('ChargeFailed', attempt.reason ?? '')];
  const retry = `retry-${attempt.attempts}`;
  const waited = state.timers.get(retry)?.status;
  if (waited === undefined) return [decide.startTimer(retry, retryDelaySeconds(attempt.attempts))];
  return waited === 'fired' ? [schedule(attempt.attempts + 1)] : [];
}

/** The bank answers from the `bankUpOnAttempt`-th attempt on; `charges` lists each attempt. */
export function monthLongOrderActivities(
  charges: string[],
  bankUpOnAttempt = 5,
): ConstructorParameters<typeof ActivityWorker>[0]['activities'] {
  return {
    ChargeCard: (input) => {
      const request: ChargeRequest = JSON.parse(input ?? '{}');
      const up = request.attempt >= bankUpOnAttempt;
      charges.push(`attempt ${request.attempt}: ${up ? 'charged' : 'bank unavailable'}`);
      if (!up) throw new ActivityFailure('BankUnavailable', 'the bank did not answer');
      return `charged ${request.orderId}`;
    },
  };
}
