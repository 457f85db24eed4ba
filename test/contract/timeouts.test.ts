/**
 * Every timeout through the official SDK: activity SCHEDULE_TO_START,
 * START_TO_CLOSE, SCHEDULE_TO_CLOSE and HEARTBEAT, decision START_TO_CLOSE and the workflow's
 * executionStartToCloseTimeout, each with its event, its timeoutType and the fate of the tokens.
 * Timeouts are 1–2 s; `NONE` means no deadline.
 */
import {
  type HistoryEvent,
  PollForActivityTaskCommand,
  RecordActivityTaskHeartbeatCommand,
  RegisterActivityTypeCommand,
  RegisterWorkflowTypeCommand,
  RespondActivityTaskCompletedCommand,
  RespondDecisionTaskCompletedCommand,
  type ScheduleActivityTaskDecisionAttributes,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import {
  at,
  decide,
  eventsOf,
  eventTypes,
  expectFault,
  single,
  sleep,
  uid,
} from '../support/decider.js';
import { domainForFile } from '../support/local.js';
import { awaitDecision, awaitHistory, latenessMs, pendingActivities } from '../support/waiting.js';

const domain = 'timeouts-contract';
const wf = { name: 'wf', version: '1' };
const act = { name: 'act', version: '1' };
/** A timeout is recorded at most this late after its deadline. */
const LATENESS_LIMIT_MS = 200;

const server = domainForFile(domain, { polling: { maxWaitMs: 1_000 } }, async ({ swf }) => {
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...wf,
      defaultTaskList: { name: 'unused' },
      defaultExecutionStartToCloseTimeout: '600',
      defaultTaskStartToCloseTimeout: '30',
      defaultChildPolicy: 'TERMINATE',
    }),
  );
  // Long defaults: each test names the timeouts it needs on the decision.
  await swf.send(
    new RegisterActivityTypeCommand({
      domain,
      ...act,
      defaultTaskList: { name: 'unused' },
      defaultTaskScheduleToStartTimeout: '600',
      defaultTaskScheduleToCloseTimeout: '600',
      defaultTaskStartToCloseTimeout: '600',
      defaultTaskHeartbeatTimeout: '600',
    }),
  );
});

type Timeouts = Pick<
  ScheduleActivityTaskDecisionAttributes,
  'scheduleToStartTimeout' | 'scheduleToCloseTimeout' | 'startToCloseTimeout' | 'heartbeatTimeout'
>;

/** An execution whose first decision schedules activity `a` with `timeouts`, every other one NONE. */
async function scheduleActivity(timeouts: Timeouts) {
  const started = await server.driver.start(wf);
  const workers = uid('workers');
  const first = await server.driver.pollDecision(started.taskList);
  await server.driver.respond(first.taskToken, [
    decide.scheduleActivity({
      activityType: act,
      activityId: 'a',
      taskList: { name: workers },
      scheduleToStartTimeout: 'NONE',
      scheduleToCloseTimeout: 'NONE',
      startToCloseTimeout: 'NONE',
      heartbeatTimeout: 'NONE',
      ...timeouts,
    }),
  ]);
  return { ...started, workers };
}

const activityTimedOut = (events: readonly HistoryEvent[]) =>
  single(events, 'ActivityTaskTimedOut');

function expectOnTime(
  event: HistoryEvent | undefined,
  reference: HistoryEvent | undefined,
  seconds: number,
) {
  const lateness = latenessMs(event, reference, seconds);
  expect(lateness, `${event?.eventType} ${lateness} ms after its deadline`).toBeGreaterThanOrEqual(
    0,
  );
  expect(lateness, `${event?.eventType} ${lateness} ms after its deadline`).toBeLessThan(
    LATENESS_LIMIT_MS,
  );
}

const complete = (taskToken: string) =>
  server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken, result: 'late' }));
const heartbeat = (taskToken: string, details?: string) =>
  server.swf.send(
    new RecordActivityTaskHeartbeatCommand({
      taskToken,
      ...(details === undefined ? {} : { details }),
    }),
  );

