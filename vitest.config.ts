import { defineConfig } from 'vitest/config';

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
 * Tests that run on their own, one file at a time, after the rest (`npm test`), each on a fresh
 * DynamoDB Local that it shares with no other file: none is shared, since a DynamoDB Local that has
 * served files before runs slower (dropped tables and all), and a spare one starting beside a file
 * would load the machine it measures. They are those that hold the service to its latency targets
 * (docs/performance.md) (dispatch, timer lateness), whose figures must not be measured under the other
 * suites' load, and the loads that saturate DynamoDB Local by themselves: the 20-poller × 1,000-task
 * race, the SDK's 500-activity cancellation storm, the 20 pollers a quarter of whose callers leave
 * (handout-storm), the timeout oracle's 50 generated schedules (about 45 s alone, past its 120 s
 * among the other suites), the testing kit's month-long workflow, which must close within 5 s of
 * wall-clock time, 1,000 pollers of one list in containers of their own, and the reconciler's 10,000 closed runs (the DynamoDB Local they were written to
 * stalled the integration files after it for minutes). Running them in one vitest run spares a
 * vitest start per file.
 */
export const timing = [
  'test/contract/long-poll.test.ts',
  'test/contract/timers.test.ts',
  'test/contract/concurrency.test.ts',
  'test/contract/sdk-cancellation-storm.test.ts',
  'test/contract/handout-storm.test.ts',
  'test/integration/timeout-oracle.test.ts',
  'test/integration/timeouts-fired-late.test.ts',
  'test/integration/child-timeouts.test.ts',
  'test/integration/lambda-timeouts.test.ts',
  'test/contract/crash-starts.test.ts',
  'test/contract/testing-month-long.test.ts',
  'test/contract/idle-pollers.test.ts',
  'test/contract/pollers-across-containers.test.ts',
  'test/integration/reconciler.test.ts',
  ...latencyBounds,
];

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
          exclude: timing,
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
          exclude: timing,
          ...overDynamoDbLocal,
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // Each file's test server holds its client's answers to the service model (see
          // startTestServer); the timing project's measurements are left without it.
          env: { ...env, SWF_CHECK_ANSWERS: '1' },
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
