/**
 * Heartbeat outcomes, without a server: retryable errors (throttling, 5xx, network) never fire the
 * signal; UnknownResourceFault (a lost task) does; cancelRequested does; the grace period.
 */
import { describe, expect, it } from 'vitest';
import { Heartbeater, heartbeatCallTimeoutMs } from '../../lib/sdk/activity/heartbeat.js';
import {
  RESULT_TOO_LONG,
  type TaskCalls,
  WORKER_SHUTDOWN,
} from '../../lib/sdk/activity/run-task.js';
import { describeError } from '../../lib/sdk/errors.js';
import { type Activity, ActivityFailure, sleep } from '../../lib/sdk/index.js';
import { report } from '../../lib/sdk/util.js';
import { calls, fault, hangs, RETRYABLE, run, waiting } from './heartbeat-support.js';
import { recordingLogger, until } from './support.js';

describe('retryable heartbeat errors never trigger the signal; a lost task (UnknownResourceFault) does', () => {
  it('retryable heartbeat errors never trigger the signal', async () => {
    let n = 0;
    const { swf, reports, heartbeats } = calls(async () => {
      throw RETRYABLE[n++ % RETRYABLE.length];
    });
    const { box, activity } = waiting();
    const { task, logger } = run(activity, swf);
    await until(() => heartbeats.length >= RETRYABLE.length * 3, 'many failed heartbeats');
    expect(box.ctx?.signal.aborted).toBe(false);
    box.stop.abort();
    expect(await task.done).toMatchObject({ outcome: 'completed', cancelReason: undefined });
    expect(reports).toEqual(['completed finished']);
    expect(logger.warnings().length).toBeGreaterThan(0); // the first failure of a run is reported
  });

  it('a lost task (UnknownResourceFault) triggers the signal, and nothing is reported', async () => {
    let n = 0;
    const { swf, reports } = calls(async () => {
      n++;
      if (n < 4) throw RETRYABLE[n];
      throw fault('UnknownResourceFault', 400);
    });
    const { box, activity } = waiting();
    const { task } = run(activity, swf);
    const end = await task.done;
    expect(box.ctx?.signal.aborted).toBe(true);
    expect(box.ctx?.cancelReason).toBe('taskGone');
    expect(end).toMatchObject({ outcome: 'dropped', reported: 'none', cancelReason: 'taskGone' });
    expect(reports).toEqual([]);
    expect(n).toBe(4); // no heartbeat after the task was gone
  });

  it('cancelRequested triggers the signal; heartbeats carry the latest details', async () => {
    let n = 0;
    const { swf, reports, heartbeats } = calls(async () => ++n >= 3);
    const activity: Activity = async (_input, ctx) => {
      for (let i = 0; !ctx.signal.aborted; i++) {
        ctx.heartbeat(`step ${i}`);
        await sleep(5, ctx.signal);
      }
      throw ctx.signal.reason;
    };
    const { task } = run(activity, swf);
    const end = await task.done;
    expect(end).toMatchObject({ outcome: 'canceled', cancelReason: 'cancelRequested' });
    expect(heartbeats.every((d) => typeof d === 'string' && d.startsWith('step '))).toBe(true);
    expect(reports).toEqual([expect.stringMatching(/^canceled step \d+$/)]);
  });

  it('heartbeats carry the first 2,048 characters of long details; the cancellation report all of them', async () => {
    let n = 0;
    const { swf, reports, heartbeats } = calls(async () => ++n >= 2);
    const long = `${'x'.repeat(3_000)}!`;
    const activity: Activity = async (_input, ctx) => {
      ctx.heartbeat(long);
      while (!ctx.signal.aborted) await sleep(5, ctx.signal);
      throw ctx.signal.reason;
    };
    const { task } = run(activity, swf);
    expect(await task.done).toMatchObject({ outcome: 'canceled', cancelReason: 'cancelRequested' });
    expect(heartbeats.length).toBeGreaterThan(0);
    for (const details of heartbeats) expect(details).toBe(long.slice(0, 2_048));
    expect(reports).toEqual([`canceled ${long}`]);
  });

  it('cuts details, reasons and heartbeats without splitting an emoji (two UTF-16 units)', async () => {
    const emoji = '\u{1F600}';
    let n = 0;
    const { swf, heartbeats } = calls(async () => ++n >= 2);
    const activity: Activity = async (_input, ctx) => {
      ctx.heartbeat(`${'x'.repeat(2_047)}${emoji}tail`);
      while (!ctx.signal.aborted) await sleep(5, ctx.signal);
      throw ctx.signal.reason;
    };
    await run(activity, swf).task.done;
    for (const details of heartbeats) expect(details).toBe('x'.repeat(2_047));

    const failures: [string, string | undefined][] = [];
    const failing: TaskCalls = {
      ...calls(async () => false).swf,
      failed: async (reason, details) => void failures.push([reason, details]),
    };
    const failure = new ActivityFailure(
      `${'r'.repeat(255)}${emoji}`,
      `${'d'.repeat(32_767)}${emoji}more`,
    );
    await run(async () => Promise.reject(failure), failing).task.done;
    expect(failures).toEqual([['r'.repeat(255), 'd'.repeat(32_767)]]);
  });

  it('fails an activity whose result SWF cannot take, instead of leaving it to time out', async () => {
    const reported: string[] = [];
    const swf: TaskCalls = {
      ...calls(async () => false).swf,
      completed: async () => void reported.push('completed'),
      failed: async (reason, details) => void reported.push(`${reason}: ${details}`),
    };
    const { task } = run(async () => 'r'.repeat(40_000), swf);
    expect(await task.done).toMatchObject({ outcome: 'failed' });
    expect(reported).toEqual([
      `${RESULT_TOO_LONG}: The activity's result is 40000 characters long; RespondActivityTaskCompleted takes at most 32768`,
    ]);
  });

  it('a heartbeat that hangs is given up, and the next one goes out', async () => {
    const sent: AbortSignal[] = [];
    const cancelled = new AbortController();
    const heartbeater: Heartbeater = new Heartbeater({
      // The first call never answers (until given up); the second asks for cancellation.
      send: (_details, signal) => {
        sent.push(signal);
        if (sent.length > 1) return Promise.resolve(true);
        return hangs(signal);
      },
      intervalMs: 10,
      callTimeoutMs: 50,
      details: () => undefined,
      // Stops at once, as a cancelled task's heartbeater is stopped: no third beat.
      onCancelRequested: () => {
        heartbeater.stop();
        cancelled.abort();
      },
      onTaskGone: () => {},
      logger: recordingLogger(),
    });
    const started = Date.now();
    heartbeater.start();
    await until(() => cancelled.signal.aborted, 'the beat after the hung one');
    expect(sent).toHaveLength(2);
    expect(sent[0]?.aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(heartbeatCallTimeoutMs(1_000)).toBe(2_000);
    expect(heartbeatCallTimeoutMs(5_000)).toBe(10_000);
  });

  it('an activity that ignores the signal is abandoned after the grace period', async () => {
    const { swf, reports } = calls(async () => true);
    const forever = new AbortController();
    const activity: Activity = () => sleep(30_000, forever.signal);
    const started = Date.now();
    const { task, logger } = run(activity, swf, { cancelGraceMs: 200 });
    const end = await task.done;
    forever.abort();
    expect(end.outcome).toBe('abandoned');
    expect(end.endedAt - (end.signalledAt ?? 0)).toBeGreaterThanOrEqual(195);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(logger.warnings()).toHaveLength(1);
    expect(reports).toEqual([expect.stringMatching(/^canceled abandoned/)]);
  });

  it('an abandoned activity is reported canceled with its last heartbeat details', async () => {
    const { swf, reports } = calls(async () => true);
    const forever = new AbortController();
    const activity: Activity = (_input, ctx) => {
      ctx.heartbeat('parcel 3 of 7');
      return sleep(30_000, forever.signal);
    };
    const { task } = run(activity, swf, { cancelGraceMs: 100 });
    const end = await task.done;
    forever.abort();
    expect(end.outcome).toBe('abandoned');
    expect(reports).toEqual(['canceled parcel 3 of 7']);
  });
});

describe('a report (Respond*) that got no answer is sent again', () => {
  it.each(RETRYABLE.map((error) => [describeError(error), error] as const))(
    'after %s',
    async (_name, error) => {
      let calls = 0;
      const outcome = await report(
        async () => {
          calls++;
          if (calls === 1) throw error;
        },
        'complete',
        recordingLogger(),
      );
      expect(outcome).toBe('sent');
      expect(calls).toBe(2);
    },
  );
});

describe('what an activity stopped by its signal is reported as', () => {
  /** Holds on past its signal until the test lets it throw the signal's reason. */
  function holding() {
    const release = new AbortController();
    const activity: Activity = async (_input, ctx) => {
      await sleep(30_000, ctx.signal);
      await sleep(30_000, release.signal);
      throw ctx.signal.reason;
    };
    return { activity, release };
  }

  it('failed with WorkerShutdown when only the worker stopped it', async () => {
    const { swf, reports } = calls(async () => false);
    const { activity, release } = holding();
    const { task } = run(activity, swf);
    task.cancel('shutdown');
    release.abort();
    expect(await task.done).toMatchObject({ outcome: 'failed', cancelReason: 'shutdown' });
    expect(reports).toEqual([`failed ${WORKER_SHUTDOWN}`]);
  });

  it('canceled when the decider asked too, even after the shutdown fired the signal', async () => {
    let asked = false;
    const { swf, reports, heartbeats } = calls(async () => asked);
    const { activity, release } = holding();
    const { task } = run(activity, swf);
    task.cancel('shutdown');
    asked = true;
    const sent = heartbeats.length;
    await until(() => heartbeats.length > sent + 1, 'a heartbeat answering cancelRequested');
    release.abort();
    expect(await task.done).toMatchObject({ outcome: 'canceled', cancelReason: 'shutdown' });
    expect(reports).toEqual(['canceled activity cancelled: shutdown']);
  });
});
