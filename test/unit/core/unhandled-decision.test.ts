import { describe, expect, it } from 'vitest';
import { fireDeadline } from '../../../lib/core/deadlines.js';
import {
  closeDecisions,
  completeWorkflow,
  eventsOfType,
  eventTypes,
  onlyEvent,
  RunDriver,
  scheduleActivity,
  startTimer,
} from '../../support/core-builders.js';

describe('UNHANDLED_DECISION', () => {
  describe.each(closeDecisions)('%s', (_name, closing, failedType) => {
    it('fails when a signal arrived while the decision task was started', () => {
      const run = new RunDriver();
      run.startDecisionTask();
      run.signal('late');

      const { events, continuedRun } = run.respond([startTimer('t1'), closing]);

      const completed = onlyEvent(events, 'DecisionTaskCompleted');
      expect(eventTypes(events)).toEqual([
        'DecisionTaskCompleted',
        'TimerStarted',
        failedType,
        'DecisionTaskScheduled',
      ]);
      expect(onlyEvent(events, failedType).attributes).toEqual({
        cause: 'UNHANDLED_DECISION',
        decisionTaskCompletedEventId: completed.eventId,
      });
      expect(continuedRun).toBeUndefined();
      expect(run.state.status).toBe('OPEN');
      expect(run.state.timers.t1).toBeDefined();
      expect(run.state.decisionTask.status).toBe('scheduled');
    });

    it('fails when an activity closed while the decision task was started', () => {
      const run = new RunDriver();
      run.decide([scheduleActivity('a1')]);
      run.startActivity('a1');
      run.signal();
      run.startDecisionTask();
      run.closeActivity('a1');

      const { events } = run.respond([closing]);

      expect(onlyEvent(events, failedType).attributes.cause).toBe('UNHANDLED_DECISION');
      expect(eventsOfType(events, 'DecisionTaskScheduled')).toHaveLength(1);
      expect(run.state.status).toBe('OPEN');
    });
  });

  it('fails a close when a timer fired while the decision task was started', () => {
    const run = new RunDriver();
    const timer = onlyEvent(run.decide([startTimer('t1', '5')]), 'TimerStarted');
    run.signal();
    run.startDecisionTask();
    const fired = fireDeadline(
      run.state,
      `T:${timer.eventId}`,
      timer.eventTimestamp + 5,
      undefined,
    );
    if (fired.kind !== 'expired') throw new Error('timer did not fire');
    run.commit(fired.transition);

    const { events } = run.respond([completeWorkflow()]);

    expect(eventTypes(fired.transition.events)).toEqual(['TimerFired']);
    expect(onlyEvent(events, 'CompleteWorkflowExecutionFailed').attributes.cause).toBe(
      'UNHANDLED_DECISION',
    );
  });

  it('fails a close when a cancel request arrived while the decision task was started', () => {
    const run = new RunDriver();
    run.startDecisionTask();
    run.requestCancel();

    const { events } = run.respond([completeWorkflow()]);

    expect(onlyEvent(events, 'CompleteWorkflowExecutionFailed').attributes.cause).toBe(
      'UNHANDLED_DECISION',
    );
    expect(run.state.cancelRequested).toBe(true);
  });

  it('does not fail a close for an ActivityTaskStarted while the decision task was started', () => {
    const run = new RunDriver();
    run.decide([scheduleActivity('a1')]);
    run.signal();
    run.startDecisionTask();
    run.startActivity('a1');

    const { events } = run.respond([completeWorkflow('done')]);

    expect(eventTypes(events)).toEqual(['DecisionTaskCompleted', 'WorkflowExecutionCompleted']);
    expect(run.state.closeStatus).toBe('COMPLETED');
  });

  it('does not fail a close for a signal recorded before the decision task started', () => {
    const run = new RunDriver();
    run.signal('seen');

    const events = run.decide([completeWorkflow()]);

    expect(eventTypes(events)).toEqual([
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'WorkflowExecutionCompleted',
    ]);
  });

  it('lets the next decision task, which shows the new events, close the execution', () => {
    const run = new RunDriver();
    run.startDecisionTask();
    run.signal('late');
    run.respond([completeWorkflow()]);

    const started = run.startDecisionTask();
    const { events } = run.respond([completeWorkflow()]);

    const signaled = onlyEvent(run.history, 'WorkflowExecutionSignaled');
    expect(signaled.eventId).toBeLessThan(started[0]?.eventId ?? 0);
    expect(eventTypes(events)).toEqual(['DecisionTaskCompleted', 'WorkflowExecutionCompleted']);
    expect(run.state.status).toBe('CLOSED');
  });
});
