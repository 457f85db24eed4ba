/**
 * Chosen combinations of decisions that reach other executions: signals and cancel requests to an
 * execution, to itself and to unknown or closed ones, and children started, signalled and cancelled
 * in the same list.
 */
import type { HistoryEvent } from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { uid } from '../support/decider.js';
import {
  cancelExternal,
  find,
  historyWhen,
  serveCombos,
  signalExternal,
  startChild,
  types,
  w,
  world,
} from '../support/decision-combinations.js';
import { servedForFile } from '../support/local.js';

const server = servedForFile(serveCombos);

describe('signals and cancel requests combined', () => {
  it('an execution that signals itself and asks itself to cancel in one list sees both, then cancels', async () => {
    const { execution, taskList } = await server.driver.start(world.workflowType);
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [
      { ...signalExternal(execution.workflowId, { control: 'c-sig' }) },
      cancelExternal(execution.workflowId, { runId: execution.runId, control: 'c-can' }),
      w({ kind: 'marker', markerName: 'm' }),
    ]);
    const events = await historyWhen(
      server,
      execution,
      (h) =>
        find(h, 'ExternalWorkflowExecutionSignaled').length === 1 &&
        find(h, 'ExternalWorkflowExecutionCancelRequested').length === 1,
    );
    expect(types(events).slice(3, 7)).toEqual([
      'DecisionTaskCompleted',
      'SignalExternalWorkflowExecutionInitiated',
      'RequestCancelExternalWorkflowExecutionInitiated',
      'MarkerRecorded',
    ]);
    expect([...types(events).slice(7)].sort()).toEqual(
      [
        'DecisionTaskScheduled',
        'ExternalWorkflowExecutionCancelRequested',
        'ExternalWorkflowExecutionSignaled',
        'WorkflowExecutionCancelRequested',
        'WorkflowExecutionSignaled',
      ].sort(),
    );
    expect(events[4]?.signalExternalWorkflowExecutionInitiatedEventAttributes).toEqual({
      workflowId: execution.workflowId,
      signalName: 'ext',
      control: 'c-sig',
      decisionTaskCompletedEventId: 4,
    });
    expect(events[5]?.requestCancelExternalWorkflowExecutionInitiatedEventAttributes).toEqual({
      workflowId: execution.workflowId,
      runId: execution.runId,
      control: 'c-can',
      decisionTaskCompletedEventId: 4,
    });
    expect(
      find(events, 'WorkflowExecutionSignaled')[0]?.workflowExecutionSignaledEventAttributes,
    ).toEqual({
      signalName: 'ext',
      externalWorkflowExecution: execution,
      externalInitiatedEventId: 5,
    });
    expect(
      find(events, 'WorkflowExecutionCancelRequested')[0]
        ?.workflowExecutionCancelRequestedEventAttributes,
    ).toEqual({ externalWorkflowExecution: execution, externalInitiatedEventId: 6 });
    expect(
      find(events, 'ExternalWorkflowExecutionCancelRequested')[0]
        ?.externalWorkflowExecutionCancelRequestedEventAttributes,
    ).toEqual({ workflowExecution: execution, initiatedEventId: 6 });
    expect((await server.driver.describe(execution)).executionInfo?.cancelRequested).toBe(true);
    const next = await server.driver.pollDecision(taskList);
    await server.driver.respond(next.taskToken, [w({ kind: 'cancel', details: 'asked myself' })]);
    expect((await server.driver.describe(execution)).executionInfo?.closeStatus).toBe('CANCELED');
  });

  it('requests to an unknown, a closed and an open execution in one list each get their own outcome', async () => {
    const open = await server.driver.start(world.workflowType);
    const closed = await server.driver.start(world.workflowType);
    const ct = await server.driver.pollDecision(closed.taskList);
    await server.driver.respond(ct.taskToken, [w({ kind: 'complete' })]);
    const { execution, taskList } = await server.driver.start(world.workflowType);
    const task = await server.driver.pollDecision(taskList);
    const ghost = uid('ghost');
    await server.driver.respond(task.taskToken, [
      signalExternal(ghost, { control: 'c1' }),
      signalExternal(closed.execution.workflowId, { runId: closed.execution.runId, control: 'c2' }),
      cancelExternal(closed.execution.workflowId, { control: 'c3' }),
      signalExternal(open.execution.workflowId, { control: 'c4' }),
      w({ kind: 'marker', markerName: 'm' }),
    ]);
    const events = await historyWhen(
      server,
      execution,
      (h) =>
        find(h, 'SignalExternalWorkflowExecutionFailed').length === 2 &&
        find(h, 'RequestCancelExternalWorkflowExecutionFailed').length === 1 &&
        find(h, 'ExternalWorkflowExecutionSignaled').length === 1,
    );
    expect(types(events).slice(3, 9)).toEqual([
      'DecisionTaskCompleted',
      'SignalExternalWorkflowExecutionInitiated',
      'SignalExternalWorkflowExecutionInitiated',
      'RequestCancelExternalWorkflowExecutionInitiated',
      'SignalExternalWorkflowExecutionInitiated',
      'MarkerRecorded',
    ]);
    expect(find(events, 'DecisionTaskScheduled')).toHaveLength(2);
    expect(
      find(events, 'SignalExternalWorkflowExecutionFailed').map(
        (e) => e.signalExternalWorkflowExecutionFailedEventAttributes,
      ),
    ).toEqual([
      {
        workflowId: ghost,
        cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
        initiatedEventId: 5,
        decisionTaskCompletedEventId: 4,
        control: 'c1',
      },
      {
        workflowId: closed.execution.workflowId,
        runId: closed.execution.runId,
        cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
        initiatedEventId: 6,
        decisionTaskCompletedEventId: 4,
        control: 'c2',
      },
    ]);
    expect(
      find(events, 'RequestCancelExternalWorkflowExecutionFailed')[0]
        ?.requestCancelExternalWorkflowExecutionFailedEventAttributes,
    ).toEqual({
      workflowId: closed.execution.workflowId,
      cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
      initiatedEventId: 7,
      decisionTaskCompletedEventId: 4,
      control: 'c3',
    });
    expect(
      find(events, 'ExternalWorkflowExecutionSignaled')[0]
        ?.externalWorkflowExecutionSignaledEventAttributes,
    ).toEqual({ workflowExecution: open.execution, initiatedEventId: 8 });
  });
});

