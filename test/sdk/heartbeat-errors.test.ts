/**
 * Heartbeat outcomes, without a server: retryable errors (throttling, 5xx, network) never fire the
 * signal; UnknownResourceFault (a lost task) does; cancelRequested does; the grace period.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  Heartbeater,
  type HeartbeatOptions,
  heartbeatCallTimeoutMs,
  intervalForHeartbeatTimeout,
} from '../../lib/sdk/activity/heartbeat.js';
import {
  RESULT_TOO_LONG,
  runActivityTask,
  type TaskCalls,
  WORKER_SHUTDOWN,
} from '../../lib/sdk/activity/run-task.js';
import { describeError } from '../../lib/sdk/errors.js';
import {
  type Activity,
  type ActivityContext,
  ActivityFailure,
  sleep,
} from '../../lib/sdk/index.js';
import { report } from '../../lib/sdk/util.js';
import { recordingLogger, until } from './support.js';

const fault = (name: string, status: number, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(name), {
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status },
    ...extra,
  });
const network = (code: string) => Object.assign(new Error(`connect ${code}`), { code });

const RETRYABLE = [
  fault('ThrottlingException', 400),
  fault('InternalFailure', 500),
  fault('ServiceUnavailable', 503),
  network('ECONNRESET'),
  network('ECONNREFUSED'),
  Object.assign(new Error('socket timed out'), { name: 'TimeoutError' }),
  // undici's timeouts, bare and wrapped by fetch
  Object.assign(new Error('Headers Timeout Error'), {
    name: 'HeadersTimeoutError',
    code: 'UND_ERR_HEADERS_TIMEOUT',
  }),
  Object.assign(new Error('Body Timeout Error'), { code: 'UND_ERR_BODY_TIMEOUT' }),
  Object.assign(new TypeError('fetch failed'), { cause: network('UND_ERR_CONNECT_TIMEOUT') }),
];

function calls(heartbeat: TaskCalls['heartbeat']) {
  const reports: string[] = [];
  const heartbeats: (string | undefined)[] = [];
  const swf: TaskCalls = {
    heartbeat: (details) => {
      heartbeats.push(details);
      return heartbeat(details);
    },
    completed: async (result) => reports.push(`completed ${result}`),
    failed: async (reason) => reports.push(`failed ${reason}`),
    canceled: async (details) => reports.push(`canceled ${details}`),
  };
  return { swf, reports, heartbeats };
}

function run(
  activity: Activity,
  swf: TaskCalls,
  options: {
    cancelGraceMs?: number;
    heartbeatIntervalMs?: number;
    heartbeatTimeout?: Promise<string | undefined>;
  } = {},
) {
  const logger = recordingLogger();
  const task = runActivityTask({
    task: {
      taskToken: 't',
      activityId: 'a',
      activityType: { name: 'x', version: '1' },
      startedEventId: 2,
      workflowExecution: { workflowId: 'w', runId: 'r' },
    },
    activity,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 20,
    heartbeatTimeout: options.heartbeatTimeout,
    cancelGraceMs: options.cancelGraceMs ?? 2_000,
    shuttingDown: new AbortController().signal,
    logger,
    swf,
  });
  return { task, logger };
}

/** Runs until told to stop, noting its context; honours the signal. */
function waiting() {
  const box: { ctx?: ActivityContext; stop: AbortController } = { stop: new AbortController() };
  const activity: Activity = async (_input, ctx) => {
    box.ctx = ctx;
    await Promise.race([sleep(30_000, ctx.signal), sleep(30_000, box.stop.signal)]);
    if (ctx.signal.aborted) throw ctx.signal.reason;
    return 'finished';
  };
  return { box, activity };
}

/** A call that never answers: it rejects only when its signal aborts (given up, or stopped). */
const hangs = (signal: AbortSignal | undefined) =>
  new Promise<boolean>((_resolve, reject) =>
    signal?.addEventListener('abort', () => reject(signal.reason)),
  );

/** A Heartbeater sending through `send`, with nothing to do on what its beats answer. */
const quietHeartbeater = (
  options: Pick<HeartbeatOptions, 'send' | 'intervalMs' | 'callTimeoutMs'>,
) =>
  new Heartbeater({
    ...options,
    details: () => undefined,
    onCancelRequested: () => {},
    onTaskGone: () => {},
    logger: recordingLogger(),
  });

