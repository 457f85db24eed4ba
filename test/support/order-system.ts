/**
 * The order system of the SWF Developer Guide's scenarios: its workflow and activity types, the
 * order workflow's decider (exclusive choice, and cancel-order handling) and its activity workers.
 */
import {
  type Decision,
  type HistoryEvent,
  RegisterActivityTypeCommand,
  RegisterWorkflowTypeCommand,
  RespondActivityTaskCompletedCommand,
  RespondActivityTaskFailedCommand,
  SignalWorkflowExecutionCommand,
  type SWFClient,
  type WorkflowExecution,
} from '@aws-sdk/client-swf';
import { expect } from 'vitest';
import { decide, eventsOf, type StartedDecisionTask, type SwfDriver, uid } from './decider.js';
import { serveDomain, servedForFile } from './local.js';

export const domain = '867530901';
export const orderWorkflow = { name: 'OrderWorkflow', version: '1.0' };
export const loopWorkflow = { name: 'BatchLoop', version: '1.0' };
const activityNames = [
  'VerifyOrder',
  'ChargeCreditCard',
  'ShipOrder',
  'RecordOrderCompletion',
  'CancelOrder',
  'EmailCustomer',
  'ProcessBatch',
] as const;
export type ActivityName = (typeof activityNames)[number];
export const activity = (name: ActivityName) => ({ name, version: '2.4' });

/** A test server with the order system's domain and types, and its workers. */
export class OrderSystem {
  private constructor(
    readonly swf: SWFClient,
    readonly driver: SwfDriver,
    readonly close: () => Promise<void>,
  ) {}

  static async serve(): Promise<OrderSystem> {
    const { swf, close, driver } = await serveDomain(domain, { polling: { maxWaitMs: 1_000 } });
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
    return new OrderSystem(swf, driver, close);
  }

  /** The activity workers of the order system: each does its work, the card charge may be declined. */
  async work(
    lists: OrderLists,
    chargeSucceeds: boolean,
    execution: WorkflowExecution,
  ): Promise<string> {
    const scheduled = eventsOf(await this.driver.history(execution), 'ActivityTaskScheduled').at(
      -1,
    );
    const taskList = scheduled?.activityTaskScheduledEventAttributes?.taskList?.name ?? '';
    expect(Object.values(lists)).toContain(taskList);
    const task = await this.driver.pollActivity(taskList, `worker@${taskList}`);
    const name = task.activityType?.name;
    if (name === 'ChargeCreditCard' && !chargeSucceeds) {
      await this.swf.send(
        new RespondActivityTaskFailedCommand({
          taskToken: task.taskToken,
          reason: 'card declined',
        }),
      );
    } else {
      await this.swf.send(
        new RespondActivityTaskCompletedCommand({
          taskToken: task.taskToken,
          result: `${name} done`,
        }),
      );
    }
    return name ?? '';
  }

  /** Runs an order to its close: decider and workers take turns until the execution is closed. */
  async runOrder(chargeSucceeds: boolean) {
    const lists = orderLists();
    const decider = orderDecider(lists);
    const { execution } = await this.driver.start(orderWorkflow, {
      taskList: { name: lists.deciders },
      input: 'order 3553',
    });
    const worked: string[] = [];
    for (let step = 0; step < 10; step++) {
      await this.driver.decide(lists.deciders, decider);
      const detail = await this.driver.describe(execution);
      if (detail.executionInfo?.executionStatus === 'CLOSED') break;
      worked.push(await this.work(lists, chargeSucceeds, execution));
    }
    return { execution, lists, worked, history: await this.driver.history(execution) };
  }

  /** The CancelOrder signal to the workflowId's open run. */
  cancelOrderSignal(workflowId: string) {
    return this.swf.send(
      new SignalWorkflowExecutionCommand({
        domain,
        workflowId,
        signalName: 'CancelOrder',
        input: 'order 3555',
      }),
    );
  }
}

/** The order system for the calling test file: served before its tests, closed after them. */
export function orderSystemForFile() {
  return servedForFile(() => OrderSystem.serve());
}

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
export function orderLists() {
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
export function orderDecider(lists: OrderLists) {
  return (task: StartedDecisionTask): Decision[] => {
    const events = task.events;
    const last = lastSignificant(events);
    const type = last === undefined ? undefined : activityTypeOf(events, last);
    switch (last?.eventType) {
      case 'WorkflowExecutionStarted': {
        const input = last.workflowExecutionStartedEventAttributes?.input ?? '';
        return [schedule('VerifyOrder', lists.orders, input)];
      }
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
        return afterCompleted(lists, type);
      case 'ActivityTaskFailed':
        // Unsuccessful credit card charge
        if (type === 'ChargeCreditCard')
          return [
            scheduleWithTimeouts(
              'CancelOrder',
              '3e2e6e55-e7c4-fee-deed-aa815722b7be',
              lists.cancellations,
              'Out of Stock',
            ),
          ];
        return [decide.fail('activity failed', String(type))];
      default:
        return [];
    }
  };
}

/** The order workflow's next step once activity `type` completed. */
function afterCompleted(lists: OrderLists, type: string | undefined): Decision[] {
  switch (type) {
    case 'VerifyOrder':
      return [schedule('ChargeCreditCard', lists.orders, 'card on file')];
    // Successful credit card charge
    case 'ChargeCreditCard':
      return [
        scheduleWithTimeouts(
          'ShipOrder',
          'ShipOrderActivity0001',
          lists.shipping,
          '123 Main Street, Anytown, United States',
        ),
      ];
    case 'ShipOrder':
      return [schedule('RecordOrderCompletion', lists.orders, 'shipped')];
    case 'RecordOrderCompletion':
      return [decide.complete('order completed')];
    case 'CancelOrder':
      return [schedule('EmailCustomer', lists.orders, 'your order was canceled')];
    case 'EmailCustomer':
      return [decide.complete('order canceled, customer told')];
    default:
      return [decide.fail('unexpected activity', String(type))];
  }
}

/** An order activity on the type's defaults. */
const schedule = (name: ActivityName, taskList: string, input: string): Decision =>
  decide.scheduleActivity({
    activityType: activity(name),
    activityId: `${name}Activity0001`,
    taskList: { name: taskList },
    input,
  });

/** An order activity with every timeout and a control, as the shipping and cancel steps send. */
const scheduleWithTimeouts = (
  name: ActivityName,
  activityId: string,
  taskList: string,
  input: string,
): Decision =>
  decide.scheduleActivity({
    control: 'OPTIONAL_DATA_FOR_DECIDER',
    activityType: activity(name),
    activityId,
    scheduleToCloseTimeout: '3600',
    taskList: { name: taskList },
    scheduleToStartTimeout: '600',
    startToCloseTimeout: '3600',
    heartbeatTimeout: '300',
    input,
  });

export const scheduledTypes = (events: readonly HistoryEvent[]) =>
  eventsOf(events, 'ActivityTaskScheduled').map(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name,
  );
