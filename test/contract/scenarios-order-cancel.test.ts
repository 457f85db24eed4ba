/**
 * Scenarios of the SWF Developer Guide, end to end through the official SDK, on the order system of
 * test/support/order-system.ts: cancelling an order with cooperative activity cancellation, and an
 * operator's termination.
 */
import {
  CountPendingActivityTasksCommand,
  PollForActivityTaskCommand,
  RecordActivityTaskHeartbeatCommand,
  RespondActivityTaskCanceledCommand,
  RespondActivityTaskCompletedCommand,
  SignalWorkflowExecutionCommand,
  TerminateWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { decide, eventTypes, expectFault, single, uid } from '../support/decider.js';
import {
  domain,
  orderDecider,
  orderLists,
  orderSystemForFile,
  orderWorkflow,
  scheduledTypes,
} from '../support/order-system.js';

const orders = orderSystemForFile();

describe('cancelling an order', () => {
  /** Runs the order until ShipOrder is scheduled (verify and charge done). */
  async function untilShipping() {
    const lists = orderLists();
    const decider = orderDecider(lists);
    const { execution } = await orders.driver.start(orderWorkflow, {
      taskList: { name: lists.deciders },
      input: 'order 3553',
    });
    for (let step = 0; step < 2; step++) {
      await orders.driver.decide(lists.deciders, decider);
      await orders.work(lists, true, execution);
    }
    await orders.driver.decide(lists.deciders, decider);
    expect(scheduledTypes(await orders.driver.history(execution)).at(-1)).toBe('ShipOrder');
    return { execution, lists, decider };
  }

  const cancelOrder = (execution: { workflowId: string; runId: string }) =>
    orders.swf.send(
      new SignalWorkflowExecutionCommand({
        domain,
        workflowId: execution.workflowId,
        runId: execution.runId,
        signalName: 'CancelOrder',
        input: 'order 3553',
      }),
    );

  it('the running ShipOrder worker learns of the cancel on its heartbeat and cancels; the order is canceled', async () => {
    const { execution, lists, decider } = await untilShipping();
    const ship = await orders.driver.pollActivity(lists.shipping, 'shipper');
    expect(ship.activityId).toBe('ShipOrderActivity0001');
    const heartbeat = () =>
      orders.swf.send(
        new RecordActivityTaskHeartbeatCommand({ taskToken: ship.taskToken, details: 'packing' }),
      );
    expect((await heartbeat()).cancelRequested).toBe(false);

    await cancelOrder(execution);
    const signaled = await orders.driver.decide(lists.deciders, decider);
    expect(
      single(signaled.events, 'WorkflowExecutionSignaled').workflowExecutionSignaledEventAttributes,
    ).toEqual({
      signalName: 'CancelOrder',
      input: 'order 3553',
    });
    const requested = single(await orders.driver.history(execution), 'ActivityTaskCancelRequested');
    expect(requested.activityTaskCancelRequestedEventAttributes?.activityId).toBe(
      'ShipOrderActivity0001',
    );
    expect((await orders.driver.describe(execution)).executionInfo?.executionStatus).toBe('OPEN');

    expect((await heartbeat()).cancelRequested).toBe(true);
    await orders.swf.send(
      new RespondActivityTaskCanceledCommand({
        taskToken: ship.taskToken,
        details: 'stopped packing',
      }),
    );
    const canceledTask = await orders.driver.decide(lists.deciders, decider);
    expect(
      single(canceledTask.events, 'ActivityTaskCanceled').activityTaskCanceledEventAttributes,
    ).toMatchObject({
      details: 'stopped packing',
      startedEventId: ship.startedEventId,
      latestCancelRequestedEventId: requested.eventId,
    });

    const history = await orders.driver.history(execution);
    expect(eventTypes(history).slice(-10)).toEqual([
      'WorkflowExecutionSignaled',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'ActivityTaskCancelRequested',
      'ActivityTaskCanceled',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'WorkflowExecutionCanceled',
    ]);
    expect(history.at(-1)?.workflowExecutionCanceledEventAttributes?.details).toBe(
      'order canceled',
    );
    const detail = await orders.driver.describe(execution);
    expect(detail.executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'CANCELED',
    });
    expect(scheduledTypes(history)).not.toContain('RecordOrderCompletion');
  });

  it('a ShipOrder no worker has taken yet is canceled at once and never handed out', async () => {
    const { execution, lists, decider } = await untilShipping();
    await cancelOrder(execution);
    await orders.driver.decide(lists.deciders, decider);
    let history = await orders.driver.history(execution);
    expect(eventTypes(history).slice(-3)).toEqual([
      'ActivityTaskCancelRequested',
      'ActivityTaskCanceled',
      'DecisionTaskScheduled',
    ]);
    expect(
      (
        await orders.swf.send(
          new CountPendingActivityTasksCommand({ domain, taskList: { name: lists.shipping } }),
        )
      ).count,
    ).toBe(0);
    await orders.driver.decide(lists.deciders, decider);
    history = await orders.driver.history(execution);
    expect(history.at(-1)?.eventType).toBe('WorkflowExecutionCanceled');
    expect((await orders.driver.describe(execution)).executionInfo?.closeStatus).toBe('CANCELED');
    const late = await orders.swf.send(
      new PollForActivityTaskCommand({ domain, taskList: { name: lists.shipping } }),
    );
    expect(late.taskToken).toBeFalsy();
  });

  it('a worker that ignores the cancel request completes the shipment, and the decider accepts it', async () => {
    const { execution, lists, decider } = await untilShipping();
    const ship = await orders.driver.pollActivity(lists.shipping);
    await cancelOrder(execution);
    await orders.driver.decide(lists.deciders, decider);
    expect(
      (await orders.swf.send(new RecordActivityTaskHeartbeatCommand({ taskToken: ship.taskToken })))
        .cancelRequested,
    ).toBe(true);
    await orders.swf.send(
      new RespondActivityTaskCompletedCommand({
        taskToken: ship.taskToken,
        result: 'already shipped',
      }),
    );
    // the decider goes on as if the shipment had completed normally
    await orders.driver.decide(lists.deciders, decider);
    await orders.work(lists, true, execution);
    await orders.driver.decide(lists.deciders, decider);
    const detail = await orders.driver.describe(execution);
    expect(detail.executionInfo?.closeStatus).toBe('COMPLETED');
    expect(scheduledTypes(await orders.driver.history(execution)).at(-1)).toBe(
      'RecordOrderCompletion',
    );
  });
});

