/**
 * The testing kit's environment against the real engine over DynamoDB Local: time skips only while
 * nothing runs, a heartbeat timeout still catches a stuck activity, environments keep their own time,
 * time moves by hand and can be held, and retention and page tokens follow it.
 */
import {
  DescribeWorkflowExecutionCommand,
  GetWorkflowExecutionHistoryCommand,
  type HistoryEvent,
  ListClosedWorkflowExecutionsCommand,
  PollForActivityTaskCommand,
  RecordActivityTaskHeartbeatCommand,
  SignalWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { APPROVAL_WORKFLOW, approvalDecider } from '../../examples/wait-for-signal.js';
import { type Decider, decide, silentLogger, sleep } from '../../lib/sdk/index.js';
import { TestEnvironment } from '../../lib/testing/index.js';
import { until } from '../sdk/support.js';
import { dynamoEndpoint } from '../support/local.js';

const DAY_MS = 86_400_000;

const environment = (options: Parameters<typeof TestEnvironment.create>[0] = {}) =>
  TestEnvironment.create({ dynamoEndpoint: dynamoEndpoint(), ...options });

const timeOf = (events: readonly HistoryEvent[], type: string, nth = 0) => {
  const event = events.filter((e) => e.eventType === type)[nth];
  if (event?.eventTimestamp === undefined) throw new Error(`no ${type} #${nth + 1} in the history`);
  return event.eventTimestamp.getTime();
};

/** Waits on a 30-day timer, then completes. */
const monthTimer: Decider = (state) => {
  const timer = state.timers.get('month');
  if (timer === undefined) return [decide.startTimer('month', 30 * 86_400)];
  return timer.status === 'fired' ? [decide.completeWorkflowExecution('a month later')] : [];
};

/** Runs activity `work` on `activities` (heartbeat timeout `heartbeat`), then completes with its fate. */
const oneActivity =
  (heartbeat: number): Decider =>
  (state) => {
    const work = state.activities.get('work');
    if (work === undefined)
      return [
        decide.scheduleActivityTask({
          activityId: 'work',
          activityType: { name: 'work', version: '1' },
          taskList: { name: 'activities' },
          heartbeatTimeout: heartbeat,
        }),
      ];
    if (work.status === 'scheduled' || work.status === 'started') return [];
    return [decide.completeWorkflowExecution(`${work.status} ${work.timeoutType ?? ''}`.trim())];
  };

async function withEnvironment<T>(
  options: Parameters<typeof environment>[0],
  test: (env: TestEnvironment) => Promise<T>,
): Promise<T> {
  const env = await environment(options);
  try {
    return await test(env);
  } finally {
    await env.close();
  }
}

describe('TestEnvironment', () => {
  it('a heartbeat timeout still fires for an activity that stops heartbeating while time skips elsewhere', async () => {
    await withEnvironment({}, async (env) => {
      await env.registerWorkflowType({ name: 'month', version: '1' });
      await env.registerWorkflowType({ name: 'stuck', version: '1' });
      await env.registerActivityType({ name: 'work', version: '1' });
      env.startDecider({
        taskList: 'decisions',
        decider: { month: monthTimer, stuck: oneActivity(2) },
      });
      const month = await env.startWorkflow({ workflowType: { name: 'month', version: '1' } });
      const stuck = await env.startWorkflow({ workflowType: { name: 'stuck', version: '1' } });
      // A worker that takes the task, heartbeats twice, then goes silent.
      const task = await env.client.send(
        new PollForActivityTaskCommand({ domain: env.domain, taskList: { name: 'activities' } }),
      );
      let lastBeat = 0;
      for (const details of ['10%', '20%']) {
        lastBeat = env.now().getTime();
        await env.client.send(
          new RecordActivityTaskHeartbeatCommand({ taskToken: task.taskToken, details }),
        );
        await sleep(500);
      }
      const [monthClosed, stuckClosed] = await Promise.all([
        env.awaitClose(month),
        env.awaitClose(stuck),
      ]);
      expect(stuckClosed.result).toBe('timedOut HEARTBEAT');
      const timedOut = stuckClosed.events.find((e) => e.eventType === 'ActivityTaskTimedOut');
      expect(timedOut?.activityTaskTimedOutEventAttributes?.details).toBe('20%');
      // Two seconds after the last heartbeat, as the wall clock counts them: no skip came meanwhile.
      const silence = (timedOut?.eventTimestamp?.getTime() ?? 0) - lastBeat;
      expect(silence).toBeGreaterThanOrEqual(2_000);
      expect(silence).toBeLessThan(4_000);
      // The month's timer fired at its second, and only once the stuck activity had timed out.
      const fired = timeOf(monthClosed.events, 'TimerFired');
      expect(fired - timeOf(monthClosed.events, 'TimerStarted')).toBeGreaterThanOrEqual(
        30 * DAY_MS,
      );
      expect(fired - timeOf(monthClosed.events, 'TimerStarted')).toBeLessThan(30 * DAY_MS + 1_000);
      expect(fired).toBeGreaterThan(
        timedOut?.eventTimestamp?.getTime() ?? Number.POSITIVE_INFINITY,
      );
    });
  });

  it('two environments in parallel do not share time', async () => {
    const [skipping, working] = await Promise.all([environment(), environment()]);
    try {
      for (const env of [skipping, working]) {
        await env.registerWorkflowType({ name: 'month', version: '1' });
        await env.registerWorkflowType({ name: 'work', version: '1' });
        await env.registerActivityType({ name: 'work', version: '1' });
      }
      skipping.startDecider({ taskList: 'decisions', decider: monthTimer });
      working.startDecider({ taskList: 'decisions', decider: oneActivity(10) });
      working.startActivityWorker({
        taskList: 'activities',
        activities: { work: () => sleep(1_500).then(() => 'done') },
      });
      const wallStart = Date.now();
      const [month, work] = await Promise.all([
        skipping.startWorkflow({ workflowType: { name: 'month', version: '1' } }),
        working.startWorkflow({ workflowType: { name: 'work', version: '1' } }),
      ]);
      const [monthClosed, workClosed] = await Promise.all([
        skipping.awaitClose(month),
        working.awaitClose(work),
      ]);
      expect(monthClosed.closedAt.getTime() - wallStart).toBeGreaterThan(30 * DAY_MS - 60_000);
      // The other environment's month passed while this one's activity ran on the wall clock.
      const ran =
        timeOf(workClosed.events, 'ActivityTaskCompleted') -
        timeOf(workClosed.events, 'ActivityTaskStarted');
      expect(ran).toBeGreaterThanOrEqual(1_500);
      expect(ran).toBeLessThan(10_000);
      expect(workClosed.closedAt.getTime() - wallStart).toBeLessThan(60_000);
      expect(skipping.now().getTime() - working.now().getTime()).toBeGreaterThan(29 * DAY_MS);
    } finally {
      await Promise.all([skipping.close(), working.close()]);
    }
  });

  it('holds time while a test signals at a moment it chose, and moves it by hand', async () => {
    await withEnvironment({}, async (env) => {
      await env.registerWorkflowType(APPROVAL_WORKFLOW);
      env.startDecider({ taskList: 'decisions', decider: approvalDecider });
      const closed = await env.holdTime(async () => {
        const run = await env.startWorkflow({
          workflowType: APPROVAL_WORKFLOW,
          input: String(7 * 86_400),
        });
        await until(
          async () => (await env.history(run)).some((e) => e.eventType === 'TimerStarted'),
          'the approval timer started',
          20_000,
          50,
        );
        await env.sleep('3d');
        await env.client.send(
          new SignalWorkflowExecutionCommand({
            domain: env.domain,
            workflowId: run.workflowId,
            signalName: 'Approve',
            input: 'by alice',
          }),
        );
        return env.awaitClose(run);
      });
      expect(closed.result).toBe('approved: by alice');
      const waited =
        timeOf(closed.events, 'WorkflowExecutionSignaled') - timeOf(closed.events, 'TimerStarted');
      expect(waited).toBeGreaterThanOrEqual(3 * DAY_MS);
      expect(waited).toBeLessThan(3 * DAY_MS + 5_000);
      expect(closed.events.map((e) => e.eventType)).toContain('TimerCanceled');
    });
  });

  it('expires closed executions and page tokens by its own time', async () => {
    await withEnvironment({ retentionDays: 1 }, async (env) => {
      await env.registerWorkflowType({ name: 'quick', version: '1' });
      env.startDecider({
        taskList: 'decisions',
        decider: () => [decide.completeWorkflowExecution('done')],
      });
      const run = await env.startWorkflow({ workflowType: { name: 'quick', version: '1' } });
      await env.awaitClose(run);
      const { domain, client } = env;
      const page = await client.send(
        new GetWorkflowExecutionHistoryCommand({ domain, execution: run, maximumPageSize: 1 }),
      );
      const listClosed = async () =>
        (
          await client.send(
            new ListClosedWorkflowExecutionsCommand({
              domain,
              startTimeFilter: { oldestDate: new Date(0) },
            }),
          )
        ).executionInfos ?? [];
      expect((await listClosed()).map((i) => i.execution?.runId)).toEqual([run.runId]);
      await env.sleep('2d');
      await expect(
        client.send(new DescribeWorkflowExecutionCommand({ domain, execution: run })),
      ).rejects.toThrow(/Unknown execution/);
      expect(await listClosed()).toEqual([]);
      await expect(
        client.send(
          new GetWorkflowExecutionHistoryCommand({
            domain,
            execution: run,
            maximumPageSize: 1,
            nextPageToken: page.nextPageToken,
          }),
        ),
      ).rejects.toThrow(/maximum lifetime|Unknown execution/);
    });
  });

  it('does not skip while a task waits for a worker, and says so when the execution does not close', async () => {
    await withEnvironment({}, async (env) => {
      await env.registerWorkflowType({ name: 'month', version: '1' });
      const run = await env.startWorkflow({ workflowType: { name: 'month', version: '1' } });
      const before = env.now().getTime();
      await expect(env.awaitClose(run, { timeoutMs: 1_000 })).rejects.toThrow(
        /did not close within 1000 ms.*a decision task queued on task list "decisions".*is a worker polling/,
      );
      expect(env.now().getTime() - before).toBeLessThan(60_000);
    });
  });

  it('fails awaitClose at once when a decider of the environment throws', async () => {
    await withEnvironment({ logger: silentLogger }, async (env) => {
      await env.registerWorkflowType({ name: 'broken', version: '1' });
      env.startDecider({
        taskList: 'decisions',
        decider: () => {
          throw new TypeError('state.timers.get(...) is undefined');
        },
      });
      const run = await env.startWorkflow({ workflowType: { name: 'broken', version: '1' } });
      const wallStart = Date.now();
      await expect(env.awaitClose(run)).rejects.toThrow(
        /a worker logged "decider failed.*state\.timers\.get/,
      );
      expect(Date.now() - wallStart).toBeLessThan(10_000);
    });
  });

  it('runs in real time without time skipping', async () => {
    await withEnvironment({ timeSkipping: false }, async (env) => {
      expect(env.timeSkipping).toBe(false);
      await env.registerWorkflowType({ name: 'second', version: '1' });
      env.startDecider({
        taskList: 'decisions',
        decider: (state) => {
          const timer = state.timers.get('t');
          if (timer === undefined) return [decide.startTimer('t', 1)];
          return timer.status === 'fired' ? [decide.completeWorkflowExecution()] : [];
        },
      });
      const wallStart = Date.now();
      const closed = await env.awaitClose(
        await env.startWorkflow({ workflowType: { name: 'second', version: '1' } }),
      );
      expect(Date.now() - wallStart).toBeGreaterThanOrEqual(1_000);
      expect(Math.abs(env.now().getTime() - Date.now())).toBeLessThan(1_000);
      expect(closed.closedAt.getTime() - wallStart).toBeLessThan(30_000);
    });
  });
});
