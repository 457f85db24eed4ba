/**
 * Which poll a task goes to, when the commits that schedule and start tasks are slow (an intercept
 * holds DynamoDB Local's writes so that each race is hit every time):
 * - a poll whose caller leaves while the commit that starts a task for it is landing (the task was
 *   handed to it as it waited, or its own claim of a queued task) is not the end of the task: the
 *   next poll on the list answers with it, instead of it sitting started for nobody until its
 *   start-to-close timeout (docs/architecture.md, "Long polls"); a poll ended by the server stopping still has
 *   its caller, and answers with the task;
 * - tasks of equal priority go out oldest first: a poll that finds the queue's first
 *   heads in other pollers' hands takes an older task behind them, not one scheduled after it began
 *   to wait.
 */
import { randomBytes } from 'node:crypto';
import {
  PollForActivityTaskCommand,
  PollForDecisionTaskCommand,
  RespondActivityTaskCompletedCommand,
  RespondDecisionTaskCompletedCommand,
  StartWorkflowExecutionCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { afterAll, describe, expect, it } from 'vitest';
import { decide, eventsOf, single, sleep, uid } from '../support/decider.js';
import { domainForFile, serveDomain, swfClient } from '../support/local.js';

const domain = 'task-handout';
const wf = { name: 'wf', version: '1' };
const act = { name: 'act', version: '1' };
const WRITES = new Set(['TransactWriteItems', 'PutItem', 'UpdateItem']);
/** While set, each write (a commit) waits this long before it is sent. */
let holdWritesMs = 0;
/** While set, each read of a run's history chunks waits this long. */
let holdHistoryMs = 0;
const readsHistory = (input: unknown) => {
  const text = JSON.stringify(input);
  return text.includes('RUN|') && text.includes('H|');
};

const server = domainForFile(
  domain,
  {
    polling: { maxWaitMs: 3_000 },
    dynamoIntercept: async (operation, input, send) => {
      if (WRITES.has(operation) && holdWritesMs > 0) await sleep(holdWritesMs);
      if (operation === 'Query' && holdHistoryMs > 0 && readsHistory(input))
        await sleep(holdHistoryMs);
      return send();
    },
  },
  async ({ driver }) => {
    await driver.registerTypes(wf, act);
  },
);
afterAll(() => {
  holdWritesMs = 0;
});

/** A poll sent by a client of its own, whose caller leaves when `leave` is called. */
function leavingPoll(command: PollForActivityTaskCommand | PollForDecisionTaskCommand) {
  const client = swfClient(server.service.endpoint);
  const abort = new AbortController();
  const sent = (client.send as (c: typeof command, o: object) => Promise<unknown>)(command, {
    abortSignal: abort.signal,
  });
  return {
    /** The caller leaves; resolves once its poll has settled, and fails if it got an answer. */
    leave: async () => {
      abort.abort();
      const outcome = await sent.then(
        (value) => ({ answered: value }),
        () => undefined,
      );
      client.destroy();
      if (outcome !== undefined) throw new Error(`the poll that left was answered`);
    },
  };
}

/** An execution with its decision task in hand, ready to schedule activities. */
async function decider() {
  const { taskList, execution } = await server.driver.start(wf);
  const task = await server.driver.pollDecision(taskList);
  return { execution, token: task.taskToken };
}

const scheduleOn = (workers: string, activityId: string) =>
  decide.scheduleActivity({ activityType: act, activityId, taskList: { name: workers } });

/** The next poll took the activity task; it was started once, and the next poll's token completes it. */
async function expectNextHasActivity(
  workers: string,
  execution: { workflowId: string; runId: string },
) {
  const next = await server.swf.send(
    new PollForActivityTaskCommand({ domain, taskList: { name: workers }, identity: 'next' }),
  );
  expect(next.activityId).toBe('a1');
  const started = single(await server.driver.history(execution), 'ActivityTaskStarted');
  expect(next.startedEventId).toBe(started.eventId);
  await server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken: next.taskToken }));
  expect(eventsOf(await server.driver.history(execution), 'ActivityTaskCompleted')).toHaveLength(1);
}

