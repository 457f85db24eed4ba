/**
 * Scenarios of the SWF Developer Guide, end to end through the official SDK: the exclusive-choice order
 * workflow, cancelling an order with cooperative activity cancellation, a
 * marker, continue-as-new for a recursive workflow, and an operator's termination.
 */
import {
  CountPendingActivityTasksCommand,
  CountPendingDecisionTasksCommand,
  type Decision,
  type HistoryEvent,
  PollForActivityTaskCommand,
  PollForDecisionTaskCommand,
  RecordActivityTaskHeartbeatCommand,
  RegisterActivityTypeCommand,
  RegisterWorkflowTypeCommand,
  RespondActivityTaskCanceledCommand,
  RespondActivityTaskCompletedCommand,
  RespondActivityTaskFailedCommand,
  SignalWorkflowExecutionCommand,
  type SWFClient,
  TerminateWorkflowExecutionCommand,
  type WorkflowExecution,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decide,
  eventsOf,
  eventTypes,
  expectFault,
  type StartedDecisionTask,
  type SwfDriver,
  single,
  uid,
} from '../support/decider.js';
import { serveDomain } from '../support/local.js';

let swf: SWFClient;
let driver: SwfDriver;
let close: () => Promise<void>;
const domain = '867530901';
const orderWorkflow = { name: 'OrderWorkflow', version: '1.0' };
const loopWorkflow = { name: 'BatchLoop', version: '1.0' };
const activityNames = [
  'VerifyOrder',
  'ChargeCreditCard',
  'ShipOrder',
  'RecordOrderCompletion',
  'CancelOrder',
  'EmailCustomer',
  'ProcessBatch',
] as const;
type ActivityName = (typeof activityNames)[number];
const activity = (name: ActivityName) => ({ name, version: '2.4' });

beforeAll(async () => {
  ({ swf, close, driver } = await serveDomain(domain, { polling: { maxWaitMs: 1_000 } }));
  for (const type of [orderWorkflow, loopWorkflow]) {
    await swf.send(
      new RegisterWorkflowTypeCommand({
        domain,
        ...type,
        defaultTaskList: { name: 'deciders' },
        defaultExecutionStartToCloseTimeout: '3600',
        defaultTaskStartToCloseTimeout: '60',
        defaultChildPolicy: 'TERMINATE',
      }),
    );
  }
  for (const name of activityNames) {
    await swf.send(
      new RegisterActivityTypeCommand({
        domain,
        ...activity(name),
        defaultTaskList: { name: 'unused' },
        defaultTaskScheduleToStartTimeout: '600',
        defaultTaskScheduleToCloseTimeout: '3600',
        defaultTaskStartToCloseTimeout: '3600',
        defaultTaskHeartbeatTimeout: '300',
      }),
    );
  }
});
afterAll(() => close());

/** Events that tell the decider something; decision-task bookkeeping and echoes are skipped. */
const significant = new Set([
  'WorkflowExecutionStarted',
  'ActivityTaskCompleted',
  'ActivityTaskFailed',
  'ActivityTaskCanceled',
  'WorkflowExecutionSignaled',
]);

const lastSignificant = (events: readonly HistoryEvent[]) =>
  [...events].reverse().find((e) => significant.has(e.eventType ?? ''));

/** The activity type of the task an ActivityTask{Completed,Failed,Canceled} event closes. */
function activityTypeOf(events: readonly HistoryEvent[], event: HistoryEvent): string | undefined {
  const scheduledEventId =
    event.activityTaskCompletedEventAttributes?.scheduledEventId ??
    event.activityTaskFailedEventAttributes?.scheduledEventId ??
    event.activityTaskCanceledEventAttributes?.scheduledEventId;
  const scheduled = events.find((e) => e.eventId === scheduledEventId);
  return scheduled?.activityTaskScheduledEventAttributes?.activityType?.name;
}

/** Activity ids scheduled and not yet closed. */
function openActivityIds(events: readonly HistoryEvent[]): string[] {
  const open = new Map<number, string>();
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityId !== undefined && e.eventId !== undefined)
      open.set(e.eventId, scheduled.activityId);
    const closed =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskCanceledEventAttributes ??
      e.activityTaskTimedOutEventAttributes;
    if (closed?.scheduledEventId !== undefined) open.delete(closed.scheduledEventId);
  }
  return [...open.values()];
}

