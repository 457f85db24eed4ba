/**
 * Child workflows through the official SDK: the child policy applied when a parent is terminated or
 * times out, down to grandchildren, and the children a parent leaves running when it closes itself.
 */
import { type HistoryEvent, TerminateWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import {
  abandonType,
  domain,
  type Execution,
  type Family,
  family,
  serveChildren,
  startChild,
} from '../support/child-workflows.js';
import { decide, eventsOf, eventTypes, single, sleep, uid } from '../support/decider.js';
import { servedForFile } from '../support/local.js';
import { awaitHistory } from '../support/waiting.js';

const server = servedForFile(serveChildren);

describe('child policy', () => {
  const terminate = (
    execution: Execution,
    childPolicy?: 'TERMINATE' | 'REQUEST_CANCEL' | 'ABANDON',
  ) =>
    server.swf.send(
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
    await server.driver.decide(f.childTaskList, () => [
      startChild({ workflowType, workflowId, taskList: { name: taskList } }),
    ]);
    const task = await server.driver.pollDecision(f.childTaskList);
    await server.driver.respond(task.taskToken, []);
    const started = single(
      task.events,
      'ChildWorkflowExecutionStarted',
    ).childWorkflowExecutionStartedEventAttributes;
    return { execution: { workflowId, runId: started?.workflowExecution?.runId ?? '' }, taskList };
  }

  const closedBy = (events: HistoryEvent[]) =>
    events.at(-1)?.eventType === 'WorkflowExecutionTerminated';

  it('TERMINATE terminates each open child with the child’s own policy, and so on down to grandchildren', async () => {
    const f = await family(server.driver);
    const g = await grandchild(f);
    await terminate(f.parent);

    const childEvents = await awaitHistory(server.driver, f.child, closedBy);
    expect(childEvents.at(-1)?.workflowExecutionTerminatedEventAttributes).toEqual({
      childPolicy: 'TERMINATE',
      cause: 'CHILD_POLICY_APPLIED',
    });
    const grandchildEvents = await awaitHistory(server.driver, g.execution, closedBy);
    expect(grandchildEvents.at(-1)?.workflowExecutionTerminatedEventAttributes).toEqual({
      childPolicy: 'ABANDON',
      cause: 'CHILD_POLICY_APPLIED',
    });
    expect((await server.driver.describe(f.child)).executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'TERMINATED',
    });
    expect((await server.driver.describe(g.execution)).executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'TERMINATED',
    });
    // the closed parent records nothing more, and has nothing open
    const parentEvents = await server.driver.history(f.parent);
    expect(parentEvents.at(-1)?.workflowExecutionTerminatedEventAttributes).toMatchObject({
      childPolicy: 'TERMINATE',
    });
    expect((await server.driver.describe(f.parent)).openCounts).toEqual({
      openActivityTasks: 0,
      openDecisionTasks: 0,
      openTimers: 0,
      openChildWorkflowExecutions: 0,
      openLambdaFunctions: 0,
    });
  });

  it('REQUEST_CANCEL asks each open child to cancel and leaves it open', async () => {
    const f = await family(server.driver, {}, { childPolicy: 'REQUEST_CANCEL' });
    await server.driver.decide(f.childTaskList, () => []);
    await terminate(f.parent);

    const task = await server.driver.pollDecision(f.childTaskList);
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
    expect((await server.driver.describe(f.child)).executionInfo).toMatchObject({
      executionStatus: 'OPEN',
      cancelRequested: true,
    });
    expect(
      (await server.driver.history(f.parent)).at(-1)?.workflowExecutionTerminatedEventAttributes,
    ).toMatchObject({
      childPolicy: 'REQUEST_CANCEL',
    });
    await server.driver.respond(task.taskToken, [decide.cancel()]);
    expect((await server.driver.describe(f.child)).executionInfo?.closeStatus).toBe('CANCELED');
  });

  it('uses the childPolicy given to TerminateWorkflowExecution over the parent’s own', async () => {
    const f = await family(server.driver, {}, { childPolicy: 'TERMINATE' });
    await server.driver.decide(f.childTaskList, () => []);
    await terminate(f.parent, 'REQUEST_CANCEL');
    const task = await server.driver.pollDecision(f.childTaskList);
    expect(
      single(task.events, 'WorkflowExecutionCancelRequested')
        .workflowExecutionCancelRequestedEventAttributes,
    ).toEqual({
      cause: 'CHILD_POLICY_APPLIED',
    });
    expect((await server.driver.describe(f.child)).executionInfo?.executionStatus).toBe('OPEN');
  });

  it('ABANDON leaves children running untouched', async () => {
    const f = await family(server.driver, {}, { childPolicy: 'ABANDON' });
    await server.driver.decide(f.childTaskList, () => []);
    const before = await server.driver.history(f.child);
    await terminate(f.parent);
    // Another parent terminated afterwards with TERMINATE: once its child is terminated, the outbox has
    // long passed the first termination.
    const witness = await family(server.driver);
    await server.driver.decide(witness.childTaskList, () => []);
    await terminate(witness.parent);
    await awaitHistory(server.driver, witness.child, closedBy);
    await sleep(300);
    expect(await server.driver.history(f.child)).toEqual(before);
    expect((await server.driver.describe(f.child)).executionInfo).toMatchObject({
      executionStatus: 'OPEN',
      cancelRequested: false,
    });
    await server.driver.signal(f.child);
    expect(eventTypes((await server.driver.pollDecision(f.childTaskList)).events).at(-3)).toBe(
      'WorkflowExecutionSignaled',
    );
  });

  it('applies the policy when the parent times out', async () => {
    const f = await family(server.driver, {}, { executionStartToCloseTimeout: '2' });
    await server.driver.decide(f.childTaskList, () => []);
    const parentEvents = await awaitHistory(
      server.driver,
      f.parent,
      (h) => h.at(-1)?.eventType === 'WorkflowExecutionTimedOut',
    );
    expect(parentEvents.at(-1)?.workflowExecutionTimedOutEventAttributes).toEqual({
      timeoutType: 'START_TO_CLOSE',
      childPolicy: 'TERMINATE',
    });
    const childEvents = await awaitHistory(server.driver, f.child, closedBy);
    expect(childEvents.at(-1)?.workflowExecutionTerminatedEventAttributes).toEqual({
      childPolicy: 'TERMINATE',
      cause: 'CHILD_POLICY_APPLIED',
    });
  });

  it('REQUEST_CANCEL on timeout asks the child to cancel', async () => {
    const f = await family(
      server.driver,
      {},
      { executionStartToCloseTimeout: '2', childPolicy: 'REQUEST_CANCEL' },
    );
    await server.driver.decide(f.childTaskList, () => []);
    const childEvents = await awaitHistory(
      server.driver,
      f.child,
      (h) => eventsOf(h, 'WorkflowExecutionCancelRequested').length === 1,
    );
    expect(
      single(childEvents, 'WorkflowExecutionCancelRequested')
        .workflowExecutionCancelRequestedEventAttributes,
    ).toEqual({
      cause: 'CHILD_POLICY_APPLIED',
    });
    expect((await server.driver.describe(f.child)).executionInfo?.executionStatus).toBe('OPEN');
  });

  it('a parent that completes, fails or cancels leaves its children running', async () => {
    const closes = [decide.complete('done'), decide.fail('r'), decide.cancel()];
    const families = await Promise.all(closes.map(() => family(server.driver)));
    for (const [i, f] of families.entries()) {
      await server.driver.decide(f.childTaskList, () => []);
      await server.driver.signal(f.parent);
      const close = closes[i];
      if (close !== undefined) await server.driver.decide(f.parentTaskList, () => [close]);
    }
    // a terminated parent's child shows the outbox has caught up with the closes above
    const witness = await family(server.driver);
    await server.driver.decide(witness.childTaskList, () => []);
    await terminate(witness.parent);
    await awaitHistory(server.driver, witness.child, closedBy);
    await sleep(300);
    for (const f of families) {
      const described = await server.driver.describe(f.child);
      expect(described.executionInfo).toMatchObject({
        executionStatus: 'OPEN',
        cancelRequested: false,
      });
      expect(eventTypes(await server.driver.history(f.child))).toEqual([
        'WorkflowExecutionStarted',
        'DecisionTaskScheduled',
        'DecisionTaskStarted',
        'DecisionTaskCompleted',
      ]);
      // a child may outlive its parent; its close is then reported to no one
      await server.driver.signal(f.child);
      await server.driver.decide(f.childTaskList, () => [decide.complete()]);
      expect((await server.driver.describe(f.child)).executionInfo?.closeStatus).toBe('COMPLETED');
    }
    expect(
      (await Promise.all(families.map((f) => server.driver.describe(f.parent)))).map(
        (d) => d.executionInfo?.closeStatus,
      ),
    ).toEqual(['COMPLETED', 'FAILED', 'CANCELED']);
  });
});
