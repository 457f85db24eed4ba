/** A decision task's history as SWF would send it, for the SDK's replay tests. */

import type { HistoryEvent } from '@aws-sdk/client-swf';

/** A history built like SWF's: ids from 1, one timestamp per event. */
export function history(...events: object[]): HistoryEvent[] {
  return events.map(
    (e, i) =>
      ({ ...e, eventId: i + 1, eventTimestamp: new Date(1_700_000_000_000 + i) }) as HistoryEvent,
  );
}

export const started = {
  eventType: 'WorkflowExecutionStarted',
  workflowExecutionStartedEventAttributes: {
    input: 'order-1',
    workflowType: { name: 'wf', version: '1' },
    taskList: { name: 'deciders' },
    tagList: ['t'],
    childPolicy: 'TERMINATE',
  },
};
export const scheduled = (activityId: string) => ({
  eventType: 'ActivityTaskScheduled',
  activityTaskScheduledEventAttributes: {
    activityId,
    activityType: { name: 'work', version: '1' },
    input: `in-${activityId}`,
    taskList: { name: 'activities' },
    decisionTaskCompletedEventId: 4,
  },
});

export const events = history(
  started, // 1
  { eventType: 'DecisionTaskScheduled' }, // 2
  { eventType: 'DecisionTaskStarted' }, // 3
  {
    eventType: 'DecisionTaskCompleted',
    decisionTaskCompletedEventAttributes: {
      scheduledEventId: 2,
      startedEventId: 3,
      executionContext: 'ctx-1',
    },
  }, // 4
  scheduled('a'), // 5
  scheduled('b'), // 6
  scheduled('c'), // 7
  {
    eventType: 'TimerStarted',
    timerStartedEventAttributes: {
      timerId: 't1',
      startToFireTimeout: '60',
      decisionTaskCompletedEventId: 4,
    },
  }, // 8
  {
    eventType: 'MarkerRecorded',
    markerRecordedEventAttributes: {
      markerName: 'm',
      details: 'd',
      decisionTaskCompletedEventId: 4,
    },
  }, // 9
  { eventType: 'ActivityTaskStarted', activityTaskStartedEventAttributes: { scheduledEventId: 5 } }, // 10
  {
    eventType: 'ActivityTaskCompleted',
    activityTaskCompletedEventAttributes: { scheduledEventId: 5, startedEventId: 10, result: 'ra' },
  }, // 11
  { eventType: 'ActivityTaskStarted', activityTaskStartedEventAttributes: { scheduledEventId: 6 } }, // 12
  {
    eventType: 'ActivityTaskFailed',
    activityTaskFailedEventAttributes: {
      scheduledEventId: 6,
      startedEventId: 12,
      reason: 'boom',
      details: 'stack',
    },
  }, // 13
  { eventType: 'ActivityTaskStarted', activityTaskStartedEventAttributes: { scheduledEventId: 7 } }, // 14
  {
    eventType: 'ActivityTaskCancelRequested',
    activityTaskCancelRequestedEventAttributes: {
      activityId: 'c',
      decisionTaskCompletedEventId: 4,
    },
  }, // 15
  {
    eventType: 'WorkflowExecutionSignaled',
    workflowExecutionSignaledEventAttributes: { signalName: 'go', input: 'now' },
  }, // 16
  { eventType: 'TimerFired', timerFiredEventAttributes: { timerId: 't1', startedEventId: 8 } }, // 17
  {
    eventType: 'StartChildWorkflowExecutionInitiated',
    startChildWorkflowExecutionInitiatedEventAttributes: {
      workflowId: 'kid',
      workflowType: { name: 'wf', version: '1' },
      childPolicy: 'TERMINATE',
      taskList: { name: 'x' },
      decisionTaskCompletedEventId: 4,
    },
  }, // 18
  {
    eventType: 'ChildWorkflowExecutionStarted',
    childWorkflowExecutionStartedEventAttributes: {
      initiatedEventId: 18,
      workflowExecution: { workflowId: 'kid', runId: 'r-kid' },
      workflowType: { name: 'wf', version: '1' },
    },
  }, // 19
  {
    eventType: 'ChildWorkflowExecutionCompleted',
    childWorkflowExecutionCompletedEventAttributes: {
      initiatedEventId: 18,
      startedEventId: 19,
      result: 'kid-done',
      workflowExecution: { workflowId: 'kid', runId: 'r-kid' },
      workflowType: { name: 'wf', version: '1' },
    },
  }, // 20
  {
    eventType: 'LambdaFunctionScheduled',
    lambdaFunctionScheduledEventAttributes: {
      id: 'l1',
      name: 'fn',
      input: 'li',
      decisionTaskCompletedEventId: 4,
    },
  }, // 21
  {
    eventType: 'LambdaFunctionStarted',
    lambdaFunctionStartedEventAttributes: { scheduledEventId: 21 },
  }, // 22
  {
    eventType: 'LambdaFunctionCompleted',
    lambdaFunctionCompletedEventAttributes: {
      scheduledEventId: 21,
      startedEventId: 22,
      result: 'lr',
    },
  }, // 23
  {
    eventType: 'WorkflowExecutionCancelRequested',
    workflowExecutionCancelRequestedEventAttributes: {},
  }, // 24
  {
    eventType: 'CompleteWorkflowExecutionFailed',
    completeWorkflowExecutionFailedEventAttributes: {
      cause: 'UNHANDLED_DECISION',
      decisionTaskCompletedEventId: 4,
    },
  }, // 25
  { eventType: 'DecisionTaskScheduled' }, // 26
  { eventType: 'DecisionTaskStarted' }, // 27
);
