/**
 * Signals and cancel requests from one execution to another through the official SDK
 * (SignalExternalWorkflowExecution and RequestCancelExternalWorkflowExecution): the target's event,
 * the sender's Initiated event and outcome, the failure for a target that is not open.
 */
import {
  type Decision,
  RegisterWorkflowTypeCommand,
  TerminateWorkflowExecutionCommand,
  type WorkflowExecution,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { eventsOf, eventTypes, single, uid } from '../support/decider.js';
import { domainForFile } from '../support/local.js';
import { awaitHistory } from '../support/waiting.js';

const domain = 'cross';
const wf = { name: 'wf', version: '1' };

const server = domainForFile(domain, { polling: { maxWaitMs: 5_000 } }, async ({ swf }) => {
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...wf,
      defaultTaskList: { name: 'unused' },
      defaultExecutionStartToCloseTimeout: '3600',
      defaultTaskStartToCloseTimeout: '60',
      defaultChildPolicy: 'TERMINATE',
    }),
  );
});

const signalExternal = (
  workflowId: string,
  attributes: { runId?: string; signalName?: string; input?: string; control?: string } = {},
): Decision => ({
  decisionType: 'SignalExternalWorkflowExecution',
  signalExternalWorkflowExecutionDecisionAttributes: {
    workflowId,
    signalName: attributes.signalName ?? 'sig',
    ...(attributes.runId === undefined ? {} : { runId: attributes.runId }),
    ...(attributes.input === undefined ? {} : { input: attributes.input }),
    ...(attributes.control === undefined ? {} : { control: attributes.control }),
  },
});

const cancelExternal = (
  workflowId: string,
  attributes: { runId?: string; control?: string } = {},
): Decision => ({
  decisionType: 'RequestCancelExternalWorkflowExecution',
  requestCancelExternalWorkflowExecutionDecisionAttributes: {
    workflowId,
    ...(attributes.runId === undefined ? {} : { runId: attributes.runId }),
    ...(attributes.control === undefined ? {} : { control: attributes.control }),
  },
});

type Run = {
  execution: WorkflowExecution & { workflowId: string; runId: string };
  taskList: string;
};

/** An execution whose first decision task has been answered: it waits with no decision task open. */
async function idle(): Promise<Run> {
  const run = await server.driver.start(wf);
  await server.driver.decide(run.taskList, () => []);
  return run;
}

/**
 * Starts a sender, answers its first decision task with `decisions`, and returns the sender with the
 * id of that task's DecisionTaskCompleted event.
 */
async function send(decisions: Decision[]): Promise<Run & { completedEventId: number }> {
  const run = await server.driver.start(wf);
  const first = await server.driver.decide(run.taskList, () => decisions);
  return { ...run, completedEventId: (first.startedEventId ?? 0) + 1 };
}

