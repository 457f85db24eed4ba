import { describe, expect, it } from 'vitest';
import { executionLimits } from '../../../lib/core/limits.js';
import { queueChanges } from '../../../lib/core/task-queue.js';
import {
  cancelActivity,
  eventTypes,
  onlyEvent,
  RunDriver,
  scheduleActivity,
  scheduleBareActivity,
} from '../../support/core-builders.js';

describe('ScheduleActivityTask', () => {
  it('records ActivityTaskScheduled with the type defaults resolved and the completing event id', () => {
    const run = new RunDriver();

    const events = run.decide([scheduleActivity('a1', { input: 'in', control: 'ctl' })]);

    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    const scheduled = onlyEvent(events, 'ActivityTaskScheduled');
    expect(scheduled.attributes).toEqual({
      activityType: { name: 'full', version: '1' },
      activityId: 'a1',
      input: 'in',
      control: 'ctl',
      taskList: { name: 'activity-default-list' },
      scheduleToStartTimeout: '11',
      scheduleToCloseTimeout: '22',
      startToCloseTimeout: '33',
      heartbeatTimeout: '44',
      taskPriority: '7',
      decisionTaskCompletedEventId: completed.eventId,
    });
  });

  it('prefers the values the decision gives over the type defaults', () => {
    const run = new RunDriver();

    const events = run.decide([
      scheduleActivity('a1', {
        taskList: { name: 'mine' },
        scheduleToStartTimeout: '1',
        scheduleToCloseTimeout: 'NONE',
        startToCloseTimeout: '3',
        heartbeatTimeout: '4',
        taskPriority: '-2',
      }),
    ]);

    expect(onlyEvent(events, 'ActivityTaskScheduled').attributes).toMatchObject({
      taskList: { name: 'mine' },
      scheduleToStartTimeout: '1',
      scheduleToCloseTimeout: 'NONE',
      startToCloseTimeout: '3',
      heartbeatTimeout: '4',
      taskPriority: '-2',
    });
  });

  it('records taskPriority 0 when neither the decision nor the type gives one', () => {
    const run = new RunDriver();

    const events = run.decide([scheduleBareActivity('a1')]);

    expect(onlyEvent(events, 'ActivityTaskScheduled').attributes.taskPriority).toBe('0');
  });

  it('schedules no decision task and tracks the activity as open and queued', () => {
    const run = new RunDriver();
    const before = run.state;

    const events = run.decide([scheduleActivity('a1')]);

    expect(eventTypes(events)).toEqual([
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'ActivityTaskScheduled',
    ]);
    const scheduled = onlyEvent(events, 'ActivityTaskScheduled');
    expect(run.state.decisionTask).toEqual({ status: 'none' });
    expect(run.state.activities.a1).toMatchObject({
      scheduledEventId: scheduled.eventId,
      taskList: 'activity-default-list',
      taskPriority: '7',
      timeouts: {
        scheduleToStart: '11',
        scheduleToClose: '22',
        startToClose: '33',
        heartbeat: '44',
      },
    });
    expect(run.state.latestActivityTaskTimestamp).toBe(scheduled.eventTimestamp);
    expect(queueChanges(before, run.state).add).toContainEqual(
      expect.objectContaining({ kind: 'activity', scheduledEventId: scheduled.eventId }),
    );
  });

  it.each([
    [
      'ACTIVITY_TYPE_DOES_NOT_EXIST',
      scheduleActivity('a1', { activityType: { name: 'nope', version: '1' } }),
    ],
    [
      'ACTIVITY_TYPE_DEPRECATED',
      scheduleActivity('a1', { activityType: { name: 'deprecated', version: '1' } }),
    ],
    ['DEFAULT_TASK_LIST_UNDEFINED', scheduleBareActivity('a1', ['taskList'])],
    [
      'DEFAULT_SCHEDULE_TO_START_TIMEOUT_UNDEFINED',
      scheduleBareActivity('a1', ['scheduleToStartTimeout']),
    ],
    [
      'DEFAULT_SCHEDULE_TO_CLOSE_TIMEOUT_UNDEFINED',
      scheduleBareActivity('a1', ['scheduleToCloseTimeout']),
    ],
    [
      'DEFAULT_START_TO_CLOSE_TIMEOUT_UNDEFINED',
      scheduleBareActivity('a1', ['startToCloseTimeout']),
    ],
    ['DEFAULT_HEARTBEAT_TIMEOUT_UNDEFINED', scheduleBareActivity('a1', ['heartbeatTimeout'])],
  ] as const)(
    'fails with %s, records no activity and schedules a decision task',
    (cause, decision) => {
      const run = new RunDriver();

      const events = run.decide([decision]);

      const completed = onlyEvent(events, 'DecisionTaskCompleted');
      const failed = onlyEvent(events, 'ScheduleActivityTaskFailed');
      expect(failed.attributes).toEqual({
        activityType: decision.attributes.activityType,
        activityId: 'a1',
        cause,
        decisionTaskCompletedEventId: completed.eventId,
      });
      expect(eventTypes(events).slice(-2)).toEqual([
        'ScheduleActivityTaskFailed',
        'DecisionTaskScheduled',
      ]);
      expect(run.state.activities).toEqual({});
    },
  );

  it('treats NONE as a defined timeout', () => {
    const run = new RunDriver();

    const events = run.decide([
      scheduleActivity('a1', {
        activityType: { name: 'bare', version: '1' },
        taskList: { name: 'l' },
        scheduleToStartTimeout: 'NONE',
        scheduleToCloseTimeout: 'NONE',
        startToCloseTimeout: 'NONE',
        heartbeatTimeout: 'NONE',
      }),
    ]);

    expect(onlyEvent(events, 'ActivityTaskScheduled').attributes).toMatchObject({
      scheduleToStartTimeout: 'NONE',
      heartbeatTimeout: 'NONE',
    });
  });

  it('checks the type before the activity id', () => {
    const run = new RunDriver();
    run.decide([scheduleActivity('a1')]);
    run.signal();

    const events = run.decide([
      scheduleActivity('a1', { activityType: { name: 'deprecated', version: '1' } }),
    ]);

    expect(onlyEvent(events, 'ScheduleActivityTaskFailed').attributes.cause).toBe(
      'ACTIVITY_TYPE_DEPRECATED',
    );
  });

  it('fails with ACTIVITY_ID_ALREADY_IN_USE while an activity with that id is scheduled', () => {
    const run = new RunDriver();
    run.decide([scheduleActivity('a1')]);
    run.signal();

    const events = run.decide([scheduleActivity('a1')]);

    expect(onlyEvent(events, 'ScheduleActivityTaskFailed').attributes.cause).toBe(
      'ACTIVITY_ID_ALREADY_IN_USE',
    );
  });

  it('fails with ACTIVITY_ID_ALREADY_IN_USE while an activity with that id is started', () => {
    const run = new RunDriver();
    run.decide([scheduleActivity('a1')]);
    run.startActivity('a1');
    run.signal();

    const events = run.decide([scheduleActivity('a1')]);

    expect(onlyEvent(events, 'ScheduleActivityTaskFailed').attributes.cause).toBe(
      'ACTIVITY_ID_ALREADY_IN_USE',
    );
  });

  it('fails the second of two schedules of one id in the same response', () => {
    const run = new RunDriver();

    const events = run.decide([scheduleActivity('a1'), scheduleActivity('a1')]);

    expect(eventTypes(events)).toEqual([
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'ActivityTaskScheduled',
      'ScheduleActivityTaskFailed',
      'DecisionTaskScheduled',
    ]);
  });

  it('allows reusing an activity id once the previous activity closed', () => {
    const run = new RunDriver();
    run.decide([scheduleActivity('a1')]);
    run.startActivity('a1');
    run.closeActivity('a1');

    const events = run.decide([scheduleActivity('a1')]);

    const scheduled = onlyEvent(events, 'ActivityTaskScheduled');
    expect(run.state.activities.a1?.scheduledEventId).toBe(scheduled.eventId);
  });

  it('fails with OPEN_ACTIVITIES_LIMIT_EXCEEDED once the execution has the maximum open', () => {
    const run = new RunDriver();
    const limit = executionLimits.openActivities;
    const many = Array.from({ length: limit }, (_, i) => scheduleActivity(`a${i}`));

    const events = run.decide([...many, scheduleActivity('one-too-many')]);

    expect(Object.keys(run.state.activities)).toHaveLength(limit);
    const failed = onlyEvent(events, 'ScheduleActivityTaskFailed');
    expect(failed.attributes).toMatchObject({
      activityId: 'one-too-many',
      cause: 'OPEN_ACTIVITIES_LIMIT_EXCEEDED',
    });
  });
});

