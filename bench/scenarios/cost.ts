import {
  type CostEstimate,
  estimateCost,
  idlePollerCostPerHour,
  type LambdaSettings,
  type RunUsage,
} from '../../lib/metering/cost-model.js';
import type { OperationTotals } from '../../lib/metering/dynamo-meter.js';
import { US_EAST_1 } from '../../lib/metering/prices.js';
import type { BenchEnv } from '../env.js';
import { Progress } from '../progress.js';
import { round } from '../stats.js';
import { runSequence } from '../workload.js';

/** The deployed functions' settings (infra/constructs/house-function.ts and swf-api.ts defaults). */
export const DEPLOYED_LAMBDA: LambdaSettings = { memoryMb: 1024, arch: 'arm64' };
export const DEPLOYED_POLL_MAX_WAIT_MS = 20_000;

export interface CostResult {
  readonly usage: RunUsage;
  readonly perRoundTrip: {
    readonly dynamoRequests: number;
    readonly readUnits: number;
    readonly writeUnits: number;
    readonly apiCalls: number;
    readonly streamBatches: number;
    readonly deadlines: number;
  };
  readonly dynamoByOperation: Readonly<Record<string, OperationTotals>>;
  readonly httpPolling: CostEstimate;
  readonly lambdaPush: CostEstimate;
  readonly idlePollerPerHour: number;
  readonly swfPerMillion: number;
}

/**
 * A moderate run (executions queued ahead of the workers, so polls find work) whose counted DynamoDB
 * units, API calls, write batches and deadlines are priced per million activity round trips.
 */
export async function runCost(env: BenchEnv, workflows: number): Promise<CostResult> {
  const progress = new Progress('cost');
  const run = await runSequence(env, {
    workflows,
    inFlight: 8,
    deciderConcurrency: 2,
    activityConcurrency: 4,
    activityPollers: 2,
    progress,
    onStart: () => env.resetCounters(),
  });
  const totals = env.dynamo.meter.snapshot();
  const apiCalls = env.swf.calls();
  const usage: RunUsage = {
    roundTrips: run.roundTrips,
    readUnits: totals.readUnits,
    writeUnits: totals.writeUnits,
    streamBatches: env.dynamo.writeBatches,
    outboxDynamoMs: round(env.dynamo.outboxMs, 1),
    apiCalls,
    sqsDeadlines: env.deadlines.sqs,
    scheduledDeadlines: env.deadlines.scheduled,
  };
  const per = (n: number) => round(n / run.roundTrips, 2);
  const httpPolling = rounded(estimateCost(usage, 'http-polling', US_EAST_1, DEPLOYED_LAMBDA));
  const lambdaPush = rounded(estimateCost(usage, 'lambda-push', US_EAST_1, DEPLOYED_LAMBDA));
  const result: CostResult = {
    usage,
    perRoundTrip: {
      dynamoRequests: per(totals.requests),
      readUnits: per(totals.readUnits),
      writeUnits: per(totals.writeUnits),
      apiCalls: per(Object.values(apiCalls).reduce((n, t) => n + t.calls, 0)),
      streamBatches: per(usage.streamBatches),
      deadlines: per(usage.sqsDeadlines + usage.scheduledDeadlines),
    },
    dynamoByOperation: totals.byOperation,
    httpPolling,
    lambdaPush,
    idlePollerPerHour: round(
      idlePollerCostPerHour(DEPLOYED_POLL_MAX_WAIT_MS, US_EAST_1, DEPLOYED_LAMBDA),
      4,
    ),
    swfPerMillion: US_EAST_1.swfTask * 1e6,
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
