import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const env = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

/**
 * Files that hold the service to a wall-clock bound which the other suites' load could break (timer
 * and timeout lateness, hand-out delays, how soon a listing, a woken stream poller or a stopping
 * worker answers): they run in the timing project, one at a time. Their tests are the contract
 * project's otherwise, so the contract files among them still have their answers held to the
 * service model (startTestServer), which the other timing files' measurements are spared.
 */
export const latencyBounds = [
  'test/contract/timeouts.test.ts',
  'test/contract/timers-smoke.test.ts',
  'test/contract/restart.test.ts',
  'test/integration/clock-skew-fires.test.ts',
  'test/contract/deployed-dispatch.test.ts',
  'test/contract/deployed-managed-instances.test.ts',
  'test/contract/metrics.test.ts',
  'test/contract/visibility-latency.test.ts',
  'test/integration/stream-poller.test.ts',
  'test/contract/sdk-shutdown.test.ts',
  'test/contract/testing-environment.test.ts',
  'test/contract/testing-workflow-code.test.ts',
  'test/contract/sdk-cancellation-signal.test.ts',
  'test/contract/aws-emulated-poll-latency.test.ts',
  // An answer that must come quickly: an empty poll after a stale queue entry, a poll the Lambda
  // deadline ends, the server under 300 slow connections, a 5 MB body refused.
  'test/contract/queue-entries.test.ts',
  'test/contract/lambda-handler.test.ts',
  'test/contract/edge-http.test.ts',
  'test/contract/protocol.test.ts',
];

/**
 * Tests that run on their own, one file at a time, after everything else (`npm test`,
 * scripts/run-timing.ts). Those that hold the service to its latency targets (docs/performance.md):
 * task dispatch within 50 ms, timer lateness, 1,000 idle long polls at no cost to other calls, and
 * the testing kit's month-long workflow, which must close within 5 s of wall-clock time; and
 * `latencyBounds`. And those whose bounds other load broke when they ran beside it: the 20-poller ×
 * 1,000-task race, whose deciders take their first tasks from a burst of 50 polls of 500 ms each;
 * the SDK's 500-activity cancellation storm, whose workers must log no warning; 1,000 pollers of
 * one list in containers of their own, all of which must be waiting within their 25 s poll; and the
 * timeout oracle's 50 generated schedules, which came within 12 s of its 120 s (the files split
 * from it stay with it). Each file gets a fresh DynamoDB Local that no other file has used (one
 * that has served files runs slower, dropped tables and all, and keeps working on their databases
 * while idle), started as the file begins: a spare starting beside a file would load the machine it
 * measures. Running them in one vitest run spares a vitest start per file.
 */
export const timing = [
  'test/contract/long-poll.test.ts',
  'test/contract/timers.test.ts',
  'test/contract/concurrency.test.ts',
  'test/contract/sdk-cancellation-storm.test.ts',
  'test/integration/timeout-oracle.test.ts',
  'test/integration/timeouts-fired-late.test.ts',
  'test/integration/child-timeouts.test.ts',
  'test/integration/lambda-timeouts.test.ts',
  'test/contract/testing-month-long.test.ts',
  'test/contract/idle-pollers.test.ts',
  'test/contract/pollers-across-containers.test.ts',
  ...latencyBounds,
];

/**
 * Tests that hold no latency bound but load the machine or DynamoDB Local so much that they would
 * stretch the other suites' files past their timeouts: three kill -9s of `npm start` under 24
 * clients, the reconciler's 10,000 closed runs, and 20 pollers a quarter of whose callers leave
 * (handout-storm). What they hold is counts, histories, a stall of 10 s and a test timeout several
 * times their time alone. They run in the timing phase before the `timing` files, two at a time,
 * each on a fresh DynamoDB Local of its own, the next started while they run.
 */
export const loads = [
  // Longest first (ListedLoadsFirst): about 42, 31 and 16 s alone.
  'test/contract/crash-starts.test.ts',
  'test/integration/reconciler.test.ts',
  'test/contract/handout-storm.test.ts',
];