describe('RequestCancelActivityTask', () => {
  it('fails with ACTIVITY_ID_UNKNOWN for an id that was never scheduled', () => {
    const run = new RunDriver();

    const events = run.decide([cancelActivity('ghost')]);

    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    expect(onlyEvent(events, 'RequestCancelActivityTaskFailed').attributes).toEqual({
      activityId: 'ghost',
      cause: 'ACTIVITY_ID_UNKNOWN',
      decisionTaskCompletedEventId: completed.eventId,
    });
    expect(eventTypes(events).at(-1)).toBe('DecisionTaskScheduled');
  });

  it('fails with ACTIVITY_ID_UNKNOWN for an activity that already closed', () => {
    const run = new RunDriver();
    run.decide([scheduleActivity('a1')]);
    run.startActivity('a1');
    run.closeActivity('a1');

    const events = run.decide([cancelActivity('a1')]);

    expect(onlyEvent(events, 'RequestCancelActivityTaskFailed').attributes.cause).toBe(
      'ACTIVITY_ID_UNKNOWN',
    );
  });

  it('cancels an unstarted activity at once and schedules a decision task', () => {
    const run = new RunDriver();
    run.decide([scheduleActivity('a1')]);
    run.signal();
    const scheduledEventId = run.activity('a1').scheduledEventId;
    const before = run.state;

    const events = run.decide([cancelActivity('a1')]);

    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    const requested = onlyEvent(events, 'ActivityTaskCancelRequested');
    expect(eventTypes(events)).toEqual([
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'ActivityTaskCancelRequested',
      'ActivityTaskCanceled',
      'DecisionTaskScheduled',
    ]);
    expect(requested.attributes).toEqual({
      activityId: 'a1',
      decisionTaskCompletedEventId: completed.eventId,
    });
    expect(onlyEvent(events, 'ActivityTaskCanceled').attributes).toEqual({
      scheduledEventId,
      startedEventId: 0,
      latestCancelRequestedEventId: requested.eventId,
    });
    expect(run.state.activities).toEqual({});
    expect(queueChanges(before, run.state).remove).toContainEqual(
      expect.objectContaining({ kind: 'activity', scheduledEventId }),
    );
  });

  it('only flags a started activity, which keeps the cancel request id', () => {
    const run = new RunDriver();
    run.decide([scheduleActivity('a1')]);
    run.startActivity('a1');
    run.signal();

    const events = run.decide([cancelActivity('a1')]);

    const requested = onlyEvent(events, 'ActivityTaskCancelRequested');
    expect(eventTypes(events)).toEqual([
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'ActivityTaskCancelRequested',
    ]);
    expect(run.state.activities.a1?.latestCancelRequestedEventId).toBe(requested.eventId);
    expect(run.state.decisionTask).toEqual({ status: 'none' });
  });

  it('reports the latest cancel request when the worker then cancels the started activity', () => {
    const run = new RunDriver();
    run.decide([scheduleActivity('a1')]);
    const started = run.startActivity('a1');
    run.signal();
    run.decide([cancelActivity('a1')]);
    run.signal();
    const second = onlyEvent(run.decide([cancelActivity('a1')]), 'ActivityTaskCancelRequested');

    const events = run.closeActivity('a1', { kind: 'canceled', details: 'stopped' });

    expect(onlyEvent(events, 'ActivityTaskCanceled').attributes).toEqual({
      details: 'stopped',
      scheduledEventId: run.history.find((e) => e.eventType === 'ActivityTaskScheduled')?.eventId,
      startedEventId: onlyEvent(started, 'ActivityTaskStarted').eventId,
      latestCancelRequestedEventId: second.eventId,
    });
    expect(eventTypes(events)).toEqual(['ActivityTaskCanceled', 'DecisionTaskScheduled']);
  });
});

