/**
 * A workflow written as code in a time-skipping test environment: a 30-day sleep, a 7-day wait for
 * a signal, and a charge the SDK retries with backoff on durable timers, five weeks in seconds with
 * `ctx.now()` on the environment's time; then the run, kept as a golden history, replayed by the
 * kit against the code.
 */
import { SignalWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defineWorkflow,
  NonDeterminismError,
  registerTypes,
  textCodec,
} from '../../lib/sdk/index.js';
import { goldenHistory, History, replayHistory, TestEnvironment } from '../../lib/testing/index.js';
import { until } from '../sdk/support.js';
import { dynamoEndpoint } from '../support/local.js';
import {
  CHARGE_TASK_LIST,
  ChargeCard,
  chargeActivities,
  monthLongOrderAsCode,
  ORDER_TASK_LIST,
} from '../support/month-long-order-code.js';

const GOLDEN = new URL('../sdk/golden/month-long-order-as-code.history.json', import.meta.url);
const HOUR_MS = 3_600_000;

let env: TestEnvironment;
const charges: string[] = [];

beforeAll(async () => {
  env = await TestEnvironment.create({ dynamoEndpoint: dynamoEndpoint() });
  await registerTypes(env.client, env.domain, {
    workflows: [monthLongOrderAsCode],
    activities: [ChargeCard],
  });
  env.startDecider({ taskList: ORDER_TASK_LIST, workflows: [monthLongOrderAsCode] });
  env.startActivityWorker({ taskList: CHARGE_TASK_LIST, activities: chargeActivities(charges) });
});
afterAll(() => env?.close());

const start = (orderId: string) =>
  env.startWorkflow({
    workflowType: { name: monthLongOrderAsCode.name, version: monthLongOrderAsCode.version },
    workflowId: orderId,
    input: orderId,
  });

describe('a workflow as code in a time-skipping environment', () => {
  it('sleeps 30 days, waits 7 for a signal, retries a charge with backoff, on virtual time', async () => {
    const wallStart = performance.now();
    const run = await start('o-unconfirmed');
    const closed = await env.awaitClose(run);
    expect(performance.now() - wallStart).toBeLessThan(15_000);
    // 30 d + 7 d + retries after 1, 2, 4 and 6 hours, as ctx.now() counted them.
    expect(closed.result).toBe('charged o-unconfirmed, unconfirmed, after 37.54 days');
    const timers = closed.events.flatMap((e) => e.timerStartedEventAttributes ?? []);
    expect(timers.map((t) => Number(t.startToFireTimeout) / 3_600)).toEqual([720, 168, 1, 2, 4, 6]);
    const fired = closed.events.filter((e) => e.eventType === 'TimerFired');
    for (const [i, event] of fired.entries()) {
      const startedAt = closed.events.find(
        (e) => e.eventId === event.timerFiredEventAttributes?.startedEventId,
      )?.eventTimestamp;
      const late =
        (event.eventTimestamp?.getTime() ?? 0) -
        (startedAt?.getTime() ?? 0) -
        Number(timers[i]?.startToFireTimeout) * 1_000;
      expect(late).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThan(1_000);
    }
    expect(charges.filter((c) => c.startsWith('o-unconfirmed '))).toHaveLength(5);

    const golden = await goldenHistory(GOLDEN, async () => closed);
    expect(await replayHistory(monthLongOrderAsCode, golden)).toEqual([]);
    expect(await replayHistory(monthLongOrderAsCode, History.recorded(closed.events))).toEqual([]);
    const reordered = defineWorkflow(
      monthLongOrderAsCode.name,
      monthLongOrderAsCode.version,
      async (ctx, orderId: string) => {
        await ctx.sleep('30d');
        return ctx.activity(ChargeCard, orderId);
      },
      { codec: textCodec },
    );
    await expect(replayHistory(reordered, History.recorded(closed.events))).rejects.toThrow(
      NonDeterminismError,
    );
  });

  it('takes a signal at the moment env.sleep brings it to', async () => {
    const run = await env.holdTime(async () => {
      const started = await start('o-confirmed');
      await until(
        async () => (await env.history(started)).some((e) => e.eventType === 'TimerStarted'),
        'the return window began',
        20_000,
        50,
      );
      await env.sleep('31d');
      await env.client.send(
        new SignalWorkflowExecutionCommand({
          domain: env.domain,
          workflowId: started.workflowId,
          signalName: 'Confirm',
          input: 'yes',
        }),
      );
      return started;
    });
    const closed = await env.awaitClose(run);
    expect(closed.result).toMatch(/^charged o-confirmed, confirmed, after 31\.5[45] days$/);
    const signaledAt = closed.events.find((e) => e.eventType === 'WorkflowExecutionSignaled');
    const began = closed.events[0]?.eventTimestamp?.getTime() ?? 0;
    const waited = (signaledAt?.eventTimestamp?.getTime() ?? 0) - began;
    expect(waited).toBeGreaterThanOrEqual(31 * 24 * HOUR_MS);
    expect(waited).toBeLessThan(31 * 24 * HOUR_MS + 5_000);
    expect(closed.events.map((e) => e.eventType)).toContain('TimerCanceled');
  });
});
