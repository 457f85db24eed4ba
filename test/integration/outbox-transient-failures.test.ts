/**
 * The outbox and DynamoDB's transient failures, over DynamoDB Local with its requests intercepted: a throttled
 * transaction, contention that outlasts a record's tries, rows left unprocessed, a 5xx on a Lambda
 * outcome. None of them is the record's fault: each is retried, never dead-lettered or lost.
 */
import { describe, expect, it } from 'vitest';
import { streamBatchHandler } from '../../functions/shared/stream-batch.js';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import { DynamoDbError, type DynamoIntercept } from '../../lib/adapters/dynamodb/doc-client.js';
import { createOperationDeps } from '../../lib/composition/operation-deps.js';
import type { ExecutionState } from '../../lib/core/execution-state.js';
import { queueChanges } from '../../lib/core/task-queue.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { LOCAL_IDENTITY, LOCAL_REGION, localStreamHandler } from '../../lib/local/local-service.js';
import { carryOutRunChange, type OutboxDeps, runLambdaTask } from '../../lib/operations/outbox.js';
import type { LambdaInvoker, LambdaTask } from '../../lib/ports/lambda-invoker.js';
import { RunDriver, scheduleLambda } from '../support/core-builders.js';
import { lambdaContext, streamEvent } from '../support/lambda-events.js';
import { dynamoEndpoint, tableForFile } from '../support/local.js';
import {
  asLike,
  decide,
  historyTypes,
  type OutboxFixture,
  outboxFixture,
  rawState,
  recordOf,
  start,
} from '../support/outbox-fixture.js';

/** A fixture whose DynamoDB requests `failure` may answer instead of the store (while `on` is set). */
async function fixtureWith(failure: (operation: string, input: unknown) => unknown) {
  const state = { on: false, hits: 0 };
  const intercept: DynamoIntercept = async (operation, input, send) => {
    if (state.on) {
      const answer = failure(operation, input);
      if (answer !== undefined) {
        state.hits++;
        if (answer instanceof Error) throw answer;
        return answer as never;
      }
    }
    return send();
  };
  return { r: await outboxFixture({ intercept }), state };
}

/** Run A's decision to signal B, and the stream record of that change of A. */
async function signalRecord(r: OutboxFixture) {
  const a = await start(r, 'A', 'tl-a');
  const b = await start(r, 'B', 'tl-b');
  const before = await rawState(r, a);
  await decide(r, 'tl-a', [
    {
      decisionType: 'SignalExternalWorkflowExecution',
      signalExternalWorkflowExecutionDecisionAttributes: { workflowId: 'B', signalName: 'go' },
    },
  ]);
  return { a, b, record: recordOf(a, before, await rawState(r, a)) };
}

