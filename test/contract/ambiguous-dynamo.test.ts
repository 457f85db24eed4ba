/**
 * Ambiguous DynamoDB outcomes under the API: a write that DynamoDB applied while its caller saw an
 * error, and the client's standard retry of it (test/support/ambiguous-outcomes.ts). SWF's clients may
 * see an error for a call that landed; what must not happen is a duplicated event, a lost task, a
 * second open run of one workflowId or a run nobody can reach.
 */
import {
  PollForActivityTaskCommand,
  PollForDecisionTaskCommand,
  RespondActivityTaskCompletedCommand,
  StartWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { ambiguousOutcomes, isStatePut, itemKey } from '../support/ambiguous-outcomes.js';
import { decide, eventsOf, eventTypes, sleep, uid } from '../support/decider.js';
import { domainForFile } from '../support/local.js';
import { awaitHistory } from '../support/waiting.js';

const domain = 'ambiguous';
const wf = { name: 'wf', version: '1' };
const act = { name: 'act', version: '1' };
const ambiguous = ambiguousOutcomes();
const invoked: string[] = [];

const server = domainForFile(
  domain,
  {
    dynamoIntercept: ambiguous.intercept,
    polling: { maxWaitMs: 2_000 },
  },
  async ({ driver, service }) => {
    await driver.registerTypes(wf, act);
    service.lambda.register('echo', async (input) => {
      invoked.push(input ?? '');
      return `echo ${input}`;
    });
  },
);

/** Settles a call: its value or its error's name. */
const settle = (call: Promise<unknown>) =>
  call.then(
    () => 'ok',
    (error: Error) => error.name,
  );

/** StartWorkflowExecution of `wf` with the given workflowId, on a task list of its own. */
const startById = (workflowId: string) =>
  server.swf.send(
    new StartWorkflowExecutionCommand({
      domain,
      workflowId,
      workflowType: wf,
      taskList: { name: uid('d') },
    }),
  );

describe('SignalWorkflowExecution whose state write lands and is retried by the DynamoDB client', () => {
  it('records the signal once', async () => {
    const { execution } = await server.driver.start(wf);
    ambiguous.add({ match: isStatePut, outcome: 'landed-retried' });
    const answer = await settle(server.driver.signal(execution, 'once'));
    ambiguous.clear();
    const signals = eventsOf(await server.driver.history(execution), 'WorkflowExecutionSignaled');
    expect({ answer, signals: signals.length }).toEqual({ answer: 'ok', signals: 1 });
  });
});

describe('StartWorkflowExecution whose state write lands and is retried by the DynamoDB client', () => {
  it('starts one run, which its workflowId still names', async () => {
    const workflowId = uid('start');
    ambiguous.add({ match: isStatePut, outcome: 'landed-retried' });
    const first = await startById(workflowId).then(
      (r) => `runId ${r.runId}`,
      (e: Error) => e.name,
    );
    ambiguous.clear();
    // The caller does what SWF's clients do with a 5xx: it tries the start again.
    const again = await settle(startById(workflowId));
    const signalled = await settle(server.driver.signal({ workflowId }, 'by-id'));
    expect({ first: first.startsWith('runId') ? 'started' : first, again, signalled }).toEqual({
      first: 'started',
      again: 'WorkflowExecutionAlreadyStartedFault',
      signalled: 'ok',
    });
  });
});

/**
 * A decision that schedules an activity while a poller waits on its list (the commit starts the task
 * for it), its state write under `kind` of outcome: what the decider was answered, whether the task
 * reached the waiting poller or else the next one, and the run's history.
 */
async function activityForWaitingPoller(kind: 'landed-retried' | 'landed-500') {
  const { execution, taskList } = await server.driver.start(wf);
  const workers = uid('workers');
  const task = await server.driver.pollDecision(taskList);
  const poll = server.swf.send(
    new PollForActivityTaskCommand({ domain, taskList: { name: workers }, identity: 'waiting' }),
  );
  await sleep(300);
  ambiguous.add({ match: isStatePut, outcome: kind });
  const answered = await settle(
    server.driver.respond(task.taskToken, [
      decide.scheduleActivity({
        activityType: act,
        activityId: 'a1',
        taskList: { name: workers },
        startToCloseTimeout: 'NONE',
      }),
    ]),
  );
  ambiguous.clear();
  const handedOut = await handedOutOnce(poll, () =>
    server.swf.send(
      new PollForActivityTaskCommand({ domain, taskList: { name: workers }, identity: 'next' }),
    ),
  );
  return { answered, handedOut, history: eventTypes(await server.driver.history(execution)) };
}

describe('a decision whose commit starts an activity for a waiting poller, landed and retried', () => {
  it('hands the activity to the poller that waits, or leaves it for the next one', async () => {
    const { answered, handedOut, history } = await activityForWaitingPoller('landed-retried');
    expect({
      answered,
      handedOut,
      history: history.filter((t) => t.startsWith('Activity')),
    }).toEqual({
      answered: expect.any(String),
      handedOut: true,
      history: ['ActivityTaskScheduled', 'ActivityTaskStarted'],
    });
  });
});

describe('RespondActivityTaskCompleted whose state write lands and is retried', () => {
  it('records one completion, and the worker is not told the task is unknown', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const workers = uid('workers');
    await server.driver.decide(taskList, () => [
      decide.scheduleActivity({ activityType: act, activityId: 'a1', taskList: { name: workers } }),
    ]);
    const activity = await server.driver.pollActivity(workers);
    ambiguous.add({ match: isStatePut, outcome: 'landed-retried' });
    const answer = await settle(
      server.swf.send(
        new RespondActivityTaskCompletedCommand({ taskToken: activity.taskToken, result: 'r' }),
      ),
    );
    ambiguous.clear();
    const history = await server.driver.history(execution);
    expect({
      answer,
      completed: eventsOf(history, 'ActivityTaskCompleted').length,
    }).toEqual({ answer: 'ok', completed: 1 });
  });
});

