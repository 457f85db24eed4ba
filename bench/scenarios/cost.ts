import type { BenchEnv } from '../env.js';
import { nominalMsOf } from '../instrument.js';
import {
  AWS_REQUEST_MS,
  apiMemoryMb,
  type CostEstimate,
  type CostMode,
  cpuScale,
  estimateCost,
  type FrontDoor,
  idlePollerCostPerHour,
  type LambdaSettings,
  type RunUsage,
  wakeRequestCount,
} from '../metering/cost-model.js';
import type { OperationTotals } from '../metering/dynamo-meter.js';
import { US_EAST_1 } from '../metering/prices.js';
import { Progress } from '../progress.js';
import { round } from '../stats.js';
import { runSequence } from '../workload.js';

/** The deployed functions' settings (infra/constructs/swf-outbox.ts and swf-api.ts). */
export const DEPLOYED_LAMBDA: LambdaSettings = { memoryMb: 512, apiMemoryMb: 512, arch: 'arm64' };
export const DEPLOYED_POLL_MAX_WAIT_MS = 20_000;

/**
 * Per API invocation beyond DynamoDB, at 1,024 MB (see cpuScale): the runtime, parsing, validation,
 * signing a token, replay, signing and parsing its DynamoDB requests. This process spends at most
 * about 1.3 ms of one core per SWF call on the service's side, its outbox included (CPU profile of the
 * throughput run), 2.2 ms at 1,024 MB's share of a core.
 */
export const API_OVERHEAD_MS = 3;

const nominalMs = (requests: Readonly<Record<string, number>>) =>
  Object.entries(requests).reduce((ms, [op, n]) => ms + n * nominalMsOf(op), 0);

export interface CostResult {
  readonly usage: RunUsage;
  readonly perRoundTrip: {
    readonly dynamoRequests: number;
    readonly readUnits: number;
    readonly writeUnits: number;
    readonly apiCalls: number;
    readonly streamBatches: number;
    readonly deadlines: number;
    /** SQS requests of the wake channel (sends, receives, deletes, queue lookups). */
    readonly wakeRequests: number;
  };
  /** The same workload with both task lists served by functions (Lambda push mode, measured). */
  readonly pushRun: {
    readonly usage: RunUsage;
    readonly perRoundTrip: CostResult['perRoundTrip'];
    readonly pushedTasks: number;
    readonly writeUnitsPerRoundTripByKind: CostResult['writeUnitsPerRoundTripByKind'];
    /** DynamoDB requests of the push run by origin (API calls, outbox) and operation. */
    readonly requestsByOrigin: unknown;
  };
  readonly dynamoByOperation: Readonly<Record<string, OperationTotals>>;
  /** Write units per round trip by kind of item written (Run state, History, queue entries …). */
  readonly writeUnitsPerRoundTripByKind: Readonly<
    Record<string, { items: number; writeUnits: number }>
  >;
  readonly httpPolling: CostEstimate;
  /** Priced from the push run. */
  readonly lambdaPush: CostEstimate;
  /** The same behind the API function's own URL instead of API Gateway (a deploy option). */
  readonly functionUrl: { readonly httpPolling: CostEstimate; readonly lambdaPush: CostEstimate };
  readonly idlePollerPerHour: number;
  /** What this machine measured: SWF call latencies and DynamoDB time by origin (not priced). */
  readonly measured: {
    readonly apiCalls: Readonly<Record<string, { calls: number; billedMs: number }>>;
    readonly apiDynamoMs: number;
    readonly outboxDynamoMs: number;
    readonly requestsByOrigin: unknown;
  };
  /** The meter against DynamoDB Local's ReturnConsumedCapacity, and the first disagreements. */
  readonly meterCheck: {
    readonly byOperation: Readonly<Record<string, { metered: number; reported: number }>>;
    readonly samples: readonly unknown[];
  };
  readonly swfPerMillion: number;
}

/**
 * A moderate run (executions queued ahead of the workers, so polls find work) whose counted DynamoDB
 * units, API calls, write batches and deadlines are priced per million activity round trips.
 */
