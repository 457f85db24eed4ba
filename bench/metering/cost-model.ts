import type { PriceList } from './prices.js';

/** What one measured run used: counted by the bench's hooks on the local service. */
export interface RunUsage {
  /** Activity round trips completed (schedule → poll → respond → decision). */
  readonly roundTrips: number;
  /** DynamoDB request units charged by the meter. */
  readonly readUnits: number;
  readonly writeUnits: number;
  /** Write requests that changed items, each of which emits stream records (one batch each, at most). */
  readonly streamBatches: number;
  /** Milliseconds of DynamoDB requests made by the outbox (stream consumer and timer fires). */
  readonly outboxDynamoMs: number;
  /** SWF API calls by action, and their summed latency in ms (each rounded up to 1 ms). */
  readonly apiCalls: Readonly<Record<string, { calls: number; billedMs: number }>>;
  /**
   * Of those, the calls that reached the API function by Lambda Invoke (workers of push task lists,
   * calling the function their events name): no front door request.
   */
  readonly directCalls?: number;
  /** Deadlines armed: within 15 minutes (SQS delay) or later (an EventBridge schedule, then SQS). */
  readonly sqsDeadlines: number;
  readonly scheduledDeadlines: number;
  /** Schedules deleted before they fired (a run that closed first): never invoked, never charged. */
  readonly disarmedDeadlines: number;
  /** SQS SendMessage, Scheduler CreateSchedule and DeleteSchedule requests the outbox made. */
  readonly deadlineRequests: number;
  /**
   * Tasks handed to the functions of push task lists (one asynchronous invocation each), by whichever
   * function committed the change that scheduled them: the API function (whose `apiCalls` time then
   * includes the wait on the Invoke), or the stream or timer function (`outboxPushes` of them).
   */
  readonly pushedTasks?: number;
  readonly outboxPushes?: number;
  /**
   * Requests of the wake channel (SQS) by action: the committers' SendMessageBatch (one per ten
   * tasks of a list), the polls' ReceiveMessage and DeleteMessage, the queues' CreateQueue and
   * GetQueueUrl. None without the channel.
   */
  readonly wakeRequests?: Readonly<Record<string, number>>;
}

/** All the wake channel's requests of a run. */
export const wakeRequestCount = (usage: RunUsage): number =>
  Object.values(usage.wakeRequests ?? {}).reduce((n, c) => n + c, 0);

export interface LambdaSettings {
  /** The outbox's functions (stream, timer). */
  readonly memoryMb: number;
  /** The API function (default: memoryMb). */
  readonly apiMemoryMb?: number;
  readonly arch: 'arm64' | 'x86_64';
}

/** The API function's memory. */
export const apiMemoryMb = (lambda: LambdaSettings) => lambda.apiMemoryMb ?? lambda.memoryMb;

/** Memory at which Lambda gives a function one full vCPU; below it, CPU in proportion to memory. */
export const FULL_VCPU_MB = 1_769;

/**
 * How long CPU work measured at 1,024 MB takes at `memoryMb` (one thread: no faster beyond one vCPU).
 * Waiting on DynamoDB takes as long at any size.
 */
export const cpuScale = (memoryMb: number) => 1_024 / Math.min(memoryMb, FULL_VCPU_MB);

/** The share of one vCPU a function of `memoryMb` gets (one thread's worth at most). */
export const vcpuShare = (memoryMb: number) => Math.min(memoryMb, FULL_VCPU_MB) / FULL_VCPU_MB;

/** Dollars per GB-second of Lambda time for the functions' architecture. */
export const gbSecondPrice = (prices: PriceList, lambda: LambdaSettings) =>
  lambda.arch === 'arm64' ? prices.lambdaArmGbSecond : prices.lambdaX86GbSecond;

export type CostMode = 'http-polling' | 'lambda-push';
/**
 * What clients call the API function through: API Gateway's HTTP API (the default front door, $1 per
 * million requests), or the function's own URL (no charge beyond the function's).
 */
export type FrontDoor = 'http-api' | 'function-url';

export interface CostLine {
  readonly item: string;
  /** Dollars per million activity round trips. */
  readonly perMillion: number;
}

export interface CostEstimate {
  readonly mode: CostMode;
  readonly front: FrontDoor;
  readonly lines: readonly CostLine[];
  readonly perMillion: number;
}

export const POLL_ACTIONS = ['PollForDecisionTask', 'PollForActivityTask'] as const;
/** SQS requests per deadline: SendMessage, then the Lambda event source's ReceiveMessage and DeleteMessage. */
export const SQS_REQUESTS_PER_FIRE = 3;
/**
 * Milliseconds of Lambda time per stream or timer invocation beyond its DynamoDB requests (runtime,
 * decoding, logic), at 1,024 MB (see cpuScale).
 */
export const INVOCATION_OVERHEAD_MS = 2;
/**
 * Milliseconds a function waits for one request to another AWS service: SendMessage, CreateSchedule
 * or DeleteSchedule for a deadline, or the asynchronous Invoke of a pushed task.
 */
export const AWS_REQUEST_MS = 10;

