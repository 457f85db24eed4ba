/**
 * Activity tasks through the official SDK: polling, heartbeats, the three
 * responses, cooperative cancellation with RequestCancelActivityTask, and task tokens.
 */
import {
  CountPendingActivityTasksCommand,
  CountPendingDecisionTasksCommand,
  type Decision,
  PollForActivityTaskCommand,
  RecordActivityTaskHeartbeatCommand,
  RespondActivityTaskCanceledCommand,
  RespondActivityTaskCompletedCommand,
  RespondActivityTaskFailedCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { decide, eventsOf, eventTypes, expectFault, single, uid } from '../support/decider.js';
import { domainForFile, registerTaskTypes } from '../support/local.js';

const domain = 'activities';
const wf = { name: 'wf', version: '1' };
const act = { name: 'act', version: '1' };
const POLL_WAIT_MS = 1_000;

const server = domainForFile(domain, { polling: { maxWaitMs: POLL_WAIT_MS } }, async ({ swf }) => {
  await registerTaskTypes(swf, domain, { workflow: wf, activity: act, decisionTaskTimeout: '30' });
});

const pending = async (kind: 'activity' | 'decision', taskList: string) =>
  (
    await server.swf.send(
      kind === 'activity'
        ? new CountPendingActivityTasksCommand({ domain, taskList: { name: taskList } })
        : new CountPendingDecisionTasksCommand({ domain, taskList: { name: taskList } }),
    )
  ).count;

const schedule = (
  activityId: string,
  workers: string,
  extra: Partial<Parameters<typeof decide.scheduleActivity>[0]> = {},
) =>
  decide.scheduleActivity({ activityType: act, activityId, taskList: { name: workers }, ...extra });

/** Starts an execution whose first decision schedules `decisions`. */
async function withActivities(decisions: Decision[]) {
  const started = await server.driver.start(wf);
  const task = await server.driver.pollDecision(started.taskList);
  await server.driver.respond(task.taskToken, decisions);
  return started;
}

const emptyPoll = (taskList: string) =>
  server.swf.send(new PollForActivityTaskCommand({ domain, taskList: { name: taskList } }));

describe('PollForActivityTask', () => {
  it('hands the task to one worker and records ActivityTaskStarted without a decision task', async () => {
    const workers = uid('workers');
    const { execution, taskList } = await withActivities([
      schedule('a1', workers, { input: 'payload' }),
    ]);
    expect(await pending('activity', workers)).toBe(1);

    const task = await server.driver.pollActivity(workers, 'worker-7');
    const history = await server.driver.history(execution);
    const started = single(history, 'ActivityTaskStarted');
    const scheduled = single(history, 'ActivityTaskScheduled');
    expect(task).toMatchObject({
      activityId: 'a1',
      activityType: act,
      input: 'payload',
      workflowExecution: execution,
      startedEventId: started.eventId,
    });
    expect(task.taskToken.length).toBeLessThanOrEqual(1024);
    expect(started.activityTaskStartedEventAttributes).toEqual({
      identity: 'worker-7',
      scheduledEventId: scheduled.eventId,
    });
    expect(history.at(-1)?.eventType).toBe('ActivityTaskStarted');
    expect(await pending('decision', taskList)).toBe(0);
    expect(await pending('activity', workers)).toBe(0);

    // each task goes to exactly one worker
    const second = await emptyPoll(workers);
    expect(second.taskToken).toBeFalsy();
  });

  it('answers an empty task without taskToken and startedEventId 0 after the poll timeout', async () => {
    const before = Date.now();
    const task = await emptyPoll(uid('nobody'));
    expect(Date.now() - before).toBeGreaterThanOrEqual(POLL_WAIT_MS - 100);
    expect(task.taskToken).toBeFalsy();
    expect(task.startedEventId).toBe(0);
    expect(task.activityId).toBeUndefined();
  });

  it('counts 0 pending tasks on a list never used', async () => {
    expect(await pending('activity', uid('unused'))).toBe(0);
  });

  it('hands out the highest taskPriority first, then the oldest', async () => {
    const workers = uid('priorities');
    await withActivities([
      schedule('low', workers, { taskPriority: '1' }),
      schedule('high', workers, { taskPriority: '50' }),
      schedule('negative', workers, { taskPriority: '-1' }),
      schedule('default', workers),
    ]);
    await withActivities([schedule('high-later', workers, { taskPriority: '50' })]);
    const order: (string | undefined)[] = [];
    for (let i = 0; i < 5; i++) order.push((await server.driver.pollActivity(workers)).activityId);
    expect(order).toEqual(['high', 'high-later', 'low', 'default', 'negative']);
  });

  it('wakes a waiting worker as soon as the activity is scheduled', async () => {
    const workers = uid('wake');
    const poll = server.swf.send(
      new PollForActivityTaskCommand({ domain, taskList: { name: workers } }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await withActivities([schedule('soon', workers)]);
    expect((await poll).activityId).toBe('soon');
  });
});

describe('responding to an activity task', () => {
  it('RespondActivityTaskCompleted records ActivityTaskCompleted and schedules a decision task', async () => {
    const workers = uid('workers');
    const { execution, taskList } = await withActivities([schedule('a', workers)]);
    const task = await server.driver.pollActivity(workers);
    await server.swf.send(
      new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken, result: 'done' }),
    );
    const history = await server.driver.history(execution);
    const scheduled = single(history, 'ActivityTaskScheduled');
    expect(eventTypes(history).slice(-2)).toEqual([
      'ActivityTaskCompleted',
      'DecisionTaskScheduled',
    ]);
    expect(history.at(-2)?.activityTaskCompletedEventAttributes).toEqual({
      result: 'done',
      scheduledEventId: scheduled.eventId,
      startedEventId: task.startedEventId,
    });
    expect(await pending('decision', taskList)).toBe(1);
    expect((await server.driver.describe(execution)).openCounts?.openActivityTasks).toBe(0);
  });

  it('RespondActivityTaskFailed records ActivityTaskFailed with reason and details', async () => {
    const workers = uid('workers');
    const { execution } = await withActivities([schedule('a', workers)]);
    const task = await server.driver.pollActivity(workers);
    await server.swf.send(
      new RespondActivityTaskFailedCommand({
        taskToken: task.taskToken,
        reason: 'card declined',
        details: 'd',
      }),
    );
    const history = await server.driver.history(execution);
    expect(eventTypes(history).slice(-2)).toEqual(['ActivityTaskFailed', 'DecisionTaskScheduled']);
    expect(history.at(-2)?.activityTaskFailedEventAttributes).toEqual({
      reason: 'card declined',
      details: 'd',
      scheduledEventId: single(history, 'ActivityTaskScheduled').eventId,
      startedEventId: task.startedEventId,
    });
  });

  it('batches triggers into one decision task while one is scheduled', async () => {
    const workers = uid('workers');
    const { execution, taskList } = await withActivities([
      schedule('a', workers),
      schedule('b', workers),
    ]);
    const a = await server.driver.pollActivity(workers);
    const b = await server.driver.pollActivity(workers);
    await server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken: a.taskToken }));
    await server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken: b.taskToken }));
    const history = await server.driver.history(execution);
    expect(eventTypes(history).slice(-3)).toEqual([
      'ActivityTaskCompleted',
      'DecisionTaskScheduled',
      'ActivityTaskCompleted',
    ]);
    expect(await pending('decision', taskList)).toBe(1);
    expect((await server.driver.describe(execution)).openCounts?.openDecisionTasks).toBe(1);
  });

  it('refuses a details string over 2048 characters on heartbeat with ValidationException', async () => {
    const workers = uid('workers');
    await withActivities([schedule('a', workers)]);
    const task = await server.driver.pollActivity(workers);
    const ok = await server.swf.send(
      new RecordActivityTaskHeartbeatCommand({
        taskToken: task.taskToken,
        details: 'x'.repeat(2048),
      }),
    );
    expect(ok.cancelRequested).toBe(false);
    await expectFault(
      server.swf.send(
        new RecordActivityTaskHeartbeatCommand({
          taskToken: task.taskToken,
          details: 'x'.repeat(2049),
        }),
      ),
      'ValidationException',
      /details/,
    );
  });
});