/** The task lists one order uses; unique per test so no test sees another's tasks. */
function orderLists() {
  return {
    deciders: uid('deciders'),
    orders: uid('ORDERS'),
    shipping: uid('SHIPPING'),
    cancellations: uid('CANCELLATIONS'),
  };
}
type OrderLists = ReturnType<typeof orderLists>;

/**
 * The order workflow's decider (exclusive choice), plus cancel-order handling: a CancelOrder
 * signal cancels the open activities, and once none is left the execution is canceled.
 */
function orderDecider(lists: OrderLists) {
  const schedule = (name: ActivityName, taskList: string, input: string): Decision =>
    decide.scheduleActivity({
      activityType: activity(name),
      activityId: `${name}Activity0001`,
      taskList: { name: taskList },
      input,
    });
  return (task: StartedDecisionTask): Decision[] => {
    const events = task.events;
    const last = lastSignificant(events);
    const type = last === undefined ? undefined : activityTypeOf(events, last);
    switch (last?.eventType) {
      case 'WorkflowExecutionStarted':
        return [
          schedule(
            'VerifyOrder',
            lists.orders,
            last.workflowExecutionStartedEventAttributes?.input ?? '',
          ),
        ];
      case 'WorkflowExecutionSignaled': {
        if (last.workflowExecutionSignaledEventAttributes?.signalName !== 'CancelOrder') return [];
        const open = openActivityIds(events);
        return open.length === 0
          ? [decide.cancel('order canceled')]
          : open.map((id) => decide.requestCancelActivity(id));
      }
      case 'ActivityTaskCanceled':
        return openActivityIds(events).length === 0 ? [decide.cancel('order canceled')] : [];
      case 'ActivityTaskCompleted':
        switch (type) {
          case 'VerifyOrder':
            return [schedule('ChargeCreditCard', lists.orders, 'card on file')];
          // Successful credit card charge
          case 'ChargeCreditCard':
            return [
              decide.scheduleActivity({
                control: 'OPTIONAL_DATA_FOR_DECIDER',
                activityType: activity('ShipOrder'),
                activityId: 'ShipOrderActivity0001',
                scheduleToCloseTimeout: '3600',
                taskList: { name: lists.shipping },
                scheduleToStartTimeout: '600',
                startToCloseTimeout: '3600',
                heartbeatTimeout: '300',
                input: '123 Main Street, Anytown, United States',
              }),
            ];
          case 'ShipOrder':
            return [schedule('RecordOrderCompletion', lists.orders, 'shipped')];
          case 'RecordOrderCompletion':
            return [decide.complete('order completed')];
          // Unsuccessful credit card charge
          case 'CancelOrder':
            return [schedule('EmailCustomer', lists.orders, 'your order was canceled')];
          case 'EmailCustomer':
            return [decide.complete('order canceled, customer told')];
          default:
            return [decide.fail('unexpected activity', String(type))];
        }
      case 'ActivityTaskFailed':
        if (type === 'ChargeCreditCard') {
          return [
            decide.scheduleActivity({
              control: 'OPTIONAL_DATA_FOR_DECIDER',
              activityType: activity('CancelOrder'),
              activityId: '3e2e6e55-e7c4-fee-deed-aa815722b7be',
              scheduleToCloseTimeout: '3600',
              taskList: { name: lists.cancellations },
              scheduleToStartTimeout: '600',
              startToCloseTimeout: '3600',
              heartbeatTimeout: '300',
              input: 'Out of Stock',
            }),
          ];
        }
        return [decide.fail('activity failed', String(type))];
      default:
        return [];
    }
  };
}

/** The activity workers of the order system: each does its work, the card charge may be declined. */
async function work(
  lists: OrderLists,
  chargeSucceeds: boolean,
  execution: WorkflowExecution,
): Promise<string> {
  const scheduled = eventsOf(await driver.history(execution), 'ActivityTaskScheduled').at(-1);
  const taskList = scheduled?.activityTaskScheduledEventAttributes?.taskList?.name ?? '';
  expect(Object.values(lists)).toContain(taskList);
  const task = await driver.pollActivity(taskList, `worker@${taskList}`);
  const name = task.activityType?.name;
  if (name === 'ChargeCreditCard' && !chargeSucceeds) {
    await swf.send(
      new RespondActivityTaskFailedCommand({ taskToken: task.taskToken, reason: 'card declined' }),
    );
  } else {
    await swf.send(
      new RespondActivityTaskCompletedCommand({
        taskToken: task.taskToken,
        result: `${name} done`,
      }),
    );
  }
  return name ?? '';
}

