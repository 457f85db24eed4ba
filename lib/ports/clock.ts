/** Time, injected so the core and the operations can be tested with a fixed clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** SWF timestamps are epoch seconds with millisecond fractions. */
export const epochSeconds = (clock: Clock): number => clock.now() / 1000;
