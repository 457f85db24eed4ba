/**
 * The decisions that close a run, through the official SDK: CompleteWorkflowExecution,
 * FailWorkflowExecution, CancelWorkflowExecution and ContinueAsNewWorkflowExecution, with the
 * failures of the last.
 */
import {
  CountPendingActivityTasksCommand,
  RespondActivityTaskCompletedCommand,
  SignalWorkflowExecutionCommand,
  StartWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { decide, eventsOf, eventTypes, expectFault, single, uid } from '../support/decider.js';
import {
  act,
  bareWf,
  countDecisions,
  domain,
  nextTask,
  serveDecisionTasks,
  startAndDecide,
  wf,
  wf2,
} from '../support/decision-tasks.js';
import { servedForFile } from '../support/local.js';

const server = servedForFile(serveDecisionTasks);

describe('close decisions', () => {
  it('CompleteWorkflowExecution closes COMPLETED with the result', async () => {
    const { execution, taskList } = await startAndDecide(server.driver, [
      decide.complete('the result'),
    ]);
    const history = await server.driver.history(execution);
    expect(history.at(-1)?.eventType).toBe('WorkflowExecutionCompleted');
    expect(history.at(-1)?.workflowExecutionCompletedEventAttributes).toEqual({
      result: 'the result',
      decisionTaskCompletedEventId: 4,
    });
    expect((await server.driver.describe(execution)).executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'COMPLETED',
    });
    expect(await countDecisions(server.swf, taskList)).toBe(0);
    await expectFault(server.driver.signal(execution), 'UnknownResourceFault');
  });

  it('FailWorkflowExecution closes FAILED with reason and details', async () => {
    const { execution } = await startAndDecide(server.driver, [decide.fail('broken', 'stack')]);
    const history = await server.driver.history(execution);
    expect(history.at(-1)?.workflowExecutionFailedEventAttributes).toEqual({
      reason: 'broken',
      details: 'stack',
      decisionTaskCompletedEventId: 4,
    });
    expect((await server.driver.describe(execution)).executionInfo?.closeStatus).toBe('FAILED');
  });

  it('CancelWorkflowExecution closes CANCELED with the details, with or without a cancel request', async () => {
    const { execution } = await startAndDecide(server.driver, [decide.cancel('gone')]);
    const history = await server.driver.history(execution);
    expect(history.at(-1)?.workflowExecutionCanceledEventAttributes).toEqual({
      details: 'gone',
      decisionTaskCompletedEventId: 4,
    });
    expect((await server.driver.describe(execution)).executionInfo?.closeStatus).toBe('CANCELED');
  });

  it('a close decision abandons open activities and timers; their tokens die', async () => {
    const workers = uid('workers');
    const { execution, taskList } = await startAndDecide(server.driver, [
      decide.scheduleActivity({ activityType: act, activityId: 'a', taskList: { name: workers } }),
      decide.scheduleActivity({ activityType: act, activityId: 'b', taskList: { name: workers } }),
      decide.startTimer('t'),
    ]);
    const running = await server.driver.pollActivity(workers);
    const task = await nextTask(server.driver, execution, taskList);
    await server.driver.respond(task.taskToken, [decide.complete()]);
    expect((await server.driver.describe(execution)).openCounts).toMatchObject({
      openActivityTasks: 0,
      openTimers: 0,
      openDecisionTasks: 0,
    });
    await expectFault(
      server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken: running.taskToken })),
      'UnknownResourceFault',
    );
    expect(
      (
        await server.swf.send(
          new CountPendingActivityTasksCommand({ domain, taskList: { name: workers } }),
        )
      ).count,
    ).toBe(0);
  });
});