/** Runs an order to its close: decider and workers take turns until the execution is closed. */
async function runOrder(chargeSucceeds: boolean) {
  const lists = orderLists();
  const decider = orderDecider(lists);
  const { execution } = await driver.start(orderWorkflow, {
    taskList: { name: lists.deciders },
    input: 'order 3553',
  });
  const worked: string[] = [];
  for (let step = 0; step < 10; step++) {
    await driver.decide(lists.deciders, decider);
    const detail = await driver.describe(execution);
    if (detail.executionInfo?.executionStatus === 'CLOSED') break;
    worked.push(await work(lists, chargeSucceeds, execution));
  }
  return { execution, lists, worked, history: await driver.history(execution) };
}

const scheduledTypes = (events: readonly HistoryEvent[]) =>
  eventsOf(events, 'ActivityTaskScheduled').map(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name,
  );

describe('exclusive choice in the order workflow', () => {
  it('ships and records the order when the charge succeeds', async () => {
    const { execution, lists, worked, history } = await runOrder(true);
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
    expect((await driver.describe(execution)).executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'COMPLETED',
    });
    // every decision task saw the history up to its own start, and ids never skip
    expect(history.map((e) => e.eventId)).toEqual(history.map((_, i) => i + 1));
  });

  it('cancels the order and emails the customer when the charge fails', async () => {
    const { execution, lists, worked, history } = await runOrder(false);
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
    expect((await driver.describe(execution)).executionInfo?.closeStatus).toBe('COMPLETED');
  });
});

describe('cancelling an order', () => {
  /** Runs the order until ShipOrder is scheduled (verify and charge done). */
  async function untilShipping() {
    const lists = orderLists();
    const decider = orderDecider(lists);
    const { execution } = await driver.start(orderWorkflow, {
      taskList: { name: lists.deciders },
      input: 'order 3553',
    });
    for (let step = 0; step < 2; step++) {
      await driver.decide(lists.deciders, decider);
      await work(lists, true, execution);
    }
    await driver.decide(lists.deciders, decider);
    expect(scheduledTypes(await driver.history(execution)).at(-1)).toBe('ShipOrder');
    return { execution, lists, decider };
  }

  const cancelOrder = (execution: { workflowId: string; runId: string }) =>
    swf.send(
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
    const ship = await driver.pollActivity(lists.shipping, 'shipper');
    expect(ship.activityId).toBe('ShipOrderActivity0001');
    const heartbeat = () =>
      swf.send(
        new RecordActivityTaskHeartbeatCommand({ taskToken: ship.taskToken, details: 'packing' }),
      );
    expect((await heartbeat()).cancelRequested).toBe(false);

    await cancelOrder(execution);
    const signaled = await driver.decide(lists.deciders, decider);
    expect(
      single(signaled.events, 'WorkflowExecutionSignaled').workflowExecutionSignaledEventAttributes,
    ).toEqual({
      signalName: 'CancelOrder',
      input: 'order 3553',
    });
    const requested = single(await driver.history(execution), 'ActivityTaskCancelRequested');
    expect(requested.activityTaskCancelRequestedEventAttributes?.activityId).toBe(
      'ShipOrderActivity0001',
    );
    expect((await driver.describe(execution)).executionInfo?.executionStatus).toBe('OPEN');

    expect((await heartbeat()).cancelRequested).toBe(true);
    await swf.send(
      new RespondActivityTaskCanceledCommand({
        taskToken: ship.taskToken,
        details: 'stopped packing',
      }),
    );
    const canceledTask = await driver.decide(lists.deciders, decider);
    expect(
      single(canceledTask.events, 'ActivityTaskCanceled').activityTaskCanceledEventAttributes,
    ).toMatchObject({
      details: 'stopped packing',
      startedEventId: ship.startedEventId,
      latestCancelRequestedEventId: requested.eventId,
    });

    const history = await driver.history(execution);
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
    const detail = await driver.describe(execution);
    expect(detail.executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'CANCELED',
    });
    expect(scheduledTypes(history)).not.toContain('RecordOrderCompletion');
  });

  it('a ShipOrder no worker has taken yet is canceled at once and never handed out', async () => {
    const { execution, lists, decider } = await untilShipping();
    await cancelOrder(execution);
    await driver.decide(lists.deciders, decider);
    let history = await driver.history(execution);
    expect(eventTypes(history).slice(-3)).toEqual([
      'ActivityTaskCancelRequested',
      'ActivityTaskCanceled',
      'DecisionTaskScheduled',
    ]);
    expect(
      (
        await swf.send(
          new CountPendingActivityTasksCommand({ domain, taskList: { name: lists.shipping } }),
        )
      ).count,
    ).toBe(0);
    await driver.decide(lists.deciders, decider);
    history = await driver.history(execution);
    expect(history.at(-1)?.eventType).toBe('WorkflowExecutionCanceled');
    expect((await driver.describe(execution)).executionInfo?.closeStatus).toBe('CANCELED');
    const late = await swf.send(
      new PollForActivityTaskCommand({ domain, taskList: { name: lists.shipping } }),
    );
    expect(late.taskToken).toBeFalsy();
  });

  it('a worker that ignores the cancel request completes the shipment, and the decider accepts it', async () => {
    const { execution, lists, decider } = await untilShipping();
    const ship = await driver.pollActivity(lists.shipping);
    await cancelOrder(execution);
    await driver.decide(lists.deciders, decider);
    expect(
      (await swf.send(new RecordActivityTaskHeartbeatCommand({ taskToken: ship.taskToken })))
        .cancelRequested,
    ).toBe(true);
    await swf.send(
      new RespondActivityTaskCompletedCommand({
        taskToken: ship.taskToken,
        result: 'already shipped',
      }),
    );
    // the decider goes on as if the shipment had completed normally
    await driver.decide(lists.deciders, decider);
    await work(lists, true, execution);
    await driver.decide(lists.deciders, decider);
    const detail = await driver.describe(execution);
    expect(detail.executionInfo?.closeStatus).toBe('COMPLETED');
    expect(scheduledTypes(await driver.history(execution)).at(-1)).toBe('RecordOrderCompletion');
  });
});

