import { describe, expect, it } from 'vitest';
import { startRun } from '../../../lib/core/executions.js';
import {
  continueAsNew,
  eventTypes,
  onlyEvent,
  RUN_ID,
  RunDriver,
  runConfig,
  startTimer,
} from '../../support/core-builders.js';

describe('ContinueAsNewWorkflowExecution', () => {
  it('closes the run with the type defaults, not the current run settings', () => {
    const run = new RunDriver();
    run.decide([startTimer('t1')]);
    run.signal();

    run.startDecisionTask();
    const { events, continuedRun } = run.respond([
      continueAsNew({ input: 'next', tagList: ['a', 'b'] }),
    ]);

    const completed = onlyEvent(events, 'DecisionTaskCompleted');
    const continued = onlyEvent(events, 'WorkflowExecutionContinuedAsNew');
    expect(continued.attributes).toEqual({
      input: 'next',
      decisionTaskCompletedEventId: completed.eventId,
      newExecutionRunId: 'continued-1',
      executionStartToCloseTimeout: '3600',
      taskList: { name: 'workflow-default-list' },
      taskPriority: '5',
      taskStartToCloseTimeout: '30',
      childPolicy: 'TERMINATE',
      tagList: ['a', 'b'],
      workflowType: { name: 'main', version: '1' },
    });
    expect(continuedRun).toEqual({
      runId: 'continued-1',
      workflowType: { name: 'main', version: '1' },
      request: {
        taskList: { name: 'workflow-default-list' },
        executionStartToCloseTimeout: '3600',
        taskStartToCloseTimeout: '30',
        childPolicy: 'TERMINATE',
        taskPriority: '5',
      },
      input: 'next',
      tagList: ['a', 'b'],
    });
    expect(continuedRun?.request).not.toMatchObject({ taskList: runConfig.taskList });
    expect(eventTypes(events).at(-1)).toBe('WorkflowExecutionContinuedAsNew');
    expect(run.state).toMatchObject({
      status: 'CLOSED',
      closeStatus: 'CONTINUED_AS_NEW',
      newExecutionRunId: 'continued-1',
      timers: {},
    });
  });

  it('takes the defaults of the version it names, including the Lambda role', () => {
    const run = new RunDriver();

    run.startDecisionTask();
    const { events, continuedRun } = run.respond([continueAsNew({ workflowTypeVersion: '2' })]);

    expect(onlyEvent(events, 'WorkflowExecutionContinuedAsNew').attributes).toMatchObject({
      workflowType: { name: 'main', version: '2' },
      taskList: { name: 'v2-list' },
      executionStartToCloseTimeout: '7200',
      taskStartToCloseTimeout: '60',
      childPolicy: 'ABANDON',
      taskPriority: '9',
      lambdaRole: 'arn:aws:iam::123456789012:role/v2',
    });
    expect(continuedRun?.workflowType).toEqual({ name: 'main', version: '2' });
  });

  it('prefers the values the decision gives over the type defaults', () => {
    const run = new RunDriver();

    run.startDecisionTask();
    const { continuedRun } = run.respond([
      continueAsNew({
        taskList: { name: 'given' },
        executionStartToCloseTimeout: '1',
        taskStartToCloseTimeout: '2',
        childPolicy: 'ABANDON',
        taskPriority: '-1',
        lambdaRole: 'role',
      }),
    ]);

    expect(continuedRun?.request).toEqual({
      taskList: { name: 'given' },
      executionStartToCloseTimeout: '1',
      taskStartToCloseTimeout: '2',
      childPolicy: 'ABANDON',
      taskPriority: '-1',
      lambdaRole: 'role',
    });
  });

  it('gives a continued run whose history starts with the link to the previous run', () => {
    const run = new RunDriver();
    run.startDecisionTask();
    const { continuedRun } = run.respond([continueAsNew({ input: 'next' })]);
    if (continuedRun === undefined) throw new Error('no continued run');

    const next = startRun(
      {
        domain: run.state.domain,
        execution: { workflowId: run.state.execution.workflowId, runId: continuedRun.runId },
        workflowType: continuedRun.workflowType,
        config: continuedRun.request,
        continuedExecutionRunId: RUN_ID,
        input: 'next',
      },
      run.now,
    );

    expect(eventTypes(next.events)).toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled']);
    expect(onlyEvent(next.events, 'WorkflowExecutionStarted').attributes).toMatchObject({
      continuedExecutionRunId: RUN_ID,
      input: 'next',
      parentInitiatedEventId: 0,
    });
    expect(onlyEvent(next.events, 'DecisionTaskScheduled').attributes).toEqual({
      taskList: { name: 'workflow-default-list' },
      taskPriority: '5',
      startToCloseTimeout: '30',
      scheduleToStartTimeout: 'NONE',
    });
  });

  it.each([
    ['WORKFLOW_TYPE_DOES_NOT_EXIST', { workflowTypeVersion: 'nope' }],
    ['WORKFLOW_TYPE_DEPRECATED', { workflowTypeVersion: 'deprecated' }],
    ['DEFAULT_TASK_LIST_UNDEFINED', { workflowTypeVersion: 'bare' }],
    [
      'DEFAULT_EXECUTION_START_TO_CLOSE_TIMEOUT_UNDEFINED',
      { workflowTypeVersion: 'bare', taskList: { name: 'l' } },
    ],
    [
      'DEFAULT_TASK_START_TO_CLOSE_TIMEOUT_UNDEFINED',
      { workflowTypeVersion: 'bare', taskList: { name: 'l' }, executionStartToCloseTimeout: '1' },
    ],
    [
      'DEFAULT_CHILD_POLICY_UNDEFINED',
      {
        workflowTypeVersion: 'bare',
        taskList: { name: 'l' },
        executionStartToCloseTimeout: '1',
        taskStartToCloseTimeout: '1',
      },
    ],
  ] as const)(
    'fails with %s, keeps the run open and schedules a decision task',
    (cause, attributes) => {
      const run = new RunDriver();

      run.startDecisionTask();
      const { events, continuedRun } = run.respond([continueAsNew(attributes)]);

      const completed = onlyEvent(events, 'DecisionTaskCompleted');
      expect(eventTypes(events)).toEqual([
        'DecisionTaskCompleted',
        'ContinueAsNewWorkflowExecutionFailed',
        'DecisionTaskScheduled',
      ]);
      expect(onlyEvent(events, 'ContinueAsNewWorkflowExecutionFailed').attributes).toEqual({
        cause,
        decisionTaskCompletedEventId: completed.eventId,
      });
      expect(continuedRun).toBeUndefined();
      expect(run.state.status).toBe('OPEN');
    },
  );

  it('does not take the run defaults when the type lacks one', () => {
    const run = new RunDriver();

    run.startDecisionTask();
    const { events } = run.respond([continueAsNew({ workflowTypeVersion: 'bare' })]);

    // The current run has a task list (run-list); the type has none, so the decision fails.
    expect(onlyEvent(events, 'ContinueAsNewWorkflowExecutionFailed').attributes.cause).toBe(
      'DEFAULT_TASK_LIST_UNDEFINED',
    );
  });
});
