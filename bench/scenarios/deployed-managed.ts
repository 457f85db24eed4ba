/**
 * The `deployed` scenario's rows for the API function on Lambda Managed Instances: the same handler
 * in one process serving many invocations at once (test/support/deployed, perContainerConcurrency),
 * with the wake channel. Dispatch with 20 pollers a list waiting in that one process; the idle cost
 * of a waiting poller: what its calls cost (Lambda and front door requests, the leases' writes and
 * the queue's reads, SQS), plus its share of an instance at the stated concurrency.
 */
import type { SWFClient } from '@aws-sdk/client-swf';
import { DEFAULT_PER_ENVIRONMENT_CONCURRENCY } from '../../infra/constructs/api-managed-instances.js';
import { startDeployedApi } from '../../test/support/deployed/deployed-api.js';
import type { BenchEnv } from '../env.js';
import { US_EAST_1 } from '../metering/prices.js';
import { Progress } from '../progress.js';
import { type Distribution, distribution, round } from '../stats.js';
import { type DeployedSizes, deployedApiOptions, dispatchWith, idleWindow } from './deployed.js';

export interface ManagedInstancesResult {
  /** Invocations one execution environment serves at once (the stack's default). */
  readonly perEnvironment: number;
  /** Processes the 20-poller dispatch run used (1: every poll, start and respond in one). */
  readonly environments: number;
  readonly dispatch: Distribution;
  readonly extraTasks: number;
  readonly idle: {
    readonly windowMs: number;
    readonly polls: number;
    /** Dollars an hour of what the poller's calls cost, by item. */
    readonly lines: Readonly<Record<string, number>>;
    /** Its share of an instance: the instance's hour over the polls the instance holds at once. */
    readonly instanceShare: number;
    readonly perHour: number;
  };
  /** The least the instances cost a month (Lambda keeps three, one per zone), and its break-even. */
  readonly fixedMonthly: number;
  /** Always-waiting pollers whose on-demand Lambda time costs as much as the fixed instances. */
  readonly breakEvenPollers: number;
}

/** The instance the model prices, and how many environments (1 vCPU, 2 GiB each) it holds. */
const INSTANCE_HOUR = US_EAST_1.ec2C7gLargeHour * (1 + US_EAST_1.managedInstancesFee);
const ENVIRONMENTS_PER_INSTANCE = 2;
/** Lambda starts three instances, one per Availability Zone, before the function is active. */
const LEAST_INSTANCES = 3;
const HOURS_A_MONTH = 730;

export async function runManagedInstances(
  env: BenchEnv,
  sizes: DeployedSizes,
  client: (endpoint: string) => SWFClient,
  onDemandIdlePerHour: number,
): Promise<ManagedInstancesResult> {
  const perEnvironment = DEFAULT_PER_ENVIRONMENT_CONCURRENCY;
  const api = await startDeployedApi({
    ...deployedApiOptions(env, true),
    perContainerConcurrency: perEnvironment,
  });
  try {
    const at = () => client(api.endpoint);
    const twenty = await dispatchWith(api, at, 20, sizes.dispatchExecutions);
    const environments = api.containers.containers;
    const progress = new Progress('deployed, managed instances: idle, 1 poller');
    const idle = await idleWindow(api, at, sizes.idleMs);
    const { hourly } = idle;
    const invocations = idle.counters.invocations;
    const lines = {
      'Lambda requests': hourly(invocations * US_EAST_1.lambdaRequest),
      'HTTP API requests': hourly(invocations * US_EAST_1.httpApiRequest),
      'DynamoDB reads': hourly(idle.readUnits * US_EAST_1.dynamoReadUnit),
      'DynamoDB writes': hourly(idle.writeUnits * US_EAST_1.dynamoWriteUnit),
      'SQS requests': hourly(idle.sqsRequests * US_EAST_1.sqsRequest),
    };
    const instanceShare = INSTANCE_HOUR / (ENVIRONMENTS_PER_INSTANCE * perEnvironment);
    const marginal = Object.values(lines).reduce((a, b) => a + b, 0);
    const perHour = marginal + instanceShare;
    const fixedMonthly = LEAST_INSTANCES * INSTANCE_HOUR * HOURS_A_MONTH;
    progress.done(`$${round(perHour, 4)} an hour (${idle.polls} polls)`);
    return {
      perEnvironment,
      environments,
      dispatch: distribution(twenty.samples),
      extraTasks: twenty.extra,
      idle: {
        windowMs: Math.round(idle.elapsed),
        polls: idle.polls,
        lines: Object.fromEntries(Object.entries(lines).map(([k, v]) => [k, round(v, 5)])),
        instanceShare: round(instanceShare, 5),
        perHour: round(perHour, 5),
      },
      fixedMonthly: round(fixedMonthly, 2),
      breakEvenPollers: Math.ceil(
        fixedMonthly / ((onDemandIdlePerHour - marginal) * HOURS_A_MONTH),
      ),
    };
  } finally {
    await api.close();
  }
}
