/**
 * Workflows as code against the local service, each feature on its own: retries on durable timers,
 * typed timeouts, continue-as-new, Lambda tasks, signals to and cancel requests of other executions,
 * signals as an async iterable, races that cancel (or leave) their losers, decision tasks in small
 * history pages, and decisionTaskHandler on a push task list.
 */
import {
  DescribeWorkflowExecutionCommand,
  type HistoryEvent,
  PollForDecisionTaskCommand,
  RespondDecisionTaskCompletedCommand,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ActivityFailedError,
  ActivityFailure,
  ActivityTimedOutError,
  decide,
  decisionTaskHandler,
  implementActivity,
  LambdaFunctionError,
  type PushedTaskEvent,
  registerTypes,
  sleep,
  type WorkflowReference,
  workflowReference,
} from '../../lib/sdk/index.js';
import { decideWorkflowTask } from '../../lib/sdk/workflow/decide.js';
import {
  type CodeWorkflowService,
  history,
  startCodeWorkflowService,
} from '../support/code-workflow-service.js';
import { eventsOf, uid } from '../support/decider.js';
import { replayDifferences } from '../support/workflow-replay-check.js';

let codeService: CodeWorkflowService;
const PAGE = 10;
const defs = () => {
  const Flaky = codeService.activity<string, string>('Flaky');
  const Sleepy = codeService.activity<number, string>('Sleepy', {
    startToCloseTimeout: 1,
    heartbeatTimeout: 'NONE',
  });
  return { Flaky, Sleepy };
};
let d: ReturnType<typeof defs>;
const runs = new Map<string, number>();
let w: ReturnType<typeof defineWorkflows>;
const pushList = uid('pushed-decisions');

beforeAll(async () => {
  codeService = await startCodeWorkflowService('workflow-features');
  d = defs();
  w = defineWorkflows();
  codeService.service.lambda.register('shout', async (input) =>
    JSON.stringify(String(JSON.parse(input ?? '""')).toUpperCase()),
  );
  codeService.service.lambda.register('explode', async () => {
    throw Object.assign(new Error('boom'), { name: 'Explosion' });
  });
  const handler = decisionTaskHandler({
    client: codeService.client,
    workflows: [w.pushed],
    logger: codeService.logger,
  });
  codeService.service.push.register(
    { kind: 'decision', domain: codeService.domain, taskList: pushList, target: 'wf-handler' },
    (event) => handler(event as PushedTaskEvent),
  );
  await codeService.serve(
    Object.values(w),
    [
      implementActivity(d.Flaky, (key) => {
        const n = (runs.get(key) ?? 0) + 1;
        runs.set(key, n);
        const [, failures] = key.split(':');
        if (n <= Number(failures))
          throw new ActivityFailure(key.startsWith('fatal') ? 'Fatal' : 'Busy', `attempt ${n}`);
        return `ok on attempt ${n}`;
      }),
      implementActivity(d.Sleepy, async (ms) => {
        await sleep(ms);
        return 'woke';
      }),
    ],
    {
      maximumPageSize: PAGE,
      // A state-function decider beside the workflows, on the same list and worker.
      decider: { Legacy: (state) => [decide.completeWorkflowExecution(`legacy ${state.input}`)] },
    },
  );
}, 60_000);
afterAll(() => codeService.close());

