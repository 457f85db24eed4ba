/**
 * Decision tasks through the official SDK: polling and its history pages,
 * priorities, the empty task, every decision that acts on the execution, UNHANDLED_DECISION and the
 * validation of a response.
 */
import {
  CountPendingActivityTasksCommand,
  CountPendingDecisionTasksCommand,
  type Decision,
  DeprecateActivityTypeCommand,
  DeprecateWorkflowTypeCommand,
  GetWorkflowExecutionHistoryCommand,
  PollForDecisionTaskCommand,
  RegisterActivityTypeCommand,
  RegisterWorkflowTypeCommand,
  RequestCancelWorkflowExecutionCommand,
  RespondActivityTaskCompletedCommand,
  RespondDecisionTaskCompletedCommand,
  SignalWorkflowExecutionCommand,
  StartWorkflowExecutionCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decide,
  eventIds,
  eventsOf,
  eventTypes,
  expectFault,
  type SwfDriver,
  single,
  uid,
} from '../support/decider.js';
import { serveDomain } from '../support/local.js';

let swf: SWFClient;
let driver: SwfDriver;
let close: () => Promise<void>;
const domain = 'decisions';
const wf = { name: 'wf', version: '1' };
const wf2 = { name: 'wf', version: '2' };
const wf3 = { name: 'wf', version: '3' };
const bareWf = { name: 'bare-wf', version: '1' };
const act = { name: 'act', version: '1' };
const bareAct = { name: 'bare-act', version: '1' };
const oldAct = { name: 'old-act', version: '1' };
const POLL_WAIT_MS = 1_000;

beforeAll(async () => {
  ({ swf, close, driver } = await serveDomain(domain, { polling: { maxWaitMs: POLL_WAIT_MS } }));
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...wf,
      defaultTaskList: { name: 'wf-defaults' },
      defaultExecutionStartToCloseTimeout: '3600',
      defaultTaskStartToCloseTimeout: '30',
      defaultChildPolicy: 'TERMINATE',
    }),
  );
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...wf2,
      defaultTaskList: { name: 'wf2-defaults' },
      defaultExecutionStartToCloseTimeout: '7200',
      defaultTaskStartToCloseTimeout: '40',
      defaultChildPolicy: 'ABANDON',
      defaultTaskPriority: '4',
    }),
  );
  await swf.send(
    new RegisterActivityTypeCommand({
      domain,
      ...act,
      defaultTaskList: { name: 'act-defaults' },
      defaultTaskScheduleToStartTimeout: '300',
      defaultTaskScheduleToCloseTimeout: '900',
      defaultTaskStartToCloseTimeout: '600',
      defaultTaskHeartbeatTimeout: 'NONE',
      defaultTaskPriority: '2',
    }),
  );
  await swf.send(new RegisterWorkflowTypeCommand({ domain, ...bareWf }));
  await swf.send(
    new RegisterWorkflowTypeCommand({ domain, ...wf3, defaultTaskList: { name: 'x' } }),
  );
  await swf.send(new DeprecateWorkflowTypeCommand({ domain, workflowType: wf3 }));
  await swf.send(new RegisterActivityTypeCommand({ domain, ...bareAct }));
  await swf.send(
    new RegisterActivityTypeCommand({ domain, ...oldAct, defaultTaskList: { name: 'x' } }),
  );
  await swf.send(new DeprecateActivityTypeCommand({ domain, activityType: oldAct }));
});
afterAll(() => close());

const countDecisions = async (taskList: string) =>
  (await swf.send(new CountPendingDecisionTasksCommand({ domain, taskList: { name: taskList } })))
    .count;

/** Starts an execution and answers its first decision task with `decisions`. */
async function startAndDecide(
  decisions: Decision[],
  options: Parameters<SwfDriver['start']>[1] = {},
) {
  const started = await driver.start(wf, options);
  const task = await driver.pollDecision(started.taskList);
  await driver.respond(task.taskToken, decisions);
  return started;
}

/** Signals the execution and polls the decision task that follows. */
async function nextTask(execution: { workflowId: string; runId: string }, taskList: string) {
  await driver.signal(execution);
  return driver.pollDecision(taskList);
}

