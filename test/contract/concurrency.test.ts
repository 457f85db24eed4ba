/**
 * Concurrency through the official SDK: many pollers, responders and
 * signals at once. No task is handed out twice or lost, no event is lost or duplicated, event ids stay
 * contiguous, a token is answered once, and at most one decision task is open per execution.
 */
import {
  type HistoryEvent,
  PollForActivityTaskCommand,
  PollForDecisionTaskCommand,
  RespondActivityTaskCompletedCommand,
  RespondActivityTaskFailedCommand,
  RespondDecisionTaskCompletedCommand,
  StartWorkflowExecutionCommand,
  UnknownResourceFault,
  WorkflowExecutionAlreadyStartedFault,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import {
  decide,
  eventIds,
  eventsOf,
  eventTypes,
  SwfDriver,
  single,
  uid,
} from '../support/decider.js';
import { domainForFile, registerTaskTypes, swfClient } from '../support/local.js';
import { pendingActivities, pendingDecisions } from '../support/waiting.js';

const domain = 'concurrency';
const wf = { name: 'wf', version: '1' };
const act = { name: 'act', version: '1' };

const server = domainForFile(domain, { polling: { maxWaitMs: 500 } }, ({ swf }) =>
  registerTaskTypes(swf, domain, { workflow: wf, activity: act, decisionTaskTimeout: '300' }),
);

/** Event ids run 1, 2, 3, … with no gap or repeat. */
function expectContiguous(events: readonly HistoryEvent[]) {
  expect(eventIds(events)).toStrictEqual(events.map((_, i) => i + 1));
}

/** At no point does the history hold more than one open decision task. */
function expectOneDecisionTaskAtATime(events: readonly HistoryEvent[]) {
  let open = 0;
  for (const type of eventTypes(events)) {
    if (type === 'DecisionTaskScheduled') open++;
    if (type === 'DecisionTaskCompleted' || type === 'DecisionTaskTimedOut') open--;
    expect(open).toBeLessThanOrEqual(1);
  }
}

/** Runs `count` workers at once, each calling `work(index)` until it returns false. */
async function workers(count: number, work: (index: number) => Promise<boolean>): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      while (await work(index)) {
        // keep working
      }
    }),
  );
}

describe('20 activity pollers against 1,000 activity tasks', () => {
  it('hand every task to exactly one worker and lose none', { timeout: 900_000 }, async () => {
    // Fifty executions of twenty activities: the tasks of one execution share its state item, so
    // their claims serialize; spreading them is what a real fleet of workflows looks like.
    const executions = 50;
    const perExecution = 20;
    const total = executions * perExecution;
    const workerList = uid('workers');
    const started = await Promise.all(
      Array.from({ length: executions }, () => server.driver.start(wf)),
    );
    // The deciders answer at once, each scheduling its activities.
    await Promise.all(
      started.map(async ({ taskList }) => {
        const task = await server.driver.pollDecision(taskList);
        await server.driver.respond(
          task.taskToken,
          Array.from({ length: perExecution }, (_, i) =>
            decide.scheduleActivity({
              activityType: act,
              activityId: `a${i}`,
              taskList: { name: workerList },
              input: `${task.workflowExecution?.workflowId}/a${i}`,
            }),
          ),
        );
      }),
    );
    expect(await pendingActivities(server.driver, workerList)).toBe(total);

    const delivered: string[] = [];
    const byWorker = new Map<number, number>();
    // No wall-clock budget for the whole hand-out (a loaded 2-core machine is slow), but a stall: if no
    // task is delivered for 30 s while some are missing, the missing ones are stuck or lost.
    let lastDelivery = Date.now();
    const stalled = () => Date.now() - lastDelivery > 30_000;
    const pollers = 20;
    const clients = Array.from({ length: pollers }, () => swfClient(server.service.endpoint));
    const pollStarted = Date.now();
    try {
      await workers(pollers, async (index) => {
        if (delivered.length >= total || stalled()) return false;
        const client = clients[index] ?? server.swf;
        const task = await client.send(
          new PollForActivityTaskCommand({
            domain,
            taskList: { name: workerList },
            identity: `worker-${index}`,
          }),
        );
        if (task.taskToken === undefined || task.taskToken === '') return true;
        delivered.push(task.input ?? '');
        lastDelivery = Date.now();
        byWorker.set(index, (byWorker.get(index) ?? 0) + 1);
        return true;
      });
    } finally {
      for (const client of clients) client.destroy();
    }
    const pollMs = Date.now() - pollStarted;

    const startedEvents = [];
    for (const { execution } of started) {
      startedEvents.push(
        ...eventsOf(await server.driver.history(execution), 'ActivityTaskStarted'),
      );
    }
    // If a task is missing, tell a slow hand-out (still pending) from a lost one (neither).
    expect({
      delivered: delivered.length,
      started: startedEvents.length,
      pending: await pendingActivities(server.driver, workerList),
    }).toStrictEqual({ delivered: total, started: total, pending: 0 });
    console.log(`1000 activity tasks handed to 20 pollers in ${pollMs} ms`);
    expect(new Set(delivered).size).toBe(total);
    expect(byWorker.size).toBeGreaterThan(1);
    expect(await pendingActivities(server.driver, workerList)).toBe(0);
    const late = await server.swf.send(
      new PollForActivityTaskCommand({ domain, taskList: { name: workerList } }),
    );
    expect(late.taskToken).toBeUndefined();
    for (const { execution } of started) {
      const events = await server.driver.history(execution);
      expectContiguous(events);
      expect(eventsOf(events, 'ActivityTaskScheduled')).toHaveLength(perExecution);
      const startedFor = eventsOf(events, 'ActivityTaskStarted').map(
        (e) => e.activityTaskStartedEventAttributes?.scheduledEventId,
      );
      expect(startedFor).toHaveLength(perExecution);
      expect(new Set(startedFor).size).toBe(perExecution);
      const described = await server.driver.describe(execution);
      expect(described.openCounts?.openActivityTasks).toBe(perExecution);
    }
  });
});

