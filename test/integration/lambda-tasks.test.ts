/**
 * The outbox's Lambda tasks over DynamoDB Local: a scheduled task is started (LambdaFunctionStarted)
 * and handed over; one that cannot be handed over fails at once instead of waiting for its timeout,
 * and a replayed record hands nothing over a second time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionState } from '../../lib/core/execution-state.js';
import { queueChanges } from '../../lib/core/task-queue.js';
import { LOCAL_IDENTITY } from '../../lib/local/stack.js';
import { carryOutRunChange, type OutboxDeps } from '../../lib/operations/outbox.js';
import type { DeadlineScheduler } from '../../lib/ports/deadline-scheduler.js';
import type { LambdaTask, LambdaTaskRunner } from '../../lib/ports/lambda-invoker.js';
import { createDeps } from '../../lib/wiring.js';
import { RunDriver, scheduleLambda } from '../support/core-builders.js';
import { freshTable } from '../support/local.js';

let table: Awaited<ReturnType<typeof freshTable>>;
beforeAll(async () => {
  table = await freshTable('lambda-tasks');
});
afterAll(() => {
  table.doc.destroy();
  table.client.destroy();
});

const noDeadlines: DeadlineScheduler = { arm: async () => {}, disarm: async () => {} };

/** Outbox dependencies over the table whose Lambda tasks go to `runner`. */
function outbox(runner: LambdaTaskRunner): OutboxDeps {
  const deps = createDeps({
    doc: table.doc,
    tableName: table.tableName,
    identity: LOCAL_IDENTITY,
    lambdaTasks: runner,
  });
  return { ...deps, scheduler: noDeadlines };
}

/** A run whose decision scheduled one Lambda task, committed; the change that scheduled it. */
async function scheduled(deps: OutboxDeps, runId: string) {
  const run = new RunDriver();
  run.state = { ...run.state, execution: { ...run.state.execution, runId } };
  const before: ExecutionState = run.state;
  run.decide([scheduleLambda('l1')]);
  const write = {
    state: run.state,
    events: run.history,
    queue: queueChanges(undefined, run.state),
  };
  expect(await deps.executions.commit([write], [])).toBe('committed');
  return { before, after: run.state };
}

const eventTypesOf = async (deps: OutboxDeps, runId: string) =>
  (await deps.executions.readHistory(runId, { limit: 100, reverse: false })).events.map(
    (e) => e.eventType,
  );

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
    const { events } = await deps.executions.readHistory(runId, { limit: 100, reverse: false });
    const failed = events.find((e) => e.eventType === 'LambdaFunctionFailed');
    expect(failed?.attributes).toMatchObject({
      reason: 'TooManyRequestsException',
      details: 'the Lambda-task function is throttled',
    });
    expect(events.at(-1)?.eventType).toBe('DecisionTaskScheduled');
  });
});
