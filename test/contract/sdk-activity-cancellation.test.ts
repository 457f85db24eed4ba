/**
 * The SDK's activity cancellation contract against the local server (docs/sdk.md, "Cancellable activities").
 * How soon the signal comes is held to its bound in sdk-cancellation-signal.test.ts, which the
 * timing project runs alone.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Activity, ActivityFailure, decide, sleep } from '../../lib/sdk/index.js';
import { closersOf, workersOf } from '../sdk/cancellation-support.js';
import { SdkFixture, types } from '../sdk/sdk-fixture.js';
import { until } from '../sdk/support.js';

let fixture: SdkFixture;
/** Ends activities that were abandoned on purpose, so nothing outlives the file. */
const teardown = new AbortController();

beforeAll(async () => {
  fixture = await SdkFixture.start();
});
afterAll(async () => {
  teardown.abort();
  await fixture.close();
});
const worker = workersOf(() => fixture);
const closers = closersOf(() => fixture);

describe('grace period', () => {
  it('an activity that honours the signal inside the grace period ends as ActivityTaskCanceled, with no warning', async () => {
    const activity: Activity = async (_input, ctx) => {
      await sleep(60_000, ctx.signal);
      ctx.heartbeat('cleaned up');
      await sleep(300); // some cleanup, well inside the grace period
      throw ctx.signal.reason;
    };
    const { taskList, logger, ends } = worker(activity, { cancelGraceMs: 5_000 });
    const execution = await fixture.startWithActivities(taskList);
    await until(
      async () => types(await fixture.history(execution)).includes('ActivityTaskStarted'),
      'start',
    );
    await fixture.decideNow(execution, [decide.requestCancelActivityTask('a0')]);
    await until(() => ends.ends.length === 1, 'the task to end');
    expect(ends.ends[0]).toMatchObject({ outcome: 'canceled', cancelReason: 'cancelRequested' });
    const canceled = (await fixture.history(execution)).find(
      (e) => e.eventType === 'ActivityTaskCanceled',
    );
    expect(canceled?.activityTaskCanceledEventAttributes?.details).toBe('cleaned up');
    expect(logger.warnings()).toEqual([]);
  });

  it('an activity that ignores it past the grace period is abandoned, its slot freed, a warning logged, and the worker goes on to the next task', async () => {
    const ran: string[] = [];
    const activity: Activity = async (input) => {
      ran.push(input ?? '');
      if (input === 'stubborn') await sleep(120_000, teardown.signal); // ignores ctx.signal
      return `done ${input}`;
    };
    const { w, taskList, logger, ends } = worker(activity, {
      concurrency: 1,
      cancelGraceMs: 1_000,
    });
    const stubborn = await fixture.startWithActivities(taskList, 1, { input: 'stubborn' });
    await until(() => ran.includes('stubborn'), 'the stubborn activity to start');
    const next = await fixture.startWithActivities(taskList, 1, { input: 'next' });
    await sleep(500);
    expect(ran).toEqual(['stubborn']); // the only slot is taken

    await fixture.decideNow(stubborn, [decide.requestCancelActivityTask('a0')]);
    await until(() => ran.includes('next'), 'the next task to run', 10_000);
    await until(() => ends.ends.length === 2, 'both tasks to end');
    expect(ends.of(stubborn.workflowId)[0]).toMatchObject({ outcome: 'abandoned' });
    expect(ends.of(next.workflowId)[0]).toMatchObject({ outcome: 'completed', reported: 'sent' });
    expect(w.inFlight).toBe(0);
    expect(w.abandoned).toBe(1);
    expect(logger.warnings().map((l) => l.message)).toEqual([
      expect.stringMatching(/ignored its cancellation past the grace period; abandoned/),
    ]);
    expect(types(await fixture.history(next))).toContain('ActivityTaskCompleted');
    // The abandoned task was reported canceled so the decider is not left waiting.
    expect(types(await fixture.history(stubborn))).toContain('ActivityTaskCanceled');
  });
});

