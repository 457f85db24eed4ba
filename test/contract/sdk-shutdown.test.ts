/**
 * Graceful shutdown of the SDK's workers against the local server (docs/sdk.md,
 * "Graceful shutdown"): polling stops at once, in-flight work finishes inside the grace time,
 * then is cancelled through its signal.
 */
import { CountPendingActivityTasksCommand } from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Activity,
  type ActivityWorkerOptions,
  DeciderWorker,
  decide,
  sleep,
  WORKER_SHUTDOWN,
} from '../../lib/sdk/index.js';
import { SdkFixture, types, uid } from '../sdk/sdk-fixture.js';
import { recordingLogger, until } from '../sdk/support.js';

let fixture: SdkFixture;

// Long polls as long as SWF's: a worker that stopped only after its outstanding poll returned would
// take up to this long to stop, and a task scheduled meanwhile would be handed to it.
const LONG_POLL_MS = 60_000;

beforeAll(async () => {
  fixture = await SdkFixture.start({ maxWaitMs: LONG_POLL_MS });
});
afterAll(async () => {
  await fixture.close();
});

const worker = (activity: Activity, options: Partial<ActivityWorkerOptions> = {}) =>
  fixture.startWorker(activity, { heartbeatIntervalMs: 500, ...options });

const pendingActivities = async (taskList: string) =>
  (
    await fixture.client.send(
      new CountPendingActivityTasksCommand({
        domain: fixture.domain,
        taskList: { name: taskList },
      }),
    )
  ).count;

describe('graceful shutdown: polling stops at once', () => {
  it('an idle activity worker stops at once, its outstanding long polls withdrawn, and takes no task after', async () => {
    const ran: string[] = [];
    const { w, taskList } = worker(
      async (input) => {
        ran.push(input ?? '');
      },
      { pollers: 3 },
    );
    await sleep(300); // the long polls are outstanding
    const startedAt = Date.now();
    await w.shutdown();
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    expect(w.isRunning).toBe(false);

    // A task scheduled after shutdown is not handed to a withdrawn poll: it waits for another worker.
    const execution = await fixture.startWithActivities(taskList, 1, { input: 'after' });
    await sleep(1_000);
    expect(ran).toEqual([]);
    expect(await pendingActivities(taskList)).toBe(1);
    expect(types(await fixture.history(execution))).not.toContain('ActivityTaskStarted');

    const { w: other } = worker(
      async (input) => {
        ran.push(input ?? '');
      },
      { taskList },
    );
    try {
      await until(() => ran.length === 1, 'another worker to run the task');
    } finally {
      await other.shutdown();
    }
  });

  it('a busy worker polls no more once shutdown begins, while its running activity finishes', async () => {
    const ran: string[] = [];
    const release = new AbortController();
    const { w, taskList, ends } = worker(
      async (input) => {
        ran.push(input ?? '');
        await sleep(30_000, release.signal);
        return `done ${input}`;
      },
      { concurrency: 2, shutdownGraceMs: 10_000 },
    );
    await fixture.startWithActivities(taskList, 1, { input: 'first' });
    await until(() => ran.length === 1, 'the first activity');
    const stopped = w.shutdown();
    // The second slot was polling: a task scheduled now must not reach this worker.
    await fixture.startWithActivities(taskList, 1, { input: 'second' });
    await sleep(700);
    expect(ran).toEqual(['first']);
    release.abort();
    await stopped;
    expect(ends.ends.map((e) => e.outcome)).toEqual(['completed']);
    expect(await pendingActivities(taskList)).toBe(1);
  });

  it('a decider worker stops polling at once and lets its in-flight decision task finish', async () => {
    const decisions = uid('decisions');
    let deciding = false;
    const logger = recordingLogger();
    const decider = new DeciderWorker({
      client: fixture.client,
      domain: fixture.domain,
      taskList: decisions,
      concurrency: 2,
      shutdownSignals: [],
      logger,
      decider: async (state) => {
        deciding = true;
        await sleep(800); // the decision is in flight when shutdown begins
        return [decide.completeWorkflowExecution(`decided ${state.input}`)];
      },
    }).start();
    await sleep(300);
    const execution = await fixture.startExecution(decisions, 'x');
    await until(() => deciding, 'the decision task');
    const startedAt = Date.now();
    await decider.shutdown();
    const took = Date.now() - startedAt;
    expect(took).toBeLessThan(2_000); // the outstanding long poll did not hold it for a minute
    expect(await fixture.closeStatus(execution)).toBe('COMPLETED');
    expect(decider.isRunning).toBe(false);
    expect(logger.warnings()).toEqual([]);

    // Nothing polls the list any more: the next execution's decision task stays scheduled.
    const next = await fixture.startExecution(decisions, 'y');
    await sleep(1_000);
    expect(types(await fixture.history(next))).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
    ]);
  });

  it('a process signal it listens for starts the shutdown', async () => {
    const ran: string[] = [];
    const { w } = worker(async (input) => ran.push(input ?? ''), {
      shutdownSignals: ['SIGUSR2'],
    });
    expect(w.isRunning).toBe(true);
    process.emit('SIGUSR2', 'SIGUSR2');
    await until(() => !w.isRunning, 'the worker to stop');
    await w.shutdown();
    expect(process.listenerCount('SIGUSR2')).toBe(0); // it let go of the signal
  });
});

