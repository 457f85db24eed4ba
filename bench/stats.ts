/** Percentile by nearest rank (p in 0..100) of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? Number.NaN;
}

export interface Distribution {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

export function distribution(samples: readonly number[]): Distribution {
  const mean = samples.reduce((a, b) => a + b, 0) / Math.max(samples.length, 1);
  return {
    count: samples.length,
    p50: round(percentile(samples, 50)),
    p99: round(percentile(samples, 99)),
    max: round(Math.max(...samples)),
    mean: round(mean),
  };
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
