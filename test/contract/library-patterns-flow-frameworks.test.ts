/**
 * The call patterns of third-party SWF libraries, replayed as raw HTTP with the headers and JSON each
 * library sends (test/support/library-clients.ts), and judged by what each reads back. Sources
 * (public code, cited by file):
 *
 * - aws-swf-flow-library (worker/DecisionTaskPoller.java, AffinityHelper.java, DecisionsHelper.java,
 *   WorkflowExecutionUtils.java): affinity pollers send `startAtPreviousStartedEvent: true` on every
 *   page and check `previousStartedEventId` against the cached decider's `startedEventId`; decisions
 *   move the next decision task to a host task list; more than 100 decisions end with a
 *   `FORCE_IMMEDIATE_DECISION` timer of `"0"` seconds; a closed run's close event is the first event
 *   of its history in reverse order.
 * - aws-flow-ruby (aws/decider/task_poller.rb): a too-large decision is recognised by the
 *   ValidationException text `failed to satisfy constraint: Member must have length less than or
 *   equal to`.
 * - aws-swf-flow-library DefaultChildWorkflowIdHandler, aws-sdk-java GenericWorkflowClientImpl and
 *   aws-flow-ruby workflow_client.rb: a child started without a workflowId is named
 *   `<parent runId>:<n>`.
 */
import { describe, expect, it } from 'vitest';
import { sleep, uid } from '../support/decider.js';
import {
  activityType,
  boto2ErrorName,
  events,
  ids,
  type Json,
  libraryDomainForFile,
  workflowType,
} from '../support/library-clients.js';

const { domain, client, startRun } = libraryDomainForFile();

describe('aws-swf-flow-library (Java)', () => {
  it('affinity: startAtPreviousStartedEvent on every page, previousStartedEventId, the host task list', async () => {
    const sdk = client('sdk');
    const run = await startRun();
    const host = `ip-10-0-0-1.ec2.internal-${uid('h')}`;
    const poll = (taskList: string, nextPageToken?: unknown) =>
      sdk.ok('PollForDecisionTask', {
        domain,
        identity: '4242@ip-10-0-0-1',
        taskList: { name: taskList },
        startAtPreviousStartedEvent: true,
        ...(nextPageToken === undefined ? {} : { nextPageToken }),
      });
    const first = await poll(run.taskList);
    // The first task has no previous one: its whole history.
    expect(first.previousStartedEventId).toBe(0);
    expect(ids(events(first))[0]).toBe(1);
    await sdk.ok('RespondDecisionTaskCompleted', {
      taskToken: first.taskToken,
      decisions: [
        {
          decisionType: 'RecordMarker',
          recordMarkerDecisionAttributes: { markerName: 'cached' },
        },
      ],
      taskList: { name: host },
      taskListScheduleToStartTimeout: '30',
    });
    await sdk.ok('SignalWorkflowExecution', {
      domain,
      workflowId: run.workflowId,
      signalName: 'go',
    });
    const second = await poll(host);
    // AffinityHelper.isValidDecider: previousStartedEventId == cached decider's startedEventId.
    expect(second.previousStartedEventId).toBe(first.startedEventId);
    const seen = events(second);
    expect(seen[0]).toMatchObject({
      eventId: first.startedEventId,
      eventType: 'DecisionTaskStarted',
    });
    expect(seen.at(-1)).toMatchObject({
      eventId: second.startedEventId,
      eventType: 'DecisionTaskStarted',
    });
    expect(second.nextPageToken).toBeUndefined();
  });

  it('FORCE_IMMEDIATE_DECISION: a "0" second timer after 99 decisions fires and brings the next task at once', async () => {
    const sdk = client('sdk');
    const run = await startRun();
    const first = await sdk.ok('PollForDecisionTask', { domain, taskList: { name: run.taskList } });
    const decisions: Json[] = Array.from({ length: 99 }, (_, i) => ({
      decisionType: 'RecordMarker',
      recordMarkerDecisionAttributes: { markerName: `m${i}` },
    }));
    decisions.push({
      decisionType: 'StartTimer',
      startTimerDecisionAttributes: {
        timerId: 'FORCE_IMMEDIATE_DECISION',
        startToFireTimeout: '0',
      },
    });
    await sdk.ok('RespondDecisionTaskCompleted', { taskToken: first.taskToken, decisions });
    const next = await sdk.ok('PollForDecisionTask', { domain, taskList: { name: run.taskList } });
    expect(next.taskToken).toEqual(expect.any(String));
    expect(
      events(next)
        .slice(-4)
        .map((e) => e.eventType),
    ).toEqual(['TimerStarted', 'TimerFired', 'DecisionTaskScheduled', 'DecisionTaskStarted']);
  });

  it('getInstanceCloseEvent: the first event of a closed run in reverse order is its close event', async () => {
    const sdk = client('sdk');
    const run = await startRun();
    const task = await sdk.ok('PollForDecisionTask', { domain, taskList: { name: run.taskList } });
    await sdk.ok('RespondDecisionTaskCompleted', {
      taskToken: task.taskToken,
      decisions: [
        {
          decisionType: 'FailWorkflowExecution',
          failWorkflowExecutionDecisionAttributes: { reason: 'r' },
        },
      ],
    });
    const execution = { workflowId: run.workflowId, runId: run.runId };
    const info = await sdk.ok('DescribeWorkflowExecution', { domain, execution });
    expect(info.executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'FAILED' });
    const page = await sdk.ok('GetWorkflowExecutionHistory', {
      domain,
      execution,
      reverseOrder: true,
      maximumPageSize: 1,
    });
    expect(events(page).map((e) => e.eventType)).toEqual(['WorkflowExecutionFailed']);
    expect(page.nextPageToken).toEqual(expect.any(String));
  });
});

