/**
 * Hand-written histories come out as the engine records them: the same events, in the same order,
 * naming the same ids, for the same story told to the core; and a decider sees in them the state it
 * would see live.
 */
import { describe, expect, it } from 'vitest';
import { toWireEvent } from '../../../lib/core/history-event.js';
import { History, historyOf, events as on } from '../../../lib/testing/index.js';
import {
  RunDriver,
  recordMarker,
  scheduleActivity,
  startChild,
  startTimer,
} from '../../support/core-builders.js';

/** Each event's type and the ids it names (what a decider and a replay go by). */
function skeleton(events: readonly object[]) {
  const ids = [
    'scheduledEventId',
    'startedEventId',
    'decisionTaskCompletedEventId',
    'initiatedEventId',
    'latestCancelRequestedEventId',
  ];
  return events.map((event) => {
    const e = event as Record<string, unknown>;
    const member = Object.keys(e).find((k) => k.endsWith('EventAttributes'));
    const attributes = (member === undefined ? {} : e[member]) as Record<string, unknown>;
    const named = ids
      .filter((k) => attributes[k] !== undefined)
      .map((k) => `${k}=${attributes[k]}`);
    return [e.eventId, e.eventType, ...named].join(' ');
  });
}

const engine = (driver: RunDriver) => skeleton(driver.history.map(toWireEvent));