describe('child workflows combined', () => {
  it('StartChildWorkflowExecution twice with one workflowId in one list: the first starts, the second is WORKFLOW_ALREADY_RUNNING', async () => {
    const { execution, taskList } = await server.driver.start(world.workflowType);
    const task = await server.driver.pollDecision(taskList);
    const childId = uid('child');
    await server.driver.respond(task.taskToken, [
      startChild(childId, { control: 'one' }),
      startChild(childId, { control: 'two' }),
    ]);
    const events = await historyWhen(
      server,
      execution,
      (h) =>
        find(h, 'ChildWorkflowExecutionStarted').length +
          find(h, 'StartChildWorkflowExecutionFailed').length ===
        2,
    );
    expect(types(events).slice(3)).toEqual([
      'DecisionTaskCompleted',
      'StartChildWorkflowExecutionInitiated',
      'StartChildWorkflowExecutionInitiated',
      'ChildWorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'StartChildWorkflowExecutionFailed',
    ]);
    expect(events[6]?.childWorkflowExecutionStartedEventAttributes).toMatchObject({
      initiatedEventId: 5,
      workflowType: world.workflowType,
    });
    expect(events[8]?.startChildWorkflowExecutionFailedEventAttributes).toEqual({
      workflowType: world.workflowType,
      workflowId: childId,
      cause: 'WORKFLOW_ALREADY_RUNNING',
      initiatedEventId: 6,
      decisionTaskCompletedEventId: 4,
      control: 'two',
    });
    expect((await server.driver.describe(execution)).openCounts?.openChildWorkflowExecutions).toBe(
      1,
    );
  });

  it('a child with the parent’s own workflowId is WORKFLOW_ALREADY_RUNNING; a failed start beside a good one', async () => {
    const { execution, taskList } = await server.driver.start(world.workflowType);
    const task = await server.driver.pollDecision(taskList);
    const childId = uid('child');
    await server.driver.respond(task.taskToken, [
      startChild(execution.workflowId, { control: 'self' }),
      startChild(childId, { control: 'ghost', workflowType: { name: 'no-such-wf', version: '1' } }),
      startChild(childId, { control: 'good' }),
    ]);
    const events = await historyWhen(
      server,
      execution,
      (h) =>
        find(h, 'ChildWorkflowExecutionStarted').length === 1 &&
        find(h, 'StartChildWorkflowExecutionFailed').length === 2,
    );
    expect(types(events).slice(3, 8)).toEqual([
      'DecisionTaskCompleted',
      'StartChildWorkflowExecutionInitiated',
      'StartChildWorkflowExecutionFailed',
      'StartChildWorkflowExecutionInitiated',
      'DecisionTaskScheduled',
    ]);
    expect(events[5]?.startChildWorkflowExecutionFailedEventAttributes).toEqual({
      workflowType: { name: 'no-such-wf', version: '1' },
      workflowId: childId,
      cause: 'WORKFLOW_TYPE_DOES_NOT_EXIST',
      initiatedEventId: 0,
      decisionTaskCompletedEventId: 4,
      control: 'ghost',
    });
    expect(
      find(events, 'StartChildWorkflowExecutionFailed')
        .map((e) => e.startChildWorkflowExecutionFailedEventAttributes)
        .find((a) => a?.control === 'self'),
    ).toEqual({
      workflowType: world.workflowType,
      workflowId: execution.workflowId,
      cause: 'WORKFLOW_ALREADY_RUNNING',
      initiatedEventId: 5,
      decisionTaskCompletedEventId: 4,
      control: 'self',
    });
    expect(
      find(events, 'ChildWorkflowExecutionStarted')[0]?.childWorkflowExecutionStartedEventAttributes
        ?.initiatedEventId,
    ).toBe(7);
    expect(find(events, 'DecisionTaskScheduled')).toHaveLength(2);
  });

  it.each([
    ['CompleteWorkflowExecution', w({ kind: 'complete' })],
    ['FailWorkflowExecution', w({ kind: 'fail' })],
    ['CancelWorkflowExecution', w({ kind: 'cancel' })],
    ['ContinueAsNewWorkflowExecution', { ...w({ kind: 'continueAsNew' }) }],
  ] as const)(
    'a parent closed by %s leaves its open child running (child policy applies only to terminate and time-out)',
    async (_name, closeDecision) => {
      const { execution, taskList } = await server.driver.start(world.workflowType);
      const childId = uid('child');
      const childList = uid('child-deciders');
      const first = await server.driver.pollDecision(taskList);
      await server.driver.respond(first.taskToken, [startChild(childId, { taskList: childList })]);
      const started = await historyWhen(
        server,
        execution,
        (h) => find(h, 'ChildWorkflowExecutionStarted').length === 1,
      );
      const child = {
        workflowId: childId,
        runId:
          find(started, 'ChildWorkflowExecutionStarted')[0]
            ?.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.runId ?? '',
      };
      const second = await server.driver.pollDecision(taskList);
      await server.driver.respond(second.taskToken, [closeDecision]);
      await server.service.streamCaughtUp();
      const childEvents = await server.driver.history(child);
      expect(types(childEvents)).toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled']);
      expect((await server.driver.describe(child)).executionInfo).toMatchObject({
        executionStatus: 'OPEN',
        cancelRequested: false,
        parent: execution,
      });
      // the child closing later records nothing in the closed parent
      const parentEvents = await server.driver.history(execution);
      const ct = await server.driver.pollDecision(childList);
      await server.driver.respond(ct.taskToken, [w({ kind: 'complete' })]);
      await server.service.streamCaughtUp();
      expect(await server.driver.history(execution)).toEqual(parentEvents);
    },
  );
});