describe('RequestCancelActivityTask', () => {
  it('cancels an unstarted activity at once; no worker ever gets it', async () => {
    const workers = uid('workers');
    const { execution, taskList } = await withActivities([schedule('ship', workers)]);
    const scheduledId = single(
      await server.driver.history(execution),
      'ActivityTaskScheduled',
    ).eventId;
    await server.driver.signal(execution, 'CancelOrder');
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [decide.requestCancelActivity('ship')]);

    const history = await server.driver.history(execution);
    expect(eventTypes(history).slice(-4)).toEqual([
      'DecisionTaskCompleted',
      'ActivityTaskCancelRequested',
      'ActivityTaskCanceled',
      'DecisionTaskScheduled',
    ]);
    const requested = history.at(-3);
    const completedId = history.at(-4)?.eventId;
    expect(requested?.activityTaskCancelRequestedEventAttributes).toEqual({
      activityId: 'ship',
      decisionTaskCompletedEventId: completedId,
    });
    expect(history.at(-2)?.activityTaskCanceledEventAttributes).toEqual({
      scheduledEventId: scheduledId,
      startedEventId: 0,
      latestCancelRequestedEventId: requested?.eventId,
    });
    expect(await pending('activity', workers)).toBe(0);
    expect((await server.driver.describe(execution)).openCounts?.openActivityTasks).toBe(0);
    const poll = await emptyPoll(workers);
    expect(poll.taskToken).toBeFalsy();
    expect(eventTypes(await server.driver.history(execution))).toEqual(eventTypes(history));
  });

  it('flags a started activity: heartbeat reports cancelRequested; the worker may still complete', async () => {
    const workers = uid('workers');
    const { execution, taskList } = await withActivities([schedule('ship', workers)]);
    const activity = await server.driver.pollActivity(workers);
    const beat = () =>
      server.swf.send(new RecordActivityTaskHeartbeatCommand({ taskToken: activity.taskToken }));
    expect((await beat()).cancelRequested).toBe(false);

    await server.driver.signal(execution, 'CancelOrder');
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [decide.requestCancelActivity('ship')]);
    let history = await server.driver.history(execution);
    expect(eventTypes(history).slice(-2)).toEqual([
      'DecisionTaskCompleted',
      'ActivityTaskCancelRequested',
    ]);
    expect(eventsOf(history, 'ActivityTaskCanceled')).toHaveLength(0);
    expect(await pending('decision', taskList)).toBe(0);
    expect((await server.driver.describe(execution)).openCounts?.openActivityTasks).toBe(1);

    expect((await beat()).cancelRequested).toBe(true);
    expect((await beat()).cancelRequested).toBe(true);
    await server.swf.send(
      new RespondActivityTaskCompletedCommand({
        taskToken: activity.taskToken,
        result: 'shipped anyway',
      }),
    );
    history = await server.driver.history(execution);
    expect(eventTypes(history).slice(-2)).toEqual([
      'ActivityTaskCompleted',
      'DecisionTaskScheduled',
    ]);
    expect(history.at(-2)?.activityTaskCompletedEventAttributes?.result).toBe('shipped anyway');
  });

  it('a started activity that honours the request ends with ActivityTaskCanceled naming the request', async () => {
    const workers = uid('workers');
    const { execution, taskList } = await withActivities([schedule('ship', workers)]);
    const activity = await server.driver.pollActivity(workers);
    await server.driver.signal(execution, 'CancelOrder');
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [decide.requestCancelActivity('ship')]);
    const requested = single(await server.driver.history(execution), 'ActivityTaskCancelRequested');
    await server.swf.send(
      new RespondActivityTaskCanceledCommand({ taskToken: activity.taskToken, details: 'stopped' }),
    );
    const history = await server.driver.history(execution);
    expect(eventTypes(history).slice(-2)).toEqual([
      'ActivityTaskCanceled',
      'DecisionTaskScheduled',
    ]);
    expect(history.at(-2)?.activityTaskCanceledEventAttributes).toEqual({
      details: 'stopped',
      scheduledEventId: single(history, 'ActivityTaskScheduled').eventId,
      startedEventId: activity.startedEventId,
      latestCancelRequestedEventId: requested.eventId,
    });
  });

  it('records RequestCancelActivityTaskFailed ACTIVITY_ID_UNKNOWN for no open activity of that id', async () => {
    const workers = uid('workers');
    const { execution, taskList } = await withActivities([schedule('done', workers)]);
    const activity = await server.driver.pollActivity(workers);
    await server.swf.send(
      new RespondActivityTaskCompletedCommand({ taskToken: activity.taskToken }),
    );
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [
      decide.requestCancelActivity('done'),
      decide.requestCancelActivity('never'),
    ]);
    const history = await server.driver.history(execution);
    const completedId = (task.startedEventId ?? 0) + 1;
    expect(
      eventsOf(history, 'RequestCancelActivityTaskFailed').map(
        (e) => e.requestCancelActivityTaskFailedEventAttributes,
      ),
    ).toEqual([
      {
        activityId: 'done',
        cause: 'ACTIVITY_ID_UNKNOWN',
        decisionTaskCompletedEventId: completedId,
      },
      {
        activityId: 'never',
        cause: 'ACTIVITY_ID_UNKNOWN',
        decisionTaskCompletedEventId: completedId,
      },
    ]);
    expect(eventsOf(history, 'ActivityTaskCancelRequested')).toHaveLength(0);
    expect(history.at(-1)?.eventType).toBe('DecisionTaskScheduled');
  });
});

