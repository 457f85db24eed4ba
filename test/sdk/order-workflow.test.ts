/**
 * The order workflow of examples/ tested with the testing kit, no service: its activities with a
 * MockActivityContext, its decider against histories written with historyOf and against a run
 * recorded as a golden history. (The whole workflow runs in a TestEnvironment in
 * test/contract/order-workflow.test.ts, which records that run.)
 */
import type { HistoryEvent } from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { type Order, orderActivities, orderDecider } from '../../examples/order-workflow.js';
import { type Activity, CancelReason, type Decision } from '../../lib/sdk/index.js';
import {
  type HistoryStep,
  historyOf,
  loadHistory,
  MockActivityContext,
  events as on,
} from '../../lib/testing/index.js';

const order = (card: Order['card'], shippingMs?: number) =>
  JSON.stringify({ orderId: 'o-1', card, ...(shippingMs === undefined ? {} : { shippingMs }) });

function activity(name: string, happened: string[] = []): Activity {
  const found = orderActivities(happened)[name];
  if (found === undefined) throw new Error(`no activity ${name}`);
  return found;
}

/** What the decider asks for, in short: `ScheduleActivityTask verify VerifyOrder`, … */
function decided(decisions: readonly Decision[]): string[] {
  return decisions.map((d) => {
    const a = d.scheduleActivityTaskDecisionAttributes;
    const detail =
      a !== undefined
        ? `${a.activityId} ${a.activityType?.name}`
        : (d.completeWorkflowExecutionDecisionAttributes?.result ??
          d.failWorkflowExecutionDecisionAttributes?.reason ??
          d.requestCancelActivityTaskDecisionAttributes?.activityId ??
          d.cancelWorkflowExecutionDecisionAttributes?.details);
    return [d.decisionType, detail].filter((p) => p !== undefined).join(' ');
  });
}

const decide = (...steps: HistoryStep[]) =>
  decided(orderDecider('order-activities')(historyOf(...steps).state()) as Decision[]);

const started = on.workflowStarted({ workflowType: 'OrderWorkflow', input: order('valid') });

describe('the order activities', () => {
  it('charge a valid card, and fail a declined one with the bank’s reason', async () => {
    const happened: string[] = [];
    const charge = activity('ChargeCreditCard', happened);
    expect(await new MockActivityContext({ input: order('valid') }).run(charge)).toEqual({
      kind: 'completed',
      result: 'charged',
    });
    expect(await new MockActivityContext({ input: order('declined') }).run(charge)).toEqual({
      kind: 'failed',
      reason: 'CardDeclined',
      details: 'the bank said no',
    });
    expect(happened).toEqual(['ChargeCreditCard o-1: valid', 'ChargeCreditCard o-1: declined']);
  });

  it('ship, heartbeating their progress', async () => {
    const ctx = new MockActivityContext({ input: order('valid', 250) });
    expect(await ctx.run(activity('ShipOrder'))).toEqual({ kind: 'completed', result: 'shipped' });
    expect(ctx.heartbeats.length).toBeGreaterThanOrEqual(2);
    expect(new Set(ctx.heartbeats)).toEqual(new Set(['packing o-1']));
  });

  it('stop shipping when the decider cancels, and say how far they got', async () => {
    const happened: string[] = [];
    const ctx = new MockActivityContext({ input: order('valid', 60_000) });
    ctx.onHeartbeat(() => ctx.cancel());
    const outcome = await ctx.run(activity('ShipOrder', happened));
    expect(outcome).toEqual({ kind: 'canceled', details: 'packing o-1' });
    expect(ctx.cancelReason).toBe(CancelReason.cancelRequested);
    expect(happened).toEqual(['ShipOrder o-1: stopped (cancelRequested)']);
  });
});

