import type { BenchEnv } from '../env.js';
import type { SwfCounters } from '../instrument.js';
import type { MeterTotals } from '../metering/dynamo-meter.js';
import { Progress } from '../progress.js';
import { round, sleep } from '../stats.js';
import { StoreLoop, type StoreRate } from '../store-rate.js';
import { ACTIVITIES_PER_WORKFLOW, runSequence } from '../workload.js';

interface SwfSnapshot {
  readonly calls: ReturnType<SwfCounters['calls']>;
  readonly byAction: SwfCounters['byAction'];
}

export interface ThroughputOptions {
  /** Executions per timed run, at least (a run at a higher level runs six per execution open). */
  readonly workflows: number;
  /** The levels of load the service is run at: executions open at once. */
  readonly inFlight: readonly number[];
  readonly storeRateMs: number;
  /** How long DynamoDB Local is loaded before the reference and the run are measured. */
  readonly warmUpMs: number;
}

/** One timed run at one level of load. */
export interface ThroughputLevel {
  readonly inFlight: number;
  readonly workflows: number;
  readonly elapsedMs: number;
  readonly roundTripsPerSecond: number;
  readonly requestsPerRoundTrip: number;
}

export interface ThroughputResult {
  /** Every level the service was run at; the figures below are the best one's. */
  readonly levels: readonly ThroughputLevel[];
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
  /**
   * The fewest DynamoDB requests per round trip of any level (the service is held to what the
   * store allows at the minimum requests per round trip: requests that more load adds, such as polls
   * that find their queue taken, count against it).
   */
  readonly minimumRequestsPerRoundTrip: number;
  /** Round trips per second the store's request rate allows at the minimum requests per round trip. */
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
  const workload = (inFlight: number, workflows: number) =>
    runSequence(env, {
      workflows,
      inFlight,
      deciderConcurrency: Math.max(8, inFlight / 2),
      activityConcurrency: inFlight,
      activityPollers: Math.max(8, inFlight / 2),
      progress,
      onStart: () => env.resetCounters(),
      // A run ends when its outbox has caught up: work the stream still holds is part of it.
      settle: () => env.service.streamCaughtUp(),
    });
  const lowest = Math.min(...o.inFlight);
  // A short pilot run gives the mix of requests and warms the service up. DynamoDB Local is then
  // loaded for a while (its JVM is still compiling for the first minute or so), so that the runs and
  // the reference are all measured on a warm store. The reference is taken right before the timed
  // runs and right after them, and the better of the two is what the store allows: its JVM is often
  // still getting faster through the runs, and the service cannot be held to less than the store did.
  await workload(lowest, Math.min(lowest, o.workflows));
  const pilot = env.dynamo.meter.snapshot();
  // The reference must have the store to itself: the outbox may still be working through the pilot's
  // last stream records.
  await untilQuiet(env);
  const loop = await StoreLoop.open(env.service.dynamoEndpoint, pilot);
  let store: StoreRate;
  const levels: (ThroughputLevel & { totals: MeterTotals; swf: SwfSnapshot })[] = [];
  try {
    progress.note(`warming DynamoDB Local up (${Math.round(o.warmUpMs / 1000)} s)`);
    const warmUp = await loop.warmUp(2 * lowest, o.warmUpMs, progress);
    progress.note(`measuring DynamoDB Local before the runs, at concurrency ${lowest} and above`);
    const before = await loop.levels(lowest, o.storeRateMs / 2, progress);
    // The service's throughput is its best rate over the levels of load, as the store's is.
    for (const inFlight of o.inFlight) {
      await untilQuiet(env);
      progress.note(`${inFlight} executions at once`);
      // The meter only counts requests during the timed run: sizing every item takes CPU from the
      // service it measures.
      env.dynamo.requestsOnly = true;
      let run: Awaited<ReturnType<typeof workload>>;
      try {
        run = await workload(inFlight, Math.max(o.workflows, 6 * inFlight));
        await untilQuiet(env);
      } finally {
        env.dynamo.requestsOnly = false;
      }
      const totals = env.dynamo.meter.snapshot();
      levels.push({
        inFlight,
        workflows: run.workflows,
        elapsedMs: round(run.elapsedMs, 0),
        roundTripsPerSecond: round((run.roundTrips / run.elapsedMs) * 1000),
        requestsPerRoundTrip: round(dataRequests(totals) / run.roundTrips),
        totals,
        swf: { calls: env.swf.calls(), byAction: env.swf.byAction },
      });
    }
    progress.note('measuring DynamoDB Local after the runs');
    const after = await loop.levels(lowest, o.storeRateMs / 2, progress);
    store = {
      requestsPerSecond: Math.max(before.requestsPerSecond, after.requestsPerSecond),
      itemBytes: loop.itemBytes,
      mix: loop.requestMix,
      warmUp,
      before: { ...before, requestsPerSecond: round(before.requestsPerSecond) },
      after: { ...after, requestsPerSecond: round(after.requestsPerSecond) },
    };
  } finally {
    loop.close();
  }
  const best = levels.reduce((a, b) => (b.roundTripsPerSecond > a.roundTripsPerSecond ? b : a));
  const totals = best.totals;
  const roundTrips = best.workflows * ACTIVITIES_PER_WORKFLOW;
  const apiCalls = best.swf.calls;
  const latencies = best.swf.byAction;
  // A level's DynamoDB requests per round trip, unrounded (its record keeps them rounded).
  const requestsOf = (l: (typeof levels)[number]) =>
    dataRequests(l.totals) / (l.workflows * ACTIVITIES_PER_WORKFLOW);
  const requestsPerRoundTrip = requestsOf(best);
  const roundTripsPerSecond = (roundTrips / best.elapsedMs) * 1000;
  const minimum = Math.min(...levels.map(requestsOf));
  const storeAllows = store.requestsPerSecond / minimum;
  const result: ThroughputResult = {
    levels: levels.map(({ totals: _, swf: __, ...level }) => level),
    workflows: best.workflows,
    inFlight: best.inFlight,
    elapsedMs: best.elapsedMs,
    workflowsPerSecond: round((best.workflows / best.elapsedMs) * 1000),
    roundTripsPerSecond: round(roundTripsPerSecond),
    requestsPerRoundTrip: round(requestsPerRoundTrip),
    requestsPerRoundTripByOperation: perRoundTrip(
      Object.fromEntries(Object.entries(totals.byOperation).map(([op, t]) => [op, t.requests])),
      roundTrips,
    ),
    apiCallsPerRoundTrip: perRoundTrip(
      Object.fromEntries(Object.entries(apiCalls).map(([a, t]) => [a, t.calls])),
      roundTrips,
    ),
    apiLatencyMs: Object.fromEntries(
      Object.entries(latencies).map(([a, t]) => [a, latencySummary(t.latencies)]),
    ),
    store: { ...store, requestsPerSecond: round(store.requestsPerSecond) },
    minimumRequestsPerRoundTrip: round(minimum),
    storeAllowsRoundTripsPerSecond: round(storeAllows),
    shareOfStore: round(roundTripsPerSecond / storeAllows, 3),
  };
  progress.done(
    `best at ${result.inFlight} executions at once: ${result.workflowsPerSecond} workflows/s, ${result.roundTripsPerSecond} round trips/s, ${result.requestsPerRoundTrip} DynamoDB requests per round trip (fewest of any level ${result.minimumRequestsPerRoundTrip}); store ${result.store.requestsPerSecond} req/s → ${Math.round(result.shareOfStore * 100)} %`,
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

/** Waits until the local service has made no DynamoDB request for a second (at most half a minute). */
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
