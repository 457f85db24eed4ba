/**
 * `npm run example -- order-as-code`: the order workflow written as code (order-as-code-workflow.ts),
 * once with a card that charges (verify → charge → ship → record → completed) and once with a
 * declined card (verify → charge fails → cancel order → email → completed).
 */
import { randomUUID } from 'node:crypto';
import { ActivityWorker, DeciderWorker, startWorkflow } from '../lib/sdk/index.js';
import { type Order, orderAsCode } from './order-as-code-workflow.js';
import { ORDER_ACTIVITIES, orderActivities } from './order-workflow.js';
import {
  check,
  completedResult,
  DEFAULT_DOMAIN,
  type ExampleOptions,
  freshTaskList,
  register,
  waitForClose,
} from './support.js';

/** The order workflow's workers on fresh task lists, its types registered. */
export async function orderAsCodeWorkers(options: ExampleOptions, happened: string[]) {
  const { client } = options;
  const domain = options.domain ?? DEFAULT_DOMAIN;
  await register(client, domain, { name: 'OrderAsCode', version: '1' }, ORDER_ACTIVITIES);
  const activityList = freshTaskList('order-activities');
  const taskList = freshTaskList('order-decisions');
  const workflow = orderAsCode(activityList);
  const logger = options.logger ? { logger: options.logger } : {};
  const common = { client, domain, shutdownSignals: [], ...logger };
  const decider = new DeciderWorker({ ...common, taskList, workflows: [workflow] }).start();
  const worker = new ActivityWorker({
    ...common,
    taskList: activityList,
    activities: orderActivities(happened),
  }).start();
  const start = (order: Order) =>
    startWorkflow(client, { domain, workflow, workflowId: order.orderId, input: order, taskList });
  const shutdown = () => Promise.all([decider.shutdown(), worker.shutdown()]);
  return { domain, start, shutdown };
}

export async function main(options: ExampleOptions): Promise<void> {
  const { client } = options;
  const print = options.print ?? console.log;
  const happened: string[] = [];
  const workers = await orderAsCodeWorkers(options, happened);
  try {
    for (const [card, expected] of [
      ['valid', 'shipped'],
      ['declined', 'cancelled: card declined'],
    ] as const) {
      const order: Order = { orderId: `order-${randomUUID().slice(0, 6)}`, card };
      const execution = await workers.start(order);
      const closed = await waitForClose(client, workers.domain, execution);
      const result = JSON.parse(completedResult(closed.events) ?? 'null');
      print(`${order.orderId} (card ${card}): ${closed.closeStatus}, result "${result}"`);
      check(closed.closeStatus === 'COMPLETED', `${order.orderId} closed ${closed.closeStatus}`);
      check(result === expected, `${order.orderId} result "${result}", expected "${expected}"`);
    }
    for (const line of happened) print(`  activity: ${line}`);
  } finally {
    await workers.shutdown();
  }
}