describe('PollForDecisionTask', () => {
  it('returns the task with startedEventId, previousStartedEventId and the poller identity', async () => {
    const { execution, taskList } = await driver.start(wf, { input: 'in' });
    const first = await driver.pollDecision(taskList, { identity: 'decider-a' });
    expect(first.startedEventId).toBe(3);
    expect(first.previousStartedEventId).toBe(0);
    expect(first.workflowExecution).toEqual(execution);
    expect(first.workflowType).toEqual(wf);
    expect(first.nextPageToken).toBeUndefined();
    expect(eventTypes(first.events)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    expect(first.events[2]?.decisionTaskStartedEventAttributes).toEqual({
      identity: 'decider-a',
      scheduledEventId: 2,
    });
    // one decision task at a time: nothing else to hand out
    expect(await countDecisions(taskList)).toBe(0);
    await driver.respond(first.taskToken, []);

    const second = await nextTask(execution, taskList);
    expect(second.previousStartedEventId).toBe(3);
    expect(second.startedEventId).toBe(7);
    expect(eventTypes(second.events).slice(3)).toEqual([
      'DecisionTaskCompleted',
      'WorkflowExecutionSignaled',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    expect(second.events.at(-1)?.decisionTaskStartedEventAttributes).toEqual({
      scheduledEventId: 6,
    });
    await driver.respond(second.taskToken, [], {});
    const third = await nextTask(execution, taskList);
    expect(third.previousStartedEventId).toBe(7);
  });

  /** An execution whose second decision task sees 12 events. */
  async function twelveEvents() {
    const started = await startAndDecide(['m1', 'm2', 'm3', 'm4'].map((m) => decide.marker(m)));
    await driver.signal(started.execution, 'one');
    await driver.signal(started.execution, 'two');
    // 1 started, 2-4 task, 5-8 markers, 9 signal, 10 scheduled, 11 signal, then 12 DecisionTaskStarted
    return started;
  }

  it('pages the history with maximumPageSize, repeating the other members and the same token', async () => {
    const { execution, taskList } = await twelveEvents();
    const other = await driver.start(wf, { taskList: { name: taskList } });
    const first = await driver.pollDecision(taskList, { maximumPageSize: 5, identity: 'pager' });
    expect(first.workflowExecution).toEqual(execution);
    expect(first.startedEventId).toBe(12);
    expect(eventIds(first.events)).toEqual([1, 2, 3, 4, 5]);
    expect(first.nextPageToken).toBeTruthy();

    const ids = [...eventIds(first.events)];
    let token = first.nextPageToken;
    let pages = 1;
    while (token !== undefined) {
      const page = await swf.send(
        new PollForDecisionTaskCommand({
          domain,
          taskList: { name: taskList },
          identity: 'pager',
          maximumPageSize: 5,
          nextPageToken: token,
        }),
      );
      expect(page.taskToken).toBe(first.taskToken);
      expect(page.startedEventId).toBe(first.startedEventId);
      expect(page.previousStartedEventId).toBe(first.previousStartedEventId);
      expect(page.workflowExecution).toEqual(first.workflowExecution);
      expect(page.workflowType).toEqual(first.workflowType);
      ids.push(...eventIds(page.events));
      token = page.nextPageToken;
      pages += 1;
      expect(pages).toBeLessThan(5);
    }
    expect(pages).toBe(3);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    // the pages took no other task and recorded nothing
    expect(await countDecisions(taskList)).toBe(1);
    expect(eventIds(await driver.history(execution)).at(-1)).toBe(12);
    await driver.respond(first.taskToken, []);
    const otherTask = await driver.pollDecision(taskList);
    expect(otherTask.workflowExecution).toEqual(other.execution);
  });

  it('returns the history newest first with reverseOrder, also across pages', async () => {
    const { taskList } = await twelveEvents();
    const all = await driver.pollDecision(taskList, { reverseOrder: true });
    expect(eventIds(all.events)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(all.events[0]?.eventType).toBe('DecisionTaskStarted');
    await driver.respond(all.taskToken, []);

    const paged = await twelveEvents();
    const first = await driver.pollDecision(paged.taskList, {
      reverseOrder: true,
      maximumPageSize: 7,
    });
    expect(eventIds(first.events)).toEqual([12, 11, 10, 9, 8, 7, 6]);
    const second = await swf.send(
      new PollForDecisionTaskCommand({
        domain,
        taskList: { name: paged.taskList },
        reverseOrder: true,
        maximumPageSize: 7,
        nextPageToken: first.nextPageToken,
      }),
    );
    expect(eventIds(second.events)).toEqual([5, 4, 3, 2, 1]);
    expect(second.nextPageToken).toBeUndefined();
    expect(second.taskToken).toBe(first.taskToken);
  });

  it('starts at the previous DecisionTaskStarted with startAtPreviousStartedEvent', async () => {
    const { execution, taskList } = await driver.start(wf);
    const first = await driver.pollDecision(taskList, { startAtPreviousStartedEvent: true });
    // no previous task: the whole history
    expect(eventIds(first.events)).toEqual([1, 2, 3]);
    await driver.respond(first.taskToken, [decide.marker('m')]);
    await driver.signal(execution);
    const second = await driver.pollDecision(taskList, { startAtPreviousStartedEvent: true });
    expect(second.previousStartedEventId).toBe(3);
    expect(eventIds(second.events)).toEqual([3, 4, 5, 6, 7, 8]);
    expect(eventTypes(second.events)).toEqual([
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'MarkerRecorded',
      'WorkflowExecutionSignaled',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
  });

  it('hands out the highest taskPriority first, then the oldest', async () => {
    const taskList = uid('priorities');
    const low = await driver.start(wf, { taskList: { name: taskList }, taskPriority: '1' });
    const high = await driver.start(wf, { taskList: { name: taskList }, taskPriority: '10' });
    const negative = await driver.start(wf, { taskList: { name: taskList }, taskPriority: '-5' });
    const alsoHigh = await driver.start(wf, { taskList: { name: taskList }, taskPriority: '10' });
    const zero = await driver.start(wf, { taskList: { name: taskList } });
    const order: (string | undefined)[] = [];
    for (let i = 0; i < 5; i++) {
      const task = await driver.pollDecision(taskList);
      order.push(task.workflowExecution?.workflowId);
      await driver.respond(task.taskToken, [decide.complete()]);
    }
    expect(order).toEqual([high, alsoHigh, low, zero, negative].map((s) => s.execution.workflowId));
  });

  it('answers an empty task without taskToken after the poll timeout', async () => {
    const before = Date.now();
    const task = await swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: uid('empty') } }),
    );
    expect(Date.now() - before).toBeGreaterThanOrEqual(POLL_WAIT_MS - 100);
    expect(task.taskToken).toBeFalsy();
    expect(task.startedEventId).toBe(0);
    expect(task.previousStartedEventId ?? 0).toBe(0);
    expect(task.events ?? []).toEqual([]);
  });

  it('wakes a waiting poller as soon as a task is scheduled', async () => {
    const taskList = uid('wake');
    const poll = swf.send(new PollForDecisionTaskCommand({ domain, taskList: { name: taskList } }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const { execution } = await driver.start(wf, { taskList: { name: taskList } });
    const task = await poll;
    expect(task.taskToken).toBeTruthy();
    expect(task.workflowExecution).toEqual(execution);
  });

  it('keeps one decision task: triggers before the task starts add events, not tasks', async () => {
    const { execution, taskList } = await driver.start(wf, { taskPriority: '3' });
    await driver.signal(execution, 'a');
    await driver.signal(execution, 'b');
    const history = await driver.history(execution);
    expect(eventTypes(history)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'WorkflowExecutionSignaled',
      'WorkflowExecutionSignaled',
    ]);
    expect(history[1]?.decisionTaskScheduledEventAttributes).toEqual({
      taskList: { name: taskList },
      taskPriority: '3',
      startToCloseTimeout: '30',
      scheduleToStartTimeout: 'NONE',
    });
    expect(await countDecisions(taskList)).toBe(1);
    expect((await driver.describe(execution)).openCounts?.openDecisionTasks).toBe(1);
    const task = await driver.pollDecision(taskList);
    expect(eventTypes(task.events).slice(-3)).toEqual([
      'WorkflowExecutionSignaled',
      'WorkflowExecutionSignaled',
      'DecisionTaskStarted',
    ]);
  });

  it('schedules the owed decision task after DecisionTaskCompleted and the decision events', async () => {
    const { execution, taskList } = await driver.start(wf);
    const task = await driver.pollDecision(taskList);
    await driver.signal(execution, 'while-out-1');
    await driver.signal(execution, 'while-out-2');
    expect(await countDecisions(taskList)).toBe(0);
    await driver.respond(task.taskToken, [decide.marker('m'), decide.startTimer('t')]);
    expect(eventTypes(await driver.history(execution))).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
      'WorkflowExecutionSignaled',
      'WorkflowExecutionSignaled',
      'DecisionTaskCompleted',
      'MarkerRecorded',
      'TimerStarted',
      'DecisionTaskScheduled',
    ]);
    expect(await countDecisions(taskList)).toBe(1);
  });

  it('sends later decision tasks to the task list a response names', async () => {
    const { execution, taskList } = await driver.start(wf);
    const elsewhere = uid('override');
    const task = await driver.pollDecision(taskList);
    await driver.respond(task.taskToken, [], { taskList: { name: elsewhere } });
    expect(
      single(await driver.history(execution), 'DecisionTaskCompleted')
        .decisionTaskCompletedEventAttributes,
    ).toMatchObject({
      taskList: { name: elsewhere },
    });
    await driver.signal(execution);
    expect(await countDecisions(taskList)).toBe(0);
    expect(await countDecisions(elsewhere)).toBe(1);
    const next = await driver.pollDecision(elsewhere);
    expect(next.workflowExecution).toEqual(execution);
    expect(next.events.at(-2)?.decisionTaskScheduledEventAttributes?.taskList).toEqual({
      name: elsewhere,
    });
  });

  it('refuses a page token of PollForDecisionTask in GetWorkflowExecutionHistory', async () => {
    const { execution, taskList } = await twelveEvents();
    const first = await driver.pollDecision(taskList, { maximumPageSize: 5 });
    expect(first.nextPageToken).toBeTruthy();
    await expectFault(
      swf.send(
        new GetWorkflowExecutionHistoryCommand({
          domain,
          execution,
          maximumPageSize: 5,
          nextPageToken: first.nextPageToken,
        }),
      ),
      'ValidationException',
    );
  });

  it('refuses an unknown domain with UnknownResourceFault', async () => {
    await expectFault(
      swf.send(new PollForDecisionTaskCommand({ domain: 'nope', taskList: { name: 'x' } })),
      'UnknownResourceFault',
      'Unknown domain: nope',
    );
  });
});

describe('ScheduleActivityTask', () => {
  it('records ActivityTaskScheduled with values resolved from the decision, then the type', async () => {
    const workers = uid('workers');
    const { execution, taskList } = await startAndDecide([
      decide.scheduleActivity({
        activityType: act,
        activityId: 'defaults',
        input: 'i',
        control: 'c',
      }),
      decide.scheduleActivity({
        activityType: act,
        activityId: 'explicit',
        taskList: { name: workers },
        taskPriority: '9',
        scheduleToStartTimeout: '10',
        scheduleToCloseTimeout: 'NONE',
        startToCloseTimeout: '20',
        heartbeatTimeout: '5',
      }),
    ]);
    const history = await driver.history(execution);
    expect(eventTypes(history)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'ActivityTaskScheduled',
      'ActivityTaskScheduled',
    ]);
    expect(history[4]?.activityTaskScheduledEventAttributes).toEqual({
      activityType: act,
      activityId: 'defaults',
      input: 'i',
      control: 'c',
      taskList: { name: 'act-defaults' },
      taskPriority: '2',
      scheduleToStartTimeout: '300',
      scheduleToCloseTimeout: '900',
      startToCloseTimeout: '600',
      heartbeatTimeout: 'NONE',
      decisionTaskCompletedEventId: 4,
    });
    expect(history[5]?.activityTaskScheduledEventAttributes).toEqual({
      activityType: act,
      activityId: 'explicit',
      taskList: { name: workers },
      taskPriority: '9',
      scheduleToStartTimeout: '10',
      scheduleToCloseTimeout: 'NONE',
      startToCloseTimeout: '20',
      heartbeatTimeout: '5',
      decisionTaskCompletedEventId: 4,
    });
    // scheduling is the decider's own act: no decision task follows
    expect(await countDecisions(taskList)).toBe(0);
    expect(
      (
        await swf.send(
          new CountPendingActivityTasksCommand({ domain, taskList: { name: workers } }),
        )
      ).count,
    ).toBe(1);
  });

  it('records ScheduleActivityTaskFailed with each cause the API can reach, then a decision task', async () => {
    const list = { name: uid('workers') };
    const full = {
      taskList: list,
      scheduleToStartTimeout: '10',
      scheduleToCloseTimeout: '20',
      startToCloseTimeout: '10',
      heartbeatTimeout: '5',
    };
    const without = (key: keyof typeof full) => {
      const { [key]: _omitted, ...rest } = full;
      return rest;
    };
    const { execution, taskList } = await startAndDecide([
      decide.scheduleActivity({
        activityType: { name: 'nope', version: '1' },
        activityId: 'missing-type',
      }),
      decide.scheduleActivity({
        activityType: { name: 'act', version: '9' },
        activityId: 'missing-version',
      }),
      decide.scheduleActivity({ activityType: oldAct, activityId: 'deprecated', ...full }),
      decide.scheduleActivity({ activityType: act, activityId: 'dup' }),
      decide.scheduleActivity({ activityType: act, activityId: 'dup' }),
      decide.scheduleActivity({
        activityType: bareAct,
        activityId: 'no-list',
        ...without('taskList'),
      }),
      decide.scheduleActivity({
        activityType: bareAct,
        activityId: 'no-s2s',
        ...without('scheduleToStartTimeout'),
      }),
      decide.scheduleActivity({
        activityType: bareAct,
        activityId: 'no-s2c',
        ...without('scheduleToCloseTimeout'),
      }),
      decide.scheduleActivity({
        activityType: bareAct,
        activityId: 'no-st2c',
        ...without('startToCloseTimeout'),
      }),
      decide.scheduleActivity({
        activityType: bareAct,
        activityId: 'no-hb',
        ...without('heartbeatTimeout'),
      }),
      decide.scheduleActivity({ activityType: bareAct, activityId: 'all-given', ...full }),
    ]);
    const history = await driver.history(execution);
    const failures = eventsOf(history, 'ScheduleActivityTaskFailed').map(
      (e) => e.scheduleActivityTaskFailedEventAttributes,
    );
    expect(failures).toEqual([
      {
        activityType: { name: 'nope', version: '1' },
        activityId: 'missing-type',
        cause: 'ACTIVITY_TYPE_DOES_NOT_EXIST',
        decisionTaskCompletedEventId: 4,
      },
      {
        activityType: { name: 'act', version: '9' },
        activityId: 'missing-version',
        cause: 'ACTIVITY_TYPE_DOES_NOT_EXIST',
        decisionTaskCompletedEventId: 4,
      },
      {
        activityType: oldAct,
        activityId: 'deprecated',
        cause: 'ACTIVITY_TYPE_DEPRECATED',
        decisionTaskCompletedEventId: 4,
      },
      {
        activityType: act,
        activityId: 'dup',
        cause: 'ACTIVITY_ID_ALREADY_IN_USE',
        decisionTaskCompletedEventId: 4,
      },
      {
        activityType: bareAct,
        activityId: 'no-list',
        cause: 'DEFAULT_TASK_LIST_UNDEFINED',
        decisionTaskCompletedEventId: 4,
      },
      {
        activityType: bareAct,
        activityId: 'no-s2s',
        cause: 'DEFAULT_SCHEDULE_TO_START_TIMEOUT_UNDEFINED',
        decisionTaskCompletedEventId: 4,
      },
      {
        activityType: bareAct,
        activityId: 'no-s2c',
        cause: 'DEFAULT_SCHEDULE_TO_CLOSE_TIMEOUT_UNDEFINED',
        decisionTaskCompletedEventId: 4,
      },
      {
        activityType: bareAct,
        activityId: 'no-st2c',
        cause: 'DEFAULT_START_TO_CLOSE_TIMEOUT_UNDEFINED',
        decisionTaskCompletedEventId: 4,
      },
      {
        activityType: bareAct,
        activityId: 'no-hb',
        cause: 'DEFAULT_HEARTBEAT_TIMEOUT_UNDEFINED',
        decisionTaskCompletedEventId: 4,
      },
    ]);
    expect(
      eventsOf(history, 'ActivityTaskScheduled').map(
        (e) => e.activityTaskScheduledEventAttributes?.activityId,
      ),
    ).toEqual(['dup', 'all-given']);
    // the failures are news for the decider: one decision task after all decision events
    expect(history.at(-1)?.eventType).toBe('DecisionTaskScheduled');
    expect(eventsOf(history, 'DecisionTaskScheduled')).toHaveLength(2);
    expect(await countDecisions(taskList)).toBe(1);
  });

  it('allows an activityId again once the activity with that id has closed', async () => {
    const workers = uid('workers');
    const schedule = decide.scheduleActivity({
      activityType: act,
      activityId: 'same',
      taskList: { name: workers },
    });
    const { execution, taskList } = await startAndDecide([schedule]);
    const task = await driver.pollActivity(workers);
    await swf.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken }));
    const next = await driver.pollDecision(taskList);
    await driver.respond(next.taskToken, [schedule]);
    const history = await driver.history(execution);
    expect(eventsOf(history, 'ActivityTaskScheduled')).toHaveLength(2);
    expect(eventsOf(history, 'ScheduleActivityTaskFailed')).toHaveLength(0);
  });

  it('records OPEN_ACTIVITIES_LIMIT_EXCEEDED for the 1001st open activity', {
    timeout: 120_000,
  }, async () => {
    const workers = { name: uid('many') };
    const decisions = Array.from({ length: 1001 }, (_, i) =>
      decide.scheduleActivity({ activityType: act, activityId: `a${i}`, taskList: workers }),
    );
    const { execution } = await startAndDecide(decisions);
    const history = await driver.history(execution);
    expect(eventsOf(history, 'ActivityTaskScheduled')).toHaveLength(1000);
    const failed = single(history, 'ScheduleActivityTaskFailed');
    expect(failed.scheduleActivityTaskFailedEventAttributes).toMatchObject({
      activityId: 'a1000',
      cause: 'OPEN_ACTIVITIES_LIMIT_EXCEEDED',
    });
    expect((await driver.describe(execution)).openCounts?.openActivityTasks).toBe(1000);
  });
});

