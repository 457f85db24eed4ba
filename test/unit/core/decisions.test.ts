import { describe, expect, it } from 'vitest';
import { externalRequestOutcome } from '../../../lib/core/cross-execution.js';
import { fireDeadline } from '../../../lib/core/deadlines.js';
import { executionLimits } from '../../../lib/core/limits.js';
import {
  cancelTimer,
  cancelWorkflow,
  completeWorkflow,
  decision,
  eventTypes,
  failWorkflow,
  onlyEvent,
  RunDriver,
  recordMarker,
  runConfig,
  startTimer,
} from '../../support/core-builders.js';

describe('StartTimer', () => {
  it('records TimerStarted without scheduling a decision task and tracks the timer', () => {
    const run = new RunDriver();

    const events = run.decide([
      decision('StartTimer', { timerId: 't1', startToFireTimeout: '90', control: 'c' }),
    ]);

    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    const started = onlyEvent(events, 'TimerStarted');
    expect(started.attributes).toEqual({
      timerId: 't1',
      control: 'c',
      startToFireTimeout: '90',
      decisionTaskCompletedEventId: completed.eventId,
    });
    expect(eventTypes(events).at(-1)).toBe('TimerStarted');
    expect(run.state.timers.t1).toEqual({
      timerId: 't1',
      startedEventId: started.eventId,
      startToFireTimeout: '90',
      fireAt: started.eventTimestamp + 90,
    });
  });

  it('fails with TIMER_ID_ALREADY_IN_USE while a timer with that id is open', () => {
    const run = new RunDriver();
    run.decide([startTimer('t1')]);
    run.signal();

    const events = run.decide([startTimer('t1')]);

    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    expect(onlyEvent(events, 'StartTimerFailed').attributes).toEqual({
      timerId: 't1',
      cause: 'TIMER_ID_ALREADY_IN_USE',
      decisionTaskCompletedEventId: completed.eventId,
    });
    expect(eventTypes(events).at(-1)).toBe('DecisionTaskScheduled');
  });

  it('allows reusing a timer id once the timer fired', () => {
    const run = new RunDriver();
    const started = onlyEvent(run.decide([startTimer('t1', '5')]), 'TimerStarted');
    const fired = fireDeadline(
      run.state,
      `T:${started.eventId}`,
      started.eventTimestamp + 5,
      undefined,
    );
    if (fired.kind !== 'expired') throw new Error(`timer did not fire: ${fired.kind}`);
    run.commit(fired.transition);

    const events = run.decide([startTimer('t1')]);

    expect(eventTypes(fired.transition.events)).toEqual(['TimerFired', 'DecisionTaskScheduled']);
    expect(onlyEvent(fired.transition.events, 'TimerFired').attributes).toEqual({
      timerId: 't1',
      startedEventId: started.eventId,
    });
    expect(onlyEvent(events, 'TimerStarted').attributes.timerId).toBe('t1');
  });

  it('fails with OPEN_TIMERS_LIMIT_EXCEEDED once the execution has the maximum open', () => {
    const run = new RunDriver();
    const limit = executionLimits.openTimers;
    const many = Array.from({ length: limit }, (_, i) => startTimer(`t${i}`));

    const events = run.decide([...many, startTimer('one-too-many')]);

    expect(Object.keys(run.state.timers)).toHaveLength(limit);
    expect(onlyEvent(events, 'StartTimerFailed').attributes).toMatchObject({
      timerId: 'one-too-many',
      cause: 'OPEN_TIMERS_LIMIT_EXCEEDED',
    });
  });
});

describe('CancelTimer', () => {
  it('records TimerCanceled carrying the TimerStarted id, without a decision task', () => {
    const run = new RunDriver();
    const started = onlyEvent(run.decide([startTimer('t1')]), 'TimerStarted');
    run.signal();

    const events = run.decide([cancelTimer('t1')]);

    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    expect(onlyEvent(events, 'TimerCanceled').attributes).toEqual({
      timerId: 't1',
      startedEventId: started.eventId,
      decisionTaskCompletedEventId: completed.eventId,
    });
    expect(eventTypes(events).at(-1)).toBe('TimerCanceled');
    expect(run.state.timers).toEqual({});
  });

  it('allows starting a timer with the id of one cancelled earlier in the same response', () => {
    const run = new RunDriver();
    run.decide([startTimer('t1')]);
    run.signal();

    const events = run.decide([cancelTimer('t1'), startTimer('t1')]);

    expect(eventTypes(events)).toEqual([
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'TimerCanceled',
      'TimerStarted',
    ]);
  });

  it('fails with TIMER_ID_UNKNOWN when no open timer has that id', () => {
    const run = new RunDriver();

    const events = run.decide([cancelTimer('ghost')]);

    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    expect(onlyEvent(events, 'CancelTimerFailed').attributes).toEqual({
      timerId: 'ghost',
      cause: 'TIMER_ID_UNKNOWN',
      decisionTaskCompletedEventId: completed.eventId,
    });
    expect(eventTypes(events).at(-1)).toBe('DecisionTaskScheduled');
  });
});

describe('RecordMarker', () => {
  it('records MarkerRecorded and schedules no decision task by itself', () => {
    const run = new RunDriver();

    const events = run.decide([recordMarker('m', 'details')]);

    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    expect(onlyEvent(events, 'MarkerRecorded').attributes).toEqual({
      markerName: 'm',
      details: 'details',
      decisionTaskCompletedEventId: completed.eventId,
    });
    expect(eventTypes(events).at(-1)).toBe('MarkerRecorded');
    expect(run.state.decisionTask).toEqual({ status: 'none' });
    expect(run.state.decisionTaskOwed).toBe(false);
  });
});

