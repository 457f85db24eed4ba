/**
 * The local timer heap: a deadline fires once, a lead ahead of its time by the clock, however often it
 * is armed; a fire that fails is tried again; and a clock stepped forward makes a deadline due within
 * seconds, though the heap's timer counts monotonic time.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LocalDeadlineScheduler } from '../../../lib/adapters/in-process/local-scheduler.js';
import type { DeadlineFire } from '../../../lib/ports/deadline-scheduler.js';

const T0 = 1_800_000_000_000;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A heap on a clock that is the fake timers' time plus `step`, recording what fired when. */
function heap(onFire: (fire: DeadlineFire) => Promise<void> = async () => {}) {
  const start = Date.now();
  const clock = { step: 0, now: () => T0 + (Date.now() - start) + clock.step };
  const fired: { key: string; atMs: number }[] = [];
  const scheduler = new LocalDeadlineScheduler(
    clock,
    async (fire) => {
      fired.push({ key: fire.key, atMs: clock.now() - T0 });
      await onFire(fire);
    },
    () => {},
    400,
  );
  const fire = (key: string, inMs: number): DeadlineFire => ({
    runId: 'r',
    key,
    at: (T0 + inMs) / 1000,
  });
  return { clock, fired, scheduler, fire };
}

describe('LocalDeadlineScheduler', () => {
  it('fires a deadline once, its lead ahead of its time, however often it is armed', async () => {
    const { fired, scheduler, fire } = heap();
    await scheduler.arm(fire('T:5', 3_000));
    await scheduler.arm(fire('T:5', 3_000));
    await scheduler.arm(fire('T:7', 1_000));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(fired).toEqual([
      { key: 'T:7', atMs: 600 },
      { key: 'T:5', atMs: 2_600 },
    ]);
    await scheduler.stop();
  });

  it('tries a failed fire again, for a second later (handed its lead ahead of that)', async () => {
    let failures = 1;
    const { fired, scheduler, fire } = heap(async () => {
      if (failures-- > 0) throw new Error('throttled');
    });
    await scheduler.arm(fire('X', 1_000));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(fired.map((f) => f.atMs)).toEqual([600, 1_200]);
    await scheduler.stop();
  });

  it('fires within seconds a deadline that a clock stepped forward has made due', async () => {
    const { clock, fired, scheduler, fire } = heap();
    await scheduler.arm(fire('T:9', 3_600_000));
    await vi.advanceTimersByTimeAsync(1_000);
    clock.step = 3_600_000; // NTP, or a laptop waking: an hour passed by the wall clock
    await vi.advanceTimersByTimeAsync(5_000);
    // Before, the heap slept until its timer's hour was up.
    expect(fired.map((f) => f.key)).toEqual(['T:9']);
    await scheduler.stop();
  });
});