describe('RecordMarker', () => {
  it('records MarkerRecorded and schedules no decision task', async () => {
    const { execution, taskList } = await startAndDecide([
      decide.marker('customer elected special shipping offer'),
      decide.marker('counter', '3'),
    ]);
    const history = await driver.history(execution);
    expect(eventsOf(history, 'MarkerRecorded').map((e) => e.markerRecordedEventAttributes)).toEqual(
      [
        { markerName: 'customer elected special shipping offer', decisionTaskCompletedEventId: 4 },
        { markerName: 'counter', details: '3', decisionTaskCompletedEventId: 4 },
      ],
    );
    expect(history.at(-1)?.eventType).toBe('MarkerRecorded');
    expect(await countDecisions(taskList)).toBe(0);
    expect((await driver.describe(execution)).openCounts?.openDecisionTasks).toBe(0);
  });
});

describe('StartTimer and CancelTimer', () => {
  it('starts, refuses a duplicate id, cancels, refuses an unknown id and reuses a canceled id', async () => {
    const { execution, taskList } = await startAndDecide([decide.startTimer('t1', '3600', 'ctl')]);
    let history = await driver.history(execution);
    const started = single(history, 'TimerStarted');
    expect(started.timerStartedEventAttributes).toEqual({
      timerId: 't1',
      control: 'ctl',
      startToFireTimeout: '3600',
      decisionTaskCompletedEventId: 4,
    });
    expect(await countDecisions(taskList)).toBe(0);
    expect((await driver.describe(execution)).openCounts?.openTimers).toBe(1);

    const second = await nextTask(execution, taskList);
    await driver.respond(second.taskToken, [decide.startTimer('t1', '60')]);
    history = await driver.history(execution);
    const duplicate = single(history, 'StartTimerFailed');
    expect(duplicate.startTimerFailedEventAttributes).toEqual({
      timerId: 't1',
      cause: 'TIMER_ID_ALREADY_IN_USE',
      decisionTaskCompletedEventId:
        second.startedEventId !== undefined ? second.startedEventId + 1 : -1,
    });
    expect(history.at(-1)?.eventType).toBe('DecisionTaskScheduled');
    expect((await driver.describe(execution)).openCounts?.openTimers).toBe(1);

    const third = await driver.pollDecision(taskList);
    await driver.respond(third.taskToken, [decide.cancelTimer('t1'), decide.cancelTimer('t1')]);
    history = await driver.history(execution);
    const completedId = (third.startedEventId ?? 0) + 1;
    expect(single(history, 'TimerCanceled').timerCanceledEventAttributes).toEqual({
      timerId: 't1',
      startedEventId: started.eventId,
      decisionTaskCompletedEventId: completedId,
    });
    expect(single(history, 'CancelTimerFailed').cancelTimerFailedEventAttributes).toEqual({
      timerId: 't1',
      cause: 'TIMER_ID_UNKNOWN',
      decisionTaskCompletedEventId: completedId,
    });
    expect(eventTypes(history).slice(-4)).toEqual([
      'DecisionTaskCompleted',
      'TimerCanceled',
      'CancelTimerFailed',
      'DecisionTaskScheduled',
    ]);
    expect((await driver.describe(execution)).openCounts?.openTimers).toBe(0);

    const fourth = await driver.pollDecision(taskList);
    await driver.respond(fourth.taskToken, [
      decide.startTimer('t1', '30'),
      decide.startTimer('t2', '3600'),
    ]);
    history = await driver.history(execution);
    expect(eventsOf(history, 'TimerStarted')).toHaveLength(3);
    expect((await driver.describe(execution)).openCounts?.openTimers).toBe(2);
    expect(eventTypes(history).at(-1)).toBe('TimerStarted');
  });
});

