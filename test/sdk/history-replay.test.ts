/**
 * The decider's history view, without a server: a decision task's events become typed state,
 * also where a decision reuses the id of something still open.
 */

import type { HistoryEvent } from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { workflowState } from '../../lib/sdk/index.js';
import { events, history, scheduled, started } from './history-fixtures.js';

describe('workflowState', () => {
  const state = workflowState({
    taskToken: 'tok',
    events,
    previousStartedEventId: 3,
    startedEventId: 27,
  });

  it('has the workflow input, type, tags and the latest execution context', () => {
    expect(state).toMatchObject({
      input: 'order-1',
      workflowType: { name: 'wf', version: '1' },
      tagList: ['t'],
      executionContext: 'ctx-1',
    });
  });

  it('has activities by id with status, result, failure and cancel requested', () => {
    expect(state.activities.get('a')).toMatchObject({
      status: 'completed',
      result: 'ra',
      input: 'in-a',
      startedEventId: 10,
    });
    expect(state.activities.get('b')).toMatchObject({
      status: 'failed',
      reason: 'boom',
      details: 'stack',
    });
    expect(state.activities.get('c')).toMatchObject({ status: 'started', cancelRequested: true });
  });

  it('has timers, signals, markers, children, lambda functions and the cancel request', () => {
    expect(state.timers.get('t1')).toMatchObject({ status: 'fired', closedEventId: 17 });
    expect(state.signals).toEqual([
      { eventId: 16, signalName: 'go', input: 'now', externalWorkflowExecution: undefined },
    ]);
    expect(state.markers).toEqual([{ eventId: 9, markerName: 'm', details: 'd' }]);
    expect(state.children.get('kid')).toMatchObject({
      status: 'completed',
      runId: 'r-kid',
      result: 'kid-done',
    });
    expect(state.lambdaFunctions.get('l1')).toMatchObject({
      status: 'completed',
      result: 'lr',
      name: 'fn',
    });
    expect(state.cancelRequested).toBe(true);
    expect(state.decisionFailures).toEqual([
      { eventId: 25, eventType: 'CompleteWorkflowExecutionFailed', cause: 'UNHANDLED_DECISION' },
    ]);
  });

  it('tells which events are new to this decision task', () => {
    expect(state.newEvents[0]?.eventId).toBe(4);
    expect(state.newEvents).toHaveLength(events.length - 3);
  });

  it('an activity scheduled again (a retry) is seen as its latest attempt', () => {
    const retried = workflowState({
      taskToken: 't',
      events: [
        ...events,
        { ...scheduled('b'), eventId: 28, eventTimestamp: new Date() } as HistoryEvent,
      ],
    });
    expect(retried.activities.get('b')).toMatchObject({
      status: 'scheduled',
      attempts: 2,
      reason: undefined,
    });
  });
});