describe('the order workflow: a marker', () => {
  it('records "customer elected special shipping offer"; the marker alone schedules no decision task', async () => {
    const deciders = uid('deciders');
    const { execution } = await driver.start(orderWorkflow, {
      taskList: { name: deciders },
      input: 'order 3554',
    });
    const task = await driver.pollDecision(deciders);
    await driver.respond(task.taskToken, [
      {
        decisionType: 'RecordMarker',
        recordMarkerDecisionAttributes: { markerName: 'customer elected special shipping offer' },
      },
    ]);
    const marker = single(await driver.history(execution), 'MarkerRecorded');
    expect(marker.markerRecordedEventAttributes).toEqual({
      markerName: 'customer elected special shipping offer',
      decisionTaskCompletedEventId: 4,
    });
    // nothing moves the execution on by itself
    expect(
      (
        await swf.send(
          new CountPendingDecisionTasksCommand({ domain, taskList: { name: deciders } }),
        )
      ).count,
    ).toBe(0);
    const idle = await swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: deciders } }),
    );
    expect(idle.taskToken).toBeFalsy();

    // a signal does, and the decider finds the marker in the history
    await driver.signal(execution, 'Proceed');
    const next = await driver.pollDecision(deciders);
    expect(
      eventsOf(next.events, 'MarkerRecorded').map(
        (e) => e.markerRecordedEventAttributes?.markerName,
      ),
    ).toEqual(['customer elected special shipping offer']);
    await driver.respond(next.taskToken, [decide.complete('special shipping')]);
    expect((await driver.describe(execution)).executionInfo?.closeStatus).toBe('COMPLETED');
  });
});