describe('the order decider', () => {
  it('verifies, charges, ships and records, then completes', () => {
    const verified = [started, on.activityScheduled('verify', 'VerifyOrder')] as const;
    expect(decide(started)).toEqual(['ScheduleActivityTask verify VerifyOrder']);
    expect(decide(...verified, on.activityCompleted('verify', 'verified'))).toEqual([
      'ScheduleActivityTask charge ChargeCreditCard',
    ]);
    const shipped = [
      ...verified,
      on.activityCompleted('verify'),
      on.activityScheduled('charge', 'ChargeCreditCard'),
      on.activityCompleted('charge', 'charged'),
      on.activityScheduled('ship', 'ShipOrder'),
    ] as const;
    expect(decide(...shipped)).toEqual([]);
    expect(decide(...shipped, on.activityCompleted('ship'))).toEqual([
      'ScheduleActivityTask record RecordOrderCompletion',
    ]);
    expect(
      decide(
        ...shipped,
        on.activityCompleted('ship'),
        on.activityScheduled('record', 'RecordOrderCompletion'),
        on.activityCompleted('record'),
      ),
    ).toEqual(['CompleteWorkflowExecution shipped']);
  });

  it('fails an order it cannot verify', () => {
    expect(
      decide(started, on.activityScheduled('verify', 'VerifyOrder'), on.activityFailed('verify')),
    ).toEqual(['FailWorkflowExecution order invalid']);
  });

  it('cancels the order and emails the customer when the card is declined', () => {
    const declined = [
      started,
      on.activityScheduled('verify', 'VerifyOrder'),
      on.activityCompleted('verify'),
      on.activityScheduled('charge', 'ChargeCreditCard'),
      on.activityFailed('charge', 'CardDeclined', 'the bank said no'),
    ] as const;
    expect(decide(...declined)).toEqual(['ScheduleActivityTask cancel CancelOrder']);
    expect(
      decide(
        ...declined,
        on.activityScheduled('cancel', 'CancelOrder'),
        on.activityCompleted('cancel'),
        on.activityScheduled('email', 'EmailCustomer'),
        on.activityCompleted('email'),
      ),
    ).toEqual(['CompleteWorkflowExecution cancelled: card declined']);
  });

  it('stops shipping on the signal CancelOrder, refunds, emails and cancels; too late once shipped', () => {
    const shipping = [
      started,
      on.activityScheduled('verify', 'VerifyOrder'),
      on.activityCompleted('verify'),
      on.activityScheduled('charge', 'ChargeCreditCard'),
      on.activityCompleted('charge'),
      on.activityScheduled('ship', 'ShipOrder'),
      on.activityStarted('ship'),
    ] as const;
    const asked = [...shipping, on.signaled('CancelOrder')] as const;
    expect(decide(...asked)).toEqual(['RequestCancelActivityTask ship']);
    const stopped = [
      ...asked,
      on.activityCancelRequested('ship'),
      on.activityCanceled('ship', 'packing o-1'),
    ] as const;
    expect(decide(...stopped)).toEqual(['ScheduleActivityTask refund CancelOrder']);
    expect(
      decide(
        ...stopped,
        on.activityScheduled('refund', 'CancelOrder'),
        on.activityCompleted('refund'),
        on.activityScheduled('email', 'EmailCustomer'),
        on.activityCompleted('email'),
      ),
    ).toEqual(['CancelWorkflowExecution cancelled by the customer']);
    expect(
      decide(...shipping, on.activityCompleted('ship', 'shipped'), on.signaled('CancelOrder')),
    ).toEqual(['ScheduleActivityTask record RecordOrderCompletion']);
  });
});

/** What a decision's recorded event says was decided, in the same short form as `decided`. */
function recorded(event: HistoryEvent): string {
  const a = event.activityTaskScheduledEventAttributes;
  if (a !== undefined) return `ScheduleActivityTask ${a.activityId} ${a.activityType?.name}`;
  const completed = event.workflowExecutionCompletedEventAttributes;
  if (completed !== undefined) return `CompleteWorkflowExecution ${completed.result}`;
  throw new Error(`the order decider decides no ${event.eventType}`);
}

describe('the order decider against a recorded run', () => {
  it('decides every decision task of the golden run as it was answered', async () => {
    const run = await loadHistory(new URL('golden/order-shipped.history.json', import.meta.url));
    const tasks = run.answeredDecisionTasks();
    expect(tasks.length).toBeGreaterThanOrEqual(5);
    for (const startedEventId of tasks) {
      const decisions = orderDecider('order-activities')(run.state(startedEventId)) as Decision[];
      expect(decided(decisions), `decision task ${startedEventId}`).toEqual(
        run.recordedAnswer(startedEventId).map(recorded),
      );
    }
  });
});