describe('workflowState, when a decision reuses the id of something still open', () => {
  const completed = (executionContext?: string) => ({
    eventType: 'DecisionTaskCompleted',
    decisionTaskCompletedEventAttributes: {
      scheduledEventId: 2,
      startedEventId: 3,
      ...(executionContext === undefined ? {} : { executionContext }),
    },
  });
  const reused = history(
    started, // 1
    { eventType: 'DecisionTaskScheduled' }, // 2
    { eventType: 'DecisionTaskStarted' }, // 3
    completed('kept'), // 4
    scheduled('a'), // 5
    {
      eventType: 'StartChildWorkflowExecutionInitiated',
      startChildWorkflowExecutionInitiatedEventAttributes: {
        workflowId: 'kid',
        workflowType: { name: 'child', version: '1' },
      },
    }, // 6
    {
      eventType: 'LambdaFunctionScheduled',
      lambdaFunctionScheduledEventAttributes: { id: 'l', name: 'slow' },
    }, // 7
    {
      eventType: 'ActivityTaskStarted',
      activityTaskStartedEventAttributes: { scheduledEventId: 5 },
    }, // 8
    {
      eventType: 'ChildWorkflowExecutionStarted',
      childWorkflowExecutionStartedEventAttributes: {
        initiatedEventId: 6,
        workflowExecution: { workflowId: 'kid', runId: 'r1' },
      },
    }, // 9
    {
      eventType: 'LambdaFunctionStarted',
      lambdaFunctionStartedEventAttributes: { scheduledEventId: 7 },
    }, // 10
    completed(), // 11: an answer without an execution context
    {
      eventType: 'ActivityTaskCancelRequested',
      activityTaskCancelRequestedEventAttributes: { activityId: 'a' },
    }, // 12
    {
      eventType: 'ScheduleActivityTaskFailed',
      scheduleActivityTaskFailedEventAttributes: {
        activityId: 'a',
        cause: 'ACTIVITY_ID_ALREADY_IN_USE',
      },
    }, // 13
    {
      eventType: 'StartChildWorkflowExecutionInitiated',
      startChildWorkflowExecutionInitiatedEventAttributes: {
        workflowId: 'kid',
        workflowType: { name: 'child', version: '1' },
      },
    }, // 14
    {
      eventType: 'ScheduleLambdaFunctionFailed',
      scheduleLambdaFunctionFailedEventAttributes: {
        id: 'l',
        name: 'quick',
        cause: 'ID_ALREADY_IN_USE',
      },
    }, // 15
    {
      eventType: 'StartChildWorkflowExecutionFailed',
      startChildWorkflowExecutionFailedEventAttributes: {
        workflowId: 'kid',
        initiatedEventId: 14,
        cause: 'WORKFLOW_ALREADY_RUNNING',
      },
    }, // 16
    {
      eventType: 'ActivityTaskCanceled',
      activityTaskCanceledEventAttributes: { scheduledEventId: 5, details: 'undone' },
    }, // 17
    {
      eventType: 'ChildWorkflowExecutionCanceled',
      childWorkflowExecutionCanceledEventAttributes: {
        initiatedEventId: 6,
        workflowExecution: { workflowId: 'kid', runId: 'r1' },
        details: 'child undone',
      },
    }, // 18
    {
      eventType: 'LambdaFunctionTimedOut',
      lambdaFunctionTimedOutEventAttributes: { scheduledEventId: 7, timeoutType: 'START_TO_CLOSE' },
    }, // 19
    {
      eventType: 'WorkflowExecutionFailed',
      workflowExecutionFailedEventAttributes: { reason: 'r' },
    }, // 20
  );
  const state = workflowState({ taskToken: 't', events: reused });

  it('keeps the open activity, child and Lambda task, whose own events close them', () => {
    expect(state.activities.get('a')).toMatchObject({
      status: 'canceled',
      details: 'undone',
      cancelRequested: true,
      scheduledEventId: 5,
      attempts: 1,
    });
    expect(state.children.get('kid')).toMatchObject({
      status: 'canceled',
      runId: 'r1',
      details: 'child undone',
      initiatedEventId: 6,
    });
    expect(state.lambdaFunctions.get('l')).toMatchObject({
      name: 'slow',
      status: 'timedOut',
      timeoutType: 'START_TO_CLOSE',
    });
  });

  it('lists every refused decision, and nothing else, as a decision failure', () => {
    expect(state.decisionFailures.map((f) => [f.eventId, f.eventType, f.cause])).toEqual([
      [13, 'ScheduleActivityTaskFailed', 'ACTIVITY_ID_ALREADY_IN_USE'],
      [15, 'ScheduleLambdaFunctionFailed', 'ID_ALREADY_IN_USE'],
      [16, 'StartChildWorkflowExecutionFailed', 'WORKFLOW_ALREADY_RUNNING'],
    ]);
  });

  it('keeps the latest execution context an answer gave, as latestExecutionContext does', () => {
    expect(state.executionContext).toBe('kept');
  });
});