describe('a poll whose caller leaves while the commit that starts its task is landing', () => {
  it('hands an activity task it was given as it waited to the next poll', async () => {
    const { execution, token } = await decider();
    const workers = uid('workers');
    const gone = leavingPoll(
      new PollForActivityTaskCommand({ domain, taskList: { name: workers }, identity: 'gone' }),
    );
    await sleep(200); // the poll waits, taking tasks handed to it

    holdWritesMs = 600;
    const scheduling = server.driver.respond(token, [scheduleOn(workers, 'a1')]);
    await sleep(200); // the commit that schedules the task, and starts it for the poll, is held
    await gone.leave();
    await scheduling;
    holdWritesMs = 0;

    await expectNextHasActivity(workers, execution);
  });

  it('hands a decision task it was given as it waited to the next poll', async () => {
    const deciders = uid('deciders');
    const gone = leavingPoll(
      new PollForDecisionTaskCommand({ domain, taskList: { name: deciders }, identity: 'gone' }),
    );
    await sleep(200);

    holdWritesMs = 600;
    const workflowId = uid('wf');
    const starting = server.swf.send(
      new StartWorkflowExecutionCommand({
        domain,
        workflowId,
        workflowType: wf,
        taskList: { name: deciders },
      }),
    );
    await sleep(200);
    await gone.leave();
    const { runId = '' } = await starting;
    holdWritesMs = 0;

    const next = await server.driver.pollDecision(deciders, { identity: 'next' });
    expect(next.workflowExecution?.runId).toBe(runId);
    const started = single(
      await server.driver.history({ workflowId, runId }),
      'DecisionTaskStarted',
    );
    expect(next.startedEventId).toBe(started.eventId);
    await server.swf.send(
      new RespondDecisionTaskCompletedCommand({
        taskToken: next.taskToken,
        decisions: [{ decisionType: 'CompleteWorkflowExecution' }],
      }),
    );
    single(await server.driver.history({ workflowId, runId }), 'WorkflowExecutionCompleted');
  });

  it('hands a decision task whose answer was being read from the history to the next poll', async () => {
    const { taskList, execution } = await server.driver.start(wf);
    await server.driver.respond((await server.driver.pollDecision(taskList)).taskToken, []);
    // Big and incompressible: the history outgrows the run's item, and the answer reads its chunks.
    await server.driver.signal(execution, 'big', randomBytes(3_000).toString('base64'));
    holdHistoryMs = 1_000;
    const gone = leavingPoll(
      new PollForDecisionTaskCommand({ domain, taskList: { name: taskList }, identity: 'gone' }),
    );
    await sleep(400); // the start has landed; the answer's history read is held
    await gone.leave();
    await sleep(900);
    holdHistoryMs = 0;

    // Before, the task stayed started for the caller that left: the next poll got nothing.
    const next = await server.driver.pollDecision(taskList, { identity: 'next' });
    const started = eventsOf(await server.driver.history(execution), 'DecisionTaskStarted');
    expect(next.startedEventId).toBe(started.at(-1)?.eventId);
  });

  it('hands an activity task whose input was being read from the history to the next poll', async () => {
    const { execution, token } = await decider();
    const workers = uid('workers');
    await server.driver.respond(token, [scheduleOn(workers, 'a1')]); // queued: nobody waits
    // Big, incompressible signals push ActivityTaskScheduled into a history chunk: the answer reads it.
    for (let i = 0; i < 3; i++)
      await server.driver.signal(execution, 'big', randomBytes(3_000).toString('base64'));
    holdHistoryMs = 800;
    const gone = leavingPoll(
      new PollForActivityTaskCommand({ domain, taskList: { name: workers }, identity: 'gone' }),
    );
    await sleep(400); // its claim has landed; the answer's read of the input is held
    await gone.leave();
    await sleep(800);
    holdHistoryMs = 0;

    await expectNextHasActivity(workers, execution);
  });

  it('hands an activity task whose claim from the queue it had sent to the next poll', async () => {
    const { execution, token } = await decider();
    const workers = uid('workers');
    await server.driver.respond(token, [scheduleOn(workers, 'a1')]); // queued: nobody waits

    holdWritesMs = 600;
    const gone = leavingPoll(
      new PollForActivityTaskCommand({ domain, taskList: { name: workers }, identity: 'gone' }),
    );
    await sleep(200); // its claim's commit is held
    await gone.leave();
    await sleep(600);
    holdWritesMs = 0;

    await expectNextHasActivity(workers, execution);
  });
});

