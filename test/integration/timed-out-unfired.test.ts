/**
 * A task whose timeout has passed is timed out for every call that answers for it, whether or not the
 * fire that records the timeout has come yet (fires come late: milliseconds locally, up to about a
 * second on AWS). Over DynamoDB Local with a clock the test sets and no timer service at all, so no
 * fire ever comes: a completion, failure, heartbeat or decision sent after its task's timeout is
 * UnknownResourceFault and changes nothing, one sent before it is taken; and no poll is handed such a
 * task, from the queue, as a task left by a poll whose caller went, or as a poller waiting in the
 * process.
 */
import { describe, expect, it } from 'vitest';
import { signalExecution } from '../../lib/core/executions.js';
import { operationsByAction } from '../../lib/http/operations-by-action.js';
import type { OperationDeps, RequestContext } from '../../lib/operations/context.js';
import { mutateRun } from '../../lib/operations/run-mutation.js';
import { epochSeconds } from '../../lib/ports/clock.js';
import {
  type CallOperation,
  domainWithType,
  operationsOver,
  startW,
} from '../support/operations.js';
import { storesForFile } from '../support/stores.js';

const stores = storesForFile('unfired');

/** The operations on a clock the test sets; `call` may name the request (a poll's signals). */
function service(polling = { maxWaitMs: 0, recheckMs: 0 }) {
  const clock = { ms: Date.now(), now: () => clock.ms };
  const over = operationsOver(stores(), { clock });
  const deps: OperationDeps = { ...over.deps, polling };
  const call = async (
    action: keyof typeof operationsByAction,
    input: Record<string, unknown>,
    request: RequestContext = { requestId: 't', signal: new AbortController().signal },
  ) =>
    (await operationsByAction[action]?.(input, deps, request)) as
      | Record<string, unknown>
      | undefined;
  return { clock, deps, call };
}

let n = 0;
const fresh = () => `unfired-${Date.now()}-${n++}`;

const unknownResource = { type: 'UnknownResourceFault' };

async function historyTypes(call: CallOperation, domain: string, execution: unknown) {
  const page = await call('GetWorkflowExecutionHistory', { domain, execution });
  return ((page?.events ?? []) as { eventType: string }[]).map((e) => e.eventType);
}

/** A run of workflow `x` whose execution timeout is 30 s. */
async function runOf30s(s: ReturnType<typeof service>) {
  const domain = fresh();
  await domainWithType(s.call, domain);
  const started = await s.call('StartWorkflowExecution', {
    domain,
    workflowId: 'x',
    workflowType: { name: 'w', version: '1' },
    executionStartToCloseTimeout: '30',
  });
  return { domain, started };
}

/** A run with one activity scheduled on `acts`, its timeouts as given (seconds or NONE). */
async function scheduledActivity(
  s: ReturnType<typeof service>,
  timeouts: { startToClose: string; heartbeat?: string; scheduleToClose?: string },
) {
  const { call } = s;
  const domain = fresh();
  await domainWithType(call, domain);
  await call('RegisterActivityType', { domain, name: 'a', version: '1' });
  const started = await startW(call, domain, 'w1');
  const execution = { workflowId: 'w1', runId: started?.runId };
  const decision = await call('PollForDecisionTask', { domain, taskList: { name: 'tl' } });
  await call('RespondDecisionTaskCompleted', {
    taskToken: decision?.taskToken,
    decisions: [
      {
        decisionType: 'ScheduleActivityTask',
        scheduleActivityTaskDecisionAttributes: {
          activityType: { name: 'a', version: '1' },
          activityId: 'x',
          taskList: { name: 'acts' },
          scheduleToStartTimeout: 'NONE',
          scheduleToCloseTimeout: timeouts.scheduleToClose ?? 'NONE',
          startToCloseTimeout: timeouts.startToClose,
          heartbeatTimeout: timeouts.heartbeat ?? 'NONE',
        },
      },
    ],
  });
  return { domain, execution };
}

/** A run with one activity started, its timeouts as given (seconds or NONE). */
async function startedActivity(
  s: ReturnType<typeof service>,
  timeouts: { startToClose: string; heartbeat?: string; scheduleToClose?: string },
) {
  const { domain, execution } = await scheduledActivity(s, timeouts);
  const task = await s.call('PollForActivityTask', { domain, taskList: { name: 'acts' } });
  expect(task?.taskToken).toBeTruthy();
  return { domain, execution, taskToken: task?.taskToken as string };
}

