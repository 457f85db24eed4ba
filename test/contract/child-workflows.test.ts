/**
 * Child workflows through the official SDK: the
 * start and its events on both sides, every way a child closes as the parent sees it, the start
 * failures, and the child policy applied when a parent is terminated or times out.
 */
import {
  type Decision,
  DeprecateWorkflowTypeCommand,
  type HistoryEvent,
  RegisterWorkflowTypeCommand,
  type StartChildWorkflowExecutionDecisionAttributes,
  type SWFClient,
  TerminateWorkflowExecutionCommand,
  type WorkflowExecution,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decide,
  eventsOf,
  eventTypes,
  type SwfDriver,
  single,
  sleep,
  uid,
} from '../support/decider.js';
import { serveDomain } from '../support/local.js';
import { awaitHistory } from '../support/waiting.js';

let swf: SWFClient;
let driver: SwfDriver;
let close: () => Promise<void>;
const domain = 'children';
const parentType = { name: 'parent', version: '1' };
const childType = { name: 'child', version: '1' };
const abandonType = { name: 'abandoning-child', version: '1' };
const bareType = { name: 'bare', version: '1' };
const oldType = { name: 'old', version: '1' };

beforeAll(async () => {
  ({ swf, close, driver } = await serveDomain(domain, { polling: { maxWaitMs: 5_000 } }));
  const defaults = {
    defaultTaskList: { name: 'unused' },
    defaultExecutionStartToCloseTimeout: '3600',
    defaultTaskStartToCloseTimeout: '60',
  };
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...parentType,
      ...defaults,
      defaultChildPolicy: 'TERMINATE',
    }),
  );
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...childType,
      ...defaults,
      defaultChildPolicy: 'TERMINATE',
      defaultTaskPriority: '3',
    }),
  );
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...abandonType,
      ...defaults,
      defaultChildPolicy: 'ABANDON',
    }),
  );
  await swf.send(new RegisterWorkflowTypeCommand({ domain, ...bareType }));
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...oldType,
      ...defaults,
      defaultChildPolicy: 'TERMINATE',
    }),
  );
  await swf.send(new DeprecateWorkflowTypeCommand({ domain, workflowType: oldType }));
});
afterAll(() => close());

type Execution = WorkflowExecution & { workflowId: string; runId: string };

const startChild = (attributes: StartChildWorkflowExecutionDecisionAttributes): Decision => ({
  decisionType: 'StartChildWorkflowExecution',
  startChildWorkflowExecutionDecisionAttributes: attributes,
});

interface Family {
  parent: Execution;
  parentTaskList: string;
  child: Execution;
  childTaskList: string;
  /** The parent's StartChildWorkflowExecutionInitiated and ChildWorkflowExecutionStarted event ids. */
  initiatedEventId: number;
  startedEventId: number;
  /** The parent's history when it went idle after learning the child started. */
  parentEvents: HistoryEvent[];
}

/**
 * A parent that starts one child and then waits (no decision task open), and the child with its first
 * decision task still to poll.
 */
async function family(
  child: Partial<StartChildWorkflowExecutionDecisionAttributes> = {},
  parentOptions: Parameters<SwfDriver['start']>[1] = {},
): Promise<Family> {
  const parent = await driver.start(parentType, parentOptions);
  const childTaskList = child.taskList?.name ?? uid('child-deciders');
  const workflowId = child.workflowId ?? uid('child');
  await driver.decide(parent.taskList, () => [
    startChild({
      workflowType: childType,
      ...child,
      workflowId,
      taskList: { name: childTaskList },
    }),
  ]);
  const task = await driver.pollDecision(parent.taskList);
  await driver.respond(task.taskToken, []);
  const started = single(task.events, 'ChildWorkflowExecutionStarted');
  const attributes = started.childWorkflowExecutionStartedEventAttributes;
  const runId = attributes?.workflowExecution?.runId ?? '';
  return {
    parent: parent.execution,
    parentTaskList: parent.taskList,
    child: { workflowId, runId },
    childTaskList,
    initiatedEventId: attributes?.initiatedEventId ?? -1,
    startedEventId: started.eventId ?? -1,
    parentEvents: task.events,
  };
}

