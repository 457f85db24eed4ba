/**
 * The order workflow of examples/ run four ways for the console's browser tests: one completed, one
 * whose ShipOrder is cancelled by a CancelOrder signal, one failed (the order does not verify) and
 * one left open, shipping, for the tests to signal and terminate from the console.
 */
import { randomUUID } from 'node:crypto';
import {
  DescribeWorkflowExecutionCommand,
  SignalWorkflowExecutionCommand,
  StartWorkflowExecutionCommand,
  type SWFClient,
  type WorkflowExecution,
} from '@aws-sdk/client-swf';
import {
  ORDER_ACTIVITIES,
  ORDER_WORKFLOW,
  type Order,
  orderActivities,
  orderDecider,
} from '../../examples/order-workflow.js';
import { freshTaskList, history, register } from '../../examples/support.js';
import { ActivityFailure, ActivityWorker, DeciderWorker, sleep } from '../../lib/sdk/index.js';

export interface ExecutionRef {
  readonly workflowId: string;
  readonly runId: string;
}

export interface OrderRuns {
  readonly completed: ExecutionRef;
  readonly canceled: ExecutionRef;
  readonly failed: ExecutionRef;
  /** Still shipping: open until a test closes it. */
  readonly open: ExecutionRef;
  /** Stops the decider and the activity worker. */
  stop(): Promise<void>;
}

/** Orders whose id starts with this do not verify: the decider fails the execution. */
const INVALID = 'invalid-';

/**
 * The order workflow's decider and activity worker on fresh task lists of the domain (its types
 * registered); an order whose id starts with `invalid-` does not verify.
 */
export async function startOrderWorkers(client: SWFClient, domain: string) {
  await register(client, domain, ORDER_WORKFLOW, ORDER_ACTIVITIES);
  const deciderList = freshTaskList('order-decisions');
  const activityList = freshTaskList('order-activities');
  const common = { client, domain, shutdownSignals: [] };
  const activities = orderActivities([]);
  const decider = new DeciderWorker({
    ...common,
    taskList: deciderList,
    decider: orderDecider(activityList),
  }).start();
  const worker = new ActivityWorker({
    ...common,
    taskList: activityList,
    // An open order ships for minutes; stopping the workers as a file ends cancels it at once
    // rather than waiting out the worker's default grace (20 s) for an activity no test watches.
    shutdownGraceMs: 500,
    activities: {
      ...activities,
      VerifyOrder: (input, ctx) => {
        const order = JSON.parse(input ?? '{}') as Order;
        if (order.orderId.startsWith(INVALID))
          throw new ActivityFailure('InvalidOrder', 'no such product');
        return activities.VerifyOrder?.(input, ctx);
      },
    },
  }).start();
  return {
    deciderList,
    activityList,
    stop: async () => {
      await Promise.all([decider.shutdown(), worker.shutdown()]);
    },
  };
}

export async function runOrders(client: SWFClient, domain: string): Promise<OrderRuns> {
  const workers = await startOrderWorkers(client, domain);
  const { deciderList } = workers;
  const start = async (order: Order, tags: string[]): Promise<ExecutionRef> => {
    const { runId = '' } = await client.send(
      new StartWorkflowExecutionCommand({
        domain,
        workflowId: order.orderId,
        workflowType: ORDER_WORKFLOW,
        taskList: { name: deciderList },
        input: JSON.stringify(order),
        tagList: tags,
      }),
    );
    return { workflowId: order.orderId, runId };
  };
  const id = () => randomUUID().slice(0, 6);
  const completed = await start({ orderId: `order-${id()}`, card: 'valid' }, ['shop', 'express']);
  const failed = await start({ orderId: `${INVALID}${id()}`, card: 'valid' }, ['shop']);
  const canceled = await start({ orderId: `order-${id()}`, card: 'valid', shippingMs: 120_000 }, [
    'shop',
  ]);
  const open = await start({ orderId: `order-${id()}`, card: 'valid', shippingMs: 600_000 }, [
    'shop',
    'gift',
  ]);
  await shipping(client, domain, canceled);
  await client.send(
    new SignalWorkflowExecutionCommand({
      domain,
      ...canceled,
      signalName: 'CancelOrder',
      input: '{"reason":"changed my mind"}',
    }),
  );
  for (const run of [completed, failed, canceled]) await closed(client, domain, run);
  await shipping(client, domain, open);
  return {
    completed,
    canceled,
    failed,
    open,
    stop: workers.stop,
  };
}

/** Waits until the run's ShipOrder has started. */
async function shipping(client: SWFClient, domain: string, run: WorkflowExecution): Promise<void> {
  await waitFor(
    async () => {
      const events = await history(client, domain, run);
      const ship = events.find(
        (e) => e.activityTaskScheduledEventAttributes?.activityId === 'ship',
      );
      return (
        ship !== undefined &&
        events.some((e) => e.activityTaskStartedEventAttributes?.scheduledEventId === ship.eventId)
      );
    },
    { timeoutMs: 30_000, what: `ShipOrder of ${run.workflowId} to start` },
  );
}

/** Checks `done` every 100 ms until it holds; fails after `timeoutMs`. */
export async function waitFor(
  done: () => Promise<boolean>,
  options: { timeoutMs: number; what: string },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline)
      throw new Error(`waited ${options.timeoutMs} ms for ${options.what}`);
    await sleep(100);
  }
}

async function closed(client: SWFClient, domain: string, run: WorkflowExecution): Promise<void> {
  await waitFor(
    async () => {
      const answer = await client.send(
        new DescribeWorkflowExecutionCommand({ domain, execution: run }),
      );
      return answer.executionInfo?.executionStatus === 'CLOSED';
    },
    { timeoutMs: 30_000, what: `${run.workflowId} to close` },
  );
}
