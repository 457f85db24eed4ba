/**
 * Child workflows through the official SDK: the start and its events on both sides, the open child
 * count, and every way a child closes as the parent sees it.
 */
import { TerminateWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import {
  childType,
  domain,
  type Family,
  family,
  parentType,
  serveChildren,
  startChild,
} from '../support/child-workflows.js';
import { decide, eventsOf, eventTypes, single, uid } from '../support/decider.js';
import { servedForFile } from '../support/local.js';
import { awaitHistory } from '../support/waiting.js';

const server = servedForFile(serveChildren);

describe('StartChildWorkflowExecution', () => {
  it('starts the child: Initiated, then ChildWorkflowExecutionStarted and a decision task in the parent', async () => {
    const parent = await server.driver.start(parentType);
    const workflowId = uid('child');
    const childTaskList = uid('child-deciders');
    const first = await server.driver.decide(parent.taskList, () => [
      startChild({
        workflowType: childType,
        workflowId,
        taskList: { name: childTaskList },
        input: 'child-input',
        control: 'child-control',
        tagList: ['t1', 't2'],
        executionStartToCloseTimeout: '1800',
        lambdaRole: 'arn:aws:iam::000000000000:role/child',
      }),
    ]);
    const completedEventId = (first.startedEventId ?? 0) + 1;

    const task = await server.driver.pollDecision(parent.taskList);
    expect(eventTypes(task.events).slice(3)).toEqual([
      'DecisionTaskCompleted',
      'StartChildWorkflowExecutionInitiated',
      'ChildWorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    const initiated = single(task.events, 'StartChildWorkflowExecutionInitiated');
    expect(initiated.startChildWorkflowExecutionInitiatedEventAttributes).toEqual({
      workflowId,
      workflowType: childType,
      control: 'child-control',
      input: 'child-input',
      executionStartToCloseTimeout: '1800',
      taskList: { name: childTaskList },
      taskPriority: '3',
      decisionTaskCompletedEventId: completedEventId,
      childPolicy: 'TERMINATE',
      taskStartToCloseTimeout: '60',
      tagList: ['t1', 't2'],
      lambdaRole: 'arn:aws:iam::000000000000:role/child',
    });
    const started = single(
      task.events,
      'ChildWorkflowExecutionStarted',
    ).childWorkflowExecutionStartedEventAttributes;
    expect(started).toEqual({
      workflowExecution: { workflowId, runId: expect.any(String) },
      workflowType: childType,
      initiatedEventId: initiated.eventId,
    });
    const child = { workflowId, runId: started?.workflowExecution?.runId ?? '' };

    const childTask = await server.driver.pollDecision(childTaskList);
    expect(childTask.workflowExecution).toEqual(child);
    expect(eventTypes(childTask.events)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    expect(childTask.events[0]?.workflowExecutionStartedEventAttributes).toEqual({
      input: 'child-input',
      executionStartToCloseTimeout: '1800',
      taskStartToCloseTimeout: '60',
      childPolicy: 'TERMINATE',
      taskList: { name: childTaskList },
      taskPriority: '3',
      workflowType: childType,
      tagList: ['t1', 't2'],
      parentWorkflowExecution: parent.execution,
      parentInitiatedEventId: initiated.eventId,
      lambdaRole: 'arn:aws:iam::000000000000:role/child',
    });

    const described = await server.driver.describe(child);
    expect(described.executionInfo).toMatchObject({
      execution: child,
      workflowType: childType,
      executionStatus: 'OPEN',
      parent: parent.execution,
      tagList: ['t1', 't2'],
    });
    expect(described.executionConfiguration).toMatchObject({
      childPolicy: 'TERMINATE',
      taskList: { name: childTaskList },
      executionStartToCloseTimeout: '1800',
    });
    expect(
      (await server.driver.describe(parent.execution)).openCounts?.openChildWorkflowExecutions,
    ).toBe(1);
  });

  it('counts open children in the parent until they close', async () => {
    const parent = await server.driver.start(parentType);
    const lists = [uid('c1'), uid('c2')];
    await server.driver.decide(parent.taskList, () =>
      lists.map((list) =>
        startChild({ workflowType: childType, workflowId: uid('child'), taskList: { name: list } }),
      ),
    );
    // Initiated children count as open before they have started
    const counts = await server.driver.describe(parent.execution);
    expect(counts.openCounts?.openChildWorkflowExecutions).toBe(2);
    await awaitHistory(
      server.driver,
      parent.execution,
      (h) => eventsOf(h, 'ChildWorkflowExecutionStarted').length === 2,
    );
    expect(
      (await server.driver.describe(parent.execution)).openCounts?.openChildWorkflowExecutions,
    ).toBe(2);

    await server.driver.decide(lists[0] ?? '', () => [decide.complete()]);
    await awaitHistory(
      server.driver,
      parent.execution,
      (h) => eventsOf(h, 'ChildWorkflowExecutionCompleted').length === 1,
    );
    expect(
      (await server.driver.describe(parent.execution)).openCounts?.openChildWorkflowExecutions,
    ).toBe(1);
    await server.driver.decide(lists[1] ?? '', () => [decide.complete()]);
    await awaitHistory(
      server.driver,
      parent.execution,
      (h) => eventsOf(h, 'ChildWorkflowExecutionCompleted').length === 2,
    );
    expect(
      (await server.driver.describe(parent.execution)).openCounts?.openChildWorkflowExecutions,
    ).toBe(0);
  });

  describe('the parent learns how the child closed, with initiatedEventId and startedEventId', () => {
    /** The parent's decision task after the child closed, and the ids every close event carries. */
    async function parentSeesClose(f: Family) {
      const task = await server.driver.pollDecision(f.parentTaskList);
      const ids = {
        workflowExecution: f.child,
        workflowType: childType,
        initiatedEventId: f.initiatedEventId,
        startedEventId: f.startedEventId,
      };
      expect(f.initiatedEventId).not.toBe(f.startedEventId);
      return { task, ids, tail: eventTypes(task.events).slice(f.parentEvents.length + 1) };
    }

    it('ChildWorkflowExecutionCompleted {result}', async () => {
      const f = await family(server.driver);
      await server.driver.decide(f.childTaskList, () => [decide.complete('child-result')]);
      const { task, ids, tail } = await parentSeesClose(f);
      expect(tail).toEqual([
        'ChildWorkflowExecutionCompleted',
        'DecisionTaskScheduled',
        'DecisionTaskStarted',
      ]);
      expect(
        single(task.events, 'ChildWorkflowExecutionCompleted')
          .childWorkflowExecutionCompletedEventAttributes,
      ).toEqual({
        ...ids,
        result: 'child-result',
      });
      expect((await server.driver.describe(f.parent)).openCounts?.openChildWorkflowExecutions).toBe(
        0,
      );
    });

    it('ChildWorkflowExecutionFailed {reason, details}', async () => {
      const f = await family(server.driver);
      await server.driver.decide(f.childTaskList, () => [decide.fail('broken', 'stack')]);
      const { task, ids, tail } = await parentSeesClose(f);
      expect(tail).toEqual([
        'ChildWorkflowExecutionFailed',
        'DecisionTaskScheduled',
        'DecisionTaskStarted',
      ]);
      expect(
        single(task.events, 'ChildWorkflowExecutionFailed')
          .childWorkflowExecutionFailedEventAttributes,
      ).toEqual({
        ...ids,
        reason: 'broken',
        details: 'stack',
      });
    });

    it('ChildWorkflowExecutionCanceled {details}', async () => {
      const f = await family(server.driver);
      await server.driver.decide(f.childTaskList, () => [decide.cancel('bye')]);
      const { task, ids, tail } = await parentSeesClose(f);
      expect(tail).toEqual([
        'ChildWorkflowExecutionCanceled',
        'DecisionTaskScheduled',
        'DecisionTaskStarted',
      ]);
      expect(
        single(task.events, 'ChildWorkflowExecutionCanceled')
          .childWorkflowExecutionCanceledEventAttributes,
      ).toEqual({
        ...ids,
        details: 'bye',
      });
    });

    it('ChildWorkflowExecutionTimedOut {timeoutType}', async () => {
      const f = await family(server.driver, { executionStartToCloseTimeout: '1' });
      const { task, ids, tail } = await parentSeesClose(f);
      expect(tail).toEqual([
        'ChildWorkflowExecutionTimedOut',
        'DecisionTaskScheduled',
        'DecisionTaskStarted',
      ]);
      expect(
        single(task.events, 'ChildWorkflowExecutionTimedOut')
          .childWorkflowExecutionTimedOutEventAttributes,
      ).toEqual({
        ...ids,
        timeoutType: 'START_TO_CLOSE',
      });
      expect((await server.driver.describe(f.child)).executionInfo?.closeStatus).toBe('TIMED_OUT');
    });

    it('ChildWorkflowExecutionTerminated', async () => {
      const f = await family(server.driver);
      await server.swf.send(
        new TerminateWorkflowExecutionCommand({
          domain,
          workflowId: f.child.workflowId,
          runId: f.child.runId,
          reason: 'stop',
        }),
      );
      const { task, ids, tail } = await parentSeesClose(f);
      expect(tail).toEqual([
        'ChildWorkflowExecutionTerminated',
        'DecisionTaskScheduled',
        'DecisionTaskStarted',
      ]);
      expect(
        single(task.events, 'ChildWorkflowExecutionTerminated')
          .childWorkflowExecutionTerminatedEventAttributes,
      ).toEqual(ids);
    });
  });
});