describe('activity SCHEDULE_TO_START', () => {
  it('times out a task nobody polls and withdraws it from its task list', async () => {
    const { execution, taskList, workers } = await scheduleActivity({
      scheduleToStartTimeout: '1',
      scheduleToCloseTimeout: '2',
    });
    const task = await awaitDecision(server.driver, taskList);
    const scheduled = single(task.events, 'ActivityTaskScheduled');
    const timedOut = activityTimedOut(task.events);
    expect(timedOut.activityTaskTimedOutEventAttributes).toEqual({
      timeoutType: 'SCHEDULE_TO_START',
      scheduledEventId: scheduled.eventId,
      startedEventId: 0,
    });
    expectOnTime(timedOut, scheduled, 1);
    expect(eventTypes(task.events).slice(-3)).toEqual([
      'ActivityTaskTimedOut',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    // withdrawn: not counted, never handed out
    expect(await pendingActivities(server.driver, workers)).toBe(0);
    const poll = await server.swf.send(
      new PollForActivityTaskCommand({ domain, taskList: { name: workers } }),
    );
    expect(poll.taskToken).toBeUndefined();
    expect((await server.driver.describe(execution)).openCounts?.openActivityTasks).toBe(0);
    // only the first expiring timeout fires: SCHEDULE_TO_CLOSE (2 s) is gone with the task
    await server.driver.respond(task.taskToken, []);
    await sleep(at(scheduled) + 2_300 - Date.now());
    const history = await server.driver.history(execution);
    activityTimedOut(history);
    expect(eventsOf(history, 'ActivityTaskStarted')).toEqual([]);
  });
});

describe('activity START_TO_CLOSE', () => {
  it('times out a started task its worker never answers; a late answer is UnknownResourceFault', async () => {
    const { execution, taskList, workers } = await scheduleActivity({
      startToCloseTimeout: '1',
      scheduleToCloseTimeout: '2',
    });
    const work = await server.driver.pollActivity(workers, 'silent-worker');
    const task = await awaitDecision(server.driver, taskList);
    const scheduled = single(task.events, 'ActivityTaskScheduled');
    const started = single(task.events, 'ActivityTaskStarted');
    const timedOut = activityTimedOut(task.events);
    expect(timedOut.activityTaskTimedOutEventAttributes).toEqual({
      timeoutType: 'START_TO_CLOSE',
      scheduledEventId: scheduled.eventId,
      startedEventId: started.eventId,
    });
    expectOnTime(timedOut, started, 1);
    await expectFault(complete(work.taskToken), 'UnknownResourceFault');
    await expectFault(heartbeat(work.taskToken), 'UnknownResourceFault');
    await server.driver.respond(task.taskToken, []);
    // only the first expiring timeout fires
    await sleep(at(scheduled) + 2_300 - Date.now());
    activityTimedOut(await server.driver.history(execution));
  });

  it('carries the last heartbeat details, whatever the timeout type', async () => {
    const { taskList, workers } = await scheduleActivity({ startToCloseTimeout: '1' });
    const work = await server.driver.pollActivity(workers);
    expect(await heartbeat(work.taskToken, 'halfway')).toMatchObject({ cancelRequested: false });
    const task = await awaitDecision(server.driver, taskList);
    expect(activityTimedOut(task.events).activityTaskTimedOutEventAttributes).toMatchObject({
      timeoutType: 'START_TO_CLOSE',
      details: 'halfway',
    });
    await server.driver.respond(task.taskToken, [decide.complete()]);
  });
});

describe('activity SCHEDULE_TO_CLOSE', () => {
  it('times out a started task at scheduled + scheduleToClose', async () => {
    const { taskList, workers } = await scheduleActivity({ scheduleToCloseTimeout: '2' });
    await sleep(300);
    const work = await server.driver.pollActivity(workers);
    const task = await awaitDecision(server.driver, taskList);
    const scheduled = single(task.events, 'ActivityTaskScheduled');
    const started = single(task.events, 'ActivityTaskStarted');
    const timedOut = activityTimedOut(task.events);
    expect(timedOut.activityTaskTimedOutEventAttributes).toEqual({
      timeoutType: 'SCHEDULE_TO_CLOSE',
      scheduledEventId: scheduled.eventId,
      startedEventId: started.eventId,
    });
    expectOnTime(timedOut, scheduled, 2);
    await expectFault(complete(work.taskToken), 'UnknownResourceFault');
    await server.driver.respond(task.taskToken, [decide.complete()]);
  });

  it('times out a task still queued, with startedEventId 0, and withdraws it', async () => {
    const { taskList, workers } = await scheduleActivity({ scheduleToCloseTimeout: '1' });
    const task = await awaitDecision(server.driver, taskList);
    const scheduled = single(task.events, 'ActivityTaskScheduled');
    const timedOut = activityTimedOut(task.events);
    expect(timedOut.activityTaskTimedOutEventAttributes).toEqual({
      timeoutType: 'SCHEDULE_TO_CLOSE',
      scheduledEventId: scheduled.eventId,
      startedEventId: 0,
    });
    expectOnTime(timedOut, scheduled, 1);
    expect(await pendingActivities(server.driver, workers)).toBe(0);
    await server.driver.respond(task.taskToken, [decide.complete()]);
  });
});

describe('activity HEARTBEAT', () => {
  it('times out a worker that never heartbeats', async () => {
    const { taskList, workers } = await scheduleActivity({ heartbeatTimeout: '1' });
    const work = await server.driver.pollActivity(workers);
    const task = await awaitDecision(server.driver, taskList);
    const started = single(task.events, 'ActivityTaskStarted');
    const timedOut = activityTimedOut(task.events);
    expect(timedOut.activityTaskTimedOutEventAttributes).toEqual({
      timeoutType: 'HEARTBEAT',
      scheduledEventId: single(task.events, 'ActivityTaskScheduled').eventId,
      startedEventId: started.eventId,
    });
    expectOnTime(timedOut, started, 1);
    await expectFault(heartbeat(work.taskToken, 'too late'), 'UnknownResourceFault');
    await server.driver.respond(task.taskToken, [decide.complete()]);
  });

  it('keeps a heartbeating worker alive, then times out with the last heartbeat details', async () => {
    const { execution, taskList, workers } = await scheduleActivity({ heartbeatTimeout: '1' });
    const work = await server.driver.pollActivity(workers);
    const startedAt = Date.now();
    let beats = 0;
    let lastBeat = { sentAt: 0, answeredAt: 0 };
    while (Date.now() - startedAt < 3_000) {
      await sleep(500);
      beats += 1;
      const sentAt = Date.now();
      expect(await heartbeat(work.taskToken, `beat ${beats}`)).toMatchObject({
        cancelRequested: false,
      });
      lastBeat = { sentAt, answeredAt: Date.now() };
    }
    // alive for 3 s: no timeout, the task is still open
    const alive = await server.driver.history(execution);
    expect(eventsOf(alive, 'ActivityTaskTimedOut')).toEqual([]);
    expect((await server.driver.describe(execution)).openCounts?.openActivityTasks).toBe(1);
    // the worker goes quiet
    const task = await awaitDecision(server.driver, taskList);
    const started = single(task.events, 'ActivityTaskStarted');
    const timedOut = activityTimedOut(task.events);
    expect(timedOut.activityTaskTimedOutEventAttributes).toEqual({
      timeoutType: 'HEARTBEAT',
      scheduledEventId: single(task.events, 'ActivityTaskScheduled').eventId,
      startedEventId: started.eventId,
      details: `beat ${beats}`,
    });
    expect(at(timedOut) - at(started)).toBeGreaterThan(3_000);
    expect(at(timedOut)).toBeGreaterThanOrEqual(lastBeat.sentAt + 1_000);
    expect(at(timedOut)).toBeLessThan(lastBeat.answeredAt + 1_000 + LATENESS_LIMIT_MS);
    await expectFault(complete(work.taskToken), 'UnknownResourceFault');
    await server.driver.respond(task.taskToken, [decide.complete()]);
  });
});

describe('NONE', () => {
  it('means no deadline: activities and decision tasks with NONE timeouts stay open', async () => {
    const queued = await scheduleActivity({});
    const running = await scheduleActivity({});
    await server.driver.pollActivity(running.workers);
    const held = await server.driver.start(wf, { taskStartToCloseTimeout: 'NONE' });
    await server.driver.pollDecision(held.taskList);
    await sleep(2_500);
    for (const { execution } of [queued, running, held]) {
      const history = await server.driver.history(execution);
      expect(eventsOf(history, 'ActivityTaskTimedOut')).toEqual([]);
      expect(eventsOf(history, 'DecisionTaskTimedOut')).toEqual([]);
    }
    expect((await server.driver.describe(queued.execution)).openCounts?.openActivityTasks).toBe(1);
    expect((await server.driver.describe(running.execution)).openCounts?.openActivityTasks).toBe(1);
    expect((await server.driver.describe(held.execution)).openCounts?.openDecisionTasks).toBe(1);
    expect(await pendingActivities(server.driver, queued.workers)).toBe(1);
  });
});

describe('decision task START_TO_CLOSE', () => {
  it('times out a task its decider never answers, schedules a new one; a late answer is UnknownResourceFault', async () => {
    const { execution, taskList } = await server.driver.start(wf, { taskStartToCloseTimeout: '1' });
    const first = await server.driver.pollDecision(taskList);
    const second = await awaitDecision(server.driver, taskList);
    expect(eventTypes(second.events)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
      'DecisionTaskTimedOut',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    const [, , started, timedOut, rescheduled] = second.events;
    expect(timedOut?.decisionTaskTimedOutEventAttributes).toEqual({
      timeoutType: 'START_TO_CLOSE',
      scheduledEventId: 2,
      startedEventId: 3,
    });
    expectOnTime(timedOut, started, 1);
    expect(at(rescheduled)).toBe(at(timedOut));
    expect(rescheduled?.decisionTaskScheduledEventAttributes).toMatchObject({
      taskList: { name: taskList },
      startToCloseTimeout: '1',
    });
    expect(second.startedEventId).toBe(6);
    await expectFault(
      server.driver.respond(first.taskToken, [decide.complete()]),
      'UnknownResourceFault',
    );
    await server.driver.respond(second.taskToken, [decide.complete('on time')]);
    const history = await server.driver.history(execution);
    expect(
      single(history, 'DecisionTaskCompleted').decisionTaskCompletedEventAttributes,
    ).toMatchObject({
      scheduledEventId: 5,
      startedEventId: 6,
    });
    expect((await server.driver.describe(execution)).executionInfo?.closeStatus).toBe('COMPLETED');
  });
});

describe('workflow executionStartToCloseTimeout', () => {
  it('closes the execution TIMED_OUT, drops everything open and invalidates every token', async () => {
    const child = uid('child');
    const { execution, taskList } = await server.driver.start(wf, {
      executionStartToCloseTimeout: '2',
      taskStartToCloseTimeout: '10',
      childPolicy: 'TERMINATE',
    });
    const workers = uid('workers');
    const childList = uid('child-deciders');
    const schedule = (activityId: string) =>
      decide.scheduleActivity({
        activityType: act,
        activityId,
        taskList: { name: workers },
        scheduleToStartTimeout: 'NONE',
        scheduleToCloseTimeout: 'NONE',
        startToCloseTimeout: 'NONE',
        heartbeatTimeout: 'NONE',
      });
    const first = await server.driver.pollDecision(taskList);
    await server.driver.respond(first.taskToken, [
      schedule('running'),
      schedule('queued'),
      decide.startTimer('t', '60'),
      {
        decisionType: 'StartChildWorkflowExecution',
        startChildWorkflowExecutionDecisionAttributes: {
          workflowType: wf,
          workflowId: child,
          taskList: { name: childList },
          executionStartToCloseTimeout: '600',
          childPolicy: 'ABANDON',
        },
      },
    ]);
    const work = await server.driver.pollActivity(workers);
    // a decision task (ChildWorkflowExecutionStarted) held by a decider when the execution times out
    const held = await awaitDecision(server.driver, taskList);
    const childRun = single(held.events, 'ChildWorkflowExecutionStarted')
      .childWorkflowExecutionStartedEventAttributes?.workflowExecution;

    const history = await awaitHistory(
      server.driver,
      execution,
      (e) => eventsOf(e, 'WorkflowExecutionTimedOut').length > 0,
    );
    const timedOut = history.at(-1);
    expect(timedOut?.eventType).toBe('WorkflowExecutionTimedOut');
    expect(timedOut?.workflowExecutionTimedOutEventAttributes).toEqual({
      timeoutType: 'START_TO_CLOSE',
      childPolicy: 'TERMINATE',
    });
    expectOnTime(timedOut, history[0], 2);
    expect(eventsOf(history, 'TimerFired')).toEqual([]);
    expect(eventsOf(history, 'ActivityTaskTimedOut')).toEqual([]);

    const described = await server.driver.describe(execution);
    expect(described.executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'TIMED_OUT',
    });
    expect(described.executionInfo?.closeTimestamp?.getTime()).toBe(at(timedOut));
    expect(described.openCounts).toMatchObject({
      openActivityTasks: 0,
      openDecisionTasks: 0,
      openTimers: 0,
      openLambdaFunctions: 0,
    });

    // every token is dead, the queued activity is withdrawn, the execution takes no signal
    await expectFault(
      server.driver.respond(held.taskToken, [decide.complete()]),
      'UnknownResourceFault',
    );
    await expectFault(complete(work.taskToken), 'UnknownResourceFault');
    await expectFault(heartbeat(work.taskToken), 'UnknownResourceFault');
    expect(await pendingActivities(server.driver, workers)).toBe(0);
    const poll = await server.swf.send(
      new PollForActivityTaskCommand({ domain, taskList: { name: workers } }),
    );
    expect(poll.taskToken).toBeUndefined();
    await expectFault(server.driver.signal(execution), 'UnknownResourceFault');
    await expectFault(
      server.swf.send(
        new RespondDecisionTaskCompletedCommand({ taskToken: first.taskToken, decisions: [] }),
      ),
      'UnknownResourceFault',
    );

    // the child policy TERMINATE ends the open child
    expect(childRun?.runId).toBeTruthy();
    const childHistory = await awaitHistory(
      server.driver,
      { workflowId: child, runId: childRun?.runId ?? '' },
      (e) => e.at(-1)?.eventType === 'WorkflowExecutionTerminated',
    );
    expect(childHistory.at(-1)?.workflowExecutionTerminatedEventAttributes).toMatchObject({
      cause: 'CHILD_POLICY_APPLIED',
      childPolicy: 'ABANDON',
    });
    // and the history is final
    await sleep(300);
    expect(await server.driver.history(execution)).toHaveLength(history.length);
  });
});