const cancelled = (codes: string[]) =>
  new DynamoDbError('TransactionCanceledException', `Transaction cancelled [${codes}]`, 400, {
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

describe('a signal whose transaction DynamoDB throttles', () => {
  it('is reported for Lambda to deliver again, not dead-lettered, and arrives once the failures stop', async () => {
    const { r, state } = await fixtureWith((operation) =>
      operation === 'TransactWriteItems' ? cancelled(['ThrottlingError', 'None']) : undefined,
    );
    try {
      const { b, record } = await signalRecord(r);
      const handler = streamBatchHandler(() => r.outbox, { retryDelayMs: 1 });
      state.on = true;
      const answer = await handler(streamEvent([record]), lambdaContext());
      state.on = false;
      expect(state.hits).toBeGreaterThan(0);
      expect(answer?.batchItemFailures).toEqual([
        { itemIdentifier: record.dynamodb?.SequenceNumber },
      ]);
      expect(await r.outbox.deadLetters.listDeadLetters()).toEqual([]);
      await handler(streamEvent([record]), lambdaContext());
      expect(await historyTypes(r, b)).toContain('WorkflowExecutionSignaled');
    } finally {
      r.close();
    }
  });
});

describe("the local server's stream consumer", () => {
  it('fails the read on contention that outlasts a record’s tries, so the records are read again', async () => {
    const { r, state } = await fixtureWith((operation) =>
      operation === 'TransactWriteItems'
        ? cancelled(['None', 'ConditionalCheckFailed'])
        : undefined,
    );
    try {
      const { b, record } = await signalRecord(r);
      state.on = true;
      // One try of the record (its 50 commit attempts): the service's own handler makes five.
      const handled = localStreamHandler(r.outbox, { maxAttempts: 1 })([asLike(record)]);
      await expect(handled).rejects.toMatchObject({ name: 'RunContendedError' });
      state.on = false;
      expect(await r.outbox.deadLetters.listDeadLetters()).toEqual([]);
      await localStreamHandler(r.outbox)([asLike(record)]);
      expect(await historyTypes(r, b)).toContain('WorkflowExecutionSignaled');
    } finally {
      r.close();
    }
  }, 30_000);
});

describe('visibility rows DynamoDB keeps leaving unprocessed', () => {
  it('give the record up as transient within seconds, reported before the function’s deadline', async () => {
    const { r, state } = await fixtureWith((operation, input) =>
      operation === 'BatchWriteItem'
        ? { UnprocessedItems: (input as { RequestItems: unknown }).RequestItems }
        : undefined,
    );
    try {
      const a = await start(r, 'V', 'tl-v');
      const record = recordOf(a, undefined, await rawState(r, a));
      const handler = streamBatchHandler(() => r.outbox, { retryDelayMs: 1, maxAttempts: 1 });
      state.on = true;
      const answer = await handler(streamEvent([record]), lambdaContext({ remainingMs: 120_000 }));
      state.on = false;
      expect(answer?.batchItemFailures).toEqual([
        { itemIdentifier: record.dynamodb?.SequenceNumber },
      ]);
      expect(await r.outbox.deadLetters.listDeadLetters()).toEqual([]);
    } finally {
      r.close();
    }
  }, 30_000);
});

const table = tableForFile('outbox-transient-failures');

describe("a Lambda task's outcome", () => {
  it('is recorded though its first write meets a 5xx (the function ran once)', async () => {
    let failNextStateWrite = false;
    const doc = createDocumentClient({
      endpoint: dynamoEndpoint(),
      region: LOCAL_REGION,
      credentials: localCredentials,
      intercept: async (operation, input, send) => {
        const item = (input as { Item?: { sk?: { S?: string } } }).Item;
        if (failNextStateWrite && operation === 'PutItem' && item?.sk?.S === 'STATE') {
          failNextStateWrite = false;
          throw new DynamoDbError('InternalServerError', 'Internal server error', 500, {});
        }
        return send();
      },
    });
    const invoked: string[] = [];
    const functions: LambdaInvoker = {
      available: true,
      invoke: async (request) => {
        invoked.push(request.name);
        failNextStateWrite = true;
        return { kind: 'completed', result: 'done' };
      },
    };
    const handed: LambdaTask[] = [];
    const deps: OutboxDeps = {
      ...createOperationDeps({
        doc,
        tableName: table().tableName,
        identity: LOCAL_IDENTITY,
        lambda: functions,
        lambdaTasks: { dispatch: async (task) => void handed.push(task) },
      }),
      scheduler: { arm: async () => {}, disarm: async () => {} },
    };
    try {
      const runId = `outcome-${Date.now()}`;
      const run = new RunDriver({ startAt: Date.now() / 1000 });
      run.state = { ...run.state, execution: { ...run.state.execution, runId } };
      const before: ExecutionState = run.state;
      run.decide([scheduleLambda('l1')]);
      const write = {
        state: run.state,
        events: run.history,
        queue: queueChanges(undefined, run.state),
      };
      expect(await deps.runs.commit([write], [])).toBe('committed');
      await carryOutRunChange(deps, before, run.state);
      const [task] = handed;
      if (task === undefined) throw new Error('not handed over');

      await runLambdaTask(deps, task);

      const { events } = await deps.runs.readHistory(runId, { limit: 100, reverse: false });
      expect(events.map((e) => e.eventType).slice(-2)).toEqual([
        'LambdaFunctionCompleted',
        'DecisionTaskScheduled',
      ]);
      expect(invoked).toEqual(['fn']);
    } finally {
      doc.destroy();
    }
  });
});
