/**
 * Reading and ending workflow executions through the official SDK: DescribeWorkflowExecution of open
 * and closed runs, GetWorkflowExecutionHistory's pages and faults, and TerminateWorkflowExecution.
 */
import {
  CountPendingActivityTasksCommand,
  CountPendingDecisionTasksCommand,
  GetWorkflowExecutionHistoryCommand,
  PollForActivityTaskCommand,
  PollForDecisionTaskCommand,
  RecordActivityTaskHeartbeatCommand,
  RequestCancelWorkflowExecutionCommand,
  RespondActivityTaskCanceledCommand,
  RespondActivityTaskCompletedCommand,
  RespondActivityTaskFailedCommand,
  RespondDecisionTaskCompletedCommand,
  SignalWorkflowExecutionCommand,
  TerminateWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { at, decide, eventIds, eventTypes, expectFault, single, uid } from '../support/decider.js';
import { act, domain, full, serveExecutions } from '../support/executions.js';
import { servedForFile } from '../support/local.js';

const server = servedForFile(serveExecutions);

describe('DescribeWorkflowExecution', () => {
  it('counts open activities, timers and decision tasks; keeps the latest activity time and context', async () => {
    const { execution, taskList } = await server.driver.start(full);
    const workers = uid('workers');
    expect((await server.driver.describe(execution)).openCounts?.openDecisionTasks).toBe(1);

    const first = await server.driver.pollDecision(taskList);
    // a started decision task is still open
    expect((await server.driver.describe(execution)).openCounts?.openDecisionTasks).toBe(1);
    expect((await server.driver.describe(execution)).latestActivityTaskTimestamp).toBeUndefined();
    await server.driver.respond(
      first.taskToken,
      [
        decide.scheduleActivity({
          activityType: act,
          activityId: 'a1',
          taskList: { name: workers },
        }),
        decide.scheduleActivity({
          activityType: act,
          activityId: 'a2',
          taskList: { name: workers },
        }),
        decide.startTimer('t1'),
      ],
      { executionContext: 'ctx-1' },
    );
    let detail = await server.driver.describe(execution);
    expect(detail.openCounts).toEqual({
      openActivityTasks: 2,
      openDecisionTasks: 0,
      openTimers: 1,
      openChildWorkflowExecutions: 0,
      openLambdaFunctions: 0,
    });
    expect(detail.latestExecutionContext).toBe('ctx-1');
    const scheduled = (await server.driver.history(execution)).filter(
      (e) => e.eventType === 'ActivityTaskScheduled',
    );
    expect(scheduled).toHaveLength(2);
    expect(detail.latestActivityTaskTimestamp?.getTime()).toBe(at(scheduled.at(-1)));

    // started activities stay open until they close
    const task = await server.driver.pollActivity(workers);
    expect((await server.driver.describe(execution)).openCounts?.openActivityTasks).toBe(2);
    await server.swf.send(
      new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken, result: 'r' }),
    );
    detail = await server.driver.describe(execution);
    expect(detail.openCounts).toMatchObject({
      openActivityTasks: 1,
      openDecisionTasks: 1,
      openTimers: 1,
    });

    const second = await server.driver.pollDecision(taskList);
    await server.driver.respond(second.taskToken, [decide.cancelTimer('t1')], {
      executionContext: 'ctx-2',
    });
    detail = await server.driver.describe(execution);
    expect(detail.openCounts).toMatchObject({
      openActivityTasks: 1,
      openDecisionTasks: 0,
      openTimers: 0,
    });
    expect(detail.latestExecutionContext).toBe('ctx-2');
    expect(detail.latestActivityTaskTimestamp?.getTime()).toBe(at(scheduled.at(-1)));

    // a response without executionContext leaves the latest one in place
    await server.driver.signal(execution);
    const third = await server.driver.pollDecision(taskList);
    await server.driver.respond(third.taskToken, []);
    expect((await server.driver.describe(execution)).latestExecutionContext).toBe('ctx-2');
  });

  it('shows cancelRequested after RequestCancelWorkflowExecution, and the close once canceled', async () => {
    const { execution, taskList } = await server.driver.start(full);
    const first = await server.driver.pollDecision(taskList);
    await server.driver.respond(first.taskToken, []);
    await server.swf.send(
      new RequestCancelWorkflowExecutionCommand({
        domain,
        workflowId: execution.workflowId,
        runId: execution.runId,
      }),
    );
    let detail = await server.driver.describe(execution);
    expect(detail.executionInfo).toMatchObject({ executionStatus: 'OPEN', cancelRequested: true });
    expect(detail.openCounts?.openDecisionTasks).toBe(1);
    const requested = single(
      await server.driver.history(execution),
      'WorkflowExecutionCancelRequested',
    );
    expect(
      requested.workflowExecutionCancelRequestedEventAttributes?.externalWorkflowExecution,
    ).toBeUndefined();
    expect(requested.workflowExecutionCancelRequestedEventAttributes?.cause).toBeUndefined();

    const second = await server.driver.pollDecision(taskList);
    expect(eventTypes(second.events)).toContain('WorkflowExecutionCancelRequested');
    await server.driver.respond(second.taskToken, [decide.cancel('bye')]);
    detail = await server.driver.describe(execution);
    const history = await server.driver.history(execution);
    const canceled = single(history, 'WorkflowExecutionCanceled');
    expect(canceled.workflowExecutionCanceledEventAttributes).toMatchObject({ details: 'bye' });
    expect(detail.executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'CANCELED',
      cancelRequested: true,
    });
    expect(detail.executionInfo?.closeTimestamp?.getTime()).toBe(at(canceled));
    expect(detail.openCounts).toMatchObject({
      openDecisionTasks: 0,
      openActivityTasks: 0,
      openTimers: 0,
    });
  });

  it.each([
    ['COMPLETED', decide.complete('ok'), 'WorkflowExecutionCompleted'],
    ['FAILED', decide.fail('why', 'what'), 'WorkflowExecutionFailed'],
  ] as const)(
    'reports closeStatus %s with its closeTimestamp',
    async (status, decision, eventType) => {
      const { execution, taskList } = await server.driver.start(full);
      const task = await server.driver.pollDecision(taskList);
      await server.driver.respond(task.taskToken, [decision]);
      const detail = await server.driver.describe(execution);
      const closed = single(await server.driver.history(execution), eventType);
      expect(detail.executionInfo).toMatchObject({
        executionStatus: 'CLOSED',
        closeStatus: status,
      });
      expect(detail.executionInfo?.closeTimestamp?.getTime()).toBe(at(closed));
      expect(detail.executionInfo?.closeTimestamp?.getTime()).toBeGreaterThanOrEqual(
        detail.executionInfo?.startTimestamp?.getTime() ?? Number.POSITIVE_INFINITY,
      );
    },
  );

  it('refuses an unknown execution with UnknownResourceFault', async () => {
    await expectFault(
      server.driver.describe({ workflowId: uid('none'), runId: 'no-such-run' }),
      'UnknownResourceFault',
    );
  });
});

