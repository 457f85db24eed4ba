/**
 * `npm run example -- order`: the exclusive-choice order workflow, once with a card that
 * charges (verify → charge → ship → record → completed) and once with a declined card (verify →
 * charge fails → cancel order → email → completed).
 */
import { randomUUID } from 'node:crypto';
import { StartWorkflowExecutionCommand } from '@aws-sdk/client-swf';
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
  completedResult,
  DEFAULT_DOMAIN,
  type ExampleOptions,
  freshTaskList,
  register,
  waitForClose,
} from './support.js';

export async function main(options: ExampleOptions): Promise<void> {
  const { client } = options;
  const domain = options.domain ?? DEFAULT_DOMAIN;
  const print = options.print ?? console.log;
  await register(client, domain, ORDER_WORKFLOW, ORDER_ACTIVITIES);
  const deciderList = freshTaskList('order-decisions');
  const activityList = freshTaskList('order-activities');
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
    for (const [card, expected] of [
      ['valid', 'shipped'],
      ['declined', 'cancelled: card declined'],
    ] as const) {
      const order: Order = { orderId: `order-${randomUUID().slice(0, 6)}`, card };
      const execution = { workflowId: order.orderId, runId: '' };
      const { runId } = await client.send(
        new StartWorkflowExecutionCommand({
          domain,
          workflowId: order.orderId,
          workflowType: ORDER_WORKFLOW,
          taskList: { name: deciderList },
          input: JSON.stringify(order),
        }),
      );
      execution.runId = runId ?? '';
      const closed = await waitForClose(client, domain, execution);
      const result = completedResult(closed.events);
      print(`${order.orderId} (card ${card}): ${closed.closeStatus}, result "${result}"`);
      check(closed.closeStatus === 'COMPLETED', `${order.orderId} closed ${closed.closeStatus}`);
      check(result === expected, `${order.orderId} result "${result}", expected "${expected}"`);
    }
    for (const line of happened) print(`  activity: ${line}`);
  } finally {
    await Promise.all([decider.shutdown(), worker.shutdown()]);
  }
}