describe('SignalExternalWorkflowExecution', () => {
  it('signals the run named by runId; the sender learns it was signaled', async () => {
    const target = await idle();
    const sender = await send([
      signalExternal(target.execution.workflowId, {
        runId: target.execution.runId,
        signalName: 'go',
        input: 'payload',
        control: 'ctl',
      }),
    ]);

    const senderTask = await server.driver.pollDecision(sender.taskList);
    expect(eventTypes(senderTask.events).slice(3)).toEqual([
      'DecisionTaskCompleted',
      'SignalExternalWorkflowExecutionInitiated',
      'ExternalWorkflowExecutionSignaled',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    const initiated = single(senderTask.events, 'SignalExternalWorkflowExecutionInitiated');
    expect(initiated.signalExternalWorkflowExecutionInitiatedEventAttributes).toEqual({
      workflowId: target.execution.workflowId,
      runId: target.execution.runId,
      signalName: 'go',
      input: 'payload',
      control: 'ctl',
      decisionTaskCompletedEventId: sender.completedEventId,
    });
    expect(
      single(senderTask.events, 'ExternalWorkflowExecutionSignaled')
        .externalWorkflowExecutionSignaledEventAttributes,
    ).toEqual({ workflowExecution: target.execution, initiatedEventId: initiated.eventId });

    const targetTask = await server.driver.pollDecision(target.taskList);
    expect(eventTypes(targetTask.events).slice(3)).toEqual([
      'DecisionTaskCompleted',
      'WorkflowExecutionSignaled',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    expect(
      single(targetTask.events, 'WorkflowExecutionSignaled')
        .workflowExecutionSignaledEventAttributes,
    ).toEqual({
      signalName: 'go',
      input: 'payload',
      externalWorkflowExecution: sender.execution,
      externalInitiatedEventId: initiated.eventId,
    });
  });

  it('without a runId signals the open run of the workflowId and reports its runId to the sender', async () => {
    const target = await idle();
    const sender = await send([
      signalExternal(target.execution.workflowId, { signalName: 'no-run-id' }),
    ]);

    const senderTask = await server.driver.pollDecision(sender.taskList);
    const initiated = single(senderTask.events, 'SignalExternalWorkflowExecutionInitiated');
    expect(initiated.signalExternalWorkflowExecutionInitiatedEventAttributes).toEqual({
      workflowId: target.execution.workflowId,
      signalName: 'no-run-id',
      decisionTaskCompletedEventId: sender.completedEventId,
    });
    expect(
      single(senderTask.events, 'ExternalWorkflowExecutionSignaled')
        .externalWorkflowExecutionSignaledEventAttributes,
    ).toEqual({ workflowExecution: target.execution, initiatedEventId: initiated.eventId });

    const targetTask = await server.driver.pollDecision(target.taskList);
    expect(
      single(targetTask.events, 'WorkflowExecutionSignaled')
        .workflowExecutionSignaledEventAttributes,
    ).toEqual({
      signalName: 'no-run-id',
      externalWorkflowExecution: sender.execution,
      externalInitiatedEventId: initiated.eventId,
    });
  });

  it('adds no second decision task to a target whose decision task is already scheduled', async () => {
    const target = await server.driver.start(wf);
    const sender = await send([signalExternal(target.execution.workflowId)]);
    await server.driver.pollDecision(sender.taskList);

    const targetTask = await server.driver.pollDecision(target.taskList);
    expect(eventTypes(targetTask.events)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'WorkflowExecutionSignaled',
      'DecisionTaskStarted',
    ]);
  });

  it('fails with UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION for a workflowId with no execution', async () => {
    const workflowId = uid('nobody');
    const sender = await send([signalExternal(workflowId, { control: 'c1' })]);

    const senderTask = await server.driver.pollDecision(sender.taskList);
    expect(eventTypes(senderTask.events).slice(3)).toEqual([
      'DecisionTaskCompleted',
      'SignalExternalWorkflowExecutionInitiated',
      'SignalExternalWorkflowExecutionFailed',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    const initiated = single(senderTask.events, 'SignalExternalWorkflowExecutionInitiated');
    expect(
      single(senderTask.events, 'SignalExternalWorkflowExecutionFailed')
        .signalExternalWorkflowExecutionFailedEventAttributes,
    ).toEqual({
      workflowId,
      cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
      initiatedEventId: initiated.eventId,
      decisionTaskCompletedEventId: sender.completedEventId,
      control: 'c1',
    });
  });

  it('fails for a closed target, with or without its runId, and leaves its history alone', async () => {
    const target = await server.driver.start(wf);
    await server.swf.send(
      new TerminateWorkflowExecutionCommand({
        domain,
        workflowId: target.execution.workflowId,
        runId: target.execution.runId,
      }),
    );
    const closedHistory = await server.driver.history(target.execution);
    const sender = await send([
      signalExternal(target.execution.workflowId, { runId: target.execution.runId }),
      signalExternal(target.execution.workflowId),
    ]);

    const events = await awaitHistory(
      server.driver,
      sender.execution,
      (h) => eventsOf(h, 'SignalExternalWorkflowExecutionFailed').length === 2,
    );
    const [withRunId, withoutRunId] = eventsOf(events, 'SignalExternalWorkflowExecutionInitiated');
    const failures = eventsOf(events, 'SignalExternalWorkflowExecutionFailed').map(
      (e) => e.signalExternalWorkflowExecutionFailedEventAttributes,
    );
    expect(failures).toEqual(
      expect.arrayContaining([
        {
          workflowId: target.execution.workflowId,
          runId: target.execution.runId,
          cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
          initiatedEventId: withRunId?.eventId,
          decisionTaskCompletedEventId: sender.completedEventId,
        },
        {
          workflowId: target.execution.workflowId,
          cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
          initiatedEventId: withoutRunId?.eventId,
          decisionTaskCompletedEventId: sender.completedEventId,
        },
      ]),
    );
    expect(eventsOf(events, 'ExternalWorkflowExecutionSignaled')).toEqual([]);
    expect(await server.driver.history(target.execution)).toEqual(closedHistory);
  });

  it('fails for a runId that belongs to another workflowId', async () => {
    const other = await idle();
    const target = await idle();
    const sender = await send([
      signalExternal(target.execution.workflowId, { runId: other.execution.runId }),
    ]);

    const senderTask = await server.driver.pollDecision(sender.taskList);
    expect(
      single(senderTask.events, 'SignalExternalWorkflowExecutionFailed')
        .signalExternalWorkflowExecutionFailedEventAttributes,
    ).toMatchObject({ cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION', runId: other.execution.runId });
    const untouched = [other, target].map((r) => server.driver.history(r.execution));
    for (const history of await Promise.all(untouched)) {
      expect(eventsOf(history, 'WorkflowExecutionSignaled')).toEqual([]);
    }
  });

  it('lets an execution signal itself: it sees the signal and the outcome in one new decision task', async () => {
    const sender = await server.driver.start(wf);
    const first = await server.driver.decide(sender.taskList, () => [
      signalExternal(sender.execution.workflowId, { signalName: 'self', input: 'me' }),
    ]);
    const completedEventId = (first.startedEventId ?? 0) + 1;

    const task = await server.driver.pollDecision(sender.taskList);
    const after = eventTypes(task.events).slice(3);
    expect(after.slice(0, 2)).toEqual([
      'DecisionTaskCompleted',
      'SignalExternalWorkflowExecutionInitiated',
    ]);
    expect(after.slice(2, 4).sort()).toEqual([
      'ExternalWorkflowExecutionSignaled',
      'WorkflowExecutionSignaled',
    ]);
    expect(after.slice(4)).toEqual(['DecisionTaskScheduled', 'DecisionTaskStarted']);
    const initiated = single(task.events, 'SignalExternalWorkflowExecutionInitiated');
    expect(initiated.signalExternalWorkflowExecutionInitiatedEventAttributes).toMatchObject({
      decisionTaskCompletedEventId: completedEventId,
    });
    expect(
      single(task.events, 'WorkflowExecutionSignaled').workflowExecutionSignaledEventAttributes,
    ).toEqual({
      signalName: 'self',
      input: 'me',
      externalWorkflowExecution: sender.execution,
      externalInitiatedEventId: initiated.eventId,
    });
    expect(
      single(task.events, 'ExternalWorkflowExecutionSignaled')
        .externalWorkflowExecutionSignaledEventAttributes,
    ).toEqual({ workflowExecution: sender.execution, initiatedEventId: initiated.eventId });
  });

  it('carries out every request of one response, each with its own outcome', async () => {
    const a = await idle();
    const b = await idle();
    const missing = uid('missing');
    const sender = await send([
      signalExternal(a.execution.workflowId, { signalName: 'to-a' }),
      signalExternal(b.execution.workflowId, { signalName: 'to-b' }),
      signalExternal(missing),
      cancelExternal(b.execution.workflowId),
    ]);
    const events = await awaitHistory(
      server.driver,
      sender.execution,
      (h) =>
        eventsOf(h, 'ExternalWorkflowExecutionSignaled').length === 2 &&
        eventsOf(h, 'SignalExternalWorkflowExecutionFailed').length === 1 &&
        eventsOf(h, 'ExternalWorkflowExecutionCancelRequested').length === 1,
    );
    const initiated = eventsOf(events, 'SignalExternalWorkflowExecutionInitiated').map(
      (e) => e.eventId,
    );
    const signaled = eventsOf(events, 'ExternalWorkflowExecutionSignaled').map(
      (e) => e.externalWorkflowExecutionSignaledEventAttributes,
    );
    expect(signaled).toEqual(
      expect.arrayContaining([
        { workflowExecution: a.execution, initiatedEventId: initiated[0] },
        { workflowExecution: b.execution, initiatedEventId: initiated[1] },
      ]),
    );
    expect(
      single(events, 'SignalExternalWorkflowExecutionFailed')
        .signalExternalWorkflowExecutionFailedEventAttributes?.initiatedEventId,
    ).toBe(initiated[2]);

    const bHistory = await awaitHistory(
      server.driver,
      b.execution,
      (h) =>
        eventsOf(h, 'WorkflowExecutionSignaled').length === 1 &&
        eventsOf(h, 'WorkflowExecutionCancelRequested').length === 1,
    );
    expect(
      single(bHistory, 'WorkflowExecutionSignaled').workflowExecutionSignaledEventAttributes
        ?.signalName,
    ).toBe('to-b');
    expect(eventsOf(bHistory, 'DecisionTaskScheduled')).toHaveLength(2);
    const aHistory = await awaitHistory(
      server.driver,
      a.execution,
      (h) => eventsOf(h, 'WorkflowExecutionSignaled').length === 1,
    );
    expect(
      single(aHistory, 'WorkflowExecutionSignaled').workflowExecutionSignaledEventAttributes
        ?.signalName,
    ).toBe('to-a');
  });
});

describe('RequestCancelExternalWorkflowExecution', () => {
  it('asks the target to cancel; the sender learns the request was delivered', async () => {
    const target = await idle();
    const sender = await send([
      cancelExternal(target.execution.workflowId, {
        runId: target.execution.runId,
        control: 'why',
      }),
    ]);

    const senderTask = await server.driver.pollDecision(sender.taskList);
    expect(eventTypes(senderTask.events).slice(3)).toEqual([
      'DecisionTaskCompleted',
      'RequestCancelExternalWorkflowExecutionInitiated',
      'ExternalWorkflowExecutionCancelRequested',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    const initiated = single(senderTask.events, 'RequestCancelExternalWorkflowExecutionInitiated');
    expect(initiated.requestCancelExternalWorkflowExecutionInitiatedEventAttributes).toEqual({
      workflowId: target.execution.workflowId,
      runId: target.execution.runId,
      control: 'why',
      decisionTaskCompletedEventId: sender.completedEventId,
    });
    expect(
      single(senderTask.events, 'ExternalWorkflowExecutionCancelRequested')
        .externalWorkflowExecutionCancelRequestedEventAttributes,
    ).toEqual({ workflowExecution: target.execution, initiatedEventId: initiated.eventId });

    const targetTask = await server.driver.pollDecision(target.taskList);
    expect(eventTypes(targetTask.events).slice(3)).toEqual([
      'DecisionTaskCompleted',
      'WorkflowExecutionCancelRequested',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    expect(
      single(targetTask.events, 'WorkflowExecutionCancelRequested')
        .workflowExecutionCancelRequestedEventAttributes,
    ).toEqual({
      externalWorkflowExecution: sender.execution,
      externalInitiatedEventId: initiated.eventId,
    });
    const described = await server.driver.describe(target.execution);
    expect(described.executionInfo).toMatchObject({
      executionStatus: 'OPEN',
      cancelRequested: true,
    });
  });

  it('without a runId reaches the open run of the workflowId', async () => {
    const target = await idle();
    const sender = await send([cancelExternal(target.execution.workflowId)]);
    const senderTask = await server.driver.pollDecision(sender.taskList);
    const initiated = single(senderTask.events, 'RequestCancelExternalWorkflowExecutionInitiated');
    expect(initiated.requestCancelExternalWorkflowExecutionInitiatedEventAttributes).toEqual({
      workflowId: target.execution.workflowId,
      decisionTaskCompletedEventId: sender.completedEventId,
    });
    expect(
      single(senderTask.events, 'ExternalWorkflowExecutionCancelRequested')
        .externalWorkflowExecutionCancelRequestedEventAttributes,
    ).toEqual({ workflowExecution: target.execution, initiatedEventId: initiated.eventId });
    expect((await server.driver.describe(target.execution)).executionInfo?.cancelRequested).toBe(
      true,
    );
  });

  it('fails with UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION for an unknown or closed target', async () => {
    const closed = await server.driver.start(wf);
    await server.swf.send(
      new TerminateWorkflowExecutionCommand({
        domain,
        workflowId: closed.execution.workflowId,
        runId: closed.execution.runId,
      }),
    );
    const unknown = uid('nobody');
    const sender = await send([
      cancelExternal(unknown, { control: 'c' }),
      cancelExternal(closed.execution.workflowId, { runId: closed.execution.runId }),
    ]);
    const events = await awaitHistory(
      server.driver,
      sender.execution,
      (h) => eventsOf(h, 'RequestCancelExternalWorkflowExecutionFailed').length === 2,
    );
    const [first, second] = eventsOf(events, 'RequestCancelExternalWorkflowExecutionInitiated');
    expect(
      eventsOf(events, 'RequestCancelExternalWorkflowExecutionFailed').map(
        (e) => e.requestCancelExternalWorkflowExecutionFailedEventAttributes,
      ),
    ).toEqual(
      expect.arrayContaining([
        {
          workflowId: unknown,
          cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
          initiatedEventId: first?.eventId,
          decisionTaskCompletedEventId: sender.completedEventId,
          control: 'c',
        },
        {
          workflowId: closed.execution.workflowId,
          runId: closed.execution.runId,
          cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
          initiatedEventId: second?.eventId,
          decisionTaskCompletedEventId: sender.completedEventId,
        },
      ]),
    );
    expect(eventsOf(events, 'ExternalWorkflowExecutionCancelRequested')).toEqual([]);
    const described = await server.driver.describe(closed.execution);
    expect(described.executionInfo).toMatchObject({
      closeStatus: 'TERMINATED',
      cancelRequested: false,
    });
  });
});