describe('a poll that finds the first 10 queued tasks being claimed by other polls', () => {
  it('takes an older queued task, not one scheduled after it began to wait', async () => {
    const workers = uid('workers');
    // 20 queued tasks, one per execution (their claims do not contend on one run), in order.
    for (let i = 0; i < 20; i++) {
      const d = await decider();
      await server.driver.respond(d.token, [
        scheduleOn(workers, `old-${String(i).padStart(2, '0')}`),
      ]);
    }
    const late = await decider();

    const clients = Array.from({ length: 11 }, () => swfClient(server.service.endpoint));
    const poll = (client: SWFClient, identity: string) =>
      client.send(
        new PollForActivityTaskCommand({ domain, taskList: { name: workers }, identity }),
      );
    try {
      holdWritesMs = 1_000;
      // Ten polls each go for one of the ten heads; their claims' commits are held.
      const claimers = clients.slice(0, 10).map((c, i) => poll(c, `c${i}`));
      await sleep(400);
      // The eleventh finds the ten heads in hand; old-10 … old-19 are queued behind them.
      const eleventh = poll(clients[10] as SWFClient, 'eleventh');
      await sleep(300);
      holdWritesMs = 0;
      // Scheduled now: the newest task on the list.
      await server.driver.respond(late.token, [scheduleOn(workers, 'new')]);
      const got = await eleventh;
      const claimed = (await Promise.all(claimers)).map((t) => t.activityId).sort();
      expect(claimed).toEqual(
        Array.from({ length: 10 }, (_, i) => `old-${String(i).padStart(2, '0')}`),
      );
      // Before, the eleventh poll was handed 'new' at once, ahead of old-10 … old-19.
      expect(got.activityId).toBe('old-10');
      expect(
        eventsOf(await server.driver.history(late.execution), 'ActivityTaskStarted'),
      ).toHaveLength(0);
    } finally {
      holdWritesMs = 0;
      for (const c of clients) c.destroy();
    }
  });
});

describe('a poll whose claim is landing as the server stops', () => {
  it('answers its caller, still connected, with the task', async () => {
    let hold = 0;
    const stopping = await serveDomain('task-handout-stop', {
      polling: { maxWaitMs: 3_000 },
      dynamoIntercept: async (operation, _input, send) => {
        if (WRITES.has(operation) && hold > 0) await sleep(hold);
        return send();
      },
    });
    const k = stopping.driver;
    await k.registerTypes(wf, act);
    const { taskList, execution } = await k.start(wf);
    const d = await k.pollDecision(taskList);
    const workers = uid('workers');
    await k.respond(d.taskToken, [scheduleOn(workers, 'a1')]);
    hold = 800;
    // A client of its own: the server's own is destroyed as it closes.
    const client = swfClient(stopping.service.endpoint);
    const polled = client.send(
      new PollForActivityTaskCommand({
        domain: 'task-handout-stop',
        taskList: { name: workers },
        identity: 'w1',
      }),
    );
    await sleep(300); // its claim's commit is landing
    const closing = stopping.close();
    const answer = await polled.finally(() => client.destroy());
    await closing;
    // Before, the stop counted as the caller gone: an empty answer, the task left started.
    expect(answer.activityId).toBe('a1');
    expect(answer.workflowExecution).toEqual(execution);
  }, 40_000);
});
