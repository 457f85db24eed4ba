/**
 * The month-long order written as code: a 30-day return window, up to 7 days for the signal
 * Confirm, then a charge the SDK tries again with waits that double from an hour up to 6 hours. Its
 * result says how many days passed by `ctx.now()`. Run in a test environment and replayed from a
 * recorded history by the testing kit's tests.
 */
import {
  ActivityFailure,
  activityFunctions,
  defineActivity,
  defineWorkflow,
  implementActivity,
  textCodec,
} from '../../lib/sdk/index.js';

export const ORDER_TASK_LIST = 'orders';
export const CHARGE_TASK_LIST = 'charges';
const DAY_MS = 86_400_000;

export const ChargeCard = defineActivity<string, string>('ChargeCardAsCode', '1', {
  taskList: CHARGE_TASK_LIST,
  scheduleToStartTimeout: 'NONE',
  startToCloseTimeout: '1m',
  scheduleToCloseTimeout: 'NONE',
  heartbeatTimeout: 'NONE',
  codec: textCodec,
  retry: {
    maximumAttempts: 8,
    initialInterval: '1h',
    backoffCoefficient: 2,
    maximumInterval: '6h',
  },
});

export const monthLongOrderAsCode = defineWorkflow(
  'MonthLongOrderAsCode',
  '1',
  async (ctx, orderId: string) => {
    const began = ctx.now().getTime();
    await ctx.sleep('30d');
    const confirmed = await ctx.waitForSignal<string>('Confirm', { timeout: '7d' });
    const receipt = await ctx.activity(ChargeCard, orderId);
    const days = (ctx.now().getTime() - began) / DAY_MS;
    const how = confirmed === undefined ? 'unconfirmed' : 'confirmed';
    return `${receipt}, ${how}, after ${days.toFixed(2)} days`;
  },
  {
    taskList: ORDER_TASK_LIST,
    executionStartToCloseTimeout: '60d',
    taskStartToCloseTimeout: '1m',
    childPolicy: 'TERMINATE',
    codec: textCodec,
  },
);

/** The bank answers from the `bankUpOnAttempt`-th charge of an order on; `charges` lists each. */
export function chargeActivities(charges: string[], bankUpOnAttempt = 5) {
  return activityFunctions(
    implementActivity(ChargeCard, (orderId) => {
      const attempt = charges.filter((c) => c.startsWith(`${orderId} `)).length + 1;
      const up = attempt >= bankUpOnAttempt;
      charges.push(`${orderId} attempt ${attempt}: ${up ? 'charged' : 'bank unavailable'}`);
      if (!up) throw new ActivityFailure('BankUnavailable', 'the bank did not answer');
      return `charged ${orderId}`;
    }),
  );
}
