/**
 * The examples of examples/ run against the local test server, so `npm run example -- <name>`
 * stays true: each main() must finish without throwing (its own checks pass).
 */
import type { SWFClient } from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as cancelOrder } from '../../examples/cancel-order.js';
import { main as order } from '../../examples/order.js';
import { main as waitForSignal } from '../../examples/wait-for-signal.js';
import { createSwfClient } from '../../lib/sdk/index.js';
import { recordingLogger } from '../sdk/support.js';
import { startTestServer } from '../support/local.js';

let client: SWFClient;
let close: () => Promise<void>;

beforeAll(async () => {
  const server = await startTestServer({ polling: { maxWaitMs: 2_000 } });
  client = createSwfClient({ endpoint: server.service.endpoint });
  close = async () => {
    client.destroy();
    await server.close();
  };
});
afterAll(() => close());

async function runExample(main: typeof order) {
  const printed: string[] = [];
  const logger = recordingLogger();
  await main({ client, domain: 'sdk-examples-contract', print: (l) => printed.push(l), logger });
  expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  return printed;
}

describe('examples', () => {
  it('order: the exclusive-choice order workflow takes both branches', async () => {
    const printed = await runExample(order);
    expect(printed.join('\n')).toMatch(/card valid\): COMPLETED, result "shipped"/);
    expect(printed.join('\n')).toMatch(
      /card declined\): COMPLETED, result "cancelled: card declined"/,
    );
  });

  it('cancel-order: a CancelOrder signal stops shipping and cancels the execution', async () => {
    const printed = await runExample(cancelOrder);
    expect(printed.join('\n')).toMatch(/CANCELED/);
    expect(printed.join('\n')).toMatch(/ShipOrder .*: stopped \(cancelRequested\)/);
  });

  it('wait-for-signal: approval before the timer, and the timer when no signal comes', async () => {
    const printed = await runExample(waitForSignal);
    expect(printed.join('\n')).toMatch(/result "approved: by alice", timer canceled/);
    expect(printed.join('\n')).toMatch(/result "timed out waiting for approval", timer fired/);
  });
});
