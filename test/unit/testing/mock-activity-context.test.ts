/**
 * MockActivityContext: an activity unit-tested without a service reports what a worker would send
 * for it (checked against the SDK's own task runner), and its heartbeats, cancellation, shutdown and
 * task attributes behave as the worker's context does.
 */
import { describe, expect, it } from 'vitest';
import { runActivityTask, type TaskCalls } from '../../../lib/sdk/activity/run-task.js';
import {
  type Activity,
  ActivityFailure,
  CancelReason,
  RESULT_NOT_SERIALIZABLE,
  RESULT_TOO_LONG,
  silentLogger,
  sleep,
  WORKER_SHUTDOWN,
} from '../../../lib/sdk/index.js';
import { type ActivityOutcome, MockActivityContext } from '../../../lib/testing/index.js';

/** What the SDK's worker sends for `activity`, in the mock's terms. */
async function workerReport(activity: Activity, input?: string): Promise<ActivityOutcome> {
  const sent: ActivityOutcome[] = [];
  const swf: TaskCalls = {
    heartbeat: async () => false,
    completed: async (result) => sent.push({ kind: 'completed', result }),
    failed: async (reason, details) => sent.push({ kind: 'failed', reason, details }),
    canceled: async (details) => sent.push({ kind: 'canceled', details: details ?? '' }),
  };
  await runActivityTask({
    task: {
      taskToken: 't',
      activityId: 'a',
      activityType: { name: 'work', version: '1' },
      workflowExecution: { workflowId: 'w', runId: 'r' },
      startedEventId: 6,
      input,
    },
    activity,
    heartbeatIntervalMs: 1_000,
    cancelGraceMs: 1_000,
    shuttingDown: new AbortController().signal,
    logger: silentLogger,
    swf,
  }).done;
  return sent[0] ?? { kind: 'dropped' };
}

const cases: Record<string, Activity> = {
  'a string result': (input) => `hello ${input}`,
  'a value, sent as JSON': () => ({ total: 42, items: ['a'] }),
  'no result': () => undefined,
  'an ActivityFailure': () => {
    throw new ActivityFailure('CardDeclined', 'the bank said no');
  },
  'an Error, its message and stack': () => {
    throw new Error('disk full');
  },
  'a thrown string': () => {
    throw 'plain';
  },
  'a result SWF cannot take': () => 'x'.repeat(40_000),
  'a result with no JSON': () => ({ big: 10n }),
};

describe('MockActivityContext', () => {
  it.each(Object.entries(cases))('reports %s as the worker does', async (_, activity) => {
    const mocked = await new MockActivityContext({ input: 'world' }).run(activity);
    const sent = await workerReport(activity, 'world');
    if (
      mocked.kind === 'failed' &&
      sent.kind === 'failed' &&
      mocked.details?.includes('\n    at ')
    ) {
      // A stack names where it was made: the same error, thrown from the same line, either way.
      expect(mocked.reason).toBe(sent.reason);
      expect(mocked.details.split('\n')[0]).toBe(sent.details?.split('\n')[0]);
    } else expect(mocked).toEqual(sent);
  });

  it('names the failures a worker makes of what it cannot send', async () => {
    expect(
      await new MockActivityContext().run(cases['a result SWF cannot take'] as Activity),
    ).toMatchObject({ kind: 'failed', reason: RESULT_TOO_LONG });
    expect(
      await new MockActivityContext().run(cases['a result with no JSON'] as Activity),
    ).toMatchObject({ kind: 'failed', reason: RESULT_NOT_SERIALIZABLE });
  });

  it('keeps every heartbeat and its details, and tells listeners', async () => {
    const ctx = new MockActivityContext();
    const told: (string | undefined)[] = [];
    ctx.onHeartbeat((details) => told.push(details));
    await ctx.run((_, c) => {
      c.heartbeat('10%');
      c.heartbeat();
      c.heartbeat('x'.repeat(40_000));
      return 'done';
    });
    expect(ctx.heartbeats.map((d) => d?.length ?? d)).toEqual([3, undefined, 32_768]);
    expect(told).toHaveLength(3);
    expect(ctx.lastHeartbeatDetails).toHaveLength(32_768);
  });

  it('cancels through ctx.signal: the activity stops, and the worker reports it canceled', async () => {
    const ctx = new MockActivityContext({ input: '5' });
    ctx.onHeartbeat((details) => {
      if (details === 'step 3') ctx.cancel();
    });
    const steps: number[] = [];
    const outcome = await ctx.run(async (input, c) => {
      for (let step = 1; step <= Number(input); step++) {
        c.heartbeat(`step ${step}`);
        await sleep(1, c.signal);
        if (c.signal.aborted) throw c.signal.reason;
        steps.push(step);
      }
      return 'finished';
    });
    expect(steps).toEqual([1, 2]);
    expect(ctx.cancelReason).toBe(CancelReason.cancelRequested);
    // The latest heartbeat's details tell the decider how far it got.
    expect(outcome).toEqual({ kind: 'canceled', details: 'step 3' });
  });

  it('shuts down: ctx.shuttingDown first, then a signal the worker reports as WorkerShutdown', async () => {
    const ctx = new MockActivityContext();
    const outcome = await ctx.run(async (_, c) => {
      ctx.shutdown();
      expect(c.shuttingDown.aborted).toBe(true);
      expect(c.signal.aborted).toBe(false);
      ctx.cancel(CancelReason.shutdown);
      throw c.signal.reason;
    });
    expect(outcome).toMatchObject({ kind: 'failed', reason: WORKER_SHUTDOWN });
  });

  it('reports nothing for a task that was gone', async () => {
    const ctx = new MockActivityContext();
    ctx.cancel(CancelReason.taskGone);
    expect(await ctx.run(() => 'too late')).toEqual({ kind: 'dropped' });
  });

  it('carries the task’s attributes, and keeps what the activity logs', async () => {
    const ctx = new MockActivityContext({
      input: '{"orderId":"o-1"}',
      activityId: 'charge',
      activityType: { name: 'ChargeCreditCard', version: '2' },
      workflowExecution: { workflowId: 'order-o-1', runId: 'r-9' },
      startedEventId: 12,
      taskToken: 'token-1',
    });
    await ctx.run((input, c) => {
      c.logger.info('charging', { input, id: c.activityId });
    });
    expect(ctx).toMatchObject({
      activityId: 'charge',
      activityType: { name: 'ChargeCreditCard', version: '2' },
      workflowExecution: { workflowId: 'order-o-1', runId: 'r-9' },
      startedEventId: 12,
      taskToken: 'token-1',
    });
    expect(ctx.logged).toEqual([
      { level: 'info', message: 'charging', fields: { input: '{"orderId":"o-1"}', id: 'charge' } },
    ]);
  });
});
