/** The decisions that start other work: child workflow executions and Lambda functions. */
import { describe, expect, it } from 'vitest';
import { childAlreadyRunning } from '../../../lib/core/cross-execution.js';
import {
  closeLambdaFunction,
  type LambdaOutcome,
  startLambdaFunction,
} from '../../../lib/core/lambda-functions.js';
import { executionLimits } from '../../../lib/core/limits.js';
import {
  decision,
  eventTypes,
  onlyEvent,
  RunDriver,
  runConfig,
  scheduleLambda,
  startChild,
  T0,
} from '../../support/core-builders.js';

describe('StartChildWorkflowExecution', () => {
  it('records StartChildWorkflowExecutionInitiated with the child type defaults resolved', () => {
    const run = new RunDriver();

    const events = run.decide([
      startChild('kid', { input: 'i', control: 'c', tagList: ['t'], taskPriority: '1' }),
    ]);

    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    const initiated = onlyEvent(events, 'StartChildWorkflowExecutionInitiated');
    expect(initiated.attributes).toEqual({
      workflowId: 'kid',
      workflowType: { name: 'child', version: '1' },
      control: 'c',
      input: 'i',
      executionStartToCloseTimeout: '3600',
      taskList: { name: 'workflow-default-list' },
      taskPriority: '1',
      decisionTaskCompletedEventId: completed.eventId,
      childPolicy: 'TERMINATE',
      taskStartToCloseTimeout: '30',
      tagList: ['t'],
    });
    expect(eventTypes(events).at(-1)).toBe('StartChildWorkflowExecutionInitiated');
    expect(run.state.children[String(initiated.eventId)]).toMatchObject({
      workflowId: 'kid',
      initiatedEventId: initiated.eventId,
    });
  });

  it.each([
    [
      'WORKFLOW_TYPE_DOES_NOT_EXIST',
      startChild('kid', { workflowType: { name: 'nope', version: '1' }, control: 'c' }),
    ],
    [
      'WORKFLOW_TYPE_DEPRECATED',
      startChild('kid', { workflowType: { name: 'child', version: 'deprecated' }, control: 'c' }),
    ],
    [
      'DEFAULT_TASK_LIST_UNDEFINED',
      startChild('kid', { workflowType: { name: 'child', version: 'bare' }, control: 'c' }),
    ],
    [
      'DEFAULT_EXECUTION_START_TO_CLOSE_TIMEOUT_UNDEFINED',
      startChild('kid', {
        workflowType: { name: 'child', version: 'bare' },
        control: 'c',
        taskList: { name: 'l' },
      }),
    ],
    [
      'DEFAULT_TASK_START_TO_CLOSE_TIMEOUT_UNDEFINED',
      startChild('kid', {
        workflowType: { name: 'child', version: 'bare' },
        control: 'c',
        taskList: { name: 'l' },
        executionStartToCloseTimeout: '10',
      }),
    ],
    [
      'DEFAULT_CHILD_POLICY_UNDEFINED',
      startChild('kid', {
        workflowType: { name: 'child', version: 'bare' },
        control: 'c',
        taskList: { name: 'l' },
        executionStartToCloseTimeout: '10',
        taskStartToCloseTimeout: '10',
      }),
    ],
  ] as const)(
    'fails with %s without an Initiated event and with initiatedEventId 0',
    (cause, start) => {
      const run = new RunDriver();

      const events = run.decide([start]);

      const completed = onlyEvent(events, 'DecisionTaskCompleted');
      expect(eventTypes(events)).not.toContain('StartChildWorkflowExecutionInitiated');
      expect(onlyEvent(events, 'StartChildWorkflowExecutionFailed').attributes).toEqual({
        workflowType: start.attributes.workflowType,
        cause,
        workflowId: 'kid',
        initiatedEventId: 0,
        decisionTaskCompletedEventId: completed.eventId,
        control: 'c',
      });
      expect(eventTypes(events).at(-1)).toBe('DecisionTaskScheduled');
      expect(run.state.children).toEqual({});
    },
  );

  it('fails with OPEN_CHILDREN_LIMIT_EXCEEDED once the execution has the maximum open', () => {
    const run = new RunDriver();
    const limit = executionLimits.openChildren;
    const many = Array.from({ length: limit }, (_, i) => startChild(`kid${i}`));

    const events = run.decide([...many, startChild('one-too-many')]);

    expect(Object.keys(run.state.children)).toHaveLength(limit);
    expect(onlyEvent(events, 'StartChildWorkflowExecutionFailed').attributes).toMatchObject({
      workflowId: 'one-too-many',
      cause: 'OPEN_CHILDREN_LIMIT_EXCEEDED',
      initiatedEventId: 0,
    });
  });

  it('reports WORKFLOW_ALREADY_RUNNING after the Initiated event, pointing at it', () => {
    const run = new RunDriver();
    const events = run.decide([startChild('kid', { control: 'c' })]);
    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    const initiated = onlyEvent(events, 'StartChildWorkflowExecutionInitiated');

    const t = childAlreadyRunning(run.state, initiated.eventId, run.now + 1);
    if (t === undefined) throw new Error('nothing recorded');
    const recorded = run.commit(t);

    expect(eventTypes(recorded)).toEqual([
      'StartChildWorkflowExecutionFailed',
      'DecisionTaskScheduled',
    ]);
    expect(recorded[0]?.attributes).toEqual({
      workflowType: { name: 'child', version: '1' },
      cause: 'WORKFLOW_ALREADY_RUNNING',
      workflowId: 'kid',
      initiatedEventId: initiated.eventId,
      decisionTaskCompletedEventId: completed.eventId,
      control: 'c',
    });
    expect(run.state.children).toEqual({});
  });
});