describe('historyOf', () => {
  it('records an activity as the engine does, decision tasks included', () => {
    const driver = new RunDriver();
    driver.decide([scheduleActivity('a')]);
    driver.startActivity('a');
    driver.closeActivity('a', { kind: 'completed', result: 'ok' });
    driver.decide([recordMarker('done')]);
    const history = historyOf(
      on.workflowStarted(),
      on.activityScheduled('a', 'work'),
      on.activityCompleted('a', 'ok'),
      on.markerRecorded('done'),
    );
    expect(skeleton(history.events)).toEqual(engine(driver));
  });

  it('owes a decision task for an event that comes while one is started, as the engine does', () => {
    const driver = new RunDriver();
    driver.startDecisionTask();
    driver.signal('early');
    driver.respond([startTimer('t', '60')]);
    const history = historyOf(
      on.workflowStarted(),
      on.decisionTaskStarted(),
      on.signaled('early'),
      on.timerStarted('t', 60),
      on.after(60),
      on.timerFired('t'),
    );
    // The engine schedules the owed task right after the answer; the timer fires later.
    expect(skeleton(history.events).slice(0, 7)).toEqual(engine(driver));
    expect(skeleton(history.events).slice(7)).toEqual(['8 TimerFired startedEventId=6']);
  });

  it('records children, cancellations and timeouts with the ids they name', () => {
    const driver = new RunDriver();
    driver.decide([startChild('kid'), scheduleActivity('a')]);
    driver.startActivity('a');
    const history = historyOf(
      on.workflowStarted(),
      on.childInitiated('kid', 'child'),
      on.activityScheduled('a', 'work'),
      on.activityStarted('a'),
    );
    expect(skeleton(history.events)).toEqual(engine(driver));
    const more = skeleton(
      history.with(
        on.activityCancelRequested('a'),
        on.activityCanceled('a', 'stopped'),
        on.childCompleted('kid', 'grown up'),
      ).events,
    );
    expect(more.slice(7)).toEqual([
      '8 DecisionTaskScheduled',
      '9 DecisionTaskStarted scheduledEventId=8',
      '10 DecisionTaskCompleted scheduledEventId=8 startedEventId=9',
      '11 ActivityTaskCancelRequested decisionTaskCompletedEventId=10',
      '12 ActivityTaskCanceled scheduledEventId=6 startedEventId=7 latestCancelRequestedEventId=11',
      '13 DecisionTaskScheduled',
      '14 ChildWorkflowExecutionStarted initiatedEventId=5',
      '15 ChildWorkflowExecutionCompleted startedEventId=14 initiatedEventId=5',
    ]);
  });

  it('moves time only when told, and to a timer’s deadline when it fires', () => {
    const history = historyOf(
      on.at(new Date('2030-06-01T12:00:00Z')),
      on.workflowStarted(),
      on.after('90s'),
      on.timerStarted('grace', '30d'),
      on.timerFired('grace'),
      on.after('2h'),
      on.signaled('late'),
    );
    const at = (type: string) =>
      history.events.find((e) => e.eventType === type)?.eventTimestamp?.toISOString();
    expect(at('WorkflowExecutionStarted')).toBe('2030-06-01T12:00:00.000Z');
    expect(at('TimerStarted')).toBe('2030-06-01T12:01:30.000Z');
    expect(at('TimerFired')).toBe('2030-07-01T12:01:30.000Z');
    expect(at('WorkflowExecutionSignaled')).toBe('2030-07-01T14:01:30.000Z');
  });

  it('gives a decider the task at its end, and any answered task by its DecisionTaskStarted', () => {
    const history = historyOf(
      on.workflowStarted({ input: 'order-7', workflowType: 'Order' }),
      on.activityScheduled('verify', 'VerifyOrder'),
      on.activityFailed('verify', 'Invalid', 'no such order'),
    );
    const state = history.state();
    expect(state.input).toBe('order-7');
    expect(state.workflowType).toEqual({ name: 'Order', version: '1' });
    expect(state.activities.get('verify')).toMatchObject({
      status: 'failed',
      reason: 'Invalid',
      details: 'no such order',
    });
    expect(state.previousStartedEventId).toBe(3);
    expect(state.newEvents.map((e) => e.eventType)).toEqual([
      'DecisionTaskCompleted',
      'ActivityTaskScheduled',
      'ActivityTaskStarted',
      'ActivityTaskFailed',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    // The first task, as its decider saw it.
    expect(history.answeredDecisionTasks()).toEqual([3]);
    expect(history.state(3).activities.size).toBe(0);
    expect(() => history.state(4)).toThrow(/no DecisionTaskStarted/);
  });

  it('gives the events each answer recorded, one for each decision, in the order decided', () => {
    const history = historyOf(
      on.workflowStarted(),
      on.activityScheduled('verify', 'VerifyOrder'),
      on.timerStarted('reminder', '1d'),
      on.signaled('Go'),
      on.markerRecorded('seen', 'Go'),
      on.workflowCompleted('done'),
    );
    const [first, second] = history.answeredDecisionTasks();
    expect(history.recordedAnswer(first ?? 0).map((e) => e.eventType)).toEqual([
      'ActivityTaskScheduled',
      'TimerStarted',
    ]);
    expect(history.recordedAnswer(second ?? 0).map((e) => e.eventType)).toEqual([
      'MarkerRecorded',
      'WorkflowExecutionCompleted',
    ]);
    const open = history.with(on.signaled('late')).decisionTask().startedEventId ?? 0;
    expect(() => history.with(on.signaled('late')).recordedAnswer(open)).toThrow(
      /was not answered/,
    );
  });

  it('reads a recorded history as it is', () => {
    const recorded = History.recorded(
      historyOf(on.workflowStarted(), on.decisionTaskStarted()).events,
      { workflowId: 'order-1', runId: 'r1' },
    );
    expect(recorded.decisionTask()).toMatchObject({
      startedEventId: 3,
      previousStartedEventId: 0,
      workflowExecution: { workflowId: 'order-1', runId: 'r1' },
    });
    const closed = History.recorded(historyOf(on.workflowStarted(), on.workflowCompleted()).events);
    expect(() => closed.decisionTask()).toThrow(/no decision task open/);
    // Next, for a run with no task open: one started after its last event, every answer behind it.
    const next = closed.nextDecisionTask();
    expect(next.startedEventId).toBe(closed.events.length + 1);
    expect(next.events.slice(0, -1)).toEqual(closed.events);
    expect(next.previousStartedEventId).toBe(3);
    expect(recorded.nextDecisionTask()).toEqual(recorded.decisionTask());
    expect(() => recorded.with(on.signaled('x'))).toThrow(/recorded history/);
  });

  it('names what a step refers to that the history lacks', () => {
    expect(() => historyOf(on.workflowStarted(), on.activityCompleted('nope'))).toThrow(
      /no activity "nope"/,
    );
    expect(() => historyOf(on.workflowStarted(), on.timerFired('t'))).toThrow(/no timer "t"/);
  });
});
