/**
 * Deciders without a server: plain functions tested from events, the decide helpers, and the
 * DeciderWorker reading every page of a task.
 */

import {
  PollForDecisionTaskCommand,
  RespondDecisionTaskCompletedCommand,
  SWFClient,
} from '@aws-sdk/client-swf';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { approvalDecider } from '../../examples/wait-for-signal.js';
import { DeciderWorker, decide, silentLogger, workflowState } from '../../lib/sdk/index.js';
import { events, history, started } from './history-fixtures.js';
import { until } from './support.js';

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