function defineWorkflows() {
  const policy = {
    maximumAttempts: 3,
    initialInterval: 1,
    backoffCoefficient: 2,
    nonRetryableReasons: ['Fatal'],
  };
  const retry = codeService.workflow('Retry', async (ctx, key: string) =>
    ctx
      .activity(d.Flaky, key, { retry: policy })
      .catch((e: unknown) =>
        e instanceof ActivityFailedError ? `gave up: ${e.reason}` : String(e),
      ),
  );
  const timeout = codeService.workflow('Timeout', async (ctx) =>
    ctx
      .activity(d.Sleepy, 3_000)
      .catch((e: unknown) =>
        e instanceof ActivityTimedOutError ? `timed out: ${e.timeoutType}` : String(e),
      ),
  );
  const continued = codeService.workflow('Continued', async (ctx, round: number) => {
    await ctx.sleep(0);
    return round < 3
      ? ctx.continueAsNew(round + 1)
      : `round ${round} of run ${ctx.info.continuedExecutionRunId === undefined ? 'first' : 'continued'}`;
  });
  const lambda = codeService.workflow(
    'Lambda',
    async (ctx, text: string) => {
      const loud = await ctx.lambda<string, string>('shout', text);
      const failure = await ctx
        .lambda('explode', null)
        .catch((e: unknown) =>
          e instanceof LambdaFunctionError ? `${e.kind}: ${e.reason}` : String(e),
        );
      return { loud, failure };
    },
    { lambdaRole: 'arn:aws:iam::000000000000:role/features' },
  );
  const receiver = codeService.workflow('Receiver', async (ctx) => {
    const notes: unknown[] = [];
    for await (const signal of ctx.signals<string>('Note')) {
      notes.push(signal.input);
      if (notes.length === 3) break;
    }
    return notes;
  });
  const waiter = codeService.workflow('Waiter', async (ctx) => {
    await ctx.whenCancelRequested();
    return ctx.closeAsCanceled('asked by the sender');
  });
  const sender = codeService.workflow(
    'Sender',
    async (ctx, targets: { receiver: string; waiter: string }) => {
      for (const note of ['a', 'b', 'c'])
        await ctx.signalWorkflow({ workflowId: targets.receiver }, 'Note', note);
      await ctx.requestCancelWorkflow({ workflowId: targets.waiter });
      return 'sent';
    },
  );
  const races = codeService.workflow('Races', async (ctx) => {
    const timerWins = await ctx.race([
      ctx.activity(d.Sleepy, 30_000, { startToCloseTimeout: 60 }),
      ctx.sleep(1).then(() => 'timer'),
    ]);
    const activityWins = await ctx.race([ctx.activity(d.Sleepy, 10), ctx.sleep(60)]);
    const left = await ctx.race([ctx.sleep(0), ctx.sleep(60)], { losers: 'leave' });
    const native = await Promise.race([ctx.sleep(0).then(() => 'native'), ctx.sleep(60)]);
    const all = await Promise.all([
      ctx.activity(d.Sleepy, 10),
      ctx.sleep(0),
      ctx.activity(d.Sleepy, 20),
    ]);
    return { timerWins, activityWins, left: left ?? null, native, all };
  });
  const pushed = codeService.workflow(
    'Pushed',
    async (ctx, n: number) => {
      let sum = 0;
      for (let i = 1; i <= n; i++) sum += Number((await ctx.activity(d.Sleepy, i)) === 'woke');
      return sum;
    },
    { taskList: pushList },
  );
  return { retry, timeout, continued, lambda, receiver, waiter, sender, races, pushed };
}

const closeOf = async <I>(workflow: WorkflowReference<I, unknown>, input: I, timeoutMs?: number) =>
  codeService.waitForClose(await codeService.start(workflow, input), timeoutMs);

describe('retries on durable timers', () => {
  it('tries again after 1 s, then 2 s, under the same activityId', async () => {
    const closed = await closeOf(w.retry, `busy:2:${uid('k')}`);
    expect(closed.result).toBe('"ok on attempt 3"');
    const timers = eventsOf(closed.events, 'TimerStarted').map(
      (e) => e.timerStartedEventAttributes?.startToFireTimeout,
    );
    expect(timers).toEqual(['1', '2']);
    const ids = eventsOf(closed.events, 'ActivityTaskScheduled').map(
      (e) => e.activityTaskScheduledEventAttributes?.activityId,
    );
    expect(ids).toEqual(['1', '1', '1']);
  });

  it('gives up after maximumAttempts, and at once on a non-retryable reason', async () => {
    const exhausted = await closeOf(w.retry, `busy:5:${uid('k')}`);
    expect(exhausted.result).toBe('"gave up: Busy"');
    expect(eventsOf(exhausted.events, 'ActivityTaskScheduled')).toHaveLength(3);
    const fatal = await closeOf(w.retry, `fatal:5:${uid('k')}`);
    expect(fatal.result).toBe('"gave up: Fatal"');
    expect(eventsOf(fatal.events, 'ActivityTaskScheduled')).toHaveLength(1);
  });
});

it('an activity past its start-to-close timeout rejects with ActivityTimedOutError', async () => {
  expect((await closeOf(w.timeout, null)).result).toBe('"timed out: START_TO_CLOSE"');
});

it('continue-as-new: each run closes CONTINUED_AS_NEW and the last one completes', async () => {
  let execution = await codeService.start(w.continued, 1);
  const statuses: string[] = [];
  for (;;) {
    const closed = await codeService.waitForClose(execution);
    statuses.push(closed.closeStatus);
    const next =
      closed.events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    if (next === undefined) {
      expect(closed.result).toBe('"round 3 of run continued"');
      break;
    }
    execution = { workflowId: execution.workflowId, runId: next };
  }
  expect(statuses).toEqual(['CONTINUED_AS_NEW', 'CONTINUED_AS_NEW', 'COMPLETED']);
});

it('Lambda tasks: a result, and a failure as LambdaFunctionError', async () => {
  const closed = await closeOf(w.lambda, 'quiet');
  expect(JSON.parse(closed.result ?? '{}')).toEqual({
    loud: 'QUIET',
    failure: 'failed: Explosion',
  });
});

it('signals to another execution arrive in order; a cancel request closes the other as canceled', async () => {
  const receiver = await codeService.start(w.receiver, null);
  const waiter = await codeService.start(w.waiter, null);
  const sender = await closeOf(w.sender, {
    receiver: receiver.workflowId,
    waiter: waiter.workflowId,
  });
  expect(sender.result).toBe('"sent"');
  expect(eventsOf(sender.events, 'ExternalWorkflowExecutionSignaled')).toHaveLength(3);
  expect((await codeService.waitForClose(receiver)).result).toBe('["a","b","c"]');
  const canceled = await codeService.waitForClose(waiter);
  expect(canceled).toMatchObject({ closeStatus: 'CANCELED', details: 'asked by the sender' });
});