describe('terminate: an operator stops an order that hangs at shipping', () => {
  it('closes TERMINATED at once; the shipper and the decider lose their tasks; the id can be reused', async () => {
    const lists = orderLists();
    const decider = orderDecider(lists);
    const workflowId = uid('order');
    const { execution } = await orders.driver.start(orderWorkflow, {
      workflowId,
      taskList: { name: lists.deciders },
      input: 'order 3555',
    });
    for (let step = 0; step < 2; step++) {
      await orders.driver.decide(lists.deciders, decider);
      await orders.work(lists, true, execution);
    }
    await orders.driver.decide(lists.deciders, decider);
    const ship = await orders.driver.pollActivity(lists.shipping);
    await orders.cancelOrderSignal(workflowId);
    const pendingDecision = await orders.driver.pollDecision(lists.deciders);

    await orders.swf.send(
      new TerminateWorkflowExecutionCommand({
        domain,
        workflowId,
        reason: 'customer called support',
        details: 'refund issued by hand',
      }),
    );
    const history = await orders.driver.history(execution);
    expect(history.at(-1)?.workflowExecutionTerminatedEventAttributes).toMatchObject({
      reason: 'customer called support',
      details: 'refund issued by hand',
      childPolicy: 'TERMINATE',
    });
    expect((await orders.driver.describe(execution)).executionInfo?.closeStatus).toBe('TERMINATED');
    await expectFault(
      orders.swf.send(new RecordActivityTaskHeartbeatCommand({ taskToken: ship.taskToken })),
      'UnknownResourceFault',
    );
    await expectFault(
      orders.driver.respond(pendingDecision.taskToken, [decide.cancel()]),
      'UnknownResourceFault',
    );
    expect(eventTypes(await orders.driver.history(execution))).toEqual(eventTypes(history));

    const again = await orders.driver.start(orderWorkflow, {
      workflowId,
      taskList: { name: lists.deciders },
      input: 'order 3555',
    });
    expect(again.execution.runId).not.toBe(execution.runId);
    const fresh = await orders.driver.pollDecision(lists.deciders);
    expect(fresh.workflowExecution).toEqual(again.execution);
  });
});
