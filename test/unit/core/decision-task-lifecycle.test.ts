import { describe, expect, it } from 'vitest';
import { fireDeadline } from '../../../lib/core/deadlines.js';
import { completeDecisionTask, startDecisionTask } from '../../../lib/core/decision-tasks.js';
import { openCounts } from '../../../lib/core/execution-state.js';
import { type EventType, schedulesDecisionTask } from '../../../lib/core/history-event.js';
import {
  cancelTimer,
  eventsOfType,
  eventTypes,
  onlyEvent,
  RunDriver,
  recordMarker,
  runConfig,
  scheduleActivity,
  typeLookup,
} from '../../support/core-builders.js';

/** Timing out the decision task that is out now, at the moment its deadline falls due. */
function timeOutDecisionTask(run: RunDriver, timeoutType: 'START_TO_CLOSE' | 'SCHEDULE_TO_START') {
  const task = run.state.decisionTask;
  if (task.status === 'none') throw new Error('no decision task');
  const fired = fireDeadline(
    run.state,
    `D:${task.scheduledEventId}:${timeoutType}`,
    run.now + 10_000,
    undefined,
  );
  if (fired.kind !== 'expired') throw new Error(`decision task did not time out: ${fired.kind}`);
  return run.commit(fired.transition);
}

describe('decision-task lifecycle', () => {
  it('schedules the first decision task on the execution task list when the run starts', () => {
    const run = new RunDriver();

    expect(eventTypes(run.history)).toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled']);
    expect(onlyEvent(run.history, 'DecisionTaskScheduled').attributes).toEqual({
      taskList: runConfig.taskList,
      taskPriority: runConfig.taskPriority,
      startToCloseTimeout: runConfig.taskStartToCloseTimeout,
      scheduleToStartTimeout: 'NONE',
    });
    expect(run.state.decisionTask).toMatchObject({ status: 'scheduled', scheduledEventId: 2 });
  });

  it('adds no second DecisionTaskScheduled for a trigger while one is scheduled', () => {
    const run = new RunDriver();

    const events = [...run.signal('a'), ...run.signal('b')];

    expect(eventTypes(events)).toEqual(['WorkflowExecutionSignaled', 'WorkflowExecutionSignaled']);
    expect(eventsOfType(run.history, 'DecisionTaskScheduled')).toHaveLength(1);
    expect(openCounts(run.state).openDecisionTasks).toBe(1);
  });

  it('records DecisionTaskStarted with the scheduled id and the identity', () => {
    const run = new RunDriver();

    const events = run.startDecisionTask('decider-9');

    expect(onlyEvent(events, 'DecisionTaskStarted').attributes).toEqual({
      identity: 'decider-9',
      scheduledEventId: 2,
    });
    expect(run.state.decisionTask).toMatchObject({
      status: 'started',
      scheduledEventId: 2,
      startedEventId: 3,
    });
    expect(openCounts(run.state).openDecisionTasks).toBe(1);
  });

  it('refuses to start a decision task when none is scheduled', () => {
    const run = new RunDriver();
    run.startDecisionTask();

    expect(() => startDecisionTask(run.state, 'x', run.now)).toThrow();
  });

  it('refuses to complete a decision task that is not started', () => {
    const run = new RunDriver();

    expect(() =>
      completeDecisionTask(run.state, { decisions: [] }, typeLookup(), {
        now: run.now,
        newRunId: () => 'r',
      }),
    ).toThrow();
  });

  it('appends triggers while started at once and batches them into one task after the response', () => {
    const run = new RunDriver();
    run.decide([scheduleActivity('a1')]);
    run.startActivity('a1');
    run.signal();
    run.startDecisionTask();

    const during = [...run.signal('x'), ...run.closeActivity('a1'), ...run.signal('y')];
    const { events } = run.respond([recordMarker('m')]);

    expect(eventTypes(during)).toEqual([
      'WorkflowExecutionSignaled',
      'ActivityTaskCompleted',
      'WorkflowExecutionSignaled',
    ]);
    expect(eventTypes(events)).toEqual([
      'DecisionTaskCompleted',
      'MarkerRecorded',
      'DecisionTaskScheduled',
    ]);
    expect(run.state.decisionTask).toMatchObject({
      status: 'scheduled',
      scheduledEventId: events[2]?.eventId,
    });
  });

  it('records DecisionTaskCompleted with both ids and the execution context', () => {
    const run = new RunDriver();
    const started = run.startDecisionTask();

    const { events } = run.respond([], { executionContext: 'ctx' });

    expect(onlyEvent(events, 'DecisionTaskCompleted').attributes).toEqual({
      executionContext: 'ctx',
      scheduledEventId: 2,
      startedEventId: started[0]?.eventId,
    });
    expect(run.state.latestExecutionContext).toBe('ctx');
    expect(run.state.previousStartedEventId).toBe(started[0]?.eventId);
  });

  it('accepts an empty decision list and leaves no decision task open', () => {
    const run = new RunDriver();

    const events = run.decide([]);

    expect(eventTypes(events)).toEqual(['DecisionTaskStarted', 'DecisionTaskCompleted']);
    expect(run.state.decisionTask).toEqual({ status: 'none' });
    expect(run.state.status).toBe('OPEN');
    expect(openCounts(run.state).openDecisionTasks).toBe(0);
  });

  it('schedules a decision task after a decision failure event', () => {
    const run = new RunDriver();

    const events = run.decide([cancelTimer('ghost'), recordMarker('m')]);

    expect(eventTypes(events).slice(2)).toEqual([
      'CancelTimerFailed',
      'MarkerRecorded',
      'DecisionTaskScheduled',
    ]);
  });

  it('sends the next decision tasks to the task list the response names', () => {
    const run = new RunDriver();
    const { events } = (() => {
      run.startDecisionTask();
      return run.respond([], { taskList: { name: 'override' } });
    })();

    const next = run.signal();
    run.decide([]);
    const after = run.signal();

    expect(onlyEvent(events, 'DecisionTaskCompleted').attributes.taskList).toEqual({
      name: 'override',
    });
    expect(onlyEvent(next, 'DecisionTaskScheduled').attributes).toMatchObject({
      taskList: { name: 'override' },
      scheduleToStartTimeout: 'NONE',
    });
    expect(run.state.decisionTask).toMatchObject({ status: 'scheduled', taskList: 'override' });
    expect(onlyEvent(after, 'DecisionTaskScheduled').attributes.taskList).toEqual({
      name: 'override',
    });
  });

  it('keeps the completion bookkeeping when the response overrides the task list', () => {
    const run = new RunDriver();
    const started = run.startDecisionTask();

    run.respond([], { taskList: { name: 'override' }, executionContext: 'ctx' });

    expect(run.state.decisionTask).toEqual({ status: 'none' });
    expect(run.state.previousStartedEventId).toBe(started[0]?.eventId);
    expect(run.state.latestExecutionContext).toBe('ctx');
  });

  it('gives the next task a schedule-to-start timeout with a temporary override', () => {
    const run = new RunDriver();
    run.startDecisionTask();
    run.respond([], { taskList: { name: 'override' }, taskListScheduleToStartTimeout: '10' });

    const next = run.signal();

    expect(onlyEvent(next, 'DecisionTaskScheduled').attributes).toMatchObject({
      taskList: { name: 'override' },
      scheduleToStartTimeout: '10',
    });
  });

  it('reverts a temporary override when the task on it is not started in time', () => {
    const run = new RunDriver();
    run.startDecisionTask();
    run.respond([], { taskList: { name: 'override' }, taskListScheduleToStartTimeout: '10' });
    run.signal();

    const events = timeOutDecisionTask(run, 'SCHEDULE_TO_START');

    expect(eventTypes(events)).toEqual(['DecisionTaskTimedOut', 'DecisionTaskScheduled']);
    expect(onlyEvent(events, 'DecisionTaskTimedOut').attributes).toMatchObject({
      timeoutType: 'SCHEDULE_TO_START',
      startedEventId: 0,
    });
    expect(onlyEvent(events, 'DecisionTaskScheduled').attributes).toMatchObject({
      taskList: runConfig.taskList,
      scheduleToStartTimeout: 'NONE',
    });
  });

  it('makes a later permanent override drop the schedule-to-start timeout', () => {
    const run = new RunDriver();
    run.startDecisionTask();
    run.respond([], { taskList: { name: 'temporary' }, taskListScheduleToStartTimeout: '10' });
    run.signal();
    run.startDecisionTask();
    run.respond([], { taskList: { name: 'permanent' } });

    const next = run.signal();

    expect(onlyEvent(next, 'DecisionTaskScheduled').attributes).toMatchObject({
      taskList: { name: 'permanent' },
      scheduleToStartTimeout: 'NONE',
    });
  });

  it('replaces a started decision task that timed out with a new one', () => {
    const run = new RunDriver();
    const started = run.startDecisionTask();
    run.signal('while-out');

    const events = timeOutDecisionTask(run, 'START_TO_CLOSE');

    expect(eventTypes(events)).toEqual(['DecisionTaskTimedOut', 'DecisionTaskScheduled']);
    expect(onlyEvent(events, 'DecisionTaskTimedOut').attributes).toEqual({
      timeoutType: 'START_TO_CLOSE',
      scheduledEventId: 2,
      startedEventId: started[0]?.eventId,
    });
    expect(openCounts(run.state).openDecisionTasks).toBe(1);
    expect(() =>
      completeDecisionTask(run.state, { decisions: [] }, typeLookup(), {
        now: run.now,
        newRunId: () => 'r',
      }),
    ).toThrow();
  });

  it('discards the decision task when the execution closes', () => {
    const run = new RunDriver();

    run.terminate();

    expect(run.state.decisionTask).toEqual({ status: 'none' });
    expect(run.state.decisionTaskOwed).toBe(false);
    expect(openCounts(run.state).openDecisionTasks).toBe(0);
  });
});

