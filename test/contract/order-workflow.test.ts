/**
 * The order workflow of examples/ (exclusive choice: ship, or cancel when the card is declined; and
 * a customer's CancelOrder signal that stops shipping) run whole in a TestEnvironment of the testing
 * kit. The shipped run is kept as a golden history, which test/sdk/order-workflow.test.ts replays.
 */
import { randomUUID } from 'node:crypto';
import { type HistoryEvent, SignalWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ORDER_ACTIVITIES,
  ORDER_WORKFLOW,
  type Order,
  orderActivities,
  orderDecider,
} from '../../examples/order-workflow.js';
import { goldenHistory, TestEnvironment } from '../../lib/testing/index.js';
import { until } from '../sdk/support.js';
import { dynamoEndpoint } from '../support/local.js';

/** Where the shipped run is kept (recorded when missing, or with SWF_UPDATE_GOLDEN=1). */
const SHIPPED_ORDER_HISTORY = new URL('../sdk/golden/order-shipped.history.json', import.meta.url);

let env: TestEnvironment;
const happened: string[] = [];

beforeAll(async () => {
  env = await TestEnvironment.create({ dynamoEndpoint: dynamoEndpoint() });
  await env.registerWorkflowType({ ...ORDER_WORKFLOW, defaultTaskList: { name: 'orders' } });
  for (const name of ORDER_ACTIVITIES) await env.registerActivityType({ name, version: '1' });
  env.startDecider({ taskList: 'orders', decider: orderDecider('order-activities') });
  env.startActivityWorker({ taskList: 'order-activities', activities: orderActivities(happened) });
});
afterAll(() => env?.close());

function startOrder(card: Order['card'], shippingMs?: number) {
  const order: Order = {
    orderId: `o-${randomUUID().slice(0, 8)}`,
    card,
    ...(shippingMs === undefined ? {} : { shippingMs }),
  };
  return env.startWorkflow({
    workflowType: ORDER_WORKFLOW,
    workflowId: order.orderId,
    input: JSON.stringify(order),
  });
}

const scheduled = (events: readonly HistoryEvent[]) =>
  events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);

const didFor = (workflowId: string) =>
  happened.filter((line) => line.includes(workflowId)).map((line) => line.split(' ')[0]);

describe('the order workflow in a test environment', () => {
  it('verifies, charges, ships and records an order whose card charges', async () => {
    const run = await startOrder('valid');
    const closed = await env.awaitClose(run);
    const golden = await goldenHistory(SHIPPED_ORDER_HISTORY, async () => closed);
    expect(closed.closeStatus).toBe('COMPLETED');
    expect(closed.result).toBe('shipped');
    const steps = ['VerifyOrder', 'ChargeCreditCard', 'ShipOrder', 'RecordOrderCompletion'];
    expect(scheduled(closed.events)).toEqual(steps);
    expect(didFor(run.workflowId)).toEqual(steps);
    // The golden run, recorded once, is one of these too.
    expect(scheduled(golden.events)).toEqual(steps);
    expect(golden.events.at(-1)?.eventType).toBe('WorkflowExecutionCompleted');
  });

  it('cancels the order and emails the customer when the card is declined', async () => {
    const run = await startOrder('declined');
    const closed = await env.awaitClose(run);
    expect(closed.result).toBe('cancelled: card declined');
    const failed = closed.events.find((e) => e.eventType === 'ActivityTaskFailed');
    expect(failed?.activityTaskFailedEventAttributes).toMatchObject({
      reason: 'CardDeclined',
      details: 'the bank said no',
    });
    expect(scheduled(closed.events)).toEqual([
      'VerifyOrder',
      'ChargeCreditCard',
      'CancelOrder',
      'EmailCustomer',
    ]);
  });

  it('stops shipping on the signal CancelOrder, refunds, emails and cancels', async () => {
    // Shipping takes a minute of the wall clock: time does not skip while it runs.
    const run = await startOrder('valid', 60_000);
    await until(
      async () =>
        (await env.history(run)).filter((e) => e.eventType === 'ActivityTaskStarted').length === 3,
      'shipping started',
      20_000,
      50,
    );
    await env.client.send(
      new SignalWorkflowExecutionCommand({
        domain: env.domain,
        workflowId: run.workflowId,
        signalName: 'CancelOrder',
      }),
    );
    const closed = await env.awaitClose(run);
    expect(closed.closeStatus).toBe('CANCELED');
    expect(closed.details).toBe('cancelled by the customer');
    const canceled = closed.events.find((e) => e.eventType === 'ActivityTaskCanceled');
    expect(canceled?.activityTaskCanceledEventAttributes?.details).toMatch(/^packing o-/);
    expect(happened).toContain(`ShipOrder ${run.workflowId}: stopped (cancelRequested)`);
    expect(scheduled(closed.events).slice(3)).toEqual(['CancelOrder', 'EmailCustomer']);
  });
});