describe('requests to a child started in the same list', () => {
  it.each([
    [
      'SignalExternalWorkflowExecution',
      'ExternalWorkflowExecutionSignaled',
      'WorkflowExecutionSignaled',
    ],
    [
      'RequestCancelExternalWorkflowExecution',
      'ExternalWorkflowExecutionCancelRequested',
      'WorkflowExecutionCancelRequested',
    ],
  ] as const)(
    'StartChildWorkflowExecution, then %s to that child: the request reaches the child',
    async (decisionType, outcome, arrival) => {
      const { execution, taskList } = await server.driver.start(world.workflowType);
      const childId = uid('child');
      const task = await server.driver.pollDecision(taskList);
      await server.driver.respond(task.taskToken, [
        startChild(childId),
        decisionType === 'SignalExternalWorkflowExecution'
          ? signalExternal(childId)
          : cancelExternal(childId),
      ]);
      const settled = (h: HistoryEvent[]) =>
        find(h, 'ChildWorkflowExecutionStarted').length === 1 &&
        find(h, outcome).length +
          find(h, 'SignalExternalWorkflowExecutionFailed').length +
          find(h, 'RequestCancelExternalWorkflowExecutionFailed').length ===
          1;
      const events = await historyWhen(server, execution, settled);
      const child = {
        workflowId: childId,
        runId:
          find(events, 'ChildWorkflowExecutionStarted')[0]
            ?.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.runId ?? '',
      };
      expect(types(events).slice(3)).toEqual([
        'DecisionTaskCompleted',
        'StartChildWorkflowExecutionInitiated',
        decisionType === 'SignalExternalWorkflowExecution'
          ? 'SignalExternalWorkflowExecutionInitiated'
          : 'RequestCancelExternalWorkflowExecutionInitiated',
        'ChildWorkflowExecutionStarted',
        'DecisionTaskScheduled',
        outcome,
      ]);
      expect(events.at(-1)).toMatchObject({
        [`${outcome[0]?.toLowerCase()}${outcome.slice(1)}EventAttributes`]: {
          workflowExecution: child,
          initiatedEventId: 6,
        },
      });
      const childEvents = await historyWhen(server, child, (h) => find(h, arrival).length === 1);
      expect(childEvents.find((e) => e.eventType === arrival)).toMatchObject({
        [`${arrival[0]?.toLowerCase()}${arrival.slice(1)}EventAttributes`]: {
          externalWorkflowExecution: execution,
          externalInitiatedEventId: 6,
        },
      });
    },
  );

  it('a signal listed before the child’s start does not find it; the child starts', async () => {
    const { execution, taskList } = await server.driver.start(world.workflowType);
    const childId = uid('child');
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [signalExternal(childId), startChild(childId)]);
    const events = await historyWhen(
      server,
      execution,
      (h) =>
        find(h, 'ChildWorkflowExecutionStarted').length === 1 &&
        find(h, 'SignalExternalWorkflowExecutionFailed').length === 1,
    );
    expect(
      find(events, 'SignalExternalWorkflowExecutionFailed')[0]
        ?.signalExternalWorkflowExecutionFailedEventAttributes,
    ).toEqual({
      workflowId: childId,
      cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
      initiatedEventId: 5,
      decisionTaskCompletedEventId: 4,
    });
  });
});
