/**
 * The deployed path's figures: the API function's real handler behind API Gateway's events, each
 * call in a Lambda container that is a process of its own (test/support/deployed), over the bench's
 * table; nothing woken in-process. Polls wait as the stack's defaults have them: on the SQS wake
 * channel, or (BENCH_DEPLOYED_WAKES=off, the stack before it) re-reading their queue each second.
 */
import {
  RespondActivityTaskCompletedCommand,
  RespondDecisionTaskCompletedCommand,
  StartWorkflowExecutionCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { createSwfClient, decide } from '../../lib/sdk/index.js';
import { type DeployedApi, startDeployedApi } from '../../test/support/deployed/deployed-api.js';
import type { ActionTotals } from '../../test/support/deployed/lambda-containers.js';
import { ACTIVITY, type BenchEnv, DOMAIN, uniqueId, WORKFLOW } from '../env.js';
import { swfObserver } from '../instrument.js';
import { US_EAST_1 } from '../metering/prices.js';
import { Progress } from '../progress.js';
import { type Distribution, distribution, round, sleep } from '../stats.js';
import { DEPLOYED_POLL_MAX_WAIT_MS } from './cost.js';
import { type DeployedCompute, deployedCompute } from './deployed-compute.js';
import { type ManagedInstancesResult, runManagedInstances } from './deployed-managed.js';
import {
  activityPoll,
  decisionPoll,
  now,
  Pollers,
  runOneActivityEach,
} from './deployed-pollers.js';

export interface DeployedResult {
  /** Whether polls waited on the wake channel (else they re-read their queue every second). */
  readonly wakes: boolean;
  /** The API function's memory, and the CPU its containers were held to. */
  readonly compute: DeployedCompute;
  readonly dispatch: {
    readonly onePoller: Distribution;
    /**
     * 20 pollers in containers that have served a dispatch run before (see runDeployed): a waiting
     * poller's container serves its polls for as long as Lambda keeps it.
     */
    readonly twentyPollers: Distribution;
    /** The same in fresh containers: each sample one of its container's first few tasks. */
    readonly twentyPollersFresh: Distribution;
    /** Tasks a poll was handed beyond those scheduled (a task handed out twice): must be 0. */
    readonly extraTasks: number;
  };
  readonly idle: IdleCost;
  readonly herd: HerdResult;
  /** The 1-poller dispatch run priced: what a deployed poller's round trip costs, API side. */
  readonly polling: PollingCost;
  /** The same API function on Lambda Managed Instances: many invocations in one process. */
  readonly managedInstances: ManagedInstancesResult;
}

export interface IdleCost {
  readonly windowMs: number;
  readonly polls: number;
  readonly billedMs: number;
  readonly readUnits: number;
  readonly sqsRequests: number;
  /** Dollars an hour, by item, and in all. */
  readonly lines: Readonly<Record<string, number>>;
  readonly perHour: number;
}

export interface HerdResult {
  readonly pollers: number;
  readonly tasks: number;
  /** Reads of runs' state items by the activity polls, and their conditional writes that lost. */
  readonly stateReads: number;
  readonly lostWrites: number;
  /** Claims that did not give the poll its task, per task handed out: (reads − tasks) / tasks. */
  readonly lostClaimsPerTask: number;
  /** Worker calls that failed (a poll past the function's deadline under the load). */
  readonly failedCalls: number;
}

export interface PollingCost {
  readonly roundTrips: number;
  readonly byAction: Readonly<Record<string, ActionTotals>>;
  readonly sqsRequests: number;
  /** Dollars per million activity round trips, behind API Gateway and behind a function URL. */
  readonly httpApi: number;
  readonly functionUrl: number;
}

export interface DeployedSizes {
  readonly dispatchExecutions: number;
  readonly idleMs: number;
  readonly herdBatches: number;
}

/** Time for a poll that has just been answered to be back and waiting. */
const POLL_SETTLE_MS = 50;
const DEPLOYED_POLLING = { maxWaitMs: DEPLOYED_POLL_MAX_WAIT_MS, recheckMs: 1_000 };

export async function runDeployed(
  env: BenchEnv,
  sizes: DeployedSizes,
  apiMemoryMb: number,
): Promise<DeployedResult> {
  const wakes = process.env.BENCH_DEPLOYED_WAKES !== 'off';
  const compute = deployedCompute(apiMemoryMb);
  const api = await startDeployedApi({
    ...deployedApiOptions(env, wakes),
    ...(compute.cpuShare === undefined ? {} : { cpuShare: compute.cpuShare }),
  });
  const clients: SWFClient[] = [];
  const client = (endpoint = api.endpoint) => {
    const c = createSwfClient({
      endpoint,
      maxAttempts: 1,
      maxSockets: 4,
      observe: swfObserver(env.swf),
    });
    clients.push(c);
    return c;
  };
  try {
    const one = await dispatchWith(api, client, 1, sizes.dispatchExecutions);
    const polling = pollingCost(one.roundTrips, one.totals, compute);
    // 42 fresh containers serve 120 tasks: nearly every sample is one of its container's first
    // tasks, whose code V8 compiles as it first runs (150 to 500 ms of CPU at first, 12 to 17 ms
    // a poll once warm). Deployed, a poller's container keeps serving its polls for hours, so the
    // target is held on the same containers' second run; the first is reported beside it.
    const fresh = await dispatchWith(api, client, 20, sizes.dispatchExecutions);
    const twenty = await dispatchWith(api, client, 20, sizes.dispatchExecutions);
    const idle = await runIdle(api, client, sizes.idleMs, compute);
    const herd = await runHerd(api, client, 100, sizes.herdBatches);
    const managedInstances = await runManagedInstances(env, sizes, client, idle.perHour);
    return {
      wakes,
      compute,
      dispatch: {
        onePoller: distribution(one.samples),
        twentyPollers: distribution(twenty.samples),
        twentyPollersFresh: distribution(fresh.samples),
        extraTasks: one.extra + fresh.extra + twenty.extra,
      },
      idle,
      herd,
      polling,
      managedInstances,
    };
  } finally {
    for (const c of clients) c.destroy();
    await api.close();
  }
}

/**
 * `pollers` pollers waiting on a decision list and as many on an activity list; each execution is a
 * decision task, an activity task and a decision task, each scheduled while they wait, one at a time.
 * A sample: from the scheduling call's answer to a waiting poller holding the task.
 */
export async function dispatchWith(
  api: DeployedApi,
  client: () => SWFClient,
  pollers: number,
  executions: number,
) {
  const progress = new Progress(`deployed: dispatch, ${pollers} poller(s) waiting`);
  await api.containers.warm(2 * pollers + 2);
  const decisionList = uniqueId('deployed-d');
  const activityList = uniqueId('deployed-a');
  const deciders = new Pollers(pollers, decisionPoll(decisionList), client);
  const workers = new Pollers(pollers, activityPoll(activityList), client);
  const caller = client();
  const samples: number[] = [];
  const timed = async (waiting: Pollers, schedule: () => Promise<unknown>) => {
    await sleep(POLL_SETTLE_MS);
    const task = waiting.next();
    await schedule();
    const answered = now();
    const { poll, at } = await task;
    samples.push(Math.max(0, at - answered));
    return poll;
  };
  await sleep(1_000);
  api.containers.resetCounters();
  api.sqs?.resetCounters();
  for (let i = 0; i < executions; i++) {
    const start = new StartWorkflowExecutionCommand({
      domain: DOMAIN,
      workflowId: uniqueId('deployed'),
      workflowType: WORKFLOW,
      taskList: { name: decisionList },
    });
    const first = await timed(deciders, () => caller.send(start));
    const schedule = decide.scheduleActivityTask({
      activityId: 'a',
      activityType: ACTIVITY,
      taskList: { name: activityList },
    });
    const respond = new RespondDecisionTaskCompletedCommand({
      taskToken: first.taskToken,
      decisions: [schedule],
    });
    const activity = await timed(workers, () => caller.send(respond));
    const complete = new RespondActivityTaskCompletedCommand({ taskToken: activity.taskToken });
    const second = await timed(deciders, () => caller.send(complete));
    await caller.send(
      new RespondDecisionTaskCompletedCommand({
        taskToken: second.taskToken,
        decisions: [decide.completeWorkflowExecution()],
      }),
    );
    progress.update(i + 1, executions, 'executions');
  }
  // What the round trips cost: polls still out are billed up to now, as they are held up to now.
  const totals = {
    byAction: structuredClone(api.containers.counters.byAction),
    sqsRequests: api.sqs?.requestCount ?? 0,
  };
  progress.note('waiting for the pollers’ last polls to end');
  await Promise.all([deciders.stop(), workers.stop()]);
  const d = distribution(samples);
  progress.done(`p50 ${d.p50} ms, p99 ${d.p99} ms (n=${d.count})`);
  return { samples, extra: deciders.extra + workers.extra, roundTrips: executions, totals };
}

/**
 * The deployed API function over the bench's table, as the stack's defaults have it (its CPU share
 * is added by the scenario that runs on Lambda's default compute).
 */
export const deployedApiOptions = (env: BenchEnv, wakes: boolean) => ({
  dynamoEndpoint: env.service.dynamoEndpoint,
  tableName: env.service.tableName,
  polling: DEPLOYED_POLLING,
  wakes,
});

/** One poller polling an empty list for `windowMs`: the calls it made and what they did. */
export async function idleWindow(api: DeployedApi, client: () => SWFClient, windowMs: number) {
  await api.containers.warm(1);
  api.containers.resetCounters();
  api.sqs?.resetCounters();
  const taskList = uniqueId('deployed-idle');
  const poller = client();
  const began = now();
  let polls = 0;
  while (now() - began < windowMs) {
    await activityPoll(taskList)(poller);
    polls += 1;
  }
  const elapsed = now() - began;
  const c = api.containers.counters;
  const units = (f: (t: ActionTotals) => number) =>
    Object.values(c.byAction).reduce((n, t) => n + f(t), 0);
  return {
    elapsed,
    polls,
    counters: c,
    readUnits: units((t) => t.readUnits),
    writeUnits: units((t) => t.writeUnits),
    sqsRequests: api.sqs?.requestCount ?? 0,
    hourly: (n: number) => (n * 3_600_000) / elapsed,
  };
}

/** One poller waiting on an empty list for `windowMs`: all it costs, per hour. */
async function runIdle(
  api: DeployedApi,
  client: () => SWFClient,
  windowMs: number,
  compute: DeployedCompute,
): Promise<IdleCost> {
  const progress = new Progress('deployed: idle, 1 poller');
  const {
    elapsed,
    polls,
    counters: c,
    readUnits,
    sqsRequests,
    hourly,
  } = await idleWindow(api, client, windowMs);
  const lines = {
    'Lambda GB-s': hourly(c.billedMs * compute.dollarsPerMs),
    'Lambda requests': hourly(c.invocations * US_EAST_1.lambdaRequest),
    'HTTP API requests': hourly(c.invocations * US_EAST_1.httpApiRequest),
    'DynamoDB reads': hourly(readUnits * US_EAST_1.dynamoReadUnit),
    'SQS requests': hourly(sqsRequests * US_EAST_1.sqsRequest),
  };
  const perHour = Object.values(lines).reduce((a, b) => a + b, 0);
  progress.done(`$${round(perHour, 4)} an hour (${polls} polls)`);
  return {
    windowMs: Math.round(elapsed),
    polls,
    billedMs: c.billedMs,
    readUnits: round(readUnits, 1),
    sqsRequests,
    lines: Object.fromEntries(Object.entries(lines).map(([k, v]) => [k, round(v, 5)])),
    perHour: round(perHour, 5),
  };
}

/**
 * `pollers` activity pollers waiting on one list; batches of ten executions each schedule one
 * activity there (tasks of different runs: a run's tasks claimed at once contend for its state item
 * whoever claims them), which they take, complete and poll again.
 */
async function runHerd(
  api: DeployedApi,
  client: () => SWFClient,
  pollers: number,
  batches: number,
): Promise<HerdResult> {
  const progress = new Progress(`deployed: ${pollers} pollers on one list`);
  await api.containers.warm(pollers + 4);
  const decisionList = uniqueId('herd-d');
  const activityList = uniqueId('herd-a');
  let done = 0;
  let failed = 0;
  let stopped = false;
  const work = Array.from({ length: pollers }, async () => {
    const worker = client();
    while (!stopped) {
      // A call the overloaded store made fail (a poll past the function's deadline) is counted;
      // its task, if it had one, times out and is scheduled again by the decider's next decision.
      try {
        const task = await activityPoll(activityList)(worker);
        if (!task.taskToken) continue;
        done += 1;
        await worker.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken }));
      } catch {
        failed += 1;
      }
    }
  });
  await sleep(3_000);
  api.containers.resetCounters();
  done = 0;
  const decider = client();
  for (let i = 0; i < batches; i++) {
    await runOneActivityEach(decider, 10, decisionList, activityList);
    progress.update(i + 1, batches, 'batches of 10 executions');
  }
  const polls = api.containers.counters.byAction.PollForActivityTask;
  const tasks = done;
  stopped = true;
  progress.note('waiting for the pollers’ last polls to end');
  await Promise.all(work);
  const stateReads = polls?.stateReads ?? 0;
  const lost = (stateReads - tasks) / Math.max(tasks, 1);
  progress.done(`${round(lost)} lost claims per task (${tasks} tasks)`);
  return {
    pollers,
    tasks,
    stateReads,
    lostWrites: polls?.lostStateWrites ?? 0,
    lostClaimsPerTask: round(lost),
    failedCalls: failed,
  };
}

/** A run's calls priced per million round trips: front door, API Lambda, DynamoDB, wake SQS. */
function pollingCost(
  roundTrips: number,
  totals: { byAction: Record<string, ActionTotals>; sqsRequests: number },
  compute: DeployedCompute,
): PollingCost {
  const all = Object.values(totals.byAction);
  const sum = (f: (t: ActionTotals) => number) => all.reduce((n, t) => n + f(t), 0);
  const calls = sum((t) => t.calls);
  const functionOnly =
    calls * US_EAST_1.lambdaRequest +
    sum((t) => t.billedMs) * compute.dollarsPerMs +
    sum((t) => t.readUnits) * US_EAST_1.dynamoReadUnit +
    sum((t) => t.writeUnits) * US_EAST_1.dynamoWriteUnit +
    totals.sqsRequests * US_EAST_1.sqsRequest;
  const perMillion = (dollars: number) => round((dollars / roundTrips) * 1e6);
  return {
    roundTrips,
    byAction: totals.byAction,
    sqsRequests: totals.sqsRequests,
    httpApi: perMillion(functionOnly + calls * US_EAST_1.httpApiRequest),
    functionUrl: perMillion(functionOnly),
  };
}