describe('close decisions', () => {
  it('CompleteWorkflowExecution closes COMPLETED with the result', async () => {
    const { execution, taskList } = await startAndDecide([decide.complete('the result')]);
    const history = await driver.history(execution);
    expect(history.at(-1)?.eventType).toBe('WorkflowExecutionCompleted');
    expect(history.at(-1)?.workflowExecutionCompletedEventAttributes).toEqual({
      result: 'the result',
      decisionTaskCompletedEventId: 4,
    });
    expect((await driver.describe(execution)).executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'COMPLETED',
    });
    expect(await countDecisions(taskList)).toBe(0);
    await expectFault(driver.signal(execution), 'UnknownResourceFault');
  });

  it('FailWorkflowExecution closes FAILED with reason and details', async () => {
    const { execution } = await startAndDecide([decide.fail('broken', 'stack')]);
    const history = await driver.history(execution);
    expect(history.at(-1)?.workflowExecutionFailedEventAttributes).toEqual({
      reason: 'broken',
      details: 'stack',
      decisionTaskCompletedEventId: 4,
    });
    expect((await driver.describe(execution)).executionInfo?.closeStatus).toBe('FAILED');
  });

  it('CancelWorkflowExecution closes CANCELED with the details, with or without a cancel request', async () => {
    const { execution } = await startAndDecide([decide.cancel('gone')]);
    const history = await driver.history(execution);
    expect(history.at(-1)?.workflowExecutionCanceledEventAttributes).toEqual({
      details: 'gone',
      decisionTaskCompletedEventId: 4,
    });
    expect((await driver.describe(execution)).executionInfo?.closeStatus).toBe('CANCELED');
  });

  it('a close decision abandons open activities and timers; their tokens die', async () => {
    const workers = uid('workers');
    const { execution, taskList } = await startAndDecide([
      decide.scheduleActivity({ activityType: act, activityId: 'a', taskList: { name: workers } }),
      decide.scheduleActivity({ activityType: act, activityId: 'b', taskList: { name: workers } }),
      decide.startTimer('t'),
    ]);
    const running = await driver.pollActivity(workers);
    const task = await nextTask(execution, taskList);
    await driver.respond(task.taskToken, [decide.complete()]);
    expect((await driver.describe(execution)).openCounts).toMatchObject({
      openActivityTasks: 0,
      openTimers: 0,
      openDecisionTasks: 0,
    });
    await expectFault(
      swf.send(new RespondActivityTaskCompletedCommand({ taskToken: running.taskToken })),
      'UnknownResourceFault',
    );
    expect(
      (
        await swf.send(
          new CountPendingActivityTasksCommand({ domain, taskList: { name: workers } }),
        )
      ).count,
    ).toBe(0);
  });
});