describe('PollForDecisionTask whose claim lands and is retried by the DynamoDB client', () => {
  it('answers with the task it started', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    await sleep(100);
    ambiguous.add({ match: isStatePut, outcome: 'landed-retried' });
    const polled = await server.swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: taskList }, identity: 'p1' }),
    );
    ambiguous.clear();
    const history = eventTypes(await server.driver.history(execution));
    expect({ token: (polled.taskToken ?? '') !== '', history }).toEqual({
      token: true,
      history: ['WorkflowExecutionStarted', 'DecisionTaskScheduled', 'DecisionTaskStarted'],
    });
  });
});

describe('StartWorkflowExecution whose state write lands but answers a 500', () => {
  it('is answered as started (the store reads its landed commit back); a second start is refused', async () => {
    const workflowId = uid('start500');
    ambiguous.add({ match: isStatePut, outcome: 'landed-500' });
    const first = await settle(startById(workflowId));
    ambiguous.clear();
    const written = ambiguous.log.at(-1)?.key ?? '';
    const firstRunId = written.slice('RUN|'.length, written.indexOf('/'));
    const described = await server.driver.describe({ workflowId, runId: firstRunId });
    const again = await settle(startById(workflowId));
    expect({ first, firstRun: described.executionInfo?.executionStatus, again }).toEqual({
      first: 'ok',
      firstRun: 'OPEN',
      again: 'WorkflowExecutionAlreadyStartedFault',
    });
  });
});

describe('a Lambda task whose writes meet ambiguous outcomes', () => {
  const scheduleEcho = (input: string) => ({
    decisionType: 'ScheduleLambdaFunction' as const,
    scheduleLambdaFunctionDecisionAttributes: {
      id: 'l1',
      name: 'echo',
      input,
      startToCloseTimeout: '300',
    },
  });

  it.each([
    [
      'the commit that records LambdaFunctionStarted lands and is retried',
      'start',
      'landed-retried',
    ],
    ['the claim before the invoke lands and is retried', 'claim', 'landed-retried'],
    [
      'the commit that records LambdaFunctionStarted lands but answers a 500',
      'start',
      'landed-500',
    ],
  ] as const)('runs the function once %s', async (_, which, kind) => {
    const input = uid(which);
    const { execution, taskList } = await server.driver.start(wf, {
      lambdaRole: 'arn:aws:iam::000000000000:role/swf-lambda',
    });
    const task = await server.driver.pollDecision(taskList);
    ambiguous.add(
      which === 'start'
        ? // the decision's own commit goes first; the stream's start of the task is the next
          { match: isStatePut, outcome: kind, skip: 1 }
        : {
            match: (op, i) => op === 'PutItem' && (itemKey(i).sk ?? '').startsWith('LT|'),
            outcome: kind,
          },
    );
    await server.driver.respond(task.taskToken, [scheduleEcho(input)]);
    const history = await awaitHistory(
      server.driver,
      execution,
      (events) => events.some((e) => e.eventType === 'LambdaFunctionCompleted'),
      5_000,
    ).catch(() => undefined);
    ambiguous.clear();
    expect({
      invoked: invoked.filter((i) => i === input).length,
      completed: history !== undefined,
      started: eventsOf(await server.driver.history(execution), 'LambdaFunctionStarted').length,
    }).toEqual({ invoked: 1, completed: true, started: 1 });
  });
});