describe('graceful shutdown: in-flight work finishes inside the grace time, then is cancelled', () => {
  it('an activity told it is shutting down checkpoints and finishes inside the grace time; it is recorded as completed', async () => {
    const seen: { shuttingDown: boolean; signal: boolean }[] = [];
    const activity: Activity = async (_input, ctx) => {
      await sleep(30_000, ctx.shuttingDown);
      seen.push({ shuttingDown: ctx.shuttingDown.aborted, signal: ctx.signal.aborted });
      ctx.heartbeat('checkpoint');
      await sleep(500); // finishing up, well inside the grace time
      return 'finished for shutdown';
    };
    const { w, taskList, logger, ends } = worker(activity, { shutdownGraceMs: 5_000 });
    const execution = await fixture.startWithActivities(taskList);
    await until(() => w.inFlight === 1, 'the activity to run');
    const startedAt = Date.now();
    await w.shutdown();
    const took = Date.now() - startedAt;
    expect(took).toBeGreaterThanOrEqual(400); // it waited for the activity …
    expect(took).toBeLessThan(5_000); // … and not for the whole grace time
    expect(seen).toEqual([{ shuttingDown: true, signal: false }]);
    expect(ends.ends).toMatchObject([{ outcome: 'completed', reported: 'sent' }]);
    expect(w.inFlight).toBe(0);
    const completed = (await fixture.history(execution)).find(
      (e) => e.eventType === 'ActivityTaskCompleted',
    );
    expect(completed?.activityTaskCompletedEventAttributes?.result).toBe('finished for shutdown');
    expect(logger.warnings()).toEqual([]);
  });

  it('an activity still running when the grace time ends gets its signal and is recorded as failed, as the decider asked no cancellation', async () => {
    let signalledAfter: number | undefined;
    let startedShutdown = 0;
    const activity: Activity = async (_input, ctx) => {
      await sleep(60_000, ctx.signal); // ignores shuttingDown, honours the signal
      signalledAfter = Date.now() - startedShutdown;
      throw ctx.signal.reason;
    };
    const { w, taskList, logger, ends } = worker(activity, { shutdownGraceMs: 1_000 });
    const execution = await fixture.startWithActivities(taskList);
    await until(() => w.inFlight === 1, 'the activity to run');
    startedShutdown = Date.now();
    await w.shutdown();
    expect(signalledAfter).toBeGreaterThanOrEqual(1_000);
    expect(signalledAfter).toBeLessThan(3_000);
    expect(ends.ends).toMatchObject([
      { outcome: 'failed', cancelReason: 'shutdown', reported: 'sent' },
    ]);
    expect(w.inFlight).toBe(0);
    // SWF's reference: RespondActivityTaskCanceled only after a heartbeat answered cancelRequested.
    const history = await fixture.history(execution);
    expect(types(history)).not.toContain('ActivityTaskCanceled');
    const failed = history.find((e) => e.eventType === 'ActivityTaskFailed');
    expect(failed?.activityTaskFailedEventAttributes).toMatchObject({
      reason: WORKER_SHUTDOWN,
      details: 'activity cancelled: shutdown',
    });
    expect(logger.warnings().map((l) => l.message)).toEqual([
      expect.stringMatching(/shutdown grace elapsed/),
    ]);
  });

  it('an activity that ignores even its signal is abandoned after the cancel grace, and shutdown still resolves', async () => {
    const teardown = new AbortController();
    const activity: Activity = async () => {
      await sleep(120_000, teardown.signal); // ignores everything
      return 'too late';
    };
    const { w, taskList, logger, ends } = worker(activity, {
      shutdownGraceMs: 500,
      cancelGraceMs: 500,
    });
    const execution = await fixture.startWithActivities(taskList);
    await until(() => w.inFlight === 1, 'the activity to run');
    const startedAt = Date.now();
    await w.shutdown();
    const took = Date.now() - startedAt;
    teardown.abort();
    expect(took).toBeGreaterThanOrEqual(1_000);
    expect(took).toBeLessThan(3_000);
    expect(ends.ends).toMatchObject([{ outcome: 'abandoned', cancelReason: 'shutdown' }]);
    expect(w.inFlight).toBe(0);
    expect(w.abandoned).toBe(1);
    expect(logger.warnings()).toHaveLength(2);
    // Reported failed, so the decider is not left waiting for a worker that is gone.
    const failed = (await fixture.history(execution)).find(
      (e) => e.eventType === 'ActivityTaskFailed',
    );
    expect(failed?.activityTaskFailedEventAttributes).toMatchObject({
      reason: WORKER_SHUTDOWN,
      details: 'abandoned: did not stop within 500 ms of cancellation',
    });
  });
});
