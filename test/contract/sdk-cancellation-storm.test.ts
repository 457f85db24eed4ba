/**
 * 100 executions × 5 activities cancelled at once: every activity is signalled, every
 * cancellation is recorded, no slot is leaked, and the worker's throughput recovers afterwards. Real
 * SDK workers on both sides: a DeciderWorker following the SWF Developer Guide's cancellation
 * pattern (cancel every open activity, then the workflow) and one ActivityWorker with a slot for each of the 500 activities.
 *
 * It saturates DynamoDB Local by itself, so it runs in the timing project, alone.
 */
import {
  DescribeWorkflowExecutionCommand,
  RequestCancelWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type Activity,
  ActivityWorker,
  type Decider,
  DeciderWorker,
  decide,
  silentLogger,
  type TaskEnd,
} from '../../lib/sdk/index.js';
import { ACTIVITY, type Execution, SdkFixture, types, uid } from '../sdk/sdk-fixture.js';
import { recordingLogger, until } from '../sdk/support.js';

const EXECUTIONS = 100;
const PER_EXECUTION = 5;
const ACTIVITIES = EXECUTIONS * PER_EXECUTION;
const BATCH = 20; // executions of the throughput probes before and after
const HEARTBEAT_MS = 2_000;

let fixture: SdkFixture;
let decider: DeciderWorker;
let activities: ActivityWorker;
const decisions = uid('decisions');
const activityList = uid('activities');
const logger = recordingLogger();
const ends: TaskEnd[] = [];
const held: { signalledAt?: number; reason?: string | undefined }[] = [];

/** The cancellation pattern: on a cancel request, cancel every open activity, then the workflow. */
const workflow: Decider = (state) => {
  const all = [...state.activities.values()];
  const open = all.filter((a) => a.status === 'scheduled' || a.status === 'started');
  if (state.cancelRequested) {
    if (open.length === 0) return [decide.cancelWorkflowExecution('cancelled with its activities')];
    return open
      .filter((a) => !a.cancelRequested)
      .map((a) => decide.requestCancelActivityTask(a.activityId));
  }
  if (all.length === 0)
    return Array.from({ length: PER_EXECUTION }, (_, i) =>
      decide.scheduleActivityTask({
        activityId: `a${i}`,
        activityType: ACTIVITY,
        taskList: { name: activityList },
        input: state.input,
        heartbeatTimeout: '30',
      }),
    );
  if (all.every((a) => a.status === 'completed'))
    return [decide.completeWorkflowExecution(`${all.length} done`)];
  return [];
};

/** 'hold' waits for its signal and honours it; anything else returns at once. */
const activity: Activity = async (input, ctx) => {
  if (input !== 'hold') return 'quick';
  const entry: (typeof held)[number] = {};
  held.push(entry);
  await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
  entry.signalledAt = Date.now();
  entry.reason = ctx.cancelReason;
  throw ctx.signal.reason;
};

beforeAll(async () => {
  fixture = await SdkFixture.start();
  decider = new DeciderWorker({
    client: fixture.client,
    domain: fixture.domain,
    taskList: decisions,
    decider: workflow,
    concurrency: 4,
    shutdownSignals: [],
    logger: silentLogger,
  }).start();
  activities = new ActivityWorker({
    client: fixture.client,
    domain: fixture.domain,
    taskList: activityList,
    activities: { work: activity },
    concurrency: ACTIVITIES,
    pollers: 8,
    heartbeatIntervalMs: HEARTBEAT_MS,
    shutdownSignals: [],
    logger,
    onTaskEnd: (end) => ends.push(end),
  }).start();
}, 60_000);

afterAll(async () => {
  await Promise.all([decider?.shutdown(), activities?.shutdown()]);
  await fixture?.close();
});

async function startMany(count: number, input: string): Promise<Execution[]> {
  const started: Execution[] = [];
  for (let i = 0; i < count; i += 10)
    started.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(10, count - i) }, () =>
          fixture.startExecution(decisions, input),
        ),
      )),
    );
  return started;
}

const closeStatuses = (executions: readonly Execution[]) =>
  Promise.all(
    executions.map(async (execution) => {
      const info = await fixture.client.send(
        new DescribeWorkflowExecutionCommand({ domain: fixture.domain, execution }),
      );
      return info.executionInfo?.closeStatus;
    }),
  );

/** Runs BATCH executions of quick activities to completion; answers activity round trips per second. */
async function throughput(): Promise<number> {
  const before = ends.length;
  const startedAt = Date.now();
  const executions = await startMany(BATCH, 'quick');
  await until(
    () => ends.length - before === BATCH * PER_EXECUTION,
    'the quick activities to complete',
    60_000,
  );
  const rate = (BATCH * PER_EXECUTION) / ((Date.now() - startedAt) / 1000);
  await until(
    async () => (await closeStatuses(executions)).every((s) => s === 'COMPLETED'),
    'the quick executions to complete',
    60_000,
    250,
  );
  expect(ends.length - before).toBe(BATCH * PER_EXECUTION);
  return rate;
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

it('100 executions × 5 activities cancelled at once: every activity signalled, no slot leaked, throughput recovers', async () => {
  const baseline = await throughput();

  const executions = await startMany(EXECUTIONS, 'hold');
  await until(() => activities.inFlight === ACTIVITIES, 'all 500 activities to run', 120_000);
  expect(held).toHaveLength(ACTIVITIES);
  expect(held.every((h) => h.signalledAt === undefined)).toBe(true);

  const cancelledAt = Date.now();
  await Promise.all(
    executions.map((e) =>
      fixture.client.send(
        new RequestCancelWorkflowExecutionCommand({ domain: fixture.domain, ...e }),
      ),
    ),
  );
  await until(
    () => held.every((h) => h.signalledAt !== undefined),
    'every activity to be signalled',
    120_000,
  );
  const latencies = held.map((h) => (h.signalledAt ?? 0) - cancelledAt).sort((a, b) => a - b);
  expect(new Set(held.map((h) => h.reason))).toEqual(new Set(['cancelRequested']));

  await until(() => activities.inFlight === 0, 'every slot to be freed', 60_000);
  await until(
    async () => (await closeStatuses(executions)).every((s) => s === 'CANCELED'),
    'every execution to close as canceled',
    120_000,
    1_000,
  );
  const storm = ends.filter((e) => e.cancelReason !== undefined);
  expect(storm).toHaveLength(ACTIVITIES);
  expect(storm.every((e) => e.outcome === 'canceled' && e.reported === 'sent')).toBe(true);
  for (const execution of executions.slice(0, 10)) {
    const events = types(await fixture.history(execution));
    expect(events.filter((t) => t === 'ActivityTaskCanceled')).toHaveLength(PER_EXECUTION);
    expect(events.at(-1)).toBe('WorkflowExecutionCanceled');
  }
  expect(activities.abandoned).toBe(0);
  expect(logger.warnings()).toEqual([]);

  const after = await throughput();
  console.info(
    `cancellation storm: ${ACTIVITIES} activities signalled in p50 ${percentile(latencies, 50)} ms, ` +
      `p99 ${percentile(latencies, 99)} ms, max ${latencies.at(-1)} ms (heartbeat every ${HEARTBEAT_MS} ms); ` +
      `throughput ${baseline.toFixed(1)} round trips/s before, ${after.toFixed(1)} after`,
  );
  // Every slot came back: the worker runs as fast as before, within the noise of a loaded machine.
  expect(activities.inFlight).toBe(0);
  expect(after).toBeGreaterThan(baseline / 3);
}, 600_000);
