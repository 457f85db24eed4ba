import { describe, expect, it } from 'vitest';
import {
  cpuScale,
  estimateCost,
  idlePollerCostPerHour,
  type RunUsage,
} from '../../../bench/metering/cost-model.js';
import { US_EAST_1 } from '../../../bench/metering/prices.js';

const lambda = { memoryMb: 1024, arch: 'arm64' } as const;
const none: RunUsage = {
  roundTrips: 1_000_000,
  readUnits: 0,
  writeUnits: 0,
  streamBatches: 0,
  outboxDynamoMs: 0,
  apiCalls: {},
  sqsDeadlines: 0,
  scheduledDeadlines: 0,
  disarmedDeadlines: 0,
  deadlineRequests: 0,
};
/** A million polls that got a task and a million responses, 10 ms each. */
const pollAndResponse = {
  ...none,
  apiCalls: {
    PollForActivityTask: { calls: 1_000_000, billedMs: 10_000_000 },
    RespondActivityTaskCompleted: { calls: 1_000_000, billedMs: 10_000_000 },
  },
};
const line = (estimate: ReturnType<typeof estimateCost>, item: string) =>
  estimate.lines.find((l) => l.item === item)?.perMillion;

describe('estimateCost', () => {
  it('prices request units per million round trips', () => {
    const usage = { ...none, writeUnits: 10_000_000, readUnits: 4_000_000 };
    const cost = estimateCost(usage, 'http-polling', US_EAST_1, lambda);
    expect(line(cost, 'DynamoDB write units')).toBeCloseTo(6.25);
    expect(line(cost, 'DynamoDB read units')).toBeCloseTo(0.5);
    expect(cost.perMillion).toBeCloseTo(6.75);
  });

  it('bills every call, polls included, through the HTTP API when polling', () => {
    const usage = pollAndResponse;
    const cost = estimateCost(usage, 'http-polling', US_EAST_1, lambda);
    expect(line(cost, 'HTTP API requests')).toBeCloseTo(2);
    // 2 M invocations at $0.20/M plus 20,000 GB-s at the Arm price.
    expect(line(cost, 'API Lambda (requests + GB-s)')).toBeCloseTo(0.4 + 20_000 * 0.0000133334);
  });

  it('drops polls from the HTTP API in push mode and invokes the worker instead', () => {
    const usage = pollAndResponse;
    const cost = estimateCost(usage, 'lambda-push', US_EAST_1, lambda);
    expect(line(cost, 'HTTP API requests')).toBeCloseTo(1);
    expect(line(cost, 'worker push invocations')).toBeCloseTo(0.2);
    expect(line(cost, 'stream/timer Lambda (requests + GB-s)')).toBeCloseTo(10_000 * 0.0000133334);
  });

  it('prices a run of push task lists by its pushed tasks: one invocation each, no polls', () => {
    const usage: RunUsage = {
      ...none,
      apiCalls: { RespondActivityTaskCompleted: { calls: 1_000_000, billedMs: 10_000_000 } },
      pushedTasks: 2_000_000,
      outboxPushes: 500_000,
    };
    const push = estimateCost(usage, 'lambda-push', US_EAST_1, lambda);
    expect(line(push, 'worker push invocations')).toBeCloseTo(0.4);
    expect(line(push, 'HTTP API requests')).toBeCloseTo(1);
    // The API function's pushes are in its measured time; the stream and timer functions wait 10 ms
    // on each Invoke of theirs (0.5 M × 10 ms at 1 GB).
    expect(line(push, 'stream/timer Lambda (requests + GB-s)')).toBeCloseTo(5_000 * 0.0000133334);
    expect(
      line(estimateCost(usage, 'http-polling', US_EAST_1, lambda), 'worker push invocations'),
    ).toBe(0);
  });

  it("charges no API Gateway request for a pushed worker's call to the API function by Invoke", () => {
    const usage: RunUsage = {
      ...none,
      apiCalls: {
        StartWorkflowExecution: { calls: 1_000_000, billedMs: 0 },
        RespondActivityTaskCompleted: { calls: 3_000_000, billedMs: 0 },
      },
      directCalls: 3_000_000,
    };
    const push = estimateCost(usage, 'lambda-push', US_EAST_1, lambda);
    expect(line(push, 'HTTP API requests')).toBeCloseTo(1);
    // The API function still runs for each: 4 M requests.
    expect(line(push, 'API Lambda (requests + GB-s)')).toBeCloseTo(0.8);
  });

  it('charges no API Gateway requests behind a function URL, and everything else alike', () => {
    const usage = pollAndResponse;
    for (const mode of ['http-polling', 'lambda-push'] as const) {
      const gateway = estimateCost(usage, mode, US_EAST_1, lambda);
      const url = estimateCost(usage, mode, US_EAST_1, lambda, 'function-url');
      expect(url.front).toBe('function-url');
      expect(line(url, 'HTTP API requests')).toBe(0);
      expect(url.perMillion).toBeCloseTo(
        gateway.perMillion - (line(gateway, 'HTTP API requests') ?? Number.NaN),
      );
    }
  });

  it('charges a deadline past 15 minutes a schedule and two fires through SQS', () => {
    const short = estimateCost(
      { ...none, sqsDeadlines: 1_000_000 },
      'http-polling',
      US_EAST_1,
      lambda,
    );
    const long = estimateCost(
      { ...none, scheduledDeadlines: 1_000_000 },
      'http-polling',
      US_EAST_1,
      lambda,
    );
    expect(line(short, 'SQS requests')).toBeCloseTo(1.2);
    expect(line(long, 'SQS requests')).toBeCloseTo(2.4);
    expect(line(long, 'EventBridge Scheduler')).toBeCloseTo(1);
    // Two timer invocations per deadline, each with its overhead (2 ms at 1 GB).
    expect(line(long, 'stream/timer Lambda (requests + GB-s)')).toBeCloseTo(
      0.4 + 2 * 2 * 1_000 * 0.0000133334,
    );
  });

  it("charges the wake channel's SQS requests as they were made, a batch as one", () => {
    // Per round trip: 2.33 tasks sent one to a batch, received and deleted; a queue made once.
    const usage = {
      ...none,
      wakeRequests: {
        SendMessageBatch: 2_330_000,
        ReceiveMessage: 2_330_000,
        DeleteMessage: 2_330_000,
        CreateQueue: 2,
      },
    };
    const cost = estimateCost(usage, 'http-polling', US_EAST_1, lambda);
    expect(line(cost, 'SQS wake channel requests')).toBeCloseTo(3 * 2.33 * 0.4 + 2 * 0.4e-6);
    expect(line(cost, 'SQS requests')).toBe(0);
    expect(cost.perMillion).toBeCloseTo(2.796);
    expect(
      line(estimateCost(none, 'http-polling', US_EAST_1, lambda), 'SQS wake channel requests'),
    ).toBe(0);
  });

  it('charges nothing for a schedule deleted before it fired, but the time of its requests', () => {
    const armedThenDeleted = estimateCost(
      { ...none, scheduledDeadlines: 1_000_000, disarmedDeadlines: 1_000_000 },
      'http-polling',
      US_EAST_1,
      lambda,
    );
    expect(line(armedThenDeleted, 'EventBridge Scheduler')).toBe(0);
    expect(line(armedThenDeleted, 'SQS requests')).toBe(0);
    const requests = estimateCost(
      { ...none, deadlineRequests: 2_000_000 },
      'http-polling',
      US_EAST_1,
      lambda,
    );
    // 2 M requests of 10 ms each in a 1 GB function: 20,000 GB-s.
    expect(line(requests, 'stream/timer Lambda (requests + GB-s)')).toBeCloseTo(
      20_000 * 0.0000133334,
    );
  });
});

