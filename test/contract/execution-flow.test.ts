import {
  DescribeWorkflowExecutionCommand,
  GetWorkflowExecutionHistoryCommand,
  type HistoryEvent,
  PollForActivityTaskCommand,
  PollForDecisionTaskCommand,
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  RespondActivityTaskCompletedCommand,
  RespondDecisionTaskCompletedCommand,
  StartWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { serverForFile } from '../support/local.js';

const domain = 'flow';

const server = serverForFile({ polling: { maxWaitMs: 2_000 } }, async ({ swf }) => {
  await swf.send(
    new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }),
  );
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      name: 'wf',
      version: '1',
      defaultTaskList: { name: 'deciders' },
      defaultExecutionStartToCloseTimeout: '600',
      defaultTaskStartToCloseTimeout: '30',
      defaultChildPolicy: 'TERMINATE',
    }),
  );
  await swf.send(
    new RegisterActivityTypeCommand({
      domain,
      name: 'act',
      version: '1',
      defaultTaskList: { name: 'workers' },
      defaultTaskScheduleToStartTimeout: 'NONE',
      defaultTaskScheduleToCloseTimeout: 'NONE',
      defaultTaskStartToCloseTimeout: '60',
      defaultTaskHeartbeatTimeout: 'NONE',
    }),
  );
});

const types = (events: HistoryEvent[] | undefined) => (events ?? []).map((e) => e.eventType);

describe('a workflow with one activity', () => {
  it('runs start → decision → activity → decision → complete', async () => {
    const { runId } = await server.swf.send(
      new StartWorkflowExecutionCommand({
        domain,
        workflowId: 'w1',
        workflowType: { name: 'wf', version: '1' },
        input: 'hello',
      }),
    );
    expect(runId).toBeTruthy();

    const first = await server.swf.send(
      new PollForDecisionTaskCommand({
        domain,
        taskList: { name: 'deciders' },
        identity: 'decider-1',
      }),
    );
    expect(first.taskToken).toBeTruthy();
    expect(first.workflowExecution).toEqual({ workflowId: 'w1', runId });
    expect(first.previousStartedEventId).toBe(0);
    expect(first.startedEventId).toBe(3);
    expect(types(first.events)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    expect(first.events?.[0]?.workflowExecutionStartedEventAttributes).toMatchObject({
      input: 'hello',
      taskList: { name: 'deciders' },
      childPolicy: 'TERMINATE',
      executionStartToCloseTimeout: '600',
      taskStartToCloseTimeout: '30',
      parentInitiatedEventId: 0,
    });

    await server.swf.send(
      new RespondDecisionTaskCompletedCommand({
        taskToken: first.taskToken,
        decisions: [
          {
            decisionType: 'ScheduleActivityTask',
            scheduleActivityTaskDecisionAttributes: {
              activityType: { name: 'act', version: '1' },
              activityId: 'a1',
              input: 'in',
            },
          },
        ],
      }),
    );

    const task = await server.swf.send(
      new PollForActivityTaskCommand({
        domain,
        taskList: { name: 'workers' },
        identity: 'worker-1',
      }),
    );
    expect(task).toMatchObject({
      activityId: 'a1',
      input: 'in',
      activityType: { name: 'act', version: '1' },
    });
    await server.swf.send(
      new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken, result: 'out' }),
    );

    const second = await server.swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: 'deciders' } }),
    );
    expect(second.previousStartedEventId).toBe(3);
    expect(types(second.events).slice(3)).toEqual([
      'DecisionTaskCompleted',
      'ActivityTaskScheduled',
      'ActivityTaskStarted',
      'ActivityTaskCompleted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    await server.swf.send(
      new RespondDecisionTaskCompletedCommand({
        taskToken: second.taskToken,
        decisions: [
          {
            decisionType: 'CompleteWorkflowExecution',
            completeWorkflowExecutionDecisionAttributes: { result: 'done' },
          },
        ],
      }),
    );

    const described = await server.swf.send(
      new DescribeWorkflowExecutionCommand({ domain, execution: { workflowId: 'w1', runId } }),
    );
    expect(described.executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'COMPLETED',
      cancelRequested: false,
    });
    expect(described.openCounts).toEqual({
      openActivityTasks: 0,
      openDecisionTasks: 0,
      openTimers: 0,
      openChildWorkflowExecutions: 0,
      openLambdaFunctions: 0,
    });
    const history = await server.swf.send(
      new GetWorkflowExecutionHistoryCommand({ domain, execution: { workflowId: 'w1', runId } }),
    );
    expect(types(history.events).at(-1)).toBe('WorkflowExecutionCompleted');
    expect(history.events?.map((e) => e.eventId)).toEqual(
      Array.from({ length: 11 }, (_, i) => i + 1),
    );
  });
});