describe('ContinueAsNewWorkflowExecution', () => {
  it('closes the run CONTINUED_AS_NEW and starts a new run that takes the workflowId', async () => {
    const { execution, taskList } = await server.driver.start(wf, {
      taskStartToCloseTimeout: '99',
      tagList: ['old-tag'],
    });
    const newList = uid('continued');
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [
      decide.continueAsNew({ input: 'next', taskList: { name: newList }, tagList: ['loop'] }),
    ]);

    const old = await server.driver.history(execution);
    const continued = old.at(-1);
    expect(continued?.eventType).toBe('WorkflowExecutionContinuedAsNew');
    const attributes = continued?.workflowExecutionContinuedAsNewEventAttributes;
    const newRunId = attributes?.newExecutionRunId ?? '';
    expect(newRunId).toBeTruthy();
    expect(newRunId).not.toBe(execution.runId);
    // values not given come from the type's defaults, not from the old run
    expect(attributes).toMatchObject({
      input: 'next',
      decisionTaskCompletedEventId: 4,
      taskList: { name: newList },
      taskStartToCloseTimeout: '30',
      executionStartToCloseTimeout: '3600',
      childPolicy: 'TERMINATE',
      tagList: ['loop'],
      workflowType: wf,
    });
    expect((await server.driver.describe(execution)).executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'CONTINUED_AS_NEW',
    });

    const next = { workflowId: execution.workflowId, runId: newRunId };
    const nextDetail = await server.driver.describe(next);
    expect(nextDetail.executionInfo).toMatchObject({
      executionStatus: 'OPEN',
      workflowType: wf,
      tagList: ['loop'],
    });
    expect(nextDetail.executionConfiguration).toMatchObject({
      taskList: { name: newList },
      taskStartToCloseTimeout: '30',
    });
    const nextHistory = await server.driver.history(next);
    expect(eventTypes(nextHistory)).toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled']);
    expect(nextHistory[0]?.workflowExecutionStartedEventAttributes).toMatchObject({
      input: 'next',
      continuedExecutionRunId: execution.runId,
      taskList: { name: newList },
      tagList: ['loop'],
    });
    expect(await countDecisions(server.swf, newList)).toBe(1);
    expect(await countDecisions(server.swf, taskList)).toBe(0);

    // a signal without runId reaches the new run
    await server.swf.send(
      new SignalWorkflowExecutionCommand({
        domain,
        workflowId: execution.workflowId,
        signalName: 'hello',
      }),
    );
    expect(eventsOf(await server.driver.history(next), 'WorkflowExecutionSignaled')).toHaveLength(
      1,
    );
    expect(
      eventsOf(await server.driver.history(execution), 'WorkflowExecutionSignaled'),
    ).toHaveLength(0);
    await expectFault(
      server.swf.send(
        new StartWorkflowExecutionCommand({
          domain,
          workflowId: execution.workflowId,
          workflowType: wf,
        }),
      ),
      'WorkflowExecutionAlreadyStartedFault',
    );

    const first = await server.driver.pollDecision(newList);
    expect(first.workflowExecution).toEqual(next);
    expect(first.previousStartedEventId).toBe(0);
    expect(eventTypes(first.events)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'WorkflowExecutionSignaled',
      'DecisionTaskStarted',
    ]);
    await server.driver.respond(first.taskToken, [decide.complete()]);
    expect((await server.driver.describe(next)).executionInfo?.closeStatus).toBe('COMPLETED');
  });

  it('takes NONE for the new run’s execution timeout, as SWF documents for this decision', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const newList = uid('unlimited');
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [
      decide.continueAsNew({ executionStartToCloseTimeout: 'NONE', taskList: { name: newList } }),
    ]);
    const continued = single(
      await server.driver.history(execution),
      'WorkflowExecutionContinuedAsNew',
    );
    const attributes = continued.workflowExecutionContinuedAsNewEventAttributes;
    expect(attributes?.executionStartToCloseTimeout).toBe('NONE');
    const next = await server.driver.pollDecision(newList);
    expect(
      next.events[0]?.workflowExecutionStartedEventAttributes?.executionStartToCloseTimeout,
    ).toBe('NONE');
    const run = { workflowId: execution.workflowId, runId: attributes?.newExecutionRunId ?? '' };
    expect(
      (await server.driver.describe(run)).executionConfiguration?.executionStartToCloseTimeout,
    ).toBe('NONE');
  });

  it('continues as another version of the type with workflowTypeVersion', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const newList = uid('v2');
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [
      decide.continueAsNew({ workflowTypeVersion: '2', taskList: { name: newList } }),
    ]);
    const continued = single(
      await server.driver.history(execution),
      'WorkflowExecutionContinuedAsNew',
    );
    const attributes = continued.workflowExecutionContinuedAsNewEventAttributes;
    expect(attributes).toMatchObject({
      workflowType: wf2,
      executionStartToCloseTimeout: '7200',
      taskStartToCloseTimeout: '40',
      childPolicy: 'ABANDON',
      taskPriority: '4',
    });
    const next = await server.driver.pollDecision(newList);
    expect(next.workflowType).toEqual(wf2);
    expect(next.workflowExecution?.runId).toBe(attributes?.newExecutionRunId);
  });

  it('records ContinueAsNewWorkflowExecutionFailed for an unknown version and keeps the run open', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [
      decide.continueAsNew({ workflowTypeVersion: '99' }),
    ]);
    const history = await server.driver.history(execution);
    expect(
      single(history, 'ContinueAsNewWorkflowExecutionFailed')
        .continueAsNewWorkflowExecutionFailedEventAttributes,
    ).toEqual({
      cause: 'WORKFLOW_TYPE_DOES_NOT_EXIST',
      decisionTaskCompletedEventId: 4,
    });
    expect(history.at(-1)?.eventType).toBe('DecisionTaskScheduled');
    expect((await server.driver.describe(execution)).executionInfo?.executionStatus).toBe('OPEN');
  });
});