describe('Lambda memory', () => {
  it('prices the API function at its own size, its CPU work taking longer below one vCPU', () => {
    expect(cpuScale(1_024)).toBe(1);
    expect(cpuScale(512)).toBe(2);
    expect(cpuScale(3_008)).toBeCloseTo(1_024 / 1_769);
    const usage = {
      ...none,
      apiCalls: { RespondActivityTaskCompleted: { calls: 1_000_000, billedMs: 10_000_000 } },
    };
    const half = estimateCost(usage, 'http-polling', US_EAST_1, { ...lambda, apiMemoryMb: 512 });
    // 10,000 s at 0.5 GB: half the GB-s of the same time at 1 GB; requests cost the same.
    expect(line(half, 'API Lambda (requests + GB-s)')).toBeCloseTo(0.2 + 5_000 * 0.0000133334);
    expect(idlePollerCostPerHour(20_000, US_EAST_1, { ...lambda, apiMemoryMb: 512 })).toBeCloseTo(
      180 * (0.000001 + 0.0000002 + 0.5 * 20 * 0.0000133334),
      8,
    );
  });
});

describe('idlePollerCostPerHour', () => {
  it('bills 180 empty 20 s polls an hour at 1 GB on Arm', () => {
    const perPoll = 1e-6 + 0.2e-6 + 20 * 0.0000133334;
    expect(idlePollerCostPerHour(20_000, US_EAST_1, lambda)).toBeCloseTo(180 * perPoll, 8);
  });
});