describe('reports after the execution closed', () => {
  it('an activity that completes, fails or throws after cancellation of its closed execution reports nothing that changes the history', async () => {
    const activity: Activity = async (input, ctx) => {
      await sleep(60_000, ctx.signal);
      await sleep(200);
      if (input === 'complete') return 'finished anyway';
      if (input === 'fail') throw new ActivityFailure('gave up', 'after close');
      throw new TypeError('crashed after close');
    };
    const { taskList, ends } = worker(activity, { concurrency: 3 });
    const executions = await Promise.all(
      ['complete', 'fail', 'throw'].map((input) =>
        fixture.startWithActivities(taskList, 1, { input }),
      ),
    );
    for (const e of executions)
      await until(
        async () => types(await fixture.history(e)).includes('ActivityTaskStarted'),
        'start',
      );
    await Promise.all(executions.map((e) => closers.terminated?.(e)));
    const before = await Promise.all(executions.map((e) => fixture.history(e)));
    await until(() => ends.ends.length === 3, 'the three tasks to end');
    expect(ends.ends.map((e) => [e.outcome, e.reported])).toEqual([
      ['dropped', 'none'],
      ['dropped', 'none'],
      ['dropped', 'none'],
    ]);
    await sleep(300);
    expect(await Promise.all(executions.map((e) => fixture.history(e)))).toEqual(before);
  });

  it('an activity that completes before the cancellation is seen is recorded as completed', async () => {
    let signalled = false;
    const activity: Activity = async (_input, ctx) => {
      await sleep(2_000);
      signalled = ctx.signal.aborted;
      return 'made it';
    };
    // Heartbeats every 10 s: the cancellation cannot be seen within the activity's 2 s.
    const { taskList, ends } = worker(activity, { heartbeatIntervalMs: 10_000 });
    const execution = await fixture.startWithActivities(taskList);
    await until(
      async () => types(await fixture.history(execution)).includes('ActivityTaskStarted'),
      'start',
    );
    await fixture.decideNow(execution, [decide.requestCancelActivityTask('a0')]);
    await until(() => ends.ends.length === 1, 'the task to end');
    expect(signalled).toBe(false);
    expect(ends.ends[0]).toMatchObject({ outcome: 'completed', reported: 'sent' });
    const events = await fixture.history(execution);
    expect(types(events)).toContain('ActivityTaskCancelRequested');
    const completed = events.find((e) => e.eventType === 'ActivityTaskCompleted');
    expect(completed?.activityTaskCompletedEventAttributes?.result).toBe('made it');
  });
});

describe('many at once', () => {
  it('an activity passing the signal to spawned work sees that work stop', async () => {
    let child: { pid: number | undefined; exit?: NodeJS.Signals | number | null } | undefined;
    const activity: Activity = (_input, ctx) =>
      new Promise((resolve, reject) => {
        const proc = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
          signal: ctx.signal,
          stdio: 'ignore',
        });
        child = { pid: proc.pid };
        proc.on('error', () => {}); // the AbortError of the spawn signal
        proc.on('exit', (code, signal) => {
          if (child) child.exit = signal ?? code;
          if (ctx.signal.aborted) reject(ctx.signal.reason);
          else resolve('child exited by itself');
        });
      });
    const { taskList, ends } = worker(activity);
    const execution = await fixture.startWithActivities(taskList);
    await until(() => child?.pid !== undefined, 'the child process');
    const pid = child?.pid ?? 0;
    expect(() => process.kill(pid, 0)).not.toThrow(); // it runs
    await closers.terminated?.(execution);
    await until(() => child?.exit !== undefined, 'the child to exit', 5_000);
    expect(child?.exit).toBe('SIGTERM');
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    await until(() => ends.ends.length === 1, 'the task to end');
    expect(ends.ends[0]).toMatchObject({ outcome: 'dropped', cancelReason: 'taskGone' });
  });

  it('a queued activity of a closed execution is never started', async () => {
    const ran: string[] = [];
    const release = new AbortController();
    const activity: Activity = async (input) => {
      ran.push(input ?? '');
      if (input === 'blocker') await sleep(60_000, release.signal);
      return 'ok';
    };
    const { taskList, ends } = worker(activity, { concurrency: 1 });
    await fixture.startWithActivities(taskList, 1, { input: 'blocker' });
    await until(() => ran.includes('blocker'), 'the blocker to start');
    const queued = await fixture.startWithActivities(taskList, 1, { input: 'queued' });
    await closers.terminated?.(queued);
    release.abort();
    const later = await fixture.startWithActivities(taskList, 1, { input: 'later' });
    await until(() => ran.includes('later'), 'the later task to run', 10_000);
    expect(ran).toEqual(['blocker', 'later']);
    expect(ends.of(queued.workflowId)).toEqual([]);
    expect(types(await fixture.history(queued))).not.toContain('ActivityTaskStarted');
    expect(types(await fixture.history(later))).toContain('ActivityTaskStarted');
  });
});