describe('ContinueAsNewWorkflowExecution failures', () => {
  const config = {
    taskList: { name: 'bare-continued' },
    executionStartToCloseTimeout: '100',
    taskStartToCloseTimeout: '10',
    childPolicy: 'ABANDON' as const,
  };
  const causes = {
    taskList: 'DEFAULT_TASK_LIST_UNDEFINED',
    executionStartToCloseTimeout: 'DEFAULT_EXECUTION_START_TO_CLOSE_TIMEOUT_UNDEFINED',
    taskStartToCloseTimeout: 'DEFAULT_TASK_START_TO_CLOSE_TIMEOUT_UNDEFINED',
    childPolicy: 'DEFAULT_CHILD_POLICY_UNDEFINED',
  } as const;

  it.each(Object.keys(causes) as (keyof typeof causes)[])(
    'records %s missing (no type default) as its DEFAULT_*_UNDEFINED cause',
    async (field) => {
      const { execution, taskList } = await server.driver.start(bareWf, {
        ...config,
        taskList: { name: uid('bare') },
      });
      const task = await server.driver.pollDecision(taskList);
      const { [field]: _omitted, ...rest } = config;
      await server.driver.respond(task.taskToken, [decide.continueAsNew(rest)]);
      const history = await server.driver.history(execution);
      expect(
        single(history, 'ContinueAsNewWorkflowExecutionFailed')
          .continueAsNewWorkflowExecutionFailedEventAttributes,
      ).toEqual({
        cause: causes[field],
        decisionTaskCompletedEventId: 4,
      });
      expect(history.at(-1)?.eventType).toBe('DecisionTaskScheduled');
      expect((await server.driver.describe(execution)).executionInfo?.executionStatus).toBe('OPEN');
    },
  );

  it('records WORKFLOW_TYPE_DEPRECATED for a deprecated version', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [
      decide.continueAsNew({ workflowTypeVersion: '3' }),
    ]);
    expect(
      single(await server.driver.history(execution), 'ContinueAsNewWorkflowExecutionFailed')
        .continueAsNewWorkflowExecutionFailedEventAttributes?.cause,
    ).toBe('WORKFLOW_TYPE_DEPRECATED');
  });
});