describe('several decision pollers', () => {
  it('get each decision task once; every execution completes once', {
    timeout: 120_000,
  }, async () => {
    const deciders = uid('deciders');
    const count = 40;
    const started = await Promise.all(
      Array.from({ length: count }, () =>
        server.driver.start(wf, { taskList: { name: deciders } }),
      ),
    );
    expect(await pendingDecisions(server.driver, deciders)).toBe(count);

    const handled: string[] = [];
    const deadline = Date.now() + 100_000;
    await workers(6, async (index) => {
      if (handled.length >= count || Date.now() > deadline) return false;
      const task = await server.swf.send(
        new PollForDecisionTaskCommand({
          domain,
          taskList: { name: deciders },
          identity: `decider-${index}`,
        }),
      );
      if (task.taskToken === undefined || task.taskToken === '') return true;
      handled.push(task.workflowExecution?.runId ?? '');
      await server.swf.send(
        new RespondDecisionTaskCompletedCommand({
          taskToken: task.taskToken,
          decisions: [decide.complete(`by ${index}`)],
        }),
      );
      return true;
    });

    expect(handled).toHaveLength(count);
    expect(new Set(handled)).toStrictEqual(new Set(started.map((s) => s.execution.runId)));
    expect(await pendingDecisions(server.driver, deciders)).toBe(0);
    for (const { execution } of started) {
      const events = await server.driver.history(execution);
      expect(eventTypes(events)).toStrictEqual([
        'WorkflowExecutionStarted',
        'DecisionTaskScheduled',
        'DecisionTaskStarted',
        'DecisionTaskCompleted',
        'WorkflowExecutionCompleted',
      ]);
    }
  });
});

describe('50 concurrent signals to one execution', () => {
  it('are all recorded exactly once, with contiguous event ids', { timeout: 60_000 }, async () => {
    const { execution } = await server.driver.start(wf);
    const inputs = Array.from({ length: 50 }, (_, i) => `signal-${i}`);
    const clients = Array.from({ length: 10 }, () => swfClient(server.service.endpoint));

    try {
      await Promise.all(
        inputs.map((input, i) =>
          new SwfDriver(clients[i % clients.length] ?? server.swf, domain).signal(
            execution,
            'burst',
            input,
          ),
        ),
      );
    } finally {
      for (const client of clients) client.destroy();
    }

    const events = await server.driver.history(execution);
    expectContiguous(events);
    const signaled = eventsOf(events, 'WorkflowExecutionSignaled').map(
      (e) => e.workflowExecutionSignaledEventAttributes?.input,
    );
    expect(signaled).toHaveLength(50);
    expect(new Set(signaled)).toStrictEqual(new Set(inputs));
    // The decision task scheduled at start was never started: the signals add no second one.
    expect(eventsOf(events, 'DecisionTaskScheduled')).toHaveLength(1);
    const described = await server.driver.describe(execution);
    expect(described.openCounts?.openDecisionTasks).toBe(1);
  });
});