describe('ContinueAsNewWorkflowExecution', () => {
  it('closes the run CONTINUED_AS_NEW and starts a new run that takes the workflowId', async () => {
    const { execution, taskList } = await driver.start(wf, {
      taskStartToCloseTimeout: '99',
      tagList: ['old-tag'],
    });
    const newList = uid('continued');
    const task = await driver.pollDecision(taskList);
    await driver.respond(task.taskToken, [
      decide.continueAsNew({ input: 'next', taskList: { name: newList }, tagList: ['loop'] }),
    ]);

    const old = await driver.history(execution);
    const continued = old.at(-1);
    expect(continued?.eventType).toBe('WorkflowExecutionContinuedAsNew');
    const attributes = continued?.workflowExecutionContinuedAsNewEventAttributes;
    const newRunId = attributes?.newExecutionRunId ?? '';
    expect(newRunId).toBeTruthy();
    expect(newRunId).not.toBe(execution.runId);
    // values not given come from the type's defaults, not from the old run
    expect(attributes).toMatchObject({
      input: 'next',
      decisionTaskCompletedEventId: 4,
      taskList: { name: newList },
      taskStartToCloseTimeout: '30',
      executionStartToCloseTimeout: '3600',
      childPolicy: 'TERMINATE',
      tagList: ['loop'],
      workflowType: wf,
    });
    expect((await driver.describe(execution)).executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'CONTINUED_AS_NEW',
    });

    const next = { workflowId: execution.workflowId, runId: newRunId };
    const nextDetail = await driver.describe(next);
    expect(nextDetail.executionInfo).toMatchObject({
      executionStatus: 'OPEN',
      workflowType: wf,
      tagList: ['loop'],
    });
    expect(nextDetail.executionConfiguration).toMatchObject({
      taskList: { name: newList },
      taskStartToCloseTimeout: '30',
    });
    const nextHistory = await driver.history(next);
    expect(eventTypes(nextHistory)).toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled']);
    expect(nextHistory[0]?.workflowExecutionStartedEventAttributes).toMatchObject({
      input: 'next',
      continuedExecutionRunId: execution.runId,
      taskList: { name: newList },
      tagList: ['loop'],
    });
    expect(await countDecisions(newList)).toBe(1);
    expect(await countDecisions(taskList)).toBe(0);

    // a signal without runId reaches the new run
    await swf.send(
      new SignalWorkflowExecutionCommand({
        domain,
        workflowId: execution.workflowId,
        signalName: 'hello',
      }),
    );
    expect(eventsOf(await driver.history(next), 'WorkflowExecutionSignaled')).toHaveLength(1);
    expect(eventsOf(await driver.history(execution), 'WorkflowExecutionSignaled')).toHaveLength(0);
    await expectFault(
      swf.send(
        new StartWorkflowExecutionCommand({
          domain,
          workflowId: execution.workflowId,
          workflowType: wf,
        }),
      ),
      'WorkflowExecutionAlreadyStartedFault',
    );

    const first = await driver.pollDecision(newList);
    expect(first.workflowExecution).toEqual(next);
    expect(first.previousStartedEventId).toBe(0);
    expect(eventTypes(first.events)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'WorkflowExecutionSignaled',
      'DecisionTaskStarted',
    ]);
    await driver.respond(first.taskToken, [decide.complete()]);
    expect((await driver.describe(next)).executionInfo?.closeStatus).toBe('COMPLETED');
  });

  it('takes NONE for the new run’s execution timeout, as SWF documents for this decision', async () => {
    const { execution, taskList } = await driver.start(wf);
    const newList = uid('unlimited');
    const task = await driver.pollDecision(taskList);
    await driver.respond(task.taskToken, [
      decide.continueAsNew({ executionStartToCloseTimeout: 'NONE', taskList: { name: newList } }),
    ]);
    const continued = single(await driver.history(execution), 'WorkflowExecutionContinuedAsNew');
    const attributes = continued.workflowExecutionContinuedAsNewEventAttributes;
    expect(attributes?.executionStartToCloseTimeout).toBe('NONE');
    const next = await driver.pollDecision(newList);
    expect(
      next.events[0]?.workflowExecutionStartedEventAttributes?.executionStartToCloseTimeout,
    ).toBe('NONE');
    const run = { workflowId: execution.workflowId, runId: attributes?.newExecutionRunId ?? '' };
    expect((await driver.describe(run)).executionConfiguration?.executionStartToCloseTimeout).toBe(
      'NONE',
    );
  });

  it('continues as another version of the type with workflowTypeVersion', async () => {
    const { execution, taskList } = await driver.start(wf);
    const newList = uid('v2');
    const task = await driver.pollDecision(taskList);
    await driver.respond(task.taskToken, [
      decide.continueAsNew({ workflowTypeVersion: '2', taskList: { name: newList } }),
    ]);
    const continued = single(await driver.history(execution), 'WorkflowExecutionContinuedAsNew');
    const attributes = continued.workflowExecutionContinuedAsNewEventAttributes;
    expect(attributes).toMatchObject({
      workflowType: wf2,
      executionStartToCloseTimeout: '7200',
      taskStartToCloseTimeout: '40',
      childPolicy: 'ABANDON',
      taskPriority: '4',
    });
    const next = await driver.pollDecision(newList);
    expect(next.workflowType).toEqual(wf2);
    expect(next.workflowExecution?.runId).toBe(attributes?.newExecutionRunId);
  });

  it('records ContinueAsNewWorkflowExecutionFailed for an unknown version and keeps the run open', async () => {
    const { execution, taskList } = await driver.start(wf);
    const task = await driver.pollDecision(taskList);
    await driver.respond(task.taskToken, [decide.continueAsNew({ workflowTypeVersion: '99' })]);
    const history = await driver.history(execution);
    expect(
      single(history, 'ContinueAsNewWorkflowExecutionFailed')
        .continueAsNewWorkflowExecutionFailedEventAttributes,
    ).toEqual({
      cause: 'WORKFLOW_TYPE_DOES_NOT_EXIST',
      decisionTaskCompletedEventId: 4,
    });
    expect(history.at(-1)?.eventType).toBe('DecisionTaskScheduled');
    expect((await driver.describe(execution)).executionInfo?.executionStatus).toBe('OPEN');
  });
});