describe('GetWorkflowExecutionHistory', () => {
  /** An execution with 10 events: started, decision task 2–4, 5 markers, one signal and its decision task. */
  async function tenEvents() {
    const { execution, taskList } = await server.driver.start(full);
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(
      task.taskToken,
      ['m1', 'm2', 'm3', 'm4'].map((m) => decide.marker(m)),
    );
    await server.driver.signal(execution, 'ping');
    const history = await server.driver.history(execution);
    expect(eventTypes(history)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'MarkerRecorded',
      'MarkerRecorded',
      'MarkerRecorded',
      'MarkerRecorded',
      'WorkflowExecutionSignaled',
      'DecisionTaskScheduled',
    ]);
    return execution;
  }

  async function pages(execution: { workflowId: string; runId: string }, reverseOrder: boolean) {
    const ids: number[][] = [];
    let nextPageToken: string | undefined;
    do {
      const page = await server.swf.send(
        new GetWorkflowExecutionHistoryCommand({
          domain,
          execution,
          maximumPageSize: 4,
          reverseOrder,
          ...(nextPageToken === undefined ? {} : { nextPageToken }),
        }),
      );
      ids.push(eventIds(page.events));
      nextPageToken = page.nextPageToken;
      expect(ids.length).toBeLessThan(10);
    } while (nextPageToken !== undefined);
    return ids;
  }

  it('pages forward and backward with maximumPageSize', async () => {
    const execution = await tenEvents();
    expect(await pages(execution, false)).toEqual([
      [1, 2, 3, 4],
      [5, 6, 7, 8],
      [9, 10],
    ]);
    expect(await pages(execution, true)).toEqual([
      [10, 9, 8, 7],
      [6, 5, 4, 3],
      [2, 1],
    ]);
  });

  it('omits nextPageToken when the page holds the rest exactly', async () => {
    const execution = await tenEvents();
    const page = await server.swf.send(
      new GetWorkflowExecutionHistoryCommand({ domain, execution, maximumPageSize: 10 }),
    );
    expect(eventIds(page.events)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(page.nextPageToken).toBeUndefined();
  });

  it('refuses a page token of another execution, or with other arguments, with ValidationException', async () => {
    const one = await tenEvents();
    const other = await tenEvents();
    const first = await server.swf.send(
      new GetWorkflowExecutionHistoryCommand({ domain, execution: one, maximumPageSize: 4 }),
    );
    expect(first.nextPageToken).toBeTruthy();
    await expectFault(
      server.swf.send(
        new GetWorkflowExecutionHistoryCommand({
          domain,
          execution: other,
          maximumPageSize: 4,
          nextPageToken: first.nextPageToken,
        }),
      ),
      'ValidationException',
    );
    await expectFault(
      server.swf.send(
        new GetWorkflowExecutionHistoryCommand({
          domain,
          execution: one,
          maximumPageSize: 4,
          reverseOrder: true,
          nextPageToken: first.nextPageToken,
        }),
      ),
      'ValidationException',
    );
    // the token still works with the arguments it came from
    const second = await server.swf.send(
      new GetWorkflowExecutionHistoryCommand({
        domain,
        execution: one,
        maximumPageSize: 4,
        nextPageToken: first.nextPageToken,
      }),
    );
    expect(eventIds(second.events)).toEqual([5, 6, 7, 8]);
  });

  it('refuses maximumPageSize above 1000 with ValidationException', async () => {
    const execution = await tenEvents();
    await expectFault(
      server.swf.send(
        new GetWorkflowExecutionHistoryCommand({ domain, execution, maximumPageSize: 1001 }),
      ),
      'ValidationException',
    );
  });
});