describe('StartChildWorkflowExecution', () => {
  it('starts the child: Initiated, then ChildWorkflowExecutionStarted and a decision task in the parent', async () => {
    const parent = await driver.start(parentType);
    const workflowId = uid('child');
    const childTaskList = uid('child-deciders');
    const first = await driver.decide(parent.taskList, () => [
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

    const task = await driver.pollDecision(parent.taskList);
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

    const childTask = await driver.pollDecision(childTaskList);
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

    const described = await driver.describe(child);
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
    expect((await driver.describe(parent.execution)).openCounts?.openChildWorkflowExecutions).toBe(
      1,
    );
  });

  it('counts open children in the parent until they close', async () => {
    const parent = await driver.start(parentType);
    const lists = [uid('c1'), uid('c2')];
    await driver.decide(parent.taskList, () =>
      lists.map((list) =>
        startChild({ workflowType: childType, workflowId: uid('child'), taskList: { name: list } }),
      ),
    );
    // Initiated children count as open before they have started
    const counts = await driver.describe(parent.execution);
    expect(counts.openCounts?.openChildWorkflowExecutions).toBe(2);
    await awaitHistory(
      driver,
      parent.execution,
      (h) => eventsOf(h, 'ChildWorkflowExecutionStarted').length === 2,
    );
    expect((await driver.describe(parent.execution)).openCounts?.openChildWorkflowExecutions).toBe(
      2,
    );

    await driver.decide(lists[0] ?? '', () => [decide.complete()]);
    await awaitHistory(
      driver,
      parent.execution,
      (h) => eventsOf(h, 'ChildWorkflowExecutionCompleted').length === 1,
    );
    expect((await driver.describe(parent.execution)).openCounts?.openChildWorkflowExecutions).toBe(
      1,
    );
    await driver.decide(lists[1] ?? '', () => [decide.complete()]);
    await awaitHistory(
      driver,
      parent.execution,
      (h) => eventsOf(h, 'ChildWorkflowExecutionCompleted').length === 2,
    );
    expect((await driver.describe(parent.execution)).openCounts?.openChildWorkflowExecutions).toBe(
      0,
    );
  });

  describe('the parent learns how the child closed, with initiatedEventId and startedEventId', () => {
    /** The parent's decision task after the child closed, and the ids every close event carries. */
    async function parentSeesClose(f: Family) {
      const task = await driver.pollDecision(f.parentTaskList);
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
      const f = await family();
      await driver.decide(f.childTaskList, () => [decide.complete('child-result')]);
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
      expect((await driver.describe(f.parent)).openCounts?.openChildWorkflowExecutions).toBe(0);
    });

    it('ChildWorkflowExecutionFailed {reason, details}', async () => {
      const f = await family();
      await driver.decide(f.childTaskList, () => [decide.fail('broken', 'stack')]);
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
      const f = await family();
      await driver.decide(f.childTaskList, () => [decide.cancel('bye')]);
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
      const f = await family({ executionStartToCloseTimeout: '1' });
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
      expect((await driver.describe(f.child)).executionInfo?.closeStatus).toBe('TIMED_OUT');
    });

    it('ChildWorkflowExecutionTerminated', async () => {
      const f = await family();
      await swf.send(
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

  describe('start failures', () => {
    /** Starts a parent, answers its first task with `decisions`, and returns its next decision task. */
    async function failedStarts(decisions: Decision[]) {
      const parent = await driver.start(parentType);
      const first = await driver.decide(parent.taskList, () => decisions);
      const task = await driver.pollDecision(parent.taskList);
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
        (await driver.describe(parent.execution)).openCounts?.openChildWorkflowExecutions,
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
      const childTask = await driver.pollDecision(childTaskList);
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
      const childTask = await driver.pollDecision(childTaskList);
      expect(
        childTask.events[0]?.workflowExecutionStartedEventAttributes?.executionStartToCloseTimeout,
      ).toBe('NONE');
      const child = childTask.workflowExecution;
      if (child === undefined) throw new Error('no child execution');
      expect(
        (await driver.describe(child)).executionConfiguration?.executionStartToCloseTimeout,
      ).toBe('NONE');
    });

    it('reports WORKFLOW_ALREADY_RUNNING after an Initiated event, pointing at it', async () => {
      const existing = await driver.start(childType);
      const before = await driver.history(existing.execution);
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
        (await driver.describe(parent.execution)).openCounts?.openChildWorkflowExecutions,
      ).toBe(0);
      expect(await driver.history(existing.execution)).toEqual(before);
      expect((await driver.describe(existing.execution)).executionInfo?.parent).toBeUndefined();
    });

    it('may reuse the workflowId of a closed execution', async () => {
      const previous = await driver.start(childType);
      await swf.send(
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

describe('child policy', () => {
  const terminate = (
    execution: Execution,
    childPolicy?: 'TERMINATE' | 'REQUEST_CANCEL' | 'ABANDON',
  ) =>
    swf.send(
      new TerminateWorkflowExecutionCommand({
        domain,
        workflowId: execution.workflowId,
        runId: execution.runId,
        reason: 'operator',
        ...(childPolicy === undefined ? {} : { childPolicy }),
      }),
    );

  /** A grandchild started by the child of `f`, waiting idle; the child is idle too. */
  async function grandchild(f: Family, workflowType = abandonType) {
    const taskList = uid('grandchild-deciders');
    const workflowId = uid('grandchild');
    await driver.decide(f.childTaskList, () => [
      startChild({ workflowType, workflowId, taskList: { name: taskList } }),
    ]);
    const task = await driver.pollDecision(f.childTaskList);
    await driver.respond(task.taskToken, []);
    const started = single(
      task.events,
      'ChildWorkflowExecutionStarted',
    ).childWorkflowExecutionStartedEventAttributes;
    return { execution: { workflowId, runId: started?.workflowExecution?.runId ?? '' }, taskList };
  }

  const closedBy = (events: HistoryEvent[]) =>
    events.at(-1)?.eventType === 'WorkflowExecutionTerminated';

  it('TERMINATE terminates each open child with the child’s own policy, and so on down to grandchildren', async () => {
    const f = await family();
    const g = await grandchild(f);
    await terminate(f.parent);

    const childEvents = await awaitHistory(driver, f.child, closedBy);
    expect(childEvents.at(-1)?.workflowExecutionTerminatedEventAttributes).toEqual({
      childPolicy: 'TERMINATE',
      cause: 'CHILD_POLICY_APPLIED',
    });
    const grandchildEvents = await awaitHistory(driver, g.execution, closedBy);
    expect(grandchildEvents.at(-1)?.workflowExecutionTerminatedEventAttributes).toEqual({
      childPolicy: 'ABANDON',
      cause: 'CHILD_POLICY_APPLIED',
    });
    expect((await driver.describe(f.child)).executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'TERMINATED',
    });
    expect((await driver.describe(g.execution)).executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'TERMINATED',
    });
    // the closed parent records nothing more, and has nothing open
    const parentEvents = await driver.history(f.parent);
    expect(parentEvents.at(-1)?.workflowExecutionTerminatedEventAttributes).toMatchObject({
      childPolicy: 'TERMINATE',
    });
    expect((await driver.describe(f.parent)).openCounts).toEqual({
      openActivityTasks: 0,
      openDecisionTasks: 0,
      openTimers: 0,
      openChildWorkflowExecutions: 0,
      openLambdaFunctions: 0,
    });
  });

  it('REQUEST_CANCEL asks each open child to cancel and leaves it open', async () => {
    const f = await family({}, { childPolicy: 'REQUEST_CANCEL' });
    await driver.decide(f.childTaskList, () => []);
    await terminate(f.parent);

    const task = await driver.pollDecision(f.childTaskList);
    expect(eventTypes(task.events).slice(4)).toEqual([
      'WorkflowExecutionCancelRequested',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    expect(
      single(task.events, 'WorkflowExecutionCancelRequested')
        .workflowExecutionCancelRequestedEventAttributes,
    ).toEqual({
      cause: 'CHILD_POLICY_APPLIED',
    });
    expect((await driver.describe(f.child)).executionInfo).toMatchObject({
      executionStatus: 'OPEN',
      cancelRequested: true,
    });
    expect(
      (await driver.history(f.parent)).at(-1)?.workflowExecutionTerminatedEventAttributes,
    ).toMatchObject({
      childPolicy: 'REQUEST_CANCEL',
    });
    await driver.respond(task.taskToken, [decide.cancel()]);
    expect((await driver.describe(f.child)).executionInfo?.closeStatus).toBe('CANCELED');
  });

  it('uses the childPolicy given to TerminateWorkflowExecution over the parent’s own', async () => {
    const f = await family({}, { childPolicy: 'TERMINATE' });
    await driver.decide(f.childTaskList, () => []);
    await terminate(f.parent, 'REQUEST_CANCEL');
    const task = await driver.pollDecision(f.childTaskList);
    expect(
      single(task.events, 'WorkflowExecutionCancelRequested')
        .workflowExecutionCancelRequestedEventAttributes,
    ).toEqual({
      cause: 'CHILD_POLICY_APPLIED',
    });
    expect((await driver.describe(f.child)).executionInfo?.executionStatus).toBe('OPEN');
  });

  it('ABANDON leaves children running untouched', async () => {
    const f = await family({}, { childPolicy: 'ABANDON' });
    await driver.decide(f.childTaskList, () => []);
    const before = await driver.history(f.child);
    await terminate(f.parent);
    // Another parent terminated afterwards with TERMINATE: once its child is terminated, the outbox has
    // long passed the first termination.
    const witness = await family();
    await driver.decide(witness.childTaskList, () => []);
    await terminate(witness.parent);
    await awaitHistory(driver, witness.child, closedBy);
    await sleep(300);
    expect(await driver.history(f.child)).toEqual(before);
    expect((await driver.describe(f.child)).executionInfo).toMatchObject({
      executionStatus: 'OPEN',
      cancelRequested: false,
    });
    await driver.signal(f.child);
    expect(eventTypes((await driver.pollDecision(f.childTaskList)).events).at(-3)).toBe(
      'WorkflowExecutionSignaled',
    );
  });

  it('applies the policy when the parent times out', async () => {
    const f = await family({}, { executionStartToCloseTimeout: '2' });
    await driver.decide(f.childTaskList, () => []);
    const parentEvents = await awaitHistory(
      driver,
      f.parent,
      (h) => h.at(-1)?.eventType === 'WorkflowExecutionTimedOut',
    );
    expect(parentEvents.at(-1)?.workflowExecutionTimedOutEventAttributes).toEqual({
      timeoutType: 'START_TO_CLOSE',
      childPolicy: 'TERMINATE',
    });
    const childEvents = await awaitHistory(driver, f.child, closedBy);
    expect(childEvents.at(-1)?.workflowExecutionTerminatedEventAttributes).toEqual({
      childPolicy: 'TERMINATE',
      cause: 'CHILD_POLICY_APPLIED',
    });
  });

  it('REQUEST_CANCEL on timeout asks the child to cancel', async () => {
    const f = await family(
      {},
      { executionStartToCloseTimeout: '2', childPolicy: 'REQUEST_CANCEL' },
    );
    await driver.decide(f.childTaskList, () => []);
    const childEvents = await awaitHistory(
      driver,
      f.child,
      (h) => eventsOf(h, 'WorkflowExecutionCancelRequested').length === 1,
    );
    expect(
      single(childEvents, 'WorkflowExecutionCancelRequested')
        .workflowExecutionCancelRequestedEventAttributes,
    ).toEqual({
      cause: 'CHILD_POLICY_APPLIED',
    });
    expect((await driver.describe(f.child)).executionInfo?.executionStatus).toBe('OPEN');
  });

  it('a parent that completes, fails or cancels leaves its children running', async () => {
    const closes = [decide.complete('done'), decide.fail('r'), decide.cancel()];
    const families = await Promise.all(closes.map(() => family()));
    for (const [i, f] of families.entries()) {
      await driver.decide(f.childTaskList, () => []);
      await driver.signal(f.parent);
      const close = closes[i];
      if (close !== undefined) await driver.decide(f.parentTaskList, () => [close]);
    }
    // a terminated parent's child shows the outbox has caught up with the closes above
    const witness = await family();
    await driver.decide(witness.childTaskList, () => []);
    await terminate(witness.parent);
    await awaitHistory(driver, witness.child, closedBy);
    await sleep(300);
    for (const f of families) {
      const described = await driver.describe(f.child);
      expect(described.executionInfo).toMatchObject({
        executionStatus: 'OPEN',
        cancelRequested: false,
      });
      expect(eventTypes(await driver.history(f.child))).toEqual([
        'WorkflowExecutionStarted',
        'DecisionTaskScheduled',
        'DecisionTaskStarted',
        'DecisionTaskCompleted',
      ]);
      // a child may outlive its parent; its close is then reported to no one
      await driver.signal(f.child);
      await driver.decide(f.childTaskList, () => [decide.complete()]);
      expect((await driver.describe(f.child)).executionInfo?.closeStatus).toBe('COMPLETED');
    }
    expect(
      (await Promise.all(families.map((f) => driver.describe(f.parent)))).map(
        (d) => d.executionInfo?.closeStatus,
      ),
    ).toEqual(['COMPLETED', 'FAILED', 'CANCELED']);
  });
});