describe('ContinueAsNewWorkflowExecution failures', () => {
  const config = {
    taskList: { name: 'bare-continued' },
    executionStartToCloseTimeout: '100',
    taskStartToCloseTimeout: '10',
    childPolicy: 'ABANDON' as const,
  };
  const causes = {
    taskList: 'DEFAULT_TASK_LIST_UNDEFINED',
    executionStartToCloseTimeout: 'DEFAULT_EXECUTION_START_TO_CLOSE_TIMEOUT_UNDEFINED',
    taskStartToCloseTimeout: 'DEFAULT_TASK_START_TO_CLOSE_TIMEOUT_UNDEFINED',
    childPolicy: 'DEFAULT_CHILD_POLICY_UNDEFINED',
  } as const;

  it.each(Object.keys(causes) as (keyof typeof causes)[])(
    'records %s missing (no type default) as its DEFAULT_*_UNDEFINED cause',
    async (field) => {
      const { execution, taskList } = await driver.start(bareWf, {
        ...config,
        taskList: { name: uid('bare') },
      });
      const task = await driver.pollDecision(taskList);
      const { [field]: _omitted, ...rest } = config;
      await driver.respond(task.taskToken, [decide.continueAsNew(rest)]);
      const history = await driver.history(execution);
      expect(
        single(history, 'ContinueAsNewWorkflowExecutionFailed')
          .continueAsNewWorkflowExecutionFailedEventAttributes,
      ).toEqual({
        cause: causes[field],
        decisionTaskCompletedEventId: 4,
      });
      expect(history.at(-1)?.eventType).toBe('DecisionTaskScheduled');
      expect((await driver.describe(execution)).executionInfo?.executionStatus).toBe('OPEN');
    },
  );

  it('records WORKFLOW_TYPE_DEPRECATED for a deprecated version', async () => {
    const { execution, taskList } = await driver.start(wf);
    const task = await driver.pollDecision(taskList);
    await driver.respond(task.taskToken, [decide.continueAsNew({ workflowTypeVersion: '3' })]);
    expect(
      single(await driver.history(execution), 'ContinueAsNewWorkflowExecutionFailed')
        .continueAsNewWorkflowExecutionFailedEventAttributes?.cause,
    ).toBe('WORKFLOW_TYPE_DEPRECATED');
  });
});

