/**
 * `npm run example -- cancel-order-as-code`: the customer cancels while the order is being shipped.
 * The workflow (order-as-code-workflow.ts) races the shipping against the CancelOrder signal; the
 * signal wins, the race cancels ShipOrder (RequestCancelActivityTask), the running activity sees
 * `ctx.signal` fire on its next heartbeat and stops, its ActivityTaskCanceled rejects the shipping's
 * promise, and the workflow refunds, emails and closes the execution as CANCELED.
 */
import { randomUUID } from 'node:crypto';
import { SignalWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import { orderAsCodeWorkers } from './order-as-code.js';
import type { Order } from './order-as-code-workflow.js';
import { check, type ExampleOptions, waitForActivityStart, waitForClose } from './support.js';

export async function main(options: ExampleOptions): Promise<void> {
  const { client } = options;
  const print = options.print ?? console.log;
  const happened: string[] = [];
  const workers = await orderAsCodeWorkers(options, happened);
  const { domain } = workers;
  try {
    const order: Order = {
      orderId: `order-${randomUUID().slice(0, 6)}`,
      card: 'valid',
      shippingMs: 60_000,
    };
    const execution = await workers.start(order);
    await waitForActivityStart(client, domain, execution, 'ShipOrder');
    const signalledAt = Date.now();
    await client.send(
      new SignalWorkflowExecutionCommand({
        domain,
        workflowId: order.orderId,
        signalName: 'CancelOrder',
        input: JSON.stringify('changed my mind'),
      }),
    );
    print(`${order.orderId}: shipping started; customer sent CancelOrder`);
    const closed = await waitForClose(client, domain, execution);
    const types = closed.events.map((e) => e.eventType);
    const details = closed.events.at(-1)?.workflowExecutionCanceledEventAttributes?.details;
    print(
      `${order.orderId}: ${closed.closeStatus} ${Date.now() - signalledAt} ms after the signal (${details})`,
    );
    for (const line of happened) print(`  activity: ${line}`);
    check(closed.closeStatus === 'CANCELED', `closed ${closed.closeStatus}, expected CANCELED`);
    check(types.includes('ActivityTaskCancelRequested'), 'no ActivityTaskCancelRequested');
    check(
      types.includes('ActivityTaskCanceled'),
      'ShipOrder was not recorded as ActivityTaskCanceled',
    );
    check(!happened.some((l) => l.endsWith('shipped')), 'the order shipped');
    check(
      happened.some((l) => l.startsWith('CancelOrder')),
      'no refund (CancelOrder activity)',
    );
  } finally {
    await workers.shutdown();
  }
}
