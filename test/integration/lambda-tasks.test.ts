/**
 * The outbox's Lambda tasks over DynamoDB Local: a scheduled task is started (LambdaFunctionStarted)
 * and handed over; one that cannot be handed over fails at once instead of waiting for its timeout,
 * and a replayed record hands nothing over a second time.
 */
import { describe, expect, it, vi } from 'vitest';
import { createOperationDeps } from '../../lib/composition/operation-deps.js';
import type { ExecutionState } from '../../lib/core/execution-state.js';
import { queueChanges } from '../../lib/core/task-queue.js';
import { LOCAL_IDENTITY } from '../../lib/local/local-service.js';
import { carryOutRunChange, type OutboxDeps, runLambdaTask } from '../../lib/operations/outbox.js';
import type { Clock } from '../../lib/ports/clock.js';
import type { DeadlineScheduler } from '../../lib/ports/deadline-scheduler.js';
import type {
  LambdaInvoker,
  LambdaRequest,
  LambdaTask,
  LambdaTaskRunner,
} from '../../lib/ports/lambda-invoker.js';
import { RunDriver, scheduleLambda } from '../support/core-builders.js';
import { tableForFile } from '../support/local.js';

const table = tableForFile('lambda-tasks');

const noDeadlines: DeadlineScheduler = { arm: async () => {}, disarm: async () => {} };

/** Outbox dependencies over the table whose Lambda tasks go to `runner` (functions: `lambda`). */
function outbox(runner: LambdaTaskRunner, lambda?: LambdaInvoker, clock?: Clock): OutboxDeps {
  const deps = createOperationDeps({
    doc: table().doc,
    tableName: table().tableName,
    identity: LOCAL_IDENTITY,
    lambdaTasks: runner,
    ...(lambda === undefined ? {} : { lambda }),
    ...(clock === undefined ? {} : { clock }),
  });
  return { ...deps, scheduler: noDeadlines };
}

/** A run whose decision scheduled `count` Lambda tasks, committed; the change that scheduled them. */
async function scheduled(deps: OutboxDeps, runId: string, count = 1) {
  const run = new RunDriver();
  run.state = { ...run.state, execution: { ...run.state.execution, runId } };
  const before: ExecutionState = run.state;
  run.decide(Array.from({ length: count }, (_, i) => scheduleLambda(`l${i + 1}`)));
  const write = {
    state: run.state,
    events: run.history,
    queue: queueChanges(undefined, run.state),
  };
  expect(await deps.runs.commit([write], [])).toBe('committed');
  return { before, after: run.state };
}

const eventTypesOf = async (deps: OutboxDeps, runId: string, limit = 100) =>
  (await deps.runs.readHistory(runId, { limit, reverse: false })).events.map((e) => e.eventType);

describe('a Lambda task in the outbox', () => {
  it('is started and handed over once, a replayed record handing nothing over', async () => {
    const handed: LambdaTask[] = [];
    const deps = outbox({ dispatch: async (task) => void handed.push(task) });
    const runId = `handed-${Date.now()}`;
    const change = await scheduled(deps, runId);
    await carryOutRunChange(deps, change.before, change.after);
    await carryOutRunChange(deps, change.before, change.after);
    const types = await eventTypesOf(deps, runId);
    expect(types.slice(-2)).toEqual(['LambdaFunctionScheduled', 'LambdaFunctionStarted']);
    expect(handed).toHaveLength(1);
    expect(handed[0]).toMatchObject({
      runId,
      startedEventId: types.length,
      request: { name: 'fn', timeoutSeconds: 900 },
    });
  });

  it('fails at once when it cannot be handed over', async () => {
    const deps = outbox({
      dispatch: async () => {
        throw Object.assign(new Error('the Lambda-task function is throttled'), {
          name: 'TooManyRequestsException',
        });
      },
    });
    const runId = `refused-${Date.now()}`;
    const change = await scheduled(deps, runId);
    await carryOutRunChange(deps, change.before, change.after);
    const { events } = await deps.runs.readHistory(runId, { limit: 100, reverse: false });
    const failed = events.find((e) => e.eventType === 'LambdaFunctionFailed');
    expect(failed?.attributes).toMatchObject({
      reason: 'TooManyRequestsException',
      details: 'the Lambda-task function is throttled',
    });
    expect(events.at(-1)?.eventType).toBe('DecisionTaskScheduled');
  });
});

describe('a Lambda task handed over', () => {
  /** A run with one started Lambda task, handed over to nobody yet; and the functions' calls. */
  async function handedOver(clock?: Clock) {
    const handed: LambdaTask[] = [];
    const calls: LambdaRequest[] = [];
    const functions: LambdaInvoker = {
      available: true,
      invoke: async (request) => {
        calls.push(request);
        return { kind: 'completed', result: 'ran' };
      },
    };
    const deps = outbox({ dispatch: async (task) => void handed.push(task) }, functions, clock);
    const runId = `once-${Date.now()}-${Math.random()}`;
    const change = await scheduled(deps, runId);
    await carryOutRunChange(deps, change.before, change.after);
    const [task] = handed;
    if (task === undefined) throw new Error('nothing handed over');
    return { deps, runId, task, calls };
  }

  it('invokes its function once, however often it is delivered (asynchronous events may come twice)', async () => {
    const { deps, runId, task, calls } = await handedOver();
    await Promise.all([runLambdaTask(deps, task), runLambdaTask(deps, task)]);
    await runLambdaTask(deps, task);
    expect(calls).toHaveLength(1);
    const types = await eventTypesOf(deps, runId);
    expect(types.filter((t) => t === 'LambdaFunctionCompleted')).toHaveLength(1);
  });

  it('invokes nothing once its start-to-close timeout has passed (a delivery held back by throttling)', async () => {
    let now = Date.now();
    const { deps, task, calls } = await handedOver({ now: () => now });
    now += 901_000;
    await runLambdaTask(deps, task);
    expect(calls).toEqual([]);
  });

  it("records a run's outcomes that end at once together, in a few commits, every one of them", async () => {
    const count = 100;
    const handed: LambdaTask[] = [];
    const functions: LambdaInvoker = {
      available: true,
      invoke: async (request) => ({ kind: 'completed', result: request.name }),
    };
    const deps = outbox({ dispatch: async (task) => void handed.push(task) }, functions);
    const runId = `together-${Date.now()}`;
    const change = await scheduled(deps, runId, count);
    await carryOutRunChange(deps, change.before, change.after);
    expect(handed).toHaveLength(count);
    // One commit per outcome would race a hundred writers for one run (a thousand lost most of theirs).
    const commits = vi.spyOn(deps.runs, 'commit');
    await Promise.all(handed.map((task) => runLambdaTask(deps, task)));
    expect(commits.mock.calls.length).toBeLessThanOrEqual(5);
    const types = await eventTypesOf(deps, runId, 1_000);
    expect(types.filter((t) => t === 'LambdaFunctionCompleted')).toHaveLength(count);
  });

  it('gets only the time its task has left', async () => {
    let now = Date.now();
    const { deps, task, calls } = await handedOver({ now: () => now });
    now += 600_000;
    await runLambdaTask(deps, task);
    expect(calls[0]?.timeoutSeconds).toBeGreaterThan(299);
    expect(calls[0]?.timeoutSeconds).toBeLessThanOrEqual(300);
  });
});