describe('UNHANDLED_DECISION', () => {
  it.each([
    ['CompleteWorkflowExecution', decide.complete('r'), 'CompleteWorkflowExecutionFailed'],
    ['FailWorkflowExecution', decide.fail('r'), 'FailWorkflowExecutionFailed'],
    ['CancelWorkflowExecution', decide.cancel('r'), 'CancelWorkflowExecutionFailed'],
    [
      'ContinueAsNewWorkflowExecution',
      decide.continueAsNew({}),
      'ContinueAsNewWorkflowExecutionFailed',
    ],
  ] as const)(
    'refuses %s when a signal arrived while the task was out',
    async (_name, close, failed) => {
      const { execution, taskList } = await driver.start(wf);
      const task = await driver.pollDecision(taskList);
      await driver.signal(execution, 'late');
      await driver.respond(task.taskToken, [decide.marker('before-close'), close]);

      const history = await driver.history(execution);
      expect(eventTypes(history)).toEqual([
        'WorkflowExecutionStarted',
        'DecisionTaskScheduled',
        'DecisionTaskStarted',
        'WorkflowExecutionSignaled',
        'DecisionTaskCompleted',
        'MarkerRecorded',
        failed,
        'DecisionTaskScheduled',
      ]);
      const event = history[6];
      const attributes =
        event?.completeWorkflowExecutionFailedEventAttributes ??
        event?.failWorkflowExecutionFailedEventAttributes ??
        event?.cancelWorkflowExecutionFailedEventAttributes ??
        event?.continueAsNewWorkflowExecutionFailedEventAttributes;
      expect(attributes).toEqual({ cause: 'UNHANDLED_DECISION', decisionTaskCompletedEventId: 5 });
      expect((await driver.describe(execution)).executionInfo?.executionStatus).toBe('OPEN');

      // the next task shows the signal; closing now works
      const next = await driver.pollDecision(taskList);
      expect(next.previousStartedEventId).toBe(3);
      expect(eventTypes(next.events)).toContain('WorkflowExecutionSignaled');
      await driver.respond(next.taskToken, [decide.complete('now')]);
      expect((await driver.describe(execution)).executionInfo?.closeStatus).toBe('COMPLETED');
    },
  );

  it('refuses the close when an activity completed while the task was out', async () => {
    const workers = uid('workers');
    const { execution, taskList } = await startAndDecide([
      decide.scheduleActivity({ activityType: act, activityId: 'a', taskList: { name: workers } }),
    ]);
    const activity = await driver.pollActivity(workers);
    const task = await nextTask(execution, taskList);
    await swf.send(
      new RespondActivityTaskCompletedCommand({ taskToken: activity.taskToken, result: 'late' }),
    );
    await driver.respond(task.taskToken, [decide.complete()]);
    const history = await driver.history(execution);
    expect(eventTypes(history).slice(-3)).toEqual([
      'DecisionTaskCompleted',
      'CompleteWorkflowExecutionFailed',
      'DecisionTaskScheduled',
    ]);
    expect((await driver.describe(execution)).executionInfo?.executionStatus).toBe('OPEN');
  });

  it('refuses CancelWorkflowExecution when a cancel request arrived while the task was out', async () => {
    const { execution, taskList } = await driver.start(wf);
    const task = await driver.pollDecision(taskList);
    await swf.send(
      new RequestCancelWorkflowExecutionCommand({
        domain,
        workflowId: execution.workflowId,
        runId: execution.runId,
      }),
    );
    await driver.respond(task.taskToken, [decide.cancel()]);
    const history = await driver.history(execution);
    expect(
      single(history, 'CancelWorkflowExecutionFailed').cancelWorkflowExecutionFailedEventAttributes
        ?.cause,
    ).toBe('UNHANDLED_DECISION');
    const next = await driver.pollDecision(taskList);
    expect(eventTypes(next.events)).toContain('WorkflowExecutionCancelRequested');
    await driver.respond(next.taskToken, [decide.cancel('now')]);
    expect((await driver.describe(execution)).executionInfo).toMatchObject({
      closeStatus: 'CANCELED',
      cancelRequested: true,
    });
  });

  it('does not count events that schedule no decision task (ActivityTaskStarted)', async () => {
    const workers = uid('workers');
    const { execution, taskList } = await startAndDecide([
      decide.scheduleActivity({ activityType: act, activityId: 'a', taskList: { name: workers } }),
    ]);
    const task = await nextTask(execution, taskList);
    await driver.pollActivity(workers);
    await driver.respond(task.taskToken, [decide.complete()]);
    expect((await driver.describe(execution)).executionInfo?.closeStatus).toBe('COMPLETED');
  });
});