/** V8's garbage collector, called at once (for tests of what a collection may take). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

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

describe('a heartbeat that hangs', () => {
  it('is followed at once by the next when it is given up, and details never go back', async () => {
    const recorded: { at: number; details: string | undefined }[] = [];
    let sent = 0;
    let step = 0;
    const heartbeater = new Heartbeater({
      intervalMs: 500,
      callTimeoutMs: 1_000,
      send: (details, signal) => {
        sent++;
        if (sent === 2) return hangs(signal);
        recorded.push({ at: Date.now(), details });
        return Promise.resolve(false);
      },
      details: () => `step-${++step}`,
      onCancelRequested: () => {},
      onTaskGone: () => {},
      logger: recordingLogger(),
    });
    heartbeater.start();
    await until(() => recorded.length >= 2, 'two answered heartbeats', 5_000);
    heartbeater.stop();
    const [first, second] = recorded;
    // Sent 500 ms after the first, the second hangs until it is given up at 1 s; the third goes out
    // then, not a further interval later (2 s after the first).
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeLessThan(1_800);
    expect(recorded.map((r) => r.details)).toEqual(['step-1', 'step-3']);
  });
});

describe("heartbeats meet the task's heartbeat timeout", () => {
  it('a third of the timeout, whatever the configured interval; NONE and nonsense change nothing', () => {
    expect(intervalForHeartbeatTimeout('3')).toBe(1_000);
    expect(intervalForHeartbeatTimeout('1')).toBe(333);
    for (const none of ['NONE', undefined, '0', '', '1.5', '-2', 'x'])
      expect(intervalForHeartbeatTimeout(none)).toBeUndefined();
  });

  it('a known heartbeat timeout brings the waiting beat forward and keeps beats within it', async () => {
    const beats: number[] = [];
    const { swf } = calls(async () => {
      beats.push(Date.now());
      return false;
    });
    const { box, activity } = waiting();
    const started = Date.now();
    const { task } = run(activity, swf, {
      heartbeatIntervalMs: 60_000,
      heartbeatTimeout: sleep(100).then(() => '1'),
    });
    await until(() => beats.length >= 4, 'four heartbeats', 5_000);
    box.stop.abort();
    expect((await task.done).outcome).toBe('completed');
    // Every third of a second from the start, not once a minute.
    const gaps = [beats[0] ?? 0, ...beats.slice(1)].map(
      (at, i) => at - (i === 0 ? started : (beats[i - 1] ?? 0)),
    );
    for (const gap of gaps) expect(gap).toBeLessThan(700);
  });

  it('a tighter interval never loosens, and brings a waiting beat forward', async () => {
    const sent: number[] = [];
    const heartbeater = quietHeartbeater({
      intervalMs: 10_000,
      send: async () => {
        sent.push(Date.now());
        return false;
      },
    });
    const started = Date.now();
    heartbeater.start();
    await sleep(100);
    heartbeater.tighten(50_000);
    expect(heartbeater.intervalMs).toBe(10_000);
    for (const nonsense of [0, -1, Number.NaN]) heartbeater.tighten(nonsense);
    expect(heartbeater.intervalMs).toBe(10_000);
    // 100 ms into a 10 s wait: the beat is due 300 ms after the start now, then every 300 ms.
    heartbeater.tighten(300);
    await until(() => sent.length >= 3, 'three beats', 3_000);
    heartbeater.stop();
    expect((sent[0] ?? 0) - started).toBeGreaterThanOrEqual(290);
    expect((sent[0] ?? 0) - started).toBeLessThan(600);
    expect((sent[2] ?? 0) - started).toBeLessThan(1_500);
  });

  it('a beat that hangs is given up within the tightened interval, so the next lands in time', async () => {
    // A 2 s heartbeat timeout on a worker told to beat every 4 s, its first beat hanging: the next
    // must still reach the service within 2 s of the start (the hung one was held 2 × 4 s before).
    const arrived: number[] = [];
    let n = 0;
    const { swf } = calls(() => Promise.resolve(false));
    swf.heartbeat = (_details, signal) => {
      n++;
      if (n === 1) return hangs(signal);
      arrived.push(Date.now());
      return Promise.resolve(false);
    };
    const { box, activity } = waiting();
    const started = Date.now();
    const { task } = run(activity, swf, {
      heartbeatIntervalMs: 4_000,
      heartbeatTimeout: Promise.resolve('2'),
    });
    await until(() => arrived.length >= 1, 'a beat after the hung one', 5_000);
    box.stop.abort();
    await task.done;
    expect((arrived[0] ?? 0) - started).toBeLessThan(2_000);
  });
});

describe('a heartbeat that hangs on a promise nothing else holds', () => {
  it('is given up even when garbage is collected while it hangs', async () => {
    // AbortSignal.timeout and AbortSignal.any hold their signals weakly: with nothing else holding
    // the hung call, a collection took the signal and the heartbeats stopped for good.
    const gc = collector();
    let sent = 0;
    const heartbeater = quietHeartbeater({
      intervalMs: 100,
      callTimeoutMs: 300,
      send: (_details, signal) => {
        sent++;
        if (sent > 1) return Promise.resolve(false);
        return hangs(signal);
      },
    });
    heartbeater.start();
    const until2 = Date.now() + 2_000;
    while (sent < 2 && Date.now() < until2) {
      gc();
      await sleep(20);
    }
    heartbeater.stop();
    expect(sent).toBeGreaterThanOrEqual(2);
  });
});

describe('a long-running activity', () => {
  it('keeps no memory per heartbeat: 5,000 beats leave the heap where it was', async () => {
    // Each beat's signal was AbortSignal.any of the task's own: Node keeps a record in the long-lived
    // signal for every such call, hundreds of bytes a beat, for as long as the task runs.
    const gc = collector();
    let beats = 0;
    const heartbeater = quietHeartbeater({
      intervalMs: 0,
      send: async (_details, signal) => {
        beats++;
        signal.addEventListener('abort', () => {}, { once: true });
        return false;
      },
    });
    heartbeater.start();
    await until(() => beats >= 1_000, 'warm-up beats', 10_000);
    gc();
    const before = process.memoryUsage().heapUsed;
    await until(() => beats >= 6_000, '5,000 more beats', 30_000);
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    heartbeater.stop();
    // 4 MB before (16 MB for 20,000 beats).
    expect(grown).toBeLessThan(400_000);
  }, 40_000);
});