describe('which events schedule a decision task', () => {
  const noDecisionTask: readonly EventType[] = [
    'WorkflowExecutionCompleted',
    'WorkflowExecutionFailed',
    'WorkflowExecutionTimedOut',
    'WorkflowExecutionCanceled',
    'WorkflowExecutionContinuedAsNew',
    'WorkflowExecutionTerminated',
    'DecisionTaskScheduled',
    'DecisionTaskStarted',
    'DecisionTaskCompleted',
    'ActivityTaskScheduled',
    'ActivityTaskStarted',
    'ActivityTaskCancelRequested',
    'MarkerRecorded',
    'TimerStarted',
    'TimerCanceled',
    'StartChildWorkflowExecutionInitiated',
    'SignalExternalWorkflowExecutionInitiated',
    'RequestCancelExternalWorkflowExecutionInitiated',
    'LambdaFunctionScheduled',
    'LambdaFunctionStarted',
  ];

  it('matches the spec for all 54 event types', () => {
    const table = Object.entries(schedulesDecisionTask);

    expect(table).toHaveLength(54);
    for (const [eventType, schedules] of table) {
      expect([eventType, schedules]).toEqual([
        eventType,
        !noDecisionTask.includes(eventType as EventType),
      ]);
    }
  });

  it('has every decision failure event schedule one', () => {
    const failures = Object.keys(schedulesDecisionTask).filter(
      (t) => t.endsWith('Failed') && !t.startsWith('WorkflowExecution'),
    );

    expect(failures.length).toBeGreaterThanOrEqual(14);
    for (const type of failures)
      expect([type, schedulesDecisionTask[type as EventType]]).toEqual([type, true]);
  });
});