describe('TerminateWorkflowExecution', () => {
  it('closes at once with reason, details and childPolicy; every token dies; queued tasks vanish', async () => {
    const { execution, taskList } = await server.driver.start(full, { childPolicy: 'TERMINATE' });
    const workers = uid('workers');
    const first = await server.driver.pollDecision(taskList);
    await server.driver.respond(first.taskToken, [
      decide.scheduleActivity({
        activityType: act,
        activityId: 'started',
        taskList: { name: workers },
      }),
      decide.scheduleActivity({
        activityType: act,
        activityId: 'queued-1',
        taskList: { name: workers },
      }),
      decide.scheduleActivity({
        activityType: act,
        activityId: 'queued-2',
        taskList: { name: workers },
      }),
    ]);
    const activity = await server.driver.pollActivity(workers, 'worker');
    await server.driver.signal(execution);
    const decision = await server.driver.pollDecision(taskList);
    // one more trigger while the decision task is out: a decision task is owed
    await server.driver.signal(execution);
    expect(
      (
        await server.swf.send(
          new CountPendingActivityTasksCommand({ domain, taskList: { name: workers } }),
        )
      ).count,
    ).toBe(2);

    await server.swf.send(
      new TerminateWorkflowExecutionCommand({
        domain,
        workflowId: execution.workflowId,
        runId: execution.runId,
        reason: 'operator',
        details: 'details',
        childPolicy: 'ABANDON',
      }),
    );

    const history = await server.driver.history(execution);
    const terminated = history.at(-1);
    expect(terminated?.eventType).toBe('WorkflowExecutionTerminated');
    expect(terminated?.workflowExecutionTerminatedEventAttributes).toMatchObject({
      reason: 'operator',
      details: 'details',
      childPolicy: 'ABANDON',
    });
    expect(['OPERATOR_INITIATED', undefined]).toContain(
      terminated?.workflowExecutionTerminatedEventAttributes?.cause,
    );
    const detail = await server.driver.describe(execution);
    expect(detail.executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'TERMINATED',
    });
    expect(detail.executionInfo?.closeTimestamp?.getTime()).toBe(at(terminated));

    await expectFault(
      server.swf.send(
        new RespondDecisionTaskCompletedCommand({ taskToken: decision.taskToken, decisions: [] }),
      ),
      'UnknownResourceFault',
    );
    const token = activity.taskToken;
    await expectFault(
      server.swf.send(new RecordActivityTaskHeartbeatCommand({ taskToken: token })),
      'UnknownResourceFault',
    );
    await expectFault(
      server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken: token })),
      'UnknownResourceFault',
    );
    await expectFault(
      server.swf.send(new RespondActivityTaskFailedCommand({ taskToken: token })),
      'UnknownResourceFault',
    );
    await expectFault(
      server.swf.send(new RespondActivityTaskCanceledCommand({ taskToken: token })),
      'UnknownResourceFault',
    );

    expect(
      (
        await server.swf.send(
          new CountPendingActivityTasksCommand({ domain, taskList: { name: workers } }),
        )
      ).count,
    ).toBe(0);
    expect(
      (
        await server.swf.send(
          new CountPendingDecisionTasksCommand({ domain, taskList: { name: taskList } }),
        )
      ).count,
    ).toBe(0);
    const empty = await server.swf.send(
      new PollForActivityTaskCommand({ domain, taskList: { name: workers } }),
    );
    expect(empty.taskToken).toBeFalsy();
    expect(empty.startedEventId).toBe(0);
    const noDecision = await server.swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: taskList } }),
    );
    expect(noDecision.taskToken).toBeFalsy();

    // a closed execution takes no more signals, cancel requests or terminations
    const target = { domain, workflowId: execution.workflowId, runId: execution.runId };
    await expectFault(
      server.swf.send(new SignalWorkflowExecutionCommand({ ...target, signalName: 's' })),
      'UnknownResourceFault',
    );
    await expectFault(
      server.swf.send(new RequestCancelWorkflowExecutionCommand(target)),
      'UnknownResourceFault',
    );
    await expectFault(
      server.swf.send(new TerminateWorkflowExecutionCommand(target)),
      'UnknownResourceFault',
    );
    await expectFault(
      server.swf.send(
        new TerminateWorkflowExecutionCommand({ domain, workflowId: execution.workflowId }),
      ),
      'UnknownResourceFault',
    );
    // the history is final
    expect(eventIds(await server.driver.history(execution))).toEqual(eventIds(history));
  });

  it("records the execution's own child policy when the request gives none", async () => {
    const { execution } = await server.driver.start(full, { childPolicy: 'REQUEST_CANCEL' });
    await server.swf.send(
      new TerminateWorkflowExecutionCommand({ domain, workflowId: execution.workflowId }),
    );
    const terminated = single(
      await server.driver.history(execution),
      'WorkflowExecutionTerminated',
    );
    expect(terminated.workflowExecutionTerminatedEventAttributes?.childPolicy).toBe(
      'REQUEST_CANCEL',
    );
    expect(terminated.workflowExecutionTerminatedEventAttributes?.reason).toBeUndefined();
    expect(eventTypes(await server.driver.history(execution))).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'WorkflowExecutionTerminated',
    ]);
  });
});
