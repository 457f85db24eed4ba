/**
 * The order workflow of the SWF developer guide, with its exclusive choice: verify the
 * order, charge the card, then either ship and record completion, or cancel the order and email the
 * customer. Shared by the `order` and `cancel-order` examples.
 */
import {
  ActivityFailure,
  type ActivityWorker,
  type Decider,
  type Decision,
  decide,
  sleep,
  type WorkflowState,
} from '../lib/sdk/index.js';

export const ORDER_WORKFLOW = { name: 'OrderWorkflow', version: '1' };
export const ORDER_ACTIVITIES = [
  'VerifyOrder',
  'ChargeCreditCard',
  'ShipOrder',
  'RecordOrderCompletion',
  'CancelOrder',
  'EmailCustomer',
] as const;

export interface Order {
  readonly orderId: string;
  readonly card: 'valid' | 'declined';
  /** How long shipping takes, in ms (the cancel-order example makes it long). */
  readonly shippingMs?: number;
}

/** The order decider: the next step follows from which activities closed and how. */
export function orderDecider(activityTaskList: string): Decider {
  return (state: WorkflowState): Decision[] => {
    const order = state.input ?? '{}';
    const step = (activityId: string, name: string, heartbeatTimeout = 30) =>
      decide.scheduleActivityTask({
        activityId,
        activityType: { name, version: '1' },
        taskList: { name: activityTaskList },
        input: order,
        scheduleToCloseTimeout: 360,
        scheduleToStartTimeout: 60,
        startToCloseTimeout: 300,
        heartbeatTimeout,
      });
    const status = (id: string) => state.activities.get(id)?.status;

    if (state.signals.some((s) => s.signalName === 'CancelOrder')) {
      const cancelling = cancelOrder(state, step);
      if (cancelling !== undefined) return cancelling;
    }
    if (status('verify') === undefined) return [step('verify', 'VerifyOrder')];
    if (status('verify') === 'failed') return [decide.failWorkflowExecution('order invalid')];
    if (status('verify') !== 'completed') return [];
    if (status('charge') === undefined) return [step('charge', 'ChargeCreditCard')];
    if (status('charge') === 'completed') {
      if (status('ship') === undefined) return [step('ship', 'ShipOrder')];
      if (status('ship') !== 'completed') return [];
      if (status('record') === undefined) return [step('record', 'RecordOrderCompletion')];
      if (status('record') === 'completed') return [decide.completeWorkflowExecution('shipped')];
      return [];
    }
    if (status('charge') !== 'failed') return [];
    if (status('cancel') === undefined) return [step('cancel', 'CancelOrder')];
    if (status('cancel') !== 'completed') return [];
    if (status('email') === undefined) return [step('email', 'EmailCustomer')];
    if (status('email') === 'completed')
      return [decide.completeWorkflowExecution('cancelled: card declined')];
    return [];
  };
}

/**
 * The customer asked to cancel (signal CancelOrder): stop shipping (RequestCancelActivityTask), and
 * once it is stopped refund, email, and close the execution as canceled.
 */
function cancelOrder(
  state: WorkflowState,
  step: (id: string, name: string) => Decision,
): Decision[] | undefined {
  const ship = state.activities.get('ship');
  if (ship?.status === 'completed') return undefined; // too late: it shipped
  if (ship !== undefined && (ship.status === 'scheduled' || ship.status === 'started'))
    return ship.cancelRequested ? [] : [decide.requestCancelActivityTask('ship')];
  const refund = state.activities.get('refund');
  if (refund === undefined) return [step('refund', 'CancelOrder')];
  if (refund.status !== 'completed') return [];
  const email = state.activities.get('email');
  if (email === undefined) return [step('email', 'EmailCustomer')];
  if (email.status !== 'completed') return [];
  return [decide.cancelWorkflowExecution('cancelled by the customer')];
}

const parse = (input: string | undefined): Order => JSON.parse(input ?? '{}');

/** The order activities; `events` collects what happened, for printing. */
export function orderActivities(
  events: string[],
): ConstructorParameters<typeof ActivityWorker>[0]['activities'] {
  return {
    VerifyOrder: (input) => {
      events.push(`VerifyOrder ${parse(input).orderId}`);
      return 'verified';
    },
    ChargeCreditCard: (input) => {
      const order = parse(input);
      events.push(`ChargeCreditCard ${order.orderId}: ${order.card}`);
      if (order.card === 'declined') throw new ActivityFailure('CardDeclined', 'the bank said no');
      return 'charged';
    },
    ShipOrder: async (input, ctx) => {
      const order = parse(input);
      const until = Date.now() + (order.shippingMs ?? 100);
      while (Date.now() < until) {
        ctx.heartbeat(`packing ${order.orderId}`);
        await sleep(100, ctx.signal);
        if (ctx.signal.aborted) {
          events.push(`ShipOrder ${order.orderId}: stopped (${ctx.cancelReason})`);
          throw ctx.signal.reason;
        }
      }
      events.push(`ShipOrder ${order.orderId}: shipped`);
      return 'shipped';
    },
    RecordOrderCompletion: (input) => {
      events.push(`RecordOrderCompletion ${parse(input).orderId}`);
    },
    CancelOrder: (input) => {
      events.push(`CancelOrder ${parse(input).orderId}`);
    },
    EmailCustomer: (input) => {
      events.push(`EmailCustomer ${parse(input).orderId}`);
    },
  };
}
