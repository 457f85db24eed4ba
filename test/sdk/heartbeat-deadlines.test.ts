/**
 * Heartbeats in time, without a server: a beat that hangs is given up and followed by the next,
 * beats meet the task's heartbeat timeout, and a long-running activity keeps beating.
 */
import { describe, expect, it } from 'vitest';
import { Heartbeater, intervalForHeartbeatTimeout } from '../../lib/sdk/activity/heartbeat.js';
import { sleep } from '../../lib/sdk/index.js';
import { calls, collector, hangs, quietHeartbeater, run, waiting } from './heartbeat-support.js';
import { recordingLogger, until } from './support.js';

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