describe('ScheduleLambdaFunction', () => {
  it('records LambdaFunctionScheduled with the default timeout and no decision task', () => {
    const run = new RunDriver();

    const events = run.decide([
      decision('ScheduleLambdaFunction', { id: 'l1', name: 'fn', input: 'i', control: 'c' }),
    ]);

    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    const scheduled = onlyEvent(events, 'LambdaFunctionScheduled');
    expect(scheduled.attributes).toEqual({
      id: 'l1',
      name: 'fn',
      input: 'i',
      control: 'c',
      startToCloseTimeout: '900',
      decisionTaskCompletedEventId: completed.eventId,
    });
    expect(eventTypes(events).at(-1)).toBe('LambdaFunctionScheduled');
    expect(run.state.lambdaFunctions.l1?.scheduledEventId).toBe(scheduled.eventId);
  });

  it('fails with ID_ALREADY_IN_USE while a Lambda task with that id is open', () => {
    const run = new RunDriver();

    const events = run.decide([scheduleLambda('l1'), scheduleLambda('l1', 'other')]);

    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    expect(onlyEvent(events, 'ScheduleLambdaFunctionFailed').attributes).toEqual({
      id: 'l1',
      name: 'other',
      cause: 'ID_ALREADY_IN_USE',
      decisionTaskCompletedEventId: completed.eventId,
    });
    expect(eventTypes(events).at(-1)).toBe('DecisionTaskScheduled');
  });

  it('fails with OPEN_LAMBDA_FUNCTIONS_LIMIT_EXCEEDED once the execution has the maximum open', () => {
    const run = new RunDriver();
    const limit = executionLimits.openLambdaFunctions;
    const many = Array.from({ length: limit }, (_, i) => scheduleLambda(`l${i}`));

    const events = run.decide([...many, scheduleLambda('one-too-many')]);

    expect(onlyEvent(events, 'ScheduleLambdaFunctionFailed').attributes).toMatchObject({
      id: 'one-too-many',
      cause: 'OPEN_LAMBDA_FUNCTIONS_LIMIT_EXCEEDED',
    });
  });

  it('fails with LAMBDA_SERVICE_NOT_AVAILABLE_IN_REGION without a Lambda backend', () => {
    const run = new RunDriver({ lambdaAvailable: false });

    const events = run.decide([scheduleLambda('l1')]);

    expect(onlyEvent(events, 'ScheduleLambdaFunctionFailed').attributes.cause).toBe(
      'LAMBDA_SERVICE_NOT_AVAILABLE_IN_REGION',
    );
    expect(run.state.lambdaFunctions).toEqual({});
  });

  it('fails with OPERATION_NOT_PERMITTED when the execution has no lambdaRole', () => {
    const { lambdaRole: _none, ...withoutRole } = runConfig;
    const run = new RunDriver({ config: withoutRole });

    const events = run.decide([scheduleLambda('l1')]);

    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    expect(onlyEvent(events, 'ScheduleLambdaFunctionFailed').attributes).toEqual({
      id: 'l1',
      name: 'fn',
      cause: 'OPERATION_NOT_PERMITTED',
      decisionTaskCompletedEventId: completed.eventId,
    });
    expect(run.state.lambdaFunctions).toEqual({});
    expect(eventTypes(events).at(-1)).toBe('DecisionTaskScheduled');
  });

  it("cuts a function's result, reason, details and message to what their events hold", () => {
    const outcomes: LambdaOutcome[] = [
      { kind: 'completed', result: 'r'.repeat(40_000) },
      { kind: 'failed', reason: 'e'.repeat(300), details: 'd'.repeat(40_000) },
      { kind: 'start-failed', cause: 'ASSUME_ROLE_FAILED', message: 'm'.repeat(2_000) },
    ];
    const recorded = outcomes.map((outcome) => {
      const run = new RunDriver();
      run.decide([scheduleLambda('l1')]);
      const scheduledEventId = run.state.lambdaFunctions.l1?.scheduledEventId ?? 0;
      const started = startLambdaFunction(run.state, scheduledEventId, T0 + 5);
      if (started === undefined) throw new Error('not started');
      const closed = closeLambdaFunction(
        started.state,
        scheduledEventId,
        started.state.nextEventId - 1,
        outcome,
        T0 + 6,
      );
      return closed?.events[0]?.attributes as Record<string, string> | undefined;
    });
    expect(recorded[0]?.result).toHaveLength(32_768);
    expect(recorded[1]?.reason).toHaveLength(256);
    expect(recorded[1]?.details).toHaveLength(32_768);
    expect(recorded[2]?.message).toHaveLength(1_728);
  });
});