describe('close decisions', () => {
  it.each([
    [completeWorkflow('res'), 'WorkflowExecutionCompleted', 'COMPLETED', { result: 'res' }],
    [failWorkflow('r', 'd'), 'WorkflowExecutionFailed', 'FAILED', { reason: 'r', details: 'd' }],
    [cancelWorkflow('d'), 'WorkflowExecutionCanceled', 'CANCELED', { details: 'd' }],
  ] as const)('%o records %s and closes the execution %s', (closing, eventType, status, attrs) => {
    const run = new RunDriver();
    run.decide([startTimer('t1')]);
    run.signal();

    const events = run.decide([closing]);

    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    const closed = onlyEvent(events, eventType);
    expect(closed.attributes).toEqual({
      ...attrs,
      decisionTaskCompletedEventId: completed.eventId,
    });
    expect(eventTypes(events).at(-1)).toBe(eventType);
    expect(run.state).toMatchObject({
      status: 'CLOSED',
      closeStatus: status,
      closeTimestamp: closed.eventTimestamp,
      closeEvent: closed,
      timers: {},
      decisionTask: { status: 'none' },
    });
  });

  it('cancels the workflow without a prior cancel request', () => {
    const run = new RunDriver();

    run.decide([cancelWorkflow()]);

    expect(run.state.closeStatus).toBe('CANCELED');
  });
});

describe('SignalExternalWorkflowExecution and RequestCancelExternalWorkflowExecution', () => {
  it('records SignalExternalWorkflowExecutionInitiated and tracks the request', () => {
    const run = new RunDriver();

    const events = run.decide([
      decision('SignalExternalWorkflowExecution', {
        workflowId: 'other',
        runId: 'other-run',
        signalName: 'poke',
        input: 'i',
        control: 'c',
      }),
    ]);

    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    const initiated = onlyEvent(events, 'SignalExternalWorkflowExecutionInitiated');
    expect(initiated.attributes).toEqual({
      workflowId: 'other',
      runId: 'other-run',
      signalName: 'poke',
      input: 'i',
      control: 'c',
      decisionTaskCompletedEventId: completed.eventId,
    });
    expect(eventTypes(events).at(-1)).toBe('SignalExternalWorkflowExecutionInitiated');
    expect(run.state.externalRequests[String(initiated.eventId)]).toEqual({
      kind: 'signal',
      workflowId: 'other',
      runId: 'other-run',
      initiatedEventId: initiated.eventId,
      control: 'c',
      decisionTaskCompletedEventId: completed.eventId,
      signal: { signalName: 'poke', input: 'i' },
    });
  });

  it('records RequestCancelExternalWorkflowExecutionInitiated and tracks the request', () => {
    const run = new RunDriver();

    const events = run.decide([
      decision('RequestCancelExternalWorkflowExecution', { workflowId: 'other', control: 'c' }),
    ]);

    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    const initiated = onlyEvent(events, 'RequestCancelExternalWorkflowExecutionInitiated');
    expect(initiated.attributes).toEqual({
      workflowId: 'other',
      control: 'c',
      decisionTaskCompletedEventId: completed.eventId,
    });
    expect(eventTypes(events).at(-1)).toBe('RequestCancelExternalWorkflowExecutionInitiated');
    expect(run.state.externalRequests[String(initiated.eventId)]?.kind).toBe('cancel');
  });

  it.each([
    ['SignalExternalWorkflowExecution', 'SignalExternalWorkflowExecutionFailed'],
    ['RequestCancelExternalWorkflowExecution', 'RequestCancelExternalWorkflowExecutionFailed'],
  ] as const)(
    '%s to an execution that is not open fails with UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
    (type, failedType) => {
      const run = new RunDriver();
      const send =
        type === 'SignalExternalWorkflowExecution'
          ? decision(type, { workflowId: 'other', signalName: 's', control: 'c' })
          : decision(type, { workflowId: 'other', control: 'c' });
      const events = run.decide([send]);
      const completed = onlyEvent(events, 'DecisionTaskCompleted');
      const initiatedEventId = completed.eventId + 1;

      const outcome = externalRequestOutcome(run.state, initiatedEventId, undefined, run.now + 1);
      if (outcome === undefined) throw new Error('no outcome recorded');
      const recorded = run.commit(outcome);

      expect(eventTypes(recorded)).toEqual([failedType, 'DecisionTaskScheduled']);
      expect(recorded[0]?.attributes).toEqual({
        workflowId: 'other',
        cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
        initiatedEventId,
        decisionTaskCompletedEventId: completed.eventId,
        control: 'c',
      });
      expect(run.state.externalRequests).toEqual({});
    },
  );
});

describe('a response with several decisions', () => {
  it('applies them in order, a failed one not stopping the later ones', () => {
    const run = new RunDriver();

    const events = run.decide([cancelTimer('ghost'), startTimer('t1'), recordMarker('m')]);

    expect(eventTypes(events)).toEqual([
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'CancelTimerFailed',
      'TimerStarted',
      'MarkerRecorded',
      'DecisionTaskScheduled',
    ]);
    expect(run.state.config).toEqual(runConfig);
  });
});
