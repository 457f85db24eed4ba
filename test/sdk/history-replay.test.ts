/**
 * The decider's history view, without a server: a decision task's events become typed state, every
 * page of a task is read, and deciders are plain functions tested from events.
 */
import {
  type HistoryEvent,
  PollForDecisionTaskCommand,
  RespondDecisionTaskCompletedCommand,
  SWFClient,
} from '@aws-sdk/client-swf';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { approvalDecider } from '../../examples/wait-for-signal.js';
import { DeciderWorker, decide, silentLogger, workflowState } from '../../lib/sdk/index.js';
import { until } from './support.js';

/** A history built like SWF's: ids from 1, one timestamp per event. */
function history(...events: object[]): HistoryEvent[] {
  return events.map(
    (e, i) =>
      ({ ...e, eventId: i + 1, eventTimestamp: new Date(1_700_000_000_000 + i) }) as HistoryEvent,
  );
}

const started = {
  eventType: 'WorkflowExecutionStarted',
  workflowExecutionStartedEventAttributes: {
    input: 'order-1',
    workflowType: { name: 'wf', version: '1' },
    taskList: { name: 'deciders' },
    tagList: ['t'],
    childPolicy: 'TERMINATE',
  },
};
const scheduled = (activityId: string) => ({
  eventType: 'ActivityTaskScheduled',
  activityTaskScheduledEventAttributes: {
    activityId,
    activityType: { name: 'work', version: '1' },
    input: `in-${activityId}`,
    taskList: { name: 'activities' },
    decisionTaskCompletedEventId: 4,
  },
});

const events = history(
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

describe('deciders are plain functions, testable without a server', () => {
  const begin = (input: string, ...more: object[]) =>
    history(
      {
        ...started,
        workflowExecutionStartedEventAttributes: {
          ...started.workflowExecutionStartedEventAttributes,
          input,
        },
      },
      { eventType: 'DecisionTaskScheduled' },
      { eventType: 'DecisionTaskStarted' },
      ...more,
    );
  const timerStarted = {
    eventType: 'TimerStarted',
    timerStartedEventAttributes: {
      timerId: 'deadline',
      startToFireTimeout: '30',
      decisionTaskCompletedEventId: 4,
    },
  };
  const signal = {
    eventType: 'WorkflowExecutionSignaled',
    workflowExecutionSignaledEventAttributes: { signalName: 'Approve', input: 'by bob' },
  };
  const fired = {
    eventType: 'TimerFired',
    timerFiredEventAttributes: { timerId: 'deadline', startedEventId: 5 },
  };
  const decided = {
    eventType: 'DecisionTaskCompleted',
    decisionTaskCompletedEventAttributes: { scheduledEventId: 2, startedEventId: 3 },
  };

  it('wait-for-signal: starts its timer', async () => {
    const state = workflowState({ taskToken: 't', events: begin('30') });
    expect(await approvalDecider(state)).toEqual([decide.startTimer('deadline', 30)]);
  });

  it('wait-for-signal: a signal before the timer fires cancels the timer and approves', async () => {
    const state = workflowState({
      taskToken: 't',
      events: begin('30', decided, timerStarted, signal),
    });
    expect(await approvalDecider(state)).toEqual([
      decide.cancelTimer('deadline'),
      decide.completeWorkflowExecution('approved: by bob'),
    ]);
  });

  it('wait-for-signal: the timer fired first, so a later signal is too late', async () => {
    const state = workflowState({
      taskToken: 't',
      events: begin('30', decided, timerStarted, fired, signal),
    });
    expect(await approvalDecider(state)).toEqual([
      decide.completeWorkflowExecution('timed out waiting for approval'),
    ]);
  });
});

describe('decide', () => {
  it('rounds a fraction of a second up: SWF counts whole seconds, and nothing ends early', () => {
    expect(decide.startTimer('t', 0.5).startTimerDecisionAttributes?.startToFireTimeout).toBe('1');
    expect(decide.startTimer('t', 2).startTimerDecisionAttributes?.startToFireTimeout).toBe('2');
    const scheduled = decide.scheduleActivityTask({
      activityId: 'a',
      activityType: { name: 'x', version: '1' },
      heartbeatTimeout: 1.9,
      startToCloseTimeout: 'NONE',
    }).scheduleActivityTaskDecisionAttributes;
    expect(scheduled).toMatchObject({ heartbeatTimeout: '2', startToCloseTimeout: 'NONE' });
  });
});

describe('DeciderWorker', () => {
  it('replays all pages of a decision task (follows nextPageToken) before deciding', async () => {
    const swf = mockClient(SWFClient);
    const first = events.slice(0, 10);
    const second = events.slice(10, 20);
    const third = events.slice(20);
    const base = {
      taskToken: 'tok',
      workflowExecution: { workflowId: 'w', runId: 'r' },
      workflowType: { name: 'wf', version: '1' },
      startedEventId: 27,
      previousStartedEventId: 3,
    };
    // The catch-all first: the mock answers with the last matching definition, so the page-token
    // matchers below take precedence over it.
    swf
      .on(PollForDecisionTaskCommand)
      .resolvesOnce({ ...base, events: first, nextPageToken: 'p2' })
      // An empty long poll, answered after a while as a real one is (an instant answer would spin the
      // loop on microtasks and starve the test's own timers).
      .callsFake(async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return { taskToken: '' };
      });
    swf
      .on(PollForDecisionTaskCommand, { nextPageToken: 'p2' })
      .resolves({ ...base, events: second, nextPageToken: 'p3' })
      .on(PollForDecisionTaskCommand, { nextPageToken: 'p3' })
      .resolves({ ...base, events: third });
    swf.on(RespondDecisionTaskCompletedCommand).resolves({});
    let seen: ReturnType<typeof workflowState> | undefined;
    const worker = new DeciderWorker({
      client: new SWFClient({ region: 'us-east-1' }),
      domain: 'd',
      taskList: 'deciders',
      concurrency: 1,
      shutdownSignals: [],
      logger: silentLogger,
      decider: (state) => {
        seen = state;
        return {
          decisions: [decide.completeWorkflowExecution(state.activities.get('a')?.result)],
          executionContext: 'next',
        };
      },
    }).start();
    await until(
      () => swf.commandCalls(RespondDecisionTaskCompletedCommand).length === 1,
      'the answer',
    );
    await worker.shutdown();
    swf.restore();
    expect(seen?.events).toHaveLength(events.length);
    expect(seen?.lambdaFunctions.get('l1')?.status).toBe('completed');
    const pageCalls = swf
      .commandCalls(PollForDecisionTaskCommand)
      .map((c) => c.args[0].input.nextPageToken);
    expect(pageCalls.slice(0, 3)).toEqual([undefined, 'p2', 'p3']);
    expect(swf.commandCalls(RespondDecisionTaskCompletedCommand)[0]?.args[0].input).toEqual({
      taskToken: 'tok',
      decisions: [decide.completeWorkflowExecution('ra')],
      executionContext: 'next',
    });
  });
});