describe('an activity past its timeout, its fire not come', () => {
  it('is not completed, failed or canceled by its worker; nothing is recorded', async () => {
    const s = service();
    const { domain, execution, taskToken } = await startedActivity(s, { startToClose: '10' });
    const before = await historyTypes(s.call, domain, execution);
    expect(before.at(-1)).toBe('ActivityTaskStarted');
    s.clock.ms += 10_000;
    for (const action of [
      'RespondActivityTaskCompleted',
      'RespondActivityTaskFailed',
      'RespondActivityTaskCanceled',
      'RecordActivityTaskHeartbeat',
    ] as const)
      await expect(s.call(action, { taskToken }), action).rejects.toMatchObject(unknownResource);
    expect(await historyTypes(s.call, domain, execution)).toEqual(before);
  });

  it('is completed a moment before its timeout', async () => {
    const s = service();
    const { domain, execution, taskToken } = await startedActivity(s, { startToClose: '10' });
    s.clock.ms += 9_990;
    await s.call('RecordActivityTaskHeartbeat', { taskToken });
    await s.call('RespondActivityTaskCompleted', { taskToken, result: 'ok' });
    expect(await historyTypes(s.call, domain, execution)).toContain('ActivityTaskCompleted');
  });

  it('counts a schedule-to-close timeout too', async () => {
    const s = service();
    const { taskToken } = await startedActivity(s, { startToClose: '100', scheduleToClose: '5' });
    s.clock.ms += 5_000;
    await expect(s.call('RespondActivityTaskCompleted', { taskToken })).rejects.toMatchObject(
      unknownResource,
    );
  });

  it('heartbeats in time keep it alive past the heartbeat timeout the state knows', async () => {
    const s = service();
    const { domain, execution, taskToken } = await startedActivity(s, {
      startToClose: '100',
      heartbeat: '10',
    });
    // Each heartbeat comes in time; the state still knows only the first deadline (start + 10 s).
    for (let i = 0; i < 3; i++) {
      s.clock.ms += 8_000;
      await s.call('RecordActivityTaskHeartbeat', { taskToken });
    }
    await s.call('RespondActivityTaskCompleted', { taskToken, result: 'ok' });
    expect(await historyTypes(s.call, domain, execution)).toContain('ActivityTaskCompleted');
  });

  it('a heartbeat that comes after the heartbeat timeout is too late', async () => {
    const s = service();
    const { taskToken } = await startedActivity(s, { startToClose: '100', heartbeat: '10' });
    s.clock.ms += 8_000;
    await s.call('RecordActivityTaskHeartbeat', { taskToken });
    s.clock.ms += 10_000;
    await expect(s.call('RecordActivityTaskHeartbeat', { taskToken })).rejects.toMatchObject(
      unknownResource,
    );
    await expect(s.call('RespondActivityTaskCompleted', { taskToken })).rejects.toMatchObject(
      unknownResource,
    );
  });
});

describe('a decision task past its start-to-close timeout, its fire not come', () => {
  it('does not take its decisions; one in time does', async () => {
    const s = service();
    const domain = fresh();
    await domainWithType(s.call, domain);
    const begin = async (workflowId: string) => {
      const started = await s.call('StartWorkflowExecution', {
        domain,
        workflowId,
        workflowType: { name: 'w', version: '1' },
        taskList: { name: workflowId },
        taskStartToCloseTimeout: '60',
      });
      const task = await s.call('PollForDecisionTask', { domain, taskList: { name: workflowId } });
      return { execution: { workflowId, runId: started?.runId }, taskToken: task?.taskToken };
    };
    const late = await begin('late');
    const onTime = await begin('on-time');
    const decisions = [{ decisionType: 'CompleteWorkflowExecution' }];
    s.clock.ms += 59_000;
    await s.call('RespondDecisionTaskCompleted', { taskToken: onTime.taskToken, decisions });
    s.clock.ms += 1_000;
    await expect(
      s.call('RespondDecisionTaskCompleted', { taskToken: late.taskToken, decisions }),
    ).rejects.toMatchObject(unknownResource);
    expect(await historyTypes(s.call, domain, onTime.execution)).toContain(
      'WorkflowExecutionCompleted',
    );
    expect(await historyTypes(s.call, domain, late.execution)).not.toContain(
      'WorkflowExecutionCompleted',
    );
  });
});

describe('a run past its execution timeout, its fire not come', () => {
  it('takes no more decisions', async () => {
    const s = service();
    const { domain, started } = await runOf30s(s);
    const task = await s.call('PollForDecisionTask', { domain, taskList: { name: 'tl' } });
    s.clock.ms += 30_000;
    await expect(
      s.call('RespondDecisionTaskCompleted', {
        taskToken: task?.taskToken,
        decisions: [{ decisionType: 'CompleteWorkflowExecution' }],
      }),
    ).rejects.toMatchObject(unknownResource);
    const types = await historyTypes(s.call, domain, { workflowId: 'x', runId: started?.runId });
    expect(types).not.toContain('WorkflowExecutionCompleted');
  });
});