describe('continue-as-new: a recursive workflow that counts its loops with a marker', () => {
  it('runs three generations under one workflowId, each continuing the previous one', async () => {
    const deciders = uid('deciders');
    const workers = uid('batches');
    const workflowId = uid('batch-loop');
    const first = await driver.start(loopWorkflow, {
      workflowId,
      taskList: { name: deciders },
      input: '1',
    });
    const runs: string[] = [first.execution.runId];

    for (let generation = 1; generation <= 3; generation++) {
      const task = await driver.pollDecision(deciders);
      expect(task.workflowExecution).toEqual({ workflowId, runId: runs.at(-1) });
      const started = task.events[0]?.workflowExecutionStartedEventAttributes;
      expect(started?.input).toBe(String(generation));
      expect(started?.continuedExecutionRunId).toBe(generation === 1 ? undefined : runs.at(-2));
      await driver.respond(task.taskToken, [
        decide.scheduleActivity({
          activityType: activity('ProcessBatch'),
          activityId: 'batch',
          taskList: { name: workers },
          input: String(generation),
        }),
      ]);
      const batch = await driver.pollActivity(workers);
      expect(batch.workflowExecution).toEqual({ workflowId, runId: runs.at(-1) });
      await swf.send(new RespondActivityTaskCompletedCommand({ taskToken: batch.taskToken }));
      const after = await driver.pollDecision(deciders);
      if (generation < 3) {
        await driver.respond(after.taskToken, [
          decide.marker('loops', String(generation)),
          decide.continueAsNew({ input: String(generation + 1), taskList: { name: deciders } }),
        ]);
        const continued = single(
          await driver.history({ workflowId, runId: runs.at(-1) }),
          'WorkflowExecutionContinuedAsNew',
        );
        runs.push(
          continued.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? '',
        );
      } else {
        await driver.respond(after.taskToken, [
          decide.marker('loops', '3'),
          decide.complete('3 loops'),
        ]);
      }
    }

    expect(new Set(runs).size).toBe(3);
    const statuses = await Promise.all(
      runs.map(
        async (runId) => (await driver.describe({ workflowId, runId })).executionInfo?.closeStatus,
      ),
    );
    expect(statuses).toEqual(['CONTINUED_AS_NEW', 'CONTINUED_AS_NEW', 'COMPLETED']);
    for (const runId of runs) {
      const history = await driver.history({ workflowId, runId });
      expect(eventTypes(history).slice(-2)[0]).toBe('MarkerRecorded');
    }
    // no run of the workflowId is open any more
    await expectFault(driver.signal({ workflowId }), 'UnknownResourceFault');
  });
});

describe('terminate: an operator stops an order that hangs at shipping', () => {
  it('closes TERMINATED at once; the shipper and the decider lose their tasks; the id can be reused', async () => {
    const lists = orderLists();
    const decider = orderDecider(lists);
    const workflowId = uid('order');
    const { execution } = await driver.start(orderWorkflow, {
      workflowId,
      taskList: { name: lists.deciders },
      input: 'order 3555',
    });
    for (let step = 0; step < 2; step++) {
      await driver.decide(lists.deciders, decider);
      await work(lists, true, execution);
    }
    await driver.decide(lists.deciders, decider);
    const ship = await driver.pollActivity(lists.shipping);
    await cancelOrderSignal(workflowId);
    const pendingDecision = await driver.pollDecision(lists.deciders);

    await swf.send(
      new TerminateWorkflowExecutionCommand({
        domain,
        workflowId,
        reason: 'customer called support',
        details: 'refund issued by hand',
      }),
    );
    const history = await driver.history(execution);
    expect(history.at(-1)?.workflowExecutionTerminatedEventAttributes).toMatchObject({
      reason: 'customer called support',
      details: 'refund issued by hand',
      childPolicy: 'TERMINATE',
    });
    expect((await driver.describe(execution)).executionInfo?.closeStatus).toBe('TERMINATED');
    await expectFault(
      swf.send(new RecordActivityTaskHeartbeatCommand({ taskToken: ship.taskToken })),
      'UnknownResourceFault',
    );
    await expectFault(
      driver.respond(pendingDecision.taskToken, [decide.cancel()]),
      'UnknownResourceFault',
    );
    expect(eventTypes(await driver.history(execution))).toEqual(eventTypes(history));

    const again = await driver.start(orderWorkflow, {
      workflowId,
      taskList: { name: lists.deciders },
      input: 'order 3555',
    });
    expect(again.execution.runId).not.toBe(execution.runId);
    const fresh = await driver.pollDecision(lists.deciders);
    expect(fresh.workflowExecution).toEqual(again.execution);
  });
});

const cancelOrderSignal = (workflowId: string) =>
  swf.send(
    new SignalWorkflowExecutionCommand({
      domain,
      workflowId,
      signalName: 'CancelOrder',
      input: 'order 3555',
    }),
  );