describe('child workflowIds of the Flow frameworks (Java and Ruby)', () => {
  // aws-swf-flow-library DefaultChildWorkflowIdHandler.generateWorkflowId ("%s:%s", the parent's runId
  // and the decider's next id), aws-sdk-java's flow GenericWorkflowClientImpl.generateUniqueId
  // (runId + ":" + id), aws-flow-ruby workflow_client.rb start_internal_workflow
  // (get_next_id(run_id + ":")): every child started without an explicit workflowId. Both frameworks
  // ran against Amazon SWF for years with these ids, so SWF takes a ':' in the child's workflowId.
  it('starts a child whose workflowId is <parent runId>:<n>, which the parent can then signal and cancel', async () => {
    const sdk = client('sdk');
    const parent = await startRun();
    const childId = `${parent.runId}:1`;
    const childList = uid('child-deciders');
    const first = await sdk.ok('PollForDecisionTask', {
      domain,
      taskList: { name: parent.taskList },
    });
    const started = await sdk.call('RespondDecisionTaskCompleted', {
      taskToken: first.taskToken,
      decisions: [
        {
          decisionType: 'StartChildWorkflowExecution',
          startChildWorkflowExecutionDecisionAttributes: {
            workflowType,
            workflowId: childId,
            taskList: { name: childList },
            control: '1',
          },
        },
      ],
    });
    expect(started.status, started.text).toBe(200);
    const second = await sdk.ok('PollForDecisionTask', {
      domain,
      taskList: { name: parent.taskList },
    });
    const childStarted = events(second).find(
      (e) => e.eventType === 'ChildWorkflowExecutionStarted',
    );
    expect(childStarted?.childWorkflowExecutionStartedEventAttributes).toMatchObject({
      workflowExecution: { workflowId: childId },
    });
    // GenericWorkflowClientImpl: a signal to the child, and ChildWorkflowCancellationHandler's cancel.
    await sdk.ok('RespondDecisionTaskCompleted', {
      taskToken: second.taskToken,
      decisions: [
        {
          decisionType: 'SignalExternalWorkflowExecution',
          signalExternalWorkflowExecutionDecisionAttributes: {
            workflowId: childId,
            signalName: 'ping',
            control: '2',
          },
        },
        {
          decisionType: 'RequestCancelExternalWorkflowExecution',
          requestCancelExternalWorkflowExecutionDecisionAttributes: { workflowId: childId },
        },
      ],
    });
    const attributes = childStarted?.childWorkflowExecutionStartedEventAttributes as
      | { workflowExecution?: Json }
      | undefined;
    const child = { workflowId: childId, runId: String(attributes?.workflowExecution?.runId) };
    // The signal and the cancel request reach the child across executions: wait for both.
    let childEvents: string[] = [];
    for (let i = 0; i < 50 && !childEvents.includes('WorkflowExecutionCancelRequested'); i++) {
      const page = await sdk.ok('GetWorkflowExecutionHistory', { domain, execution: child });
      childEvents = events(page).map((e) => e.eventType);
      if (!childEvents.includes('WorkflowExecutionCancelRequested')) await sleep(100);
    }
    expect(childEvents).toEqual(
      expect.arrayContaining(['WorkflowExecutionSignaled', 'WorkflowExecutionCancelRequested']),
    );
    const described = await sdk.ok('DescribeWorkflowExecution', { domain, execution: child });
    expect(described.executionInfo).toMatchObject({
      execution: child,
      parent: { workflowId: parent.workflowId, runId: parent.runId },
      cancelRequested: true,
    });
    const task = await sdk.ok('PollForDecisionTask', { domain, taskList: { name: childList } });
    expect(task.workflowExecution).toEqual(child);
  });
});

describe('aws-flow-ruby: too-large values (task_poller.rb)', () => {
  it('refuses them with the ValidationException text the poller looks for', async () => {
    const sdk = client('sdk');
    const run = await startRun();
    const task = await sdk.ok('PollForDecisionTask', { domain, taskList: { name: run.taskList } });
    const tooLarge = await sdk.call('RespondDecisionTaskCompleted', {
      taskToken: task.taskToken,
      decisions: [
        {
          decisionType: 'ScheduleActivityTask',
          scheduleActivityTaskDecisionAttributes: {
            activityType,
            activityId: 'big',
            input: 'x'.repeat(32_769),
          },
        },
      ],
    });
    expect(boto2ErrorName(tooLarge)).toBe('ValidationException');
    expect(String(tooLarge.body?.message)).toContain(
      'failed to satisfy constraint: Member must have length less than or equal to',
    );
    // The poller then fails the workflow with minimal details: the task is still the decider's.
    await sdk.ok('RespondDecisionTaskCompleted', {
      taskToken: task.taskToken,
      decisions: [
        {
          decisionType: 'FailWorkflowExecution',
          failWorkflowExecutionDecisionAttributes: {
            reason: 'too large',
            details: 'ValidationException',
          },
        },
      ],
    });
  });
});
