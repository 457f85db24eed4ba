import type { Clock } from '../ports/clock.js';

/**
 * A test environment's time: it runs at the rate of real time from where it started, and a skip moves
 * it forward at once. It never runs backwards, so history timestamps only grow.
 */
export class VirtualClock implements Clock {
  readonly #startMs: number;
  readonly #realStart = performance.now();
  #skippedMs = 0;

  constructor(startMs = Date.now()) {
    this.#startMs = startMs;
  }

  now(): number {
    return this.#startMs + (performance.now() - this.#realStart) + this.#skippedMs;
  }

  /** Virtual time less real time: how much time was skipped so far. */
  get skippedMs(): number {
    return this.#skippedMs;
  }

  /** Moves time forward to `ms` (epoch ms); a time already past changes nothing. */
  advanceTo(ms: number): void {
    const ahead = ms - this.now();
    if (ahead > 0) this.#skippedMs += ahead;
  }
}
