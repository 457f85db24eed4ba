/**
 * Child workflows through the official SDK: each way StartChildWorkflowExecution fails, as the parent
 * sees it.
 */
import { type Decision, TerminateWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import {
  bareType,
  childType,
  domain,
  oldType,
  parentType,
  serveChildren,
  startChild,
} from '../support/child-workflows.js';
import { eventsOf, eventTypes, single, uid } from '../support/decider.js';
import { servedForFile } from '../support/local.js';

const server = servedForFile(serveChildren);

describe('StartChildWorkflowExecution', () => {
  describe('start failures', () => {
    /** Starts a parent, answers its first task with `decisions`, and returns its next decision task. */
    async function failedStarts(decisions: Decision[]) {
      const parent = await server.driver.start(parentType);
      const first = await server.driver.decide(parent.taskList, () => decisions);
      const task = await server.driver.pollDecision(parent.taskList);
      return { parent, task, completedEventId: (first.startedEventId ?? 0) + 1 };
    }

    it('records validation failures with initiatedEventId 0 and no Initiated event, and schedules a decision task', async () => {
      const missing = uid('missing');
      const deprecated = uid('deprecated');
      const { task, completedEventId } = await failedStarts([
        startChild({
          workflowType: { name: 'nope', version: '1' },
          workflowId: missing,
          control: 'c',
        }),
        startChild({ workflowType: oldType, workflowId: deprecated }),
      ]);
      expect(eventTypes(task.events).slice(3)).toEqual([
        'DecisionTaskCompleted',
        'StartChildWorkflowExecutionFailed',
        'StartChildWorkflowExecutionFailed',
        'DecisionTaskScheduled',
        'DecisionTaskStarted',
      ]);
      expect(
        eventsOf(task.events, 'StartChildWorkflowExecutionFailed').map(
          (e) => e.startChildWorkflowExecutionFailedEventAttributes,
        ),
      ).toEqual([
        {
          workflowType: { name: 'nope', version: '1' },
          cause: 'WORKFLOW_TYPE_DOES_NOT_EXIST',
          workflowId: missing,
          initiatedEventId: 0,
          decisionTaskCompletedEventId: completedEventId,
          control: 'c',
        },
        {
          workflowType: oldType,
          cause: 'WORKFLOW_TYPE_DEPRECATED',
          workflowId: deprecated,
          initiatedEventId: 0,
          decisionTaskCompletedEventId: completedEventId,
        },
      ]);
    });

    it('names each default the child type lacks', async () => {
      const full = {
        taskList: { name: uid('never') },
        executionStartToCloseTimeout: '60',
        taskStartToCloseTimeout: '10',
        childPolicy: 'TERMINATE' as const,
      };
      const without = (key: keyof typeof full) => {
        const { [key]: _dropped, ...rest } = full;
        return startChild({ workflowType: bareType, workflowId: uid(`no-${key}`), ...rest });
      };
      const { parent, task } = await failedStarts([
        without('taskList'),
        without('executionStartToCloseTimeout'),
        without('taskStartToCloseTimeout'),
        without('childPolicy'),
      ]);
      expect(
        eventsOf(task.events, 'StartChildWorkflowExecutionFailed').map((e) => [
          e.startChildWorkflowExecutionFailedEventAttributes?.cause,
          e.startChildWorkflowExecutionFailedEventAttributes?.initiatedEventId,
        ]),
      ).toEqual([
        ['DEFAULT_TASK_LIST_UNDEFINED', 0],
        ['DEFAULT_EXECUTION_START_TO_CLOSE_TIMEOUT_UNDEFINED', 0],
        ['DEFAULT_TASK_START_TO_CLOSE_TIMEOUT_UNDEFINED', 0],
        ['DEFAULT_CHILD_POLICY_UNDEFINED', 0],
      ]);
      expect(eventsOf(task.events, 'StartChildWorkflowExecutionInitiated')).toEqual([]);
      expect(
        (await server.driver.describe(parent.execution)).openCounts?.openChildWorkflowExecutions,
      ).toBe(0);
    });

    it('starts a child of a type without defaults when the decision gives every value', async () => {
      const childTaskList = uid('bare-child');
      const { task } = await failedStarts([
        startChild({
          workflowType: bareType,
          workflowId: uid('bare'),
          taskList: { name: childTaskList },
          executionStartToCloseTimeout: '60',
          taskStartToCloseTimeout: '10',
          childPolicy: 'ABANDON',
        }),
      ]);
      expect(eventTypes(task.events).slice(4, 6)).toEqual([
        'StartChildWorkflowExecutionInitiated',
        'ChildWorkflowExecutionStarted',
      ]);
      const childTask = await server.driver.pollDecision(childTaskList);
      expect(childTask.events[0]?.workflowExecutionStartedEventAttributes).toMatchObject({
        childPolicy: 'ABANDON',
        taskPriority: '0',
        executionStartToCloseTimeout: '60',
        taskStartToCloseTimeout: '10',
      });
    });

    it('takes NONE for the execution timeout, as SWF documents for this decision', async () => {
      const childTaskList = uid('unlimited-child');
      const { task } = await failedStarts([
        startChild({
          workflowType: bareType,
          workflowId: uid('unlimited'),
          taskList: { name: childTaskList },
          executionStartToCloseTimeout: 'NONE',
          taskStartToCloseTimeout: '10',
          childPolicy: 'ABANDON',
        }),
      ]);
      expect(
        task.events[4]?.startChildWorkflowExecutionInitiatedEventAttributes
          ?.executionStartToCloseTimeout,
      ).toBe('NONE');
      const childTask = await server.driver.pollDecision(childTaskList);
      expect(
        childTask.events[0]?.workflowExecutionStartedEventAttributes?.executionStartToCloseTimeout,
      ).toBe('NONE');
      const child = childTask.workflowExecution;
      if (child === undefined) throw new Error('no child execution');
      expect(
        (await server.driver.describe(child)).executionConfiguration?.executionStartToCloseTimeout,
      ).toBe('NONE');
    });

    it('reports WORKFLOW_ALREADY_RUNNING after an Initiated event, pointing at it', async () => {
      const existing = await server.driver.start(childType);
      const before = await server.driver.history(existing.execution);
      const { parent, task, completedEventId } = await failedStarts([
        startChild({
          workflowType: childType,
          workflowId: existing.execution.workflowId,
          control: 'dup',
        }),
      ]);
      expect(eventTypes(task.events).slice(3)).toEqual([
        'DecisionTaskCompleted',
        'StartChildWorkflowExecutionInitiated',
        'StartChildWorkflowExecutionFailed',
        'DecisionTaskScheduled',
        'DecisionTaskStarted',
      ]);
      const initiated = single(task.events, 'StartChildWorkflowExecutionInitiated');
      expect(
        single(task.events, 'StartChildWorkflowExecutionFailed')
          .startChildWorkflowExecutionFailedEventAttributes,
      ).toEqual({
        workflowType: childType,
        cause: 'WORKFLOW_ALREADY_RUNNING',
        workflowId: existing.execution.workflowId,
        initiatedEventId: initiated.eventId,
        decisionTaskCompletedEventId: completedEventId,
        control: 'dup',
      });
      expect(
        (await server.driver.describe(parent.execution)).openCounts?.openChildWorkflowExecutions,
      ).toBe(0);
      expect(await server.driver.history(existing.execution)).toEqual(before);
      expect(
        (await server.driver.describe(existing.execution)).executionInfo?.parent,
      ).toBeUndefined();
    });

    it('may reuse the workflowId of a closed execution', async () => {
      const previous = await server.driver.start(childType);
      await server.swf.send(
        new TerminateWorkflowExecutionCommand({
          domain,
          workflowId: previous.execution.workflowId,
          runId: previous.execution.runId,
        }),
      );
      const { task } = await failedStarts([
        startChild({ workflowType: childType, workflowId: previous.execution.workflowId }),
      ]);
      const started = single(
        task.events,
        'ChildWorkflowExecutionStarted',
      ).childWorkflowExecutionStartedEventAttributes;
      expect(started?.workflowExecution?.workflowId).toBe(previous.execution.workflowId);
      expect(started?.workflowExecution?.runId).not.toBe(previous.execution.runId);
    });
  });
});