describe('concurrent responders', () => {
  it('signals racing a decision response: all recorded, one decision task owed, ids contiguous', {
    timeout: 60_000,
  }, async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const task = await server.driver.pollDecision(taskList);

    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => server.driver.signal(execution, 'race', `r${i}`)),
      server.driver.respond(task.taskToken, [decide.marker('answered')]),
    ]);

    const events = await server.driver.history(execution);
    expectContiguous(events);
    expectOneDecisionTaskAtATime(events);
    expect(eventsOf(events, 'WorkflowExecutionSignaled')).toHaveLength(20);
    single(events, 'DecisionTaskCompleted');
    single(events, 'MarkerRecorded');
    // Signals that landed while the task was out owe one new decision task, scheduled after the
    // response's events; signals after the response find it scheduled and add none.
    const types = eventTypes(events);
    const completedAt = types.indexOf('DecisionTaskCompleted');
    expect(types.slice(completedAt)).toContain('DecisionTaskScheduled');
    expect(eventsOf(events, 'DecisionTaskScheduled')).toHaveLength(2);
    const next = await server.driver.pollDecision(taskList);
    expect(next.previousStartedEventId).toBe(task.startedEventId);
  });

  it('a decision token answered twice at once is taken once; the other gets UnknownResourceFault', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const task = await server.driver.pollDecision(taskList);

    const outcomes = await Promise.allSettled([
      server.driver.respond(task.taskToken, [decide.complete('first')]),
      server.driver.respond(task.taskToken, [decide.complete('second')]),
      server.driver.respond(task.taskToken, [decide.marker('third')]),
    ]);

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) {
      if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(UnknownResourceFault);
    }
    const events = await server.driver.history(execution);
    expectContiguous(events);
    single(events, 'DecisionTaskCompleted');
  });

  it('an activity completed and failed at once is closed once', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const workerList = uid('workers');
    await server.driver.decide(taskList, () => [
      decide.scheduleActivity({
        activityType: act,
        activityId: 'one',
        taskList: { name: workerList },
      }),
    ]);
    const task = await server.driver.pollActivity(workerList);

    const outcomes = await Promise.allSettled([
      server.swf.send(
        new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken, result: 'ok' }),
      ),
      server.swf.send(
        new RespondActivityTaskFailedCommand({ taskToken: task.taskToken, reason: 'no' }),
      ),
      server.swf.send(
        new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken, result: 'again' }),
      ),
    ]);

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) {
      if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(UnknownResourceFault);
    }
    const events = await server.driver.history(execution);
    expectContiguous(events);
    const closes = events.filter((e) =>
      ['ActivityTaskCompleted', 'ActivityTaskFailed'].includes(e.eventType ?? ''),
    );
    expect(closes).toHaveLength(1);
  });

  it('activity completions racing each other and a signal keep one decision task open', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const workerList = uid('workers');
    await server.driver.decide(taskList, () =>
      Array.from({ length: 10 }, (_, i) =>
        decide.scheduleActivity({
          activityType: act,
          activityId: `p${i}`,
          taskList: { name: workerList },
        }),
      ),
    );
    const tasks = [];
    for (let i = 0; i < 10; i++) tasks.push(await server.driver.pollActivity(workerList));

    await Promise.all([
      ...tasks.map((t) =>
        server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken: t.taskToken })),
      ),
      server.driver.signal(execution, 'meanwhile'),
    ]);

    const events = await server.driver.history(execution);
    expectContiguous(events);
    expectOneDecisionTaskAtATime(events);
    expect(eventsOf(events, 'ActivityTaskCompleted')).toHaveLength(10);
    expect(eventsOf(events, 'DecisionTaskScheduled')).toHaveLength(2);
    expect((await server.driver.describe(execution)).openCounts).toMatchObject({
      openActivityTasks: 0,
      openDecisionTasks: 1,
    });
  });

  it('StartWorkflowExecution racing on one workflowId starts one run', async () => {
    const workflowId = uid('contested');

    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, () =>
        server.swf.send(
          new StartWorkflowExecutionCommand({ domain, workflowId, workflowType: wf }),
        ),
      ),
    );

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) {
      if (o.status === 'rejected') {
        expect(o.reason).toBeInstanceOf(WorkflowExecutionAlreadyStartedFault);
      }
    }
  });
});