it('races cancel their losers unless told to leave them; Promise.race and Promise.all work as they do', async () => {
  const closed = await closeOf(w.races, null);
  expect(JSON.parse(closed.result ?? '{}')).toEqual({
    timerWins: 'timer',
    activityWins: 'woke',
    left: null,
    native: 'native',
    all: ['woke', null, 'woke'],
  });
  const cancelled = (type: string, attributes: (e: HistoryEvent) => string | undefined) =>
    eventsOf(closed.events, type).map(attributes);
  // The slow activity lost to the timer: cancelled. The 60 s timer lost to the activity: cancelled.
  expect(
    cancelled(
      'ActivityTaskCancelRequested',
      (e) => e.activityTaskCancelRequestedEventAttributes?.activityId,
    ),
  ).toEqual(['1']);
  expect(cancelled('TimerCanceled', (e) => e.timerCanceledEventAttributes?.timerId)).toEqual(['2']);
  // The left race's and Promise.race's 60 s timers are not cancelled.
  const timers = eventsOf(closed.events, 'TimerStarted').map(
    (e) => e.timerStartedEventAttributes?.startToFireTimeout,
  );
  expect(timers).toEqual(['1', '60', '0', '60', '0', '60', '0']);
});

it('decision tasks read in pages of 10 events: the replay sees the whole history', () => {
  const decided = codeService.observations.filter((o) => o.kind === 'decided');
  expect(Math.max(...decided.map((o) => o.events))).toBeGreaterThan(3 * PAGE);
  expect(codeService.observations.filter((o) => o.kind !== 'decided')).toEqual([]);
});

it('decisionTaskHandler decides workflows as code on a push task list', async () => {
  const execution = await codeService.start(w.pushed, 12);
  const closed = await codeService.waitForClose(execution, 30_000);
  expect(closed.result).toBe('12');
  const identities = new Set(
    closed.events.flatMap((e) => e.decisionTaskStartedEventAttributes?.identity ?? []),
  );
  expect(identities).toEqual(new Set(['wf-handler']));
  const info = await codeService.client.send(
    new DescribeWorkflowExecutionCommand({ domain: codeService.domain, execution }),
  );
  expect(info.executionInfo?.closeStatus).toBe('COMPLETED');
  expect((await history(codeService.client, codeService.domain, execution)).length).toBeGreaterThan(
    PAGE,
  );
});

it('a close refused for a signal that came meanwhile (UNHANDLED_DECISION) is sent again with the next task', async () => {
  const quickList = uid('quick');
  const quick = codeService.workflow(
    'Quick',
    async (ctx) => `decided at ${ctx.now().getTime() > 0}`,
    {
      taskList: quickList,
    },
  );
  await registerTypes(codeService.client, codeService.domain, { workflows: [quick] });
  const execution = await codeService.start(quick, null);
  const poll = () =>
    codeService.client.send(
      new PollForDecisionTaskCommand({ domain: codeService.domain, taskList: { name: quickList } }),
    );
  const answer = async (task: Awaited<ReturnType<typeof poll>>) => {
    const decisions = await decideWorkflowTask(
      quick,
      { ...task, events: task.events ?? [] },
      {
        logger: codeService.logger,
      },
    );
    await codeService.client.send(
      new RespondDecisionTaskCompletedCommand({
        taskToken: task.taskToken,
        decisions: [...(decisions ?? [])],
      }),
    );
  };
  // The signal comes while the first task is out: its close is refused, a new task scheduled.
  const first = await poll();
  await codeService.signal(execution.workflowId, 'Late', '"too late"');
  await answer(first);
  await answer(await poll());
  const closed = await codeService.waitForClose(execution);
  expect(closed.events.map((e) => e.eventType)).toContain('CompleteWorkflowExecutionFailed');
  expect(closed).toMatchObject({ closeStatus: 'COMPLETED', result: '"decided at true"' });
  const run = {
    workflowExecution: execution,
    workflowType: { name: 'Quick', version: '1' },
    events: closed.events,
  };
  expect(await replayDifferences(quick, run)).toEqual([]);
});

it('one DeciderWorker runs state-function deciders beside workflows as code', async () => {
  const legacy = workflowReference('Legacy', '1', { ...w.retry.options });
  await registerTypes(codeService.client, codeService.domain, { workflows: [legacy] });
  const closed = await codeService.waitForClose(await codeService.start(legacy, 'x'));
  expect(closed).toMatchObject({ closeStatus: 'COMPLETED', result: 'legacy "x"' });
});

it('the workers reported no error', () => {
  expect(codeService.logger.lines.filter((l) => l.level === 'error')).toEqual([]);
});
