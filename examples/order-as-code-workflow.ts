/**
 * The order workflow of examples/order-workflow.ts, written as code: verify the order, charge the
 * card, then ship and record completion, or cancel the order and email the customer. A CancelOrder
 * signal while it ships stops the shipping (RequestCancelActivityTask), refunds and emails (at
 * once), and closes the execution as canceled. Shared by the `order-as-code` and
 * `cancel-order-as-code` examples.
 *
 * Its activities are the very ones of the state-function example (`orderActivities`): they take the
 * order as JSON and answer plain text, which `textCodec` reads as it is.
 */
import {
  ActivityCanceledError,
  ActivityFailedError,
  defineActivity,
  defineWorkflow,
  textCodec,
} from '../lib/sdk/index.js';
import type { Order } from './order-workflow.js';

export type { Order } from './order-workflow.js';

/** The order workflow; its activities run on `activityTaskList`. */
export function orderAsCode(activityTaskList: string) {
  const activity = (name: string) =>
    defineActivity<Order, string>(name, '1', {
      taskList: activityTaskList,
      scheduleToStartTimeout: '1m',
      startToCloseTimeout: '5m',
      scheduleToCloseTimeout: '6m',
      heartbeatTimeout: '30s',
      codec: textCodec,
    });
  const VerifyOrder = activity('VerifyOrder');
  const ChargeCreditCard = activity('ChargeCreditCard');
  const ShipOrder = activity('ShipOrder');
  const RecordOrderCompletion = activity('RecordOrderCompletion');
  const CancelOrder = activity('CancelOrder');
  const EmailCustomer = activity('EmailCustomer');

  return defineWorkflow('OrderAsCode', '1', async (ctx, order: Order) => {
    try {
      await ctx.activity(VerifyOrder, order);
    } catch (error) {
      if (error instanceof ActivityFailedError) return ctx.fail('order invalid', error.reason);
      throw error;
    }
    try {
      await ctx.activity(ChargeCreditCard, order);
    } catch (error) {
      if (!(error instanceof ActivityFailedError)) throw error;
      await ctx.activity(CancelOrder, order);
      await ctx.activity(EmailCustomer, order);
      return `cancelled: ${error.reason === 'CardDeclined' ? 'card declined' : error.reason}`;
    }
    const shipping = ctx.activity(ShipOrder, order);
    // The customer may cancel while it ships: whichever comes first wins, and the race cancels the
    // other (the shipping activity learns it on its next heartbeat).
    const first = await ctx.race({ shipping, cancel: ctx.waitForSignal<string>('CancelOrder') });
    if (first.key === 'cancel') {
      await shipping.catch((error: unknown) => {
        if (!(error instanceof ActivityCanceledError)) throw error;
      });
      await Promise.all([ctx.activity(CancelOrder, order), ctx.activity(EmailCustomer, order)]);
      return ctx.closeAsCanceled(`cancelled by the customer: ${first.value}`);
    }
    await ctx.activity(RecordOrderCompletion, order);
    return 'shipped';
  });
}