/**
 * Vitest's order (files that failed last time first, then the slowest; with no timings kept, as in a
 * clean clone, the largest), except that the `loads` files start in the order listed: two workers
 * share them, and by size the longest of them would start last, leaving one worker idle at the end.
 */
class ListedLoadsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const listed = loads.findIndex((file) => spec.moduleId.endsWith(file));
      return listed < 0 ? loads.length : listed;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/**
 * Test files that reach the service only through its operations (test/support/stores.ts): they run
 * over DynamoDB Local in their own project, and over the in-memory stores in the `operations`
 * project, which `npm run test:fast` runs with the unit tests.
 */
export const overFakes = [
  'test/integration/open-executions.test.ts',
  'test/integration/cross-run-timestamps.test.ts',
  'test/integration/clock-skew-causality.test.ts',
  'test/integration/timeout-oracle.test.ts',
  'test/integration/timeouts-fired-late.test.ts',
  'test/integration/child-timeouts.test.ts',
  'test/integration/lambda-timeouts.test.ts',
  'test/integration/timed-out-cross-execution.test.ts',
  'test/integration/timed-out-unfired.test.ts',
];

/** DynamoDB Locals from the project's pool, each file leasing one (test/support/dynamodb-pool.ts). */
const overDynamoDbLocal = {
  globalSetup: ['test/support/dynamodb-global-setup.ts'],
  setupFiles: ['test/support/dynamodb-lease.ts'],
};

export default defineConfig({
  test: {
    env,
    sequence: { sequencer: ListedLoadsFirst },
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/sdk/**/*.test.ts'], env } },
      {
        test: {
          name: 'operations',
          include: overFakes,
          testTimeout: 30_000,
          env: { ...env, SWF_TEST_STORES: 'memory' },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: [...timing, ...loads],
          ...overDynamoDbLocal,
          testTimeout: 30_000,
          hookTimeout: 60_000,
          env,
        },
      },
      {
        test: {
          name: 'contract',
          include: ['test/contract/**/*.test.ts'],
          exclude: [...timing, ...loads],
          ...overDynamoDbLocal,
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // Each file's test server holds its client's answers to the service model (see
          // startTestServer); the timing phase's measurements and loads are left without it.
          env: { ...env, SWF_CHECK_ANSWERS: '1' },
        },
      },
      {
        test: {
          name: 'timing-loads',
          include: loads,
          ...overDynamoDbLocal,
          // Two files at a time (`--maxWorkers=2` from scripts/run-timing.ts), each on a DynamoDB
          // Local of its own (dynamodb-global-setup.ts).
          pool: 'forks',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          env,
        },
      },
      {
        test: {
          name: 'timing',
          include: timing,
          ...overDynamoDbLocal,
          // One file at a time in one process, each on a DynamoDB Local of its own started as it
          // begins (dynamodb-global-setup.ts): none shares a store that another file has used.
          pool: 'forks',
          poolOptions: { forks: { singleFork: true } },
          testTimeout: 60_000,
          hookTimeout: 60_000,
          env: {
            ...env,
            SWF_CHECK_ANSWERS_OF: latencyBounds
              .filter((f) => f.startsWith('test/contract/'))
              .join(','),
          },
        },
      },
      { test: { name: 'infra', include: ['test/infra/**/*.test.ts'], testTimeout: 120_000, env } },
      {
        // npm pack, the tarball installed from the npm registry into fresh projects, run and synthesized.
        test: {
          name: 'package',
          include: ['test/package/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          env,
        },
      },
      {
        // The console in Debian's Chromium (scripts/ensure-chromium.sh installs it), one file at a
        // time: each drives a browser against its own server, and one measures how fast a page opens.
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          ...overDynamoDbLocal,
          pool: 'forks',
          poolOptions: { forks: { singleFork: true } },
          testTimeout: 120_000,
          hookTimeout: 120_000,
          env,
        },
      },
    ],
  },
});
