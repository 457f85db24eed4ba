/**
 * The decisions that schedule work, through the official SDK: ScheduleActivityTask (values resolved
 * from the decision then the type, and each failure cause), RecordMarker, StartTimer and CancelTimer.
 */
import {
  CountPendingActivityTasksCommand,
  RespondActivityTaskCompletedCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { decide, eventsOf, eventTypes, single, uid } from '../support/decider.js';
import {
  act,
  bareAct,
  countDecisions,
  domain,
  nextTask,
  oldAct,
  serveDecisionTasks,
  startAndDecide,
} from '../support/decision-tasks.js';
import { servedForFile } from '../support/local.js';

const server = servedForFile(serveDecisionTasks);

describe('ScheduleActivityTask', () => {
  it('records ActivityTaskScheduled with values resolved from the decision, then the type', async () => {
    const workers = uid('workers');
    const { execution, taskList } = await startAndDecide(server.driver, [
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
    const history = await server.driver.history(execution);
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
    expect(await countDecisions(server.swf, taskList)).toBe(0);
    expect(
      (
        await server.swf.send(
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
    const { execution, taskList } = await startAndDecide(server.driver, [
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
    const history = await server.driver.history(execution);
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
    expect(await countDecisions(server.swf, taskList)).toBe(1);
  });

  it('allows an activityId again once the activity with that id has closed', async () => {
    const workers = uid('workers');
    const schedule = decide.scheduleActivity({
      activityType: act,
      activityId: 'same',
      taskList: { name: workers },
    });
    const { execution, taskList } = await startAndDecide(server.driver, [schedule]);
    const task = await server.driver.pollActivity(workers);
    await server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken }));
    const next = await server.driver.pollDecision(taskList);
    await server.driver.respond(next.taskToken, [schedule]);
    const history = await server.driver.history(execution);
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
    const { execution } = await startAndDecide(server.driver, decisions);
    const history = await server.driver.history(execution);
    expect(eventsOf(history, 'ActivityTaskScheduled')).toHaveLength(1000);
    const failed = single(history, 'ScheduleActivityTaskFailed');
    expect(failed.scheduleActivityTaskFailedEventAttributes).toMatchObject({
      activityId: 'a1000',
      cause: 'OPEN_ACTIVITIES_LIMIT_EXCEEDED',
    });
    expect((await server.driver.describe(execution)).openCounts?.openActivityTasks).toBe(1000);
  });
});

describe('RecordMarker', () => {
  it('records MarkerRecorded and schedules no decision task', async () => {
    const { execution, taskList } = await startAndDecide(server.driver, [
      decide.marker('customer elected special shipping offer'),
      decide.marker('counter', '3'),
    ]);
    const history = await server.driver.history(execution);
    expect(eventsOf(history, 'MarkerRecorded').map((e) => e.markerRecordedEventAttributes)).toEqual(
      [
        { markerName: 'customer elected special shipping offer', decisionTaskCompletedEventId: 4 },
        { markerName: 'counter', details: '3', decisionTaskCompletedEventId: 4 },
      ],
    );
    expect(history.at(-1)?.eventType).toBe('MarkerRecorded');
    expect(await countDecisions(server.swf, taskList)).toBe(0);
    expect((await server.driver.describe(execution)).openCounts?.openDecisionTasks).toBe(0);
  });
});

describe('StartTimer and CancelTimer', () => {
  it('starts, refuses a duplicate id, cancels, refuses an unknown id and reuses a canceled id', async () => {
    const { execution, taskList } = await startAndDecide(server.driver, [
      decide.startTimer('t1', '3600', 'ctl'),
    ]);
    let history = await server.driver.history(execution);
    const started = single(history, 'TimerStarted');
    expect(started.timerStartedEventAttributes).toEqual({
      timerId: 't1',
      control: 'ctl',
      startToFireTimeout: '3600',
      decisionTaskCompletedEventId: 4,
    });
    expect(await countDecisions(server.swf, taskList)).toBe(0);
    expect((await server.driver.describe(execution)).openCounts?.openTimers).toBe(1);

    const second = await nextTask(server.driver, execution, taskList);
    await server.driver.respond(second.taskToken, [decide.startTimer('t1', '60')]);
    history = await server.driver.history(execution);
    const duplicate = single(history, 'StartTimerFailed');
    expect(duplicate.startTimerFailedEventAttributes).toEqual({
      timerId: 't1',
      cause: 'TIMER_ID_ALREADY_IN_USE',
      decisionTaskCompletedEventId:
        second.startedEventId !== undefined ? second.startedEventId + 1 : -1,
    });
    expect(history.at(-1)?.eventType).toBe('DecisionTaskScheduled');
    expect((await server.driver.describe(execution)).openCounts?.openTimers).toBe(1);

    const third = await server.driver.pollDecision(taskList);
    await server.driver.respond(third.taskToken, [
      decide.cancelTimer('t1'),
      decide.cancelTimer('t1'),
    ]);
    history = await server.driver.history(execution);
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
    expect((await server.driver.describe(execution)).openCounts?.openTimers).toBe(0);

    const fourth = await server.driver.pollDecision(taskList);
    await server.driver.respond(fourth.taskToken, [
      decide.startTimer('t1', '30'),
      decide.startTimer('t2', '3600'),
    ]);
    history = await server.driver.history(execution);
    expect(eventsOf(history, 'TimerStarted')).toHaveLength(3);
    expect((await server.driver.describe(execution)).openCounts?.openTimers).toBe(2);
    expect(eventTypes(history).at(-1)).toBe('TimerStarted');
  });
});