describe('validation of RespondDecisionTaskCompleted', () => {
  it.each([
    ['CompleteWorkflowExecution', decide.complete()],
    ['ContinueAsNewWorkflowExecution', decide.continueAsNew({})],
  ] as const)(
    'refuses %s before another decision; records nothing; the token stays usable',
    async (_n, close) => {
      const { execution, taskList } = await driver.start(wf);
      const task = await driver.pollDecision(taskList);
      const before = await driver.history(execution);
      await expectFault(
        driver.respond(task.taskToken, [close, decide.marker('after')]),
        'ValidationException',
        /Close must be last decision in list/,
      );
      expect(await driver.history(execution)).toEqual(before);
      await driver.respond(task.taskToken, [decide.marker('after'), decide.complete('ok')]);
      expect((await driver.describe(execution)).executionInfo?.closeStatus).toBe('COMPLETED');
    },
  );

  it('answers a used token UnknownResourceFault before judging its decisions', async () => {
    const { execution, taskList } = await driver.start(wf);
    const task = await driver.pollDecision(taskList);
    await driver.respond(task.taskToken, [decide.marker('once')]);
    const before = await driver.history(execution);
    await expectFault(
      driver.respond(task.taskToken, [decide.complete(), decide.marker('after')]),
      'UnknownResourceFault',
      /Unknown decision task/,
    );
    expect(await driver.history(execution)).toEqual(before);
  });

  it.each([
    ['ScheduleActivityTask'],
    ['RequestCancelActivityTask'],
    ['RecordMarker'],
    ['StartTimer'],
    ['CancelTimer'],
  ] as const)(
    'refuses a %s decision without its attributes; the token stays usable',
    async (decisionType) => {
      const { execution, taskList } = await driver.start(wf);
      const task = await driver.pollDecision(taskList);
      const before = await driver.history(execution);
      await expectFault(
        driver.respond(task.taskToken, [decide.marker('ok'), { decisionType }]),
        'ValidationException',
        /decisions\.2\.member/,
      );
      expect(await driver.history(execution)).toEqual(before);
      await driver.respond(task.taskToken, []);
      expect(eventTypes(await driver.history(execution)).at(-1)).toBe('DecisionTaskCompleted');
    },
  );

  it('refuses an unknown decisionType with ValidationException', async () => {
    const { execution, taskList } = await driver.start(wf);
    const task = await driver.pollDecision(taskList);
    const before = await driver.history(execution);
    await expectFault(
      swf.send(
        new RespondDecisionTaskCompletedCommand({
          taskToken: task.taskToken,
          decisions: [{ decisionType: 'LaunchRocket' as Decision['decisionType'] }],
        }),
      ),
      'ValidationException',
      /decisionType/,
    );
    expect(await driver.history(execution)).toEqual(before);
  });

  it('refuses attributes that break their constraints, naming the member', async () => {
    const { execution, taskList } = await driver.start(wf);
    const task = await driver.pollDecision(taskList);
    const before = await driver.history(execution);
    await expectFault(
      driver.respond(task.taskToken, [
        {
          decisionType: 'StartTimer',
          startTimerDecisionAttributes: { timerId: 't', startToFireTimeout: '' },
        },
      ]),
      'ValidationException',
      /decisions\.1\.member\.startTimerDecisionAttributes\.startToFireTimeout/,
    );
    await expectFault(
      driver.respond(task.taskToken, [
        decide.scheduleActivity({ activityType: act, activityId: 'x'.repeat(257) }),
      ]),
      'ValidationException',
      /activityId/,
    );
    expect(await driver.history(execution)).toEqual(before);
  });
});

describe('decision task tokens', () => {
  it('refuses a token used twice with UnknownResourceFault', async () => {
    const { execution, taskList } = await driver.start(wf);
    const task = await driver.pollDecision(taskList);
    await driver.respond(task.taskToken, [decide.marker('once')]);
    const after = await driver.history(execution);
    await expectFault(
      driver.respond(task.taskToken, [decide.marker('twice')]),
      'UnknownResourceFault',
    );
    expect(await driver.history(execution)).toEqual(after);
    // an old token does not open the next task either
    const next = await nextTask(execution, taskList);
    await expectFault(driver.respond(task.taskToken, []), 'UnknownResourceFault');
    await driver.respond(next.taskToken, []);
  });

  it('refuses a tampered token with UnknownResourceFault', async () => {
    const { taskList } = await driver.start(wf);
    const task = await driver.pollDecision(taskList);
    const middle = Math.floor(task.taskToken.length / 2);
    const flipped = task.taskToken[middle] === 'A' ? 'B' : 'A';
    const tampered = `${task.taskToken.slice(0, middle)}${flipped}${task.taskToken.slice(middle + 1)}`;
    await expectFault(driver.respond(tampered, []), 'UnknownResourceFault');
    await driver.respond(task.taskToken, []);
  });

  it('refuses the token of a task whose response closed the execution', async () => {
    const { execution, taskList } = await driver.start(wf);
    const task = await driver.pollDecision(taskList);
    await swf.send(
      new RespondDecisionTaskCompletedCommand({
        taskToken: task.taskToken,
        decisions: [decide.complete()],
      }),
    );
    await expectFault(driver.respond(task.taskToken, []), 'UnknownResourceFault');
    expect((await driver.describe(execution)).executionInfo?.closeStatus).toBe('COMPLETED');
  });
});