describe('a queued task past its schedule-to-start timeout, its fire not come', () => {
  it('is not handed to a poll; one still in time is', async () => {
    const s = service();
    const { call } = s;
    const domain = fresh();
    await domainWithType(call, domain);
    await call('RegisterActivityType', { domain, name: 'a', version: '1' });
    await startW(call, domain, 'w1');
    const decision = await call('PollForDecisionTask', { domain, taskList: { name: 'tl' } });
    const schedule = (activityId: string, scheduleToStartTimeout: string) => ({
      decisionType: 'ScheduleActivityTask',
      scheduleActivityTaskDecisionAttributes: {
        activityType: { name: 'a', version: '1' },
        activityId,
        taskList: { name: 'acts' },
        scheduleToStartTimeout,
        scheduleToCloseTimeout: 'NONE',
        startToCloseTimeout: '60',
        heartbeatTimeout: 'NONE',
      },
    });
    await call('RespondDecisionTaskCompleted', {
      taskToken: decision?.taskToken,
      decisions: [schedule('soon', '5'), schedule('later', '50')],
    });
    s.clock.ms += 5_000;
    const task = await call('PollForActivityTask', { domain, taskList: { name: 'acts' } });
    expect((task?.activityId as string | undefined) ?? 'none').toBe('later');
    const next = await call('PollForActivityTask', { domain, taskList: { name: 'acts' } });
    expect(next?.taskToken ?? '').toBe('');
  });

  it("is not handed to a poll once the run's execution timeout has passed", async () => {
    const s = service();
    const { domain } = await runOf30s(s);
    s.clock.ms += 30_000;
    const task = await s.call('PollForDecisionTask', { domain, taskList: { name: 'tl' } });
    expect(task?.taskToken ?? '').toBe('');
  });
});

describe('a task past its timeout, its fire not come, reached by a poll another way', () => {
  it('is not adopted by the next poll once its start-to-close timeout has passed', async () => {
    const s = service();
    const { domain } = await scheduledActivity(s, { startToClose: '10' });
    // A poll whose caller has left: the task it starts is kept for the next poll (orphan).
    const gone = new AbortController();
    gone.abort();
    const first = await s.call(
      'PollForActivityTask',
      { domain, taskList: { name: 'acts' } },
      { requestId: 'gone', signal: new AbortController().signal, callerGone: gone.signal },
    );
    expect(first?.taskToken).toBeUndefined();
    // Its start-to-close timeout passes before the next poll; the fire has not come.
    s.clock.ms += 10_000;
    const next = await s.call('PollForActivityTask', { domain, taskList: { name: 'acts' } });
    // The worker would run a task whose every answer is refused:
    if (typeof next?.taskToken === 'string')
      await expect(
        s.call('RespondActivityTaskCompleted', { taskToken: next.taskToken }),
      ).rejects.toMatchObject(unknownResource);
    expect(next?.taskToken ?? '').toBe('');
  });

  it("is not started for a waiting decider once the run's execution timeout has passed", async () => {
    const s = service({ maxWaitMs: 3_000, recheckMs: 3_000 });
    const { domain, started } = await runOf30s(s);
    const task = await s.call('PollForDecisionTask', { domain, taskList: { name: 'tl' } });
    await s.call('RespondDecisionTaskCompleted', { taskToken: task?.taskToken, decisions: [] });
    s.clock.ms += 30_000;
    // A decider waits on the list (its queue is empty), then a signal schedules a decision task.
    // The set clock does not move, so the poll's own time never runs out: it is ended after 1.5 s.
    const end = new AbortController();
    const polled = s.call(
      'PollForDecisionTask',
      { domain, taskList: { name: 'tl' } },
      { requestId: 'waiting', signal: end.signal },
    );
    for (let i = 0; i < 100 && s.deps.notifier.waiting('decision', domain, 'tl') === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 200));
    // SignalWorkflowExecution itself is refused now (the run is as good as timed out); an event that
    // reaches the run another way (a signal from another execution, a child's outcome, which the
    // outbox records) still schedules a decision task: committed here as the outbox would.
    await expect(
      s.call('SignalWorkflowExecution', { domain, workflowId: 'x', signalName: 's' }),
    ).rejects.toMatchObject(unknownResource);
    const runId = String(started?.runId);
    await mutateRun(s.deps, runId, ({ state }) => {
      const t = signalExecution(state, { signalName: 's' }, epochSeconds(s.deps.clock));
      return { write: true, result: undefined, state: t.state, events: t.events };
    });
    setTimeout(() => end.abort(), 1_500);
    const handed = await polled;
    if (typeof handed?.taskToken === 'string')
      await expect(
        s.call('RespondDecisionTaskCompleted', { taskToken: handed.taskToken, decisions: [] }),
      ).rejects.toMatchObject(unknownResource);
    expect(handed?.taskToken ?? '').toBe('');
  });
});