/** Whether the waiting poll got the task, or else the next poll on its list did. */
async function handedOutOnce(
  waiting: Promise<{ taskToken?: string | undefined }>,
  next: () => Promise<{ taskToken?: string | undefined }>,
): Promise<boolean> {
  if (((await waiting).taskToken ?? '') !== '') return true;
  return ((await next()).taskToken ?? '') !== '';
}

describe('a change that starts a task for a waiting poller, whose write lands but answers a 500', () => {
  it('a signal: the store reads its landed commit back, and the waiting decider gets the decision task', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const first = await server.driver.pollDecision(taskList);
    await server.driver.respond(first.taskToken, []);
    const poll = server.swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: taskList }, identity: 'waiting' }),
    );
    await sleep(300);
    ambiguous.add({ match: isStatePut, outcome: 'landed-500' });
    const signalled = await settle(server.driver.signal(execution, 'landed'));
    ambiguous.clear();
    const handedOut = await handedOutOnce(poll, () =>
      server.swf.send(
        new PollForDecisionTaskCommand({ domain, taskList: { name: taskList }, identity: 'next' }),
      ),
    );
    const history = eventTypes(await server.driver.history(execution));
    expect({ signalled, handedOut, tail: history.slice(-3) }).toEqual({
      signalled: 'ok',
      handedOut: true,
      tail: ['WorkflowExecutionSignaled', 'DecisionTaskScheduled', 'DecisionTaskStarted'],
    });
  });

  it('a decision: the waiting activity poller still gets the activity task', async () => {
    const { answered, handedOut, history } = await activityForWaitingPoller('landed-500');
    expect({ answered, handedOut, tail: history.slice(-2) }).toEqual({
      answered: 'ok',
      handedOut: true,
      tail: ['ActivityTaskScheduled', 'ActivityTaskStarted'],
    });
  });
});

describe('a write that lands, then another request changes the run before the client retries it', () => {
  it('SignalWorkflowExecution: its signal is recorded once', async () => {
    const { execution } = await server.driver.start(wf);
    ambiguous.add({
      match: isStatePut,
      outcome: 'landed-retried',
      // another caller's signal commits while the first one's answer is lost
      between: () => server.driver.signal(execution, 'other'),
    });
    const answer = await settle(server.driver.signal(execution, 'once'));
    ambiguous.clear();
    const names = eventsOf(await server.driver.history(execution), 'WorkflowExecutionSignaled').map(
      (e) => e.workflowExecutionSignaledEventAttributes?.signalName,
    );
    expect({ answer, names: names.sort() }).toEqual({ answer: 'ok', names: ['once', 'other'] });
  });
});

describe('a commit of two runs (a continue-as-new) whose transaction lands but answers a 500', () => {
  it('is answered as recorded (the store reads its landed commit back), and the new run is open', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const task = await server.driver.pollDecision(taskList);
    ambiguous.add({ match: (op) => op === 'TransactWriteItems', outcome: 'landed-500' });
    const answered = await settle(
      server.driver.respond(task.taskToken, [decide.continueAsNew({})]),
    );
    ambiguous.clear();
    const closed = await server.driver.describe(execution);
    const history = await server.driver.history(execution);
    const next = history.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    const open = await server.driver.describe({
      workflowId: execution.workflowId,
      runId: next ?? '',
    });
    expect({
      answered,
      closed: closed.executionInfo?.closeStatus,
      open: open.executionInfo?.executionStatus,
    }).toEqual({ answered: 'ok', closed: 'CONTINUED_AS_NEW', open: 'OPEN' });
  });
});