describe('activity task tokens', () => {
  it('refuses a token once its task has closed, for every call that takes one', async () => {
    const workers = uid('workers');
    await withActivities([schedule('a', workers)]);
    const task = await server.driver.pollActivity(workers);
    await server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken }));
    const token = task.taskToken;
    const unknown = /^Unknown activity, scheduledEventId = \d+$/;
    await expectFault(
      server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken: token })),
      'UnknownResourceFault',
      unknown,
    );
    await expectFault(
      server.swf.send(new RespondActivityTaskFailedCommand({ taskToken: token })),
      'UnknownResourceFault',
      unknown,
    );
    await expectFault(
      server.swf.send(new RespondActivityTaskCanceledCommand({ taskToken: token })),
      'UnknownResourceFault',
      unknown,
    );
    await expectFault(
      server.swf.send(new RecordActivityTaskHeartbeatCommand({ taskToken: token })),
      'UnknownResourceFault',
      unknown,
    );
  });

  it('refuses a tampered token with UnknownResourceFault', async () => {
    const workers = uid('workers');
    const { execution } = await withActivities([schedule('a', workers)]);
    const task = await server.driver.pollActivity(workers);
    const tamper = (token: string, at: number) =>
      `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    for (const at of [0, Math.floor(task.taskToken.length / 2), task.taskToken.length - 1]) {
      await expectFault(
        server.swf.send(
          new RespondActivityTaskCompletedCommand({ taskToken: tamper(task.taskToken, at) }),
        ),
        'UnknownResourceFault',
      );
    }
    // the genuine token still works
    await server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken }));
    expect(eventsOf(await server.driver.history(execution), 'ActivityTaskCompleted')).toHaveLength(
      1,
    );
  });

  it('refuses a decision task token for activity calls', async () => {
    const { taskList } = await server.driver.start(wf);
    const decision = await server.driver.pollDecision(taskList);
    await expectFault(
      server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken: decision.taskToken })),
      'UnknownResourceFault',
    );
  });
});
