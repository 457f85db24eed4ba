import type { MeterTotals } from '../../lib/metering/dynamo-meter.js';
import type { BenchEnv } from '../env.js';
import { Progress } from '../progress.js';
import { round, sleep } from '../stats.js';
import { StoreLoop, type StoreRate } from '../store-rate.js';
import { runSequence } from '../workload.js';

export interface ThroughputOptions {
  readonly workflows: number;
  readonly inFlight: number;
  readonly storeRateMs: number;
  /** How long DynamoDB Local is loaded before the reference and the run are measured. */
  readonly warmUpMs: number;
}

export interface ThroughputResult {
  readonly workflows: number;
  readonly inFlight: number;
  readonly elapsedMs: number;
  readonly workflowsPerSecond: number;
  readonly roundTripsPerSecond: number;
  /** DynamoDB requests per activity round trip in this run, in total and by operation. */
  readonly requestsPerRoundTrip: number;
  readonly requestsPerRoundTripByOperation: Readonly<Record<string, number>>;
  /** SWF API calls per round trip by action (polls that returned a task only). */
  readonly apiCallsPerRoundTrip: Readonly<Record<string, number>>;
  readonly apiLatencyMs: Readonly<Record<string, { p50: number; p99: number }>>;
  readonly store: StoreRate;
  /** Round trips per second the store's request rate allows at our requests per round trip. */
  readonly storeAllowsRoundTripsPerSecond: number;
  /** Measured round trips per second as a share of that. */
  readonly shareOfStore: number;
}

/** N concurrent executions of the 3-activity workflow, then the store's own rate at that concurrency. */
export async function runThroughput(
  env: BenchEnv,
  o: ThroughputOptions,
): Promise<ThroughputResult> {
  const progress = new Progress('throughput');
  const workload = (workflows: number) =>
    runSequence(env, {
      workflows,
      inFlight: o.inFlight,
      deciderConcurrency: 8,
      activityConcurrency: o.inFlight,
      activityPollers: 8,
      progress,
      onStart: () => env.resetCounters(),
    });
  // A short pilot run gives the mix of requests and warms the service up. DynamoDB Local is then
  // loaded for a while (its JVM is still compiling for the first minute or so), so that the run and
  // the reference are both measured on a warm store. The reference is taken right
  // before the timed run and right after it, and their mean is what the store allows.
  await workload(Math.min(o.inFlight, o.workflows));
  const pilot = env.dynamo.meter.snapshot();
  // The reference must have the store to itself: the outbox may still be working through the pilot's
  // last stream records.
  await untilQuiet(env);
  const loop = await StoreLoop.open(env.stack.dynamoEndpoint, pilot);
  let store: StoreRate;
  let run: Awaited<ReturnType<typeof workload>>;
  let totals: MeterTotals;
  try {
    progress.note(`warming DynamoDB Local up (${Math.round(o.warmUpMs / 1000)} s)`);
    const warmUp = await loop.warmUp(2 * o.inFlight, o.warmUpMs, progress);
    progress.note(
      `measuring DynamoDB Local before the run, at concurrency ${o.inFlight} and above`,
    );
    const before = await loop.levels(o.inFlight, o.storeRateMs / 2, progress);
    await untilQuiet(env);
    // The meter only counts requests during the timed run: sizing every item takes CPU from the
    // service it measures.
    env.dynamo.requestsOnly = true;
    try {
      run = await workload(o.workflows);
      await untilQuiet(env);
    } finally {
      env.dynamo.requestsOnly = false;
    }
    totals = env.dynamo.meter.snapshot();
    progress.note('measuring DynamoDB Local after the run');
    const after = await loop.levels(o.inFlight, o.storeRateMs / 2, progress);
    store = {
      requestsPerSecond: (before.requestsPerSecond + after.requestsPerSecond) / 2,
      itemBytes: loop.itemBytes,
      mix: loop.requestMix,
      warmUp,
      before: { ...before, requestsPerSecond: round(before.requestsPerSecond) },
      after: { ...after, requestsPerSecond: round(after.requestsPerSecond) },
    };
  } finally {
    loop.close();
  }
  const apiCalls = env.swf.calls();
  const latencies = env.swf.byAction;
  const requestsPerRoundTrip = dataRequests(totals) / run.roundTrips;
  const roundTripsPerSecond = (run.roundTrips / run.elapsedMs) * 1000;
  const storeAllows = store.requestsPerSecond / requestsPerRoundTrip;
  const result: ThroughputResult = {
    workflows: run.workflows,
    inFlight: o.inFlight,
    elapsedMs: round(run.elapsedMs, 0),
    workflowsPerSecond: round((run.workflows / run.elapsedMs) * 1000),
    roundTripsPerSecond: round(roundTripsPerSecond),
    requestsPerRoundTrip: round(requestsPerRoundTrip),
    requestsPerRoundTripByOperation: perRoundTrip(
      Object.fromEntries(Object.entries(totals.byOperation).map(([op, t]) => [op, t.requests])),
      run.roundTrips,
    ),
    apiCallsPerRoundTrip: perRoundTrip(
      Object.fromEntries(Object.entries(apiCalls).map(([a, t]) => [a, t.calls])),
      run.roundTrips,
    ),
    apiLatencyMs: Object.fromEntries(
      Object.entries(latencies).map(([a, t]) => [a, latencySummary(t.latencies)]),
    ),
    store: { ...store, requestsPerSecond: round(store.requestsPerSecond) },
    storeAllowsRoundTripsPerSecond: round(storeAllows),
    shareOfStore: round(roundTripsPerSecond / storeAllows, 3),
  };
  progress.done(
    `${result.workflowsPerSecond} workflows/s, ${result.roundTripsPerSecond} round trips/s, ${result.requestsPerRoundTrip} DynamoDB requests per round trip; store ${result.store.requestsPerSecond} req/s → ${Math.round(result.shareOfStore * 100)} %`,
  );
  return result;
}

/** Data-plane requests (control-plane calls such as DescribeTable are not part of a round trip). */
export const dataRequests = (totals: MeterTotals) =>
  Object.entries(totals.byOperation)
    .filter(([op]) => !/Table|Stream/.test(op))
    .reduce((n, [, t]) => n + t.requests, 0);

const perRoundTrip = (counts: Record<string, number>, roundTrips: number) =>
  Object.fromEntries(Object.entries(counts).map(([k, n]) => [k, round(n / roundTrips, 3)]));

function latencySummary(samples: readonly number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) =>
    round(sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0, 1);
  return { p50: at(0.5), p99: at(0.99) };
}

/** Waits until the stack has made no DynamoDB request for a second (at most half a minute). */
async function untilQuiet(env: BenchEnv): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = env.dynamo.meter.snapshot().requests;
  let quietSince = Date.now();
  while (Date.now() < deadline && Date.now() - quietSince < 1_000) {
    await sleep(100);
    const now = env.dynamo.meter.snapshot().requests;
    if (now !== last) {
      last = now;
      quietSince = Date.now();
    }
  }
}
