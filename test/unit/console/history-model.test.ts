import { describe, expect, it } from 'vitest';
import { childSpans, historyModel, pendingSpans } from '../../../console/src/history-model.js';
import type { HistoryEvent } from '../../../console/src/swf.js';

/** A history from [type, attributes] pairs, one second apart. */
function history(...events: [string, Record<string, unknown>][]): HistoryEvent[] {
  return events.map(([eventType, attributes], index) => ({
    eventId: index + 1,
    eventTimestamp: 1_700_000_000 + index,
    eventType,
    [`${eventType.charAt(0).toLowerCase()}${eventType.slice(1)}EventAttributes`]: attributes,
  }));
}

const ship = { activityType: { name: 'ShipOrder', version: '1' }, activityId: 'ship' };

describe('the timeline of a history', () => {
  it('an activity cancelled on request: scheduled, started, cancel requested, canceled', () => {
    const model = historyModel(
      history(
        ['WorkflowExecutionStarted', { input: '{"orderId":"o-1"}' }],
        ['ActivityTaskScheduled', ship],
        ['ActivityTaskStarted', { scheduledEventId: 2 }],
        ['WorkflowExecutionSignaled', { signalName: 'CancelOrder' }],
        ['ActivityTaskCancelRequested', { activityId: 'ship', decisionTaskCompletedEventId: 3 }],
        ['ActivityTaskCanceled', { scheduledEventId: 2, startedEventId: 3 }],
        ['WorkflowExecutionCanceled', {}],
      ),
    );
    const [lane] = model.lanes;
    expect(lane).toMatchObject({ kind: 'activity', label: 'ShipOrder 1 · ship' });
    expect(lane?.spans).toEqual([
      expect.objectContaining({
        outcome: 'canceled',
        scheduledAt: 1_700_000_001_000,
        startedAt: 1_700_000_002_000,
        cancelRequestedAt: 1_700_000_004_000,
        closedAt: 1_700_000_005_000,
        firstEventId: 2,
        lastEventId: 6,
      }),
    ]);
    expect(model.instants).toEqual([
      { kind: 'signal', at: 1_700_000_003_000, label: 'signal CancelOrder', eventId: 4 },
    ]);
    expect(model.input).toBe('{"orderId":"o-1"}');
    expect(model.closeEvent?.eventType).toBe('WorkflowExecutionCanceled');
  });

  it('a retry is a later attempt in the same lane; timeouts and failures keep their reason', () => {
    const model = historyModel(
      history(
        ['ActivityTaskScheduled', ship],
        ['ActivityTaskStarted', { scheduledEventId: 1 }],
        ['ActivityTaskTimedOut', { scheduledEventId: 1, timeoutType: 'HEARTBEAT' }],
        ['ActivityTaskScheduled', ship],
        ['ActivityTaskStarted', { scheduledEventId: 4 }],
        ['ActivityTaskFailed', { scheduledEventId: 4, reason: 'CarrierDown' }],
        ['ActivityTaskScheduled', ship],
        ['ActivityTaskStarted', { scheduledEventId: 7 }],
        ['ActivityTaskCompleted', { scheduledEventId: 7 }],
      ),
    );
    expect(model.lanes).toHaveLength(1);
    expect(model.lanes[0]?.spans.map((s) => [s.attempt, s.outcome, s.outcomeText])).toEqual([
      [1, 'timedOut', 'timed out (HEARTBEAT)'],
      [2, 'failed', 'failed: CarrierDown'],
      [3, 'completed', 'completed'],
    ]);
  });

  it('timers, children, Lambda tasks and decision tasks, each with its outcome; failures to start', () => {
    const model = historyModel(
      history(
        ['DecisionTaskScheduled', {}],
        ['DecisionTaskStarted', { scheduledEventId: 1 }],
        ['DecisionTaskCompleted', { scheduledEventId: 1, startedEventId: 2 }],
        ['TimerStarted', { timerId: 't', startToFireTimeout: '5' }],
        ['TimerFired', { timerId: 't', startedEventId: 4 }],
        [
          'StartChildWorkflowExecutionInitiated',
          { workflowId: 'kid', workflowType: { name: 'Kid', version: '2' } },
        ],
        [
          'ChildWorkflowExecutionStarted',
          { initiatedEventId: 6, workflowExecution: { workflowId: 'kid', runId: 'r1' } },
        ],
        ['ChildWorkflowExecutionTerminated', { initiatedEventId: 6, startedEventId: 7 }],
        ['LambdaFunctionScheduled', { id: 'l', name: 'resize' }],
        ['LambdaFunctionStarted', { scheduledEventId: 9 }],
        ['LambdaFunctionTimedOut', { scheduledEventId: 9, timeoutType: 'START_TO_CLOSE' }],
        ['StartTimerFailed', { timerId: 't2', cause: 'TIMER_ID_ALREADY_IN_USE' }],
        ['DecisionTaskScheduled', {}],
        ['DecisionTaskStarted', { scheduledEventId: 13 }],
        [
          'DecisionTaskTimedOut',
          { scheduledEventId: 13, startedEventId: 14, timeoutType: 'START_TO_CLOSE' },
        ],
      ),
    );
    const outcomes = Object.fromEntries(
      model.lanes.map((lane) => [lane.key, lane.spans.map((s) => s.outcomeText)]),
    );
    expect(outcomes).toEqual({
      'decision:tasks': ['completed', 'timed out (START_TO_CLOSE)'],
      'timer:t': ['fired'],
      'child:kid': ['terminated'],
      'lambda:l': ['timed out (START_TO_CLOSE)'],
      'timer:t2': ['start failed: TIMER_ID_ALREADY_IN_USE'],
    });
    expect(childSpans(model)[0]?.child).toEqual({ workflowId: 'kid', runId: 'r1' });
  });

  it('what is open is pending; once the run closes it is open no more (abandoned)', () => {
    const events = history(
      ['WorkflowExecutionStarted', { continuedExecutionRunId: 'run-before' }],
      ['ActivityTaskScheduled', ship],
      ['TimerStarted', { timerId: 'later', startToFireTimeout: '60' }],
    );
    const open = historyModel(events);
    expect(pendingSpans(open).map((s) => s.lane)).toEqual(['activity:ship', 'timer:later']);
    expect(open.previousRunId).toBe('run-before');
    const closed = historyModel([
      ...events,
      ...history(['WorkflowExecutionContinuedAsNew', { newExecutionRunId: 'run-after' }]).map(
        (e) => ({ ...e, eventId: 4 }),
      ),
    ]);
    expect(pendingSpans(closed)).toEqual([]);
    expect(closed.lanes.flatMap((l) => l.spans.map((s) => s.outcome))).toEqual([
      'abandoned',
      'abandoned',
    ]);
    expect(closed.nextRunId).toBe('run-after');
  });
});