describe('activity worker outcomes', () => {
  it.each([
    [{ kind: 'completed', result: 'r' } as const, 'ActivityTaskCompleted', { result: 'r' }],
    [
      { kind: 'failed', reason: 'bad', details: 'd' } as const,
      'ActivityTaskFailed',
      { reason: 'bad', details: 'd' },
    ],
  ])('records %o with both ids and schedules a decision task', (outcome, eventType, extra) => {
    const run = new RunDriver();
    const scheduled = onlyEvent(run.decide([scheduleActivity('a1')]), 'ActivityTaskScheduled');
    const started = onlyEvent(run.startActivity('a1'), 'ActivityTaskStarted');

    const events = run.closeActivity('a1', outcome);

    expect(eventTypes(events)).toEqual([eventType, 'DecisionTaskScheduled']);
    expect(events[0]?.attributes).toEqual({
      ...extra,
      scheduledEventId: scheduled.eventId,
      startedEventId: started.eventId,
    });
    expect(run.state.activities).toEqual({});
  });

  it('records ActivityTaskStarted with the identity and schedules no decision task', () => {
    const run = new RunDriver();
    const scheduled = onlyEvent(run.decide([scheduleActivity('a1')]), 'ActivityTaskScheduled');

    const events = run.startActivity('a1', 'worker-7');

    expect(events).toHaveLength(1);
    expect(onlyEvent(events, 'ActivityTaskStarted').attributes).toEqual({
      identity: 'worker-7',
      scheduledEventId: scheduled.eventId,
    });
    expect(run.state.activities.a1).toMatchObject({
      startedEventId: events[0]?.eventId,
      identity: 'worker-7',
    });
  });
});