/**
 * Dollars per million activity round trips for one deployment mode.
 *
 * - HTTP polling: every SWF call the workers made is one HTTP API request and one API Lambda invocation
 *   billed for the call's measured duration (long polls included); the stream consumer runs once per
 *   write batch for its DynamoDB time; each deadline is an SQS message (plus a schedule past 15 min)
 *   and a timer Lambda invocation.
 * - Lambda push, of a run whose task lists were push task lists (`pushedTasks`): each task was started
 *   in the commit that scheduled it and its function invoked once by the committer (mostly the API
 *   function, whose measured time includes that; the outbox's functions wait on theirs here);
 *   responses and heartbeats come back by Invoke of the API function the event names
 *   (`directCalls`), not through the front door. Priced from a polling run instead, each
 *   poll becomes such an invocation, its service time the stream function's.
 * - Behind a function URL, the calls that would go through the HTTP API cost the API function only.
 */
export function estimateCost(
  usage: RunUsage,
  mode: CostMode,
  prices: PriceList,
  lambda: LambdaSettings,
  front: FrontDoor = 'http-api',
): CostEstimate {
  const perRoundTrip = (dollars: number) => (dollars / Math.max(usage.roundTrips, 1)) * 1e6;
  const gbSecond = gbSecondPrice(prices, lambda);
  const gb = lambda.memoryMb / 1024;
  const apiGb = apiMemoryMb(lambda) / 1024;
  const isPoll = (action: string) => (POLL_ACTIONS as readonly string[]).includes(action);
  let apiRequests = 0;
  let apiMs = 0;
  let polls = 0;
  let pollMs = 0;
  for (const [action, { calls, billedMs }] of Object.entries(usage.apiCalls)) {
    if (isPoll(action)) {
      polls += calls;
      pollMs += billedMs;
    } else {
      apiRequests += calls;
      apiMs += billedMs;
    }
  }
  if (mode === 'http-polling') {
    apiRequests += polls;
    apiMs += pollMs;
  }
  // A deadline past 15 minutes fires twice: the schedule a minute early, then the SQS remainder. A
  // schedule deleted before its time (the run closed first) is never invoked.
  const invokedSchedules = Math.max(0, usage.scheduledDeadlines - usage.disarmedDeadlines);
  const fires = usage.sqsDeadlines + 2 * invokedSchedules;
  const streamMs =
    usage.outboxDynamoMs +
    (usage.streamBatches + fires) * INVOCATION_OVERHEAD_MS * cpuScale(lambda.memoryMb) +
    (usage.deadlineRequests + (usage.outboxPushes ?? 0)) * AWS_REQUEST_MS;
  const pushMs = mode === 'lambda-push' ? pollMs : 0;
  const pushInvocations = mode === 'lambda-push' ? polls + (usage.pushedTasks ?? 0) : 0;
  const lines: CostLine[] = [
    {
      item: 'DynamoDB write units',
      perMillion: perRoundTrip(usage.writeUnits * prices.dynamoWriteUnit),
    },
    {
      item: 'DynamoDB read units',
      perMillion: perRoundTrip(usage.readUnits * prices.dynamoReadUnit),
    },
    {
      item: 'HTTP API requests',
      perMillion:
        front === 'http-api'
          ? perRoundTrip((apiRequests - (usage.directCalls ?? 0)) * prices.httpApiRequest)
          : 0,
    },
    {
      item: 'API Lambda (requests + GB-s)',
      perMillion: perRoundTrip(
        apiRequests * prices.lambdaRequest + (apiGb * apiMs * gbSecond) / 1000,
      ),
    },
    {
      item: 'stream/timer Lambda (requests + GB-s)',
      perMillion: perRoundTrip(
        (usage.streamBatches + fires) * prices.lambdaRequest +
          (gb * (streamMs + pushMs) * gbSecond) / 1000,
      ),
    },
    {
      item: 'worker push invocations',
      perMillion: perRoundTrip(pushInvocations * prices.lambdaRequest),
    },
    {
      item: 'SQS requests',
      perMillion: perRoundTrip(fires * SQS_REQUESTS_PER_FIRE * prices.sqsRequest),
    },
    {
      item: 'SQS wake channel requests',
      perMillion: perRoundTrip(wakeRequestCount(usage) * prices.sqsRequest),
    },
    {
      item: 'EventBridge Scheduler',
      perMillion: perRoundTrip(invokedSchedules * prices.schedulerInvocation),
    },
  ];
  return {
    mode,
    front,
    lines,
    perMillion: lines.reduce((sum, line) => sum + line.perMillion, 0),
  };
}

/** What an idle HTTP poller costs per hour on Lambda: one empty long poll after another. */
export function idlePollerCostPerHour(
  pollMaxWaitMs: number,
  prices: PriceList,
  lambda: LambdaSettings,
): number {
  const gbSecond = gbSecondPrice(prices, lambda);
  const polls = 3_600_000 / pollMaxWaitMs;
  const perPoll =
    prices.httpApiRequest +
    prices.lambdaRequest +
    (apiMemoryMb(lambda) / 1024) * (pollMaxWaitMs / 1000) * gbSecond;
  return polls * perPoll;
}
