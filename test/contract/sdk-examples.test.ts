/**
 * The examples of examples/ run in a test environment of the testing kit, so `npm run example --
 * <name>` stays true: each main() must finish without throwing (its own checks pass).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as cancelOrder } from '../../examples/cancel-order.js';
import { main as cancelOrderAsCode } from '../../examples/cancel-order-as-code.js';
import { main as monthLongOrder } from '../../examples/month-long-order.js';
import { main as order } from '../../examples/order.js';
import { main as orderAsCode } from '../../examples/order-as-code.js';
import { main as waitForSignal } from '../../examples/wait-for-signal.js';
import { main as waitForSignalAsCode } from '../../examples/wait-for-signal-as-code.js';
import { TestEnvironment } from '../../lib/testing/index.js';
import { recordingLogger } from '../sdk/support.js';
import { dynamoEndpoint } from '../support/local.js';

let env: TestEnvironment;

beforeAll(async () => {
  env = await TestEnvironment.create({ dynamoEndpoint: dynamoEndpoint() });
});
afterAll(() => env?.close());

async function runExample(main: typeof order) {
  const printed: string[] = [];
  const logger = recordingLogger();
  await main({ client: env.client, domain: env.domain, print: (l) => printed.push(l), logger });
  expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  return printed.join('\n');
}

describe('examples', () => {
  it('order: the exclusive-choice order workflow takes both branches', async () => {
    const printed = await runExample(order);
    expect(printed).toMatch(/card valid\): COMPLETED, result "shipped"/);
    expect(printed).toMatch(/card declined\): COMPLETED, result "cancelled: card declined"/);
  });

  it('cancel-order: a CancelOrder signal stops shipping and cancels the execution', async () => {
    const printed = await runExample(cancelOrder);
    expect(printed).toMatch(/CANCELED/);
    expect(printed).toMatch(/ShipOrder .*: stopped \(cancelRequested\)/);
  });

  it('wait-for-signal: approval before the timer, and the timer when no signal comes', async () => {
    // The example signals after a second of the wall clock: time must not skip past its timer first.
    const printed = await env.holdTime(() => runExample(waitForSignal));
    expect(printed).toMatch(/result "approved: by alice", timer canceled/);
    expect(printed).toMatch(/result "timed out waiting for approval", timer fired/);
  });

  it('month-long-order: five weeks of virtual time in seconds of the wall clock', async () => {
    const printed: string[] = [];
    await monthLongOrder({
      dynamoEndpoint: dynamoEndpoint(),
      print: (l) => printed.push(l),
    });
    const text = printed.join('\n');
    expect(text).toMatch(/order-1001: COMPLETED, result "charged on attempt 5"/);
    expect(text).toMatch(/\+30 d 0 h 0 min 0 s +TimerFired return-window/);
    expect(text).toMatch(/^virtual time: 37 d 13 h/m);
    expect(text).toMatch(/^wall-clock time: \d+\.\d s$/m);
  });

  it('order-as-code: the same order workflow as code takes both branches', async () => {
    const printed = await runExample(orderAsCode);
    expect(printed).toMatch(/card valid\): COMPLETED, result "shipped"/);
    expect(printed).toMatch(/card declined\): COMPLETED, result "cancelled: card declined"/);
    expect(printed).toMatch(/activity: RecordOrderCompletion/);
    expect(printed).toMatch(/activity: EmailCustomer/);
  });

  it('cancel-order-as-code: the signal wins the race, cancels shipping and closes CANCELED', async () => {
    const printed = await runExample(cancelOrderAsCode);
    expect(printed).toMatch(/CANCELED .*\(cancelled by the customer: changed my mind\)/);
    expect(printed).toMatch(/ShipOrder .*: stopped \(cancelRequested\)/);
  });

  it('wait-for-signal-as-code: approval before the timeout, and the timeout without it', async () => {
    // As above: the example signals after a second of the wall clock.
    const printed = await env.holdTime(() => runExample(waitForSignalAsCode));
    expect(printed).toMatch(/result "approved: by alice", timer canceled/);
    expect(printed).toMatch(/result "timed out waiting for approval", timer fired/);
  });
});
