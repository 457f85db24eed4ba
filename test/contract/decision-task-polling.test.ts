/**
 * PollForDecisionTask through the official SDK: the task and its history pages, priorities, the
 * empty task, waking a waiting poller, one decision task at a time and the task list it goes to.
 */
import {
  GetWorkflowExecutionHistoryCommand,
  PollForDecisionTaskCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { decide, eventIds, eventTypes, expectFault, single, uid } from '../support/decider.js';
import {
  countDecisions,
  domain,
  nextTask,
  POLL_WAIT_MS,
  serveDecisionTasks,
  startAndDecide,
  wf,
} from '../support/decision-tasks.js';
import { servedForFile } from '../support/local.js';

const server = servedForFile(serveDecisionTasks);

describe('PollForDecisionTask', () => {
  it('returns the task with startedEventId, previousStartedEventId and the poller identity', async () => {
    const { execution, taskList } = await server.driver.start(wf, { input: 'in' });
    const first = await server.driver.pollDecision(taskList, { identity: 'decider-a' });
    expect(first.startedEventId).toBe(3);
    expect(first.previousStartedEventId).toBe(0);
    expect(first.workflowExecution).toEqual(execution);
    expect(first.workflowType).toEqual(wf);
    expect(first.nextPageToken).toBeUndefined();
    expect(eventTypes(first.events)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    expect(first.events[2]?.decisionTaskStartedEventAttributes).toEqual({
      identity: 'decider-a',
      scheduledEventId: 2,
    });
    // one decision task at a time: nothing else to hand out
    expect(await countDecisions(server.swf, taskList)).toBe(0);
    await server.driver.respond(first.taskToken, []);

    const second = await nextTask(server.driver, execution, taskList);
    expect(second.previousStartedEventId).toBe(3);
    expect(second.startedEventId).toBe(7);
    expect(eventTypes(second.events).slice(3)).toEqual([
      'DecisionTaskCompleted',
      'WorkflowExecutionSignaled',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    expect(second.events.at(-1)?.decisionTaskStartedEventAttributes).toEqual({
      scheduledEventId: 6,
    });
    await server.driver.respond(second.taskToken, [], {});
    const third = await nextTask(server.driver, execution, taskList);
    expect(third.previousStartedEventId).toBe(7);
  });

  /** An execution whose second decision task sees 12 events. */
  async function twelveEvents() {
    const started = await startAndDecide(
      server.driver,
      ['m1', 'm2', 'm3', 'm4'].map((m) => decide.marker(m)),
    );
    await server.driver.signal(started.execution, 'one');
    await server.driver.signal(started.execution, 'two');
    // 1 started, 2-4 task, 5-8 markers, 9 signal, 10 scheduled, 11 signal, then 12 DecisionTaskStarted
    return started;
  }

  it('pages the history with maximumPageSize, repeating the other members and the same token', async () => {
    const { execution, taskList } = await twelveEvents();
    const other = await server.driver.start(wf, { taskList: { name: taskList } });
    const first = await server.driver.pollDecision(taskList, {
      maximumPageSize: 5,
      identity: 'pager',
    });
    expect(first.workflowExecution).toEqual(execution);
    expect(first.startedEventId).toBe(12);
    expect(eventIds(first.events)).toEqual([1, 2, 3, 4, 5]);
    expect(first.nextPageToken).toBeTruthy();

    const ids = [...eventIds(first.events)];
    let token = first.nextPageToken;
    let pages = 1;
    while (token !== undefined) {
      const page = await server.swf.send(
        new PollForDecisionTaskCommand({
          domain,
          taskList: { name: taskList },
          identity: 'pager',
          maximumPageSize: 5,
          nextPageToken: token,
        }),
      );
      expect(page.taskToken).toBe(first.taskToken);
      expect(page.startedEventId).toBe(first.startedEventId);
      expect(page.previousStartedEventId).toBe(first.previousStartedEventId);
      expect(page.workflowExecution).toEqual(first.workflowExecution);
      expect(page.workflowType).toEqual(first.workflowType);
      ids.push(...eventIds(page.events));
      token = page.nextPageToken;
      pages += 1;
      expect(pages).toBeLessThan(5);
    }
    expect(pages).toBe(3);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    // the pages took no other task and recorded nothing
    expect(await countDecisions(server.swf, taskList)).toBe(1);
    expect(eventIds(await server.driver.history(execution)).at(-1)).toBe(12);
    await server.driver.respond(first.taskToken, []);
    const otherTask = await server.driver.pollDecision(taskList);
    expect(otherTask.workflowExecution).toEqual(other.execution);
  });

  it('returns the history newest first with reverseOrder, also across pages', async () => {
    const { taskList } = await twelveEvents();
    const all = await server.driver.pollDecision(taskList, { reverseOrder: true });
    expect(eventIds(all.events)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(all.events[0]?.eventType).toBe('DecisionTaskStarted');
    await server.driver.respond(all.taskToken, []);

    const paged = await twelveEvents();
    const first = await server.driver.pollDecision(paged.taskList, {
      reverseOrder: true,
      maximumPageSize: 7,
    });
    expect(eventIds(first.events)).toEqual([12, 11, 10, 9, 8, 7, 6]);
    const second = await server.swf.send(
      new PollForDecisionTaskCommand({
        domain,
        taskList: { name: paged.taskList },
        reverseOrder: true,
        maximumPageSize: 7,
        nextPageToken: first.nextPageToken,
      }),
    );
    expect(eventIds(second.events)).toEqual([5, 4, 3, 2, 1]);
    expect(second.nextPageToken).toBeUndefined();
    expect(second.taskToken).toBe(first.taskToken);
  });

  it('starts at the previous DecisionTaskStarted with startAtPreviousStartedEvent', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const first = await server.driver.pollDecision(taskList, { startAtPreviousStartedEvent: true });
    // no previous task: the whole history
    expect(eventIds(first.events)).toEqual([1, 2, 3]);
    await server.driver.respond(first.taskToken, [decide.marker('m')]);
    await server.driver.signal(execution);
    const second = await server.driver.pollDecision(taskList, {
      startAtPreviousStartedEvent: true,
    });
    expect(second.previousStartedEventId).toBe(3);
    expect(eventIds(second.events)).toEqual([3, 4, 5, 6, 7, 8]);
    expect(eventTypes(second.events)).toEqual([
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'MarkerRecorded',
      'WorkflowExecutionSignaled',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
  });

  it('hands out the highest taskPriority first, then the oldest', async () => {
    const taskList = uid('priorities');
    const low = await server.driver.start(wf, { taskList: { name: taskList }, taskPriority: '1' });
    const high = await server.driver.start(wf, {
      taskList: { name: taskList },
      taskPriority: '10',
    });
    const negative = await server.driver.start(wf, {
      taskList: { name: taskList },
      taskPriority: '-5',
    });
    const alsoHigh = await server.driver.start(wf, {
      taskList: { name: taskList },
      taskPriority: '10',
    });
    const zero = await server.driver.start(wf, { taskList: { name: taskList } });
    const order: (string | undefined)[] = [];
    for (let i = 0; i < 5; i++) {
      const task = await server.driver.pollDecision(taskList);
      order.push(task.workflowExecution?.workflowId);
      await server.driver.respond(task.taskToken, [decide.complete()]);
    }
    expect(order).toEqual([high, alsoHigh, low, zero, negative].map((s) => s.execution.workflowId));
  });

  it('answers an empty task without taskToken after the poll timeout', async () => {
    const before = Date.now();
    const task = await server.swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: uid('empty') } }),
    );
    expect(Date.now() - before).toBeGreaterThanOrEqual(POLL_WAIT_MS - 100);
    expect(task.taskToken).toBeFalsy();
    expect(task.startedEventId).toBe(0);
    expect(task.previousStartedEventId ?? 0).toBe(0);
    expect(task.events ?? []).toEqual([]);
  });

  it('wakes a waiting poller as soon as a task is scheduled', async () => {
    const taskList = uid('wake');
    const poll = server.swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: taskList } }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const { execution } = await server.driver.start(wf, { taskList: { name: taskList } });
    const task = await poll;
    expect(task.taskToken).toBeTruthy();
    expect(task.workflowExecution).toEqual(execution);
  });

  it('keeps one decision task: triggers before the task starts add events, not tasks', async () => {
    const { execution, taskList } = await server.driver.start(wf, { taskPriority: '3' });
    await server.driver.signal(execution, 'a');
    await server.driver.signal(execution, 'b');
    const history = await server.driver.history(execution);
    expect(eventTypes(history)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'WorkflowExecutionSignaled',
      'WorkflowExecutionSignaled',
    ]);
    expect(history[1]?.decisionTaskScheduledEventAttributes).toEqual({
      taskList: { name: taskList },
      taskPriority: '3',
      startToCloseTimeout: '30',
      scheduleToStartTimeout: 'NONE',
    });
    expect(await countDecisions(server.swf, taskList)).toBe(1);
    expect((await server.driver.describe(execution)).openCounts?.openDecisionTasks).toBe(1);
    const task = await server.driver.pollDecision(taskList);
    expect(eventTypes(task.events).slice(-3)).toEqual([
      'WorkflowExecutionSignaled',
      'WorkflowExecutionSignaled',
      'DecisionTaskStarted',
    ]);
  });

  it('schedules the owed decision task after DecisionTaskCompleted and the decision events', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const task = await server.driver.pollDecision(taskList);
    await server.driver.signal(execution, 'while-out-1');
    await server.driver.signal(execution, 'while-out-2');
    expect(await countDecisions(server.swf, taskList)).toBe(0);
    await server.driver.respond(task.taskToken, [decide.marker('m'), decide.startTimer('t')]);
    expect(eventTypes(await server.driver.history(execution))).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
      'WorkflowExecutionSignaled',
      'WorkflowExecutionSignaled',
      'DecisionTaskCompleted',
      'MarkerRecorded',
      'TimerStarted',
      'DecisionTaskScheduled',
    ]);
    expect(await countDecisions(server.swf, taskList)).toBe(1);
  });

  it('sends later decision tasks to the task list a response names', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const elsewhere = uid('override');
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [], { taskList: { name: elsewhere } });
    expect(
      single(await server.driver.history(execution), 'DecisionTaskCompleted')
        .decisionTaskCompletedEventAttributes,
    ).toMatchObject({
      taskList: { name: elsewhere },
    });
    await server.driver.signal(execution);
    expect(await countDecisions(server.swf, taskList)).toBe(0);
    expect(await countDecisions(server.swf, elsewhere)).toBe(1);
    const next = await server.driver.pollDecision(elsewhere);
    expect(next.workflowExecution).toEqual(execution);
    expect(next.events.at(-2)?.decisionTaskScheduledEventAttributes?.taskList).toEqual({
      name: elsewhere,
    });
  });

  it('refuses a page token of PollForDecisionTask in GetWorkflowExecutionHistory', async () => {
    const { execution, taskList } = await twelveEvents();
    const first = await server.driver.pollDecision(taskList, { maximumPageSize: 5 });
    expect(first.nextPageToken).toBeTruthy();
    await expectFault(
      server.swf.send(
        new GetWorkflowExecutionHistoryCommand({
          domain,
          execution,
          maximumPageSize: 5,
          nextPageToken: first.nextPageToken,
        }),
      ),
      'ValidationException',
    );
  });

  it('refuses an unknown domain with UnknownResourceFault', async () => {
    await expectFault(
      server.swf.send(new PollForDecisionTaskCommand({ domain: 'nope', taskList: { name: 'x' } })),
      'UnknownResourceFault',
      'Unknown domain: nope',
    );
  });
});
