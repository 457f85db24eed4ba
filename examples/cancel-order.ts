/**
 * `npm run example -- cancel-order`: the customer cancels while the order is being shipped. The
 * signal CancelOrder reaches the decider, which requests cancellation of ShipOrder; the running
 * activity sees `ctx.signal` fire on its next heartbeat, stops, and is recorded ActivityTaskCanceled;
 * the decider refunds, emails and closes the execution as CANCELED.
 */
import { randomUUID } from 'node:crypto';
import { SignalWorkflowExecutionCommand, StartWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import { ActivityWorker, DeciderWorker } from '../lib/sdk/index.js';
import {
  ORDER_ACTIVITIES,
  ORDER_WORKFLOW,
  type Order,
  orderActivities,
  orderDecider,
} from './order-workflow.js';
import {
  check,
  DEFAULT_DOMAIN,
  type ExampleOptions,
  freshTaskList,
  register,
  waitForActivityStart,
  waitForClose,
} from './support.js';

export async function main(options: ExampleOptions): Promise<void> {
  const { client } = options;
  const domain = options.domain ?? DEFAULT_DOMAIN;
  const print = options.print ?? console.log;
  await register(client, domain, ORDER_WORKFLOW, ORDER_ACTIVITIES);
  const deciderList = freshTaskList('cancel-decisions');
  const activityList = freshTaskList('cancel-activities');
  const happened: string[] = [];
  const common = {
    client,
    domain,
    shutdownSignals: [],
    ...(options.logger ? { logger: options.logger } : {}),
  };
  const decider = new DeciderWorker({
    ...common,
    taskList: deciderList,
    decider: orderDecider(activityList),
  }).start();
  const worker = new ActivityWorker({
    ...common,
    taskList: activityList,
    activities: orderActivities(happened),
  }).start();
  try {
    const order: Order = {
      orderId: `order-${randomUUID().slice(0, 6)}`,
      card: 'valid',
      shippingMs: 60_000,
    };
    const { runId } = await client.send(
      new StartWorkflowExecutionCommand({
        domain,
        workflowId: order.orderId,
        workflowType: ORDER_WORKFLOW,
        taskList: { name: deciderList },
        input: JSON.stringify(order),
      }),
    );
    const execution = { workflowId: order.orderId, runId: runId ?? '' };
    await waitForActivityStart(client, domain, execution, 'ShipOrder');
    const signalledAt = Date.now();
    await client.send(
      new SignalWorkflowExecutionCommand({
        domain,
        workflowId: order.orderId,
        signalName: 'CancelOrder',
        input: 'changed my mind',
      }),
    );
    print(`${order.orderId}: shipping started; customer sent CancelOrder`);
    const closed = await waitForClose(client, domain, execution);
    const types = closed.events.map((e) => e.eventType);
    const canceled = closed.events.find((e) => e.eventType === 'ActivityTaskCanceled');
    print(
      `${order.orderId}: ${closed.closeStatus} ${Date.now() - signalledAt} ms after the signal`,
    );
    for (const line of happened) print(`  activity: ${line}`);
    check(closed.closeStatus === 'CANCELED', `closed ${closed.closeStatus}, expected CANCELED`);
    check(types.includes('ActivityTaskCancelRequested'), 'no ActivityTaskCancelRequested');
    check(canceled !== undefined, 'ShipOrder was not recorded as ActivityTaskCanceled');
    check(
      !types.includes('ActivityTaskCompleted') || !happened.some((l) => l.endsWith('shipped')),
      'the order shipped',
    );
    check(
      happened.some((l) => l.startsWith('CancelOrder')),
      'no refund (CancelOrder activity)',
    );
  } finally {
    await Promise.all([decider.shutdown(), worker.shutdown()]);
  }
}