export async function runCost(env: BenchEnv, workflows: number): Promise<CostResult> {
  const progress = new Progress('cost');
  const sequence = {
    workflows,
    inFlight: 8,
    deciderConcurrency: 2,
    activityConcurrency: 4,
    activityPollers: 2,
    onStart: () => env.resetCounters(),
    // The outbox's work for the run (visibility at close, disarms) belongs to it, not to the next.
    settle: () => env.service.streamCaughtUp(),
  };
  // The same workload with both task lists served by functions: Lambda push mode, measured.
  const pushed = await runSequence(env, {
    ...sequence,
    push: true,
    progress: new Progress('cost (push)'),
  });
  const pushUsage: RunUsage = {
    ...usageOf(env, pushed.roundTrips),
    pushedTasks: env.pushes.count,
    outboxPushes: env.pushes.byOutbox,
    directCalls: env.swf.directCalls,
  };
  const pushTotals = env.dynamo.meter.snapshot();
  const pushByKind = byKind(env, pushed.roundTrips);
  const pushRequests = structuredClone(env.dynamo.byOrigin);
  const run = await runSequence(env, { ...sequence, progress });
  const totals = env.dynamo.meter.snapshot();
  const measuredCalls = env.swf.calls();
  const usage = usageOf(env, run.roundTrips);
  const estimate = (mode: CostMode, front: FrontDoor) =>
    rounded(
      estimateCost(
        mode === 'lambda-push' ? pushUsage : usage,
        mode,
        US_EAST_1,
        DEPLOYED_LAMBDA,
        front,
      ),
    );
  const httpPolling = estimate('http-polling', 'http-api');
  const lambdaPush = estimate('lambda-push', 'http-api');
  const result: CostResult = {
    usage,
    perRoundTrip: perRoundTripOf(totals, usage),
    pushRun: {
      usage: pushUsage,
      perRoundTrip: perRoundTripOf(pushTotals, pushUsage),
      pushedTasks: round((pushUsage.pushedTasks ?? 0) / pushed.roundTrips, 2),
      writeUnitsPerRoundTripByKind: pushByKind,
      requestsByOrigin: pushRequests,
    },
    dynamoByOperation: totals.byOperation,
    writeUnitsPerRoundTripByKind: byKind(env, run.roundTrips),
    httpPolling,
    lambdaPush,
    functionUrl: {
      httpPolling: estimate('http-polling', 'function-url'),
      lambdaPush: estimate('lambda-push', 'function-url'),
    },
    idlePollerPerHour: round(
      idlePollerCostPerHour(DEPLOYED_POLL_MAX_WAIT_MS, US_EAST_1, DEPLOYED_LAMBDA),
      4,
    ),
    swfPerMillion: US_EAST_1.swfTask * 1e6,
    measured: {
      apiCalls: measuredCalls,
      apiDynamoMs: round(env.dynamo.apiMs, 0),
      outboxDynamoMs: round(env.dynamo.outboxMs, 0),
      requestsByOrigin: env.dynamo.byOrigin,
    },
    meterCheck: {
      byOperation: Object.fromEntries(
        Object.entries(totals.byOperation).map(([op, t]) => [
          op,
          { metered: t.meteredUnitsOfReported, reported: t.reportedUnits },
        ]),
      ),
      samples: env.dynamo.mismatches,
    },
  };
  progress.done(
    `$${httpPolling.perMillion} per million round trips via HTTP polling, $${lambdaPush.perMillion} in Lambda push mode (SWF $25)`,
  );
  return result;
}

const rounded = (e: CostEstimate): CostEstimate => ({
  ...e,
  perMillion: round(e.perMillion),
  lines: e.lines.map((l) => ({ ...l, perMillion: round(l.perMillion, 3) })),
});

/** A run's counts per round trip: the meter's DynamoDB totals, and the usage it was priced on. */
function perRoundTripOf(
  totals: { readonly requests: number; readonly readUnits: number; readonly writeUnits: number },
  usage: RunUsage,
): CostResult['perRoundTrip'] {
  const per = (n: number) => round(n / usage.roundTrips, 2);
  return {
    dynamoRequests: per(totals.requests),
    readUnits: per(totals.readUnits),
    writeUnits: per(totals.writeUnits),
    apiCalls: per(callsIn(usage)),
    streamBatches: per(usage.streamBatches),
    deadlines: per(usage.sqsDeadlines + usage.scheduledDeadlines),
    wakeRequests: per(wakeRequestCount(usage)),
  };
}

/** Write units per round trip by kind of item written, since the counters were reset. */
const byKind = (env: BenchEnv, roundTrips: number) =>
  Object.fromEntries(
    Object.entries(env.dynamo.meter.writeUnitsByKind()).map(([k, v]) => [
      k,
      { items: round(v.items / roundTrips, 2), writeUnits: round(v.writeUnits / roundTrips, 2) },
    ]),
  );

const callsIn = (usage: RunUsage) => Object.values(usage.apiCalls).reduce((n, t) => n + t.calls, 0);

/**
 * What the run since the counters were reset used. API Lambda time: the API side's DynamoDB requests at
 * nominal latency plus a per-call overhead, spread over the calls (so that a price from a polling run
 * can take the polls' share out of the API function).
 */
function usageOf(env: BenchEnv, roundTrips: number): RunUsage {
  const totals = env.dynamo.meter.snapshot();
  const measuredCalls = env.swf.calls();
  const callCount = Object.values(measuredCalls).reduce((n, t) => n + t.calls, 0);
  // The API function also waits on the Invoke of each task its commits pushed, and on the wake
  // channel's requests but the polls' ReceiveMessage (a poll waiting for work, billed as idle is:
  // not here). The few wakes the outbox's commits send are counted here too.
  const wakeRequests = { ...env.sqs?.requests };
  const wakeWaits = Object.entries(wakeRequests)
    .filter(([action]) => action !== 'ReceiveMessage')
    .reduce((n, [, count]) => n + count, 0);
  const apiMs =
    env.dynamo.apiNominalMs +
    callCount * API_OVERHEAD_MS * cpuScale(apiMemoryMb(DEPLOYED_LAMBDA)) +
    (env.pushes.count - env.pushes.byOutbox + wakeWaits) * AWS_REQUEST_MS;
  const apiCalls = Object.fromEntries(
    Object.entries(measuredCalls).map(([action, t]) => [
      action,
      { calls: t.calls, billedMs: round((apiMs * t.calls) / Math.max(callCount, 1), 1) },
    ]),
  );
  // A deadline that fires after the run (its run closed first) still reaches the timer function,
  // which reads the run (a strongly consistent GetItem of its state: one unit) and finds nothing due.
  const unseenFires = env.deadlines.unseen();
  return {
    roundTrips,
    readUnits: totals.readUnits + unseenFires,
    writeUnits: totals.writeUnits,
    streamBatches: env.dynamo.writeBatches,
    outboxDynamoMs: nominalMs(env.dynamo.byOrigin.outbox) + unseenFires * nominalMsOf('GetItem'),
    apiCalls,
    sqsDeadlines: env.deadlines.sqs,
    scheduledDeadlines: env.deadlines.scheduled,
    disarmedDeadlines: env.deadlines.disarmed,
    deadlineRequests: env.deadlines.requests,
    wakeRequests,
  };
}
