/**
 * Scenarios of the SWF Developer Guide, end to end through the official SDK, on the order system of
 * test/support/order-system.ts: the exclusive-choice order workflow, and a marker.
 */
import { CountPendingDecisionTasksCommand, PollForDecisionTaskCommand } from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { decide, eventsOf, single, uid } from '../support/decider.js';
import {
  domain,
  orderSystemForFile,
  orderWorkflow,
  scheduledTypes,
} from '../support/order-system.js';

const orders = orderSystemForFile();

describe('exclusive choice in the order workflow', () => {
  it('ships and records the order when the charge succeeds', async () => {
    const { execution, lists, worked, history } = await orders.runOrder(true);
    expect(worked).toEqual([
      'VerifyOrder',
      'ChargeCreditCard',
      'ShipOrder',
      'RecordOrderCompletion',
    ]);
    expect(scheduledTypes(history)).toEqual(worked);
    const ship = eventsOf(history, 'ActivityTaskScheduled')[2];
    expect(ship?.activityTaskScheduledEventAttributes).toMatchObject({
      control: 'OPTIONAL_DATA_FOR_DECIDER',
      activityType: { name: 'ShipOrder', version: '2.4' },
      activityId: 'ShipOrderActivity0001',
      scheduleToCloseTimeout: '3600',
      taskList: { name: lists.shipping },
      scheduleToStartTimeout: '600',
      startToCloseTimeout: '3600',
      heartbeatTimeout: '300',
      input: '123 Main Street, Anytown, United States',
    });
    expect(eventsOf(history, 'ActivityTaskCompleted')).toHaveLength(4);
    expect(history.at(-1)?.workflowExecutionCompletedEventAttributes?.result).toBe(
      'order completed',
    );
    expect((await orders.driver.describe(execution)).executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'COMPLETED',
    });
    // every decision task saw the history up to its own start, and ids never skip
    expect(history.map((e) => e.eventId)).toEqual(history.map((_, i) => i + 1));
  });

  it('cancels the order and emails the customer when the charge fails', async () => {
    const { execution, lists, worked, history } = await orders.runOrder(false);
    expect(worked).toEqual(['VerifyOrder', 'ChargeCreditCard', 'CancelOrder', 'EmailCustomer']);
    expect(scheduledTypes(history)).toEqual(worked);
    expect(single(history, 'ActivityTaskFailed').activityTaskFailedEventAttributes?.reason).toBe(
      'card declined',
    );
    const cancel = eventsOf(history, 'ActivityTaskScheduled')[2];
    expect(cancel?.activityTaskScheduledEventAttributes).toMatchObject({
      activityType: { name: 'CancelOrder', version: '2.4' },
      activityId: '3e2e6e55-e7c4-fee-deed-aa815722b7be',
      taskList: { name: lists.cancellations },
      input: 'Out of Stock',
    });
    expect(scheduledTypes(history)).not.toContain('ShipOrder');
    expect(history.at(-1)?.workflowExecutionCompletedEventAttributes?.result).toBe(
      'order canceled, customer told',
    );
    expect((await orders.driver.describe(execution)).executionInfo?.closeStatus).toBe('COMPLETED');
  });
});

describe('the order workflow: a marker', () => {
  it('records "customer elected special shipping offer"; the marker alone schedules no decision task', async () => {
    const deciders = uid('deciders');
    const { execution } = await orders.driver.start(orderWorkflow, {
      taskList: { name: deciders },
      input: 'order 3554',
    });
    const task = await orders.driver.pollDecision(deciders);
    await orders.driver.respond(task.taskToken, [
      {
        decisionType: 'RecordMarker',
        recordMarkerDecisionAttributes: { markerName: 'customer elected special shipping offer' },
      },
    ]);
    const marker = single(await orders.driver.history(execution), 'MarkerRecorded');
    expect(marker.markerRecordedEventAttributes).toEqual({
      markerName: 'customer elected special shipping offer',
      decisionTaskCompletedEventId: 4,
    });
    // nothing moves the execution on by itself
    expect(
      (
        await orders.swf.send(
          new CountPendingDecisionTasksCommand({ domain, taskList: { name: deciders } }),
        )
      ).count,
    ).toBe(0);
    const idle = await orders.swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: deciders } }),
    );
    expect(idle.taskToken).toBeFalsy();

    // a signal does, and the decider finds the marker in the history
    await orders.driver.signal(execution, 'Proceed');
    const next = await orders.driver.pollDecision(deciders);
    expect(
      eventsOf(next.events, 'MarkerRecorded').map(
        (e) => e.markerRecordedEventAttributes?.markerName,
      ),
    ).toEqual(['customer elected special shipping offer']);
    await orders.driver.respond(next.taskToken, [decide.complete('special shipping')]);
    expect((await orders.driver.describe(execution)).executionInfo?.closeStatus).toBe('COMPLETED');
  });
});
