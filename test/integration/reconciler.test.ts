/**
 * The reconciler over DynamoDB Local: a run whose one armed fire is lost is found among the open runs
 * (Queries of the open-execution rows, never a Scan), armed again, and its timer fires; a second pass
 * changes nothing; and what a pass reads does not grow with the number of closed runs. It also
 * measures what a pass reads per open run, the figure docs/operations.md prices.
 */
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { DynamoCounters, meterDynamo } from '../../bench/instrument.js';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import { DynamoExecutionStore } from '../../lib/adapters/dynamodb/execution-store.js';
import type { MetricSample } from '../../lib/core/swf-metrics.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { LOCAL_REGION } from '../../lib/local/local-service.js';
import { fireRunDeadline, type OutboxDeps } from '../../lib/operations/outbox.js';
import { reconcileDeadlines } from '../../lib/operations/reconcile.js';
import { syncVisibility } from '../../lib/operations/visibility-sync.js';
import type { Clock } from '../../lib/ports/clock.js';
import type { DeadlineFire, DeadlineScheduler } from '../../lib/ports/deadline-scheduler.js';
import { DOMAIN, RunDriver, T0 } from '../support/core-builders.js';
import { dynamoEndpoint, tableForFile } from '../support/local.js';
import { type CallOperation, domainWithType, operationsOver } from '../support/operations.js';

const table = tableForFile('reconciler');
// Its 10,000 runs' items would slow DynamoDB Local down for the files that share it after this one.
afterAll(async () => {
  await table().client.send(new DeleteTableCommand({ TableName: table().tableName }));
});
const T = 1_800_000_000_000; // the test's clock, ms

/** A scheduler whose fires are kept, to be lost or delivered at will. */
class HeldFires implements DeadlineScheduler {
  readonly armed: DeadlineFire[] = [];
  async arm(fire: DeadlineFire): Promise<void> {
    this.armed.push(fire);
  }
  async disarm(): Promise<void> {}
}

/** The service's operations over the table, at a clock the test moves, and an outbox with held fires. */
function service(clock = { ms: T, now: () => clock.ms }) {
  const { deps, call } = operationsOver(table(), { clock });
  const fires = new HeldFires();
  const outbox: OutboxDeps = { ...deps, scheduler: fires };
  return { clock, call, outbox, fires };
}

/**
 * An outbox over a document client whose every request the bench's meter charges (request units by
 * AWS's rules), and that refuses a Scan.
 */
function meteredOutbox(clock: Clock) {
  const counters = new DynamoCounters();
  const meter = meterDynamo(counters);
  const doc = createDocumentClient({
    endpoint: dynamoEndpoint(),
    region: LOCAL_REGION,
    credentials: localCredentials,
    intercept: (operation, input, send) => {
      if (operation === 'Scan') throw new Error('the reconciler never scans');
      return meter(operation, input, send);
    },
  });
  const { deps } = operationsOver({ ...table(), doc }, { clock });
  const outbox: OutboxDeps = { ...deps, scheduler: new HeldFires() };
  return { outbox, reads: () => counters.meter.snapshot(), doc };
}

/** What the outbox does from a run's stream record: its visibility rows follow its stored state. */
async function syncRows(outbox: OutboxDeps, runId: string): Promise<void> {
  const loaded = await outbox.runs.loadRun(runId);
  if (loaded === undefined) throw new Error(`no run ${runId}`);
  await syncVisibility(outbox, undefined, loaded.state);
}

/** A domain whose type w/1 runs a day, deciders polling task list `tl`. */
const registerLongType = (call: CallOperation, domain: string) =>
  domainWithType(call, domain, '86400');

/** Starts a run and has its decider start a 60 s timer; returns its runId. */
async function runWithTimer(call: CallOperation, domain: string, workflowId: string) {
  const started = await call('StartWorkflowExecution', {
    domain,
    workflowId,
    workflowType: { name: 'w', version: '1' },
  });
  const task = await call('PollForDecisionTask', { domain, taskList: { name: 'tl' } });
  await call('RespondDecisionTaskCompleted', {
    taskToken: task?.taskToken,
    decisions: [
      {
        decisionType: 'StartTimer',
        startTimerDecisionAttributes: { timerId: 'wait', startToFireTimeout: '60' },
      },
    ],
  });
  return String(started?.runId);
}

const eventTypes = async (call: CallOperation, domain: string, workflowId: string, runId: string) =>
  (
    ((await call('GetWorkflowExecutionHistory', { domain, execution: { workflowId, runId } }))
      ?.events ?? []) as { eventType: string }[]
  ).map((e) => e.eventType);

describe('the reconciler', () => {
  it('arms a lost fire again, the timer fires, and a second pass changes nothing', async () => {
    const { clock, call, outbox, fires } = service();
    await registerLongType(call, 'lost-fire');
    const runId = await runWithTimer(call, 'lost-fire', 'w1');
    await syncRows(outbox, runId);
    // Nothing delivers the fire the run armed: it is lost (a message dead-lettered, say).
    clock.ms = T + 3_600_000;
    const first = await reconcileDeadlines(outbox);
    expect(first.rearmed).toHaveLength(1);
    expect(first.rearmed[0]).toMatchObject({ runId });
    expect(fires.armed).toEqual(first.rearmed);
    // The fire armed again comes, as the timer function takes it.
    await fireRunDeadline(outbox, fires.armed[0] as DeadlineFire);
    expect(await eventTypes(call, 'lost-fire', 'w1', runId)).toContain('TimerFired');
    const second = await reconcileDeadlines(outbox);
    expect(second.rearmed).toEqual([]);
    expect(second.examined).toBe(first.examined);
    expect(fires.armed).toHaveLength(1);
  });

  it('reports in a dry run what it would arm, arms nothing, and counts the tasks waiting', async () => {
    const { clock, call, outbox, fires } = service();
    await registerLongType(call, 'dry-run');
    const runId = await runWithTimer(call, 'dry-run', 'w1');
    await syncRows(outbox, runId);
    // A run whose first decision task no decider took: the pass counts it as pending.
    const waiting = await call('StartWorkflowExecution', {
      domain: 'dry-run',
      workflowId: 'waiting',
      workflowType: { name: 'w', version: '1' },
    });
    await syncRows(outbox, String(waiting?.runId));
    clock.ms = T + 3_600_000;
    const recorded: MetricSample[] = [];
    const metrics = { record: (samples: readonly MetricSample[]) => recorded.push(...samples) };
    const report = await reconcileDeadlines({ ...outbox, metrics }, { dryRun: true });
    expect(report.rearmed.map((f) => f.runId)).toContain(runId);
    expect(fires.armed).toEqual([]);
    expect(recorded.filter((m) => m.dimensions.Domain === 'dry-run')).toEqual([
      {
        name: 'PendingTasks',
        dimensions: { Domain: 'dry-run', TaskListName: 'tl', TaskListClassification: 'D' },
        value: 1,
      },
    ]);
  });

  it('leaves runs whose fire is not yet late alone, and closed runs unread', async () => {
    const { clock, call, outbox, fires } = service();
    await registerLongType(call, 'not-late');
    const soon = await runWithTimer(call, 'not-late', 'soon');
    const closed = await runWithTimer(call, 'not-late', 'closed');
    await call('TerminateWorkflowExecution', { domain: 'not-late', workflowId: 'closed' });
    for (const runId of [soon, closed]) await syncRows(outbox, runId);
    clock.ms = T + 61_000; // the timer of `soon` is due, but not by more than a fire may be late
    const report = await reconcileDeadlines(outbox, { dryRun: true });
    expect(report.rearmed.filter((f) => f.runId === soon || f.runId === closed)).toEqual([]);
    expect(fires.armed).toEqual([]);
    // Far ahead, the open run is due and the closed one is not even read.
    clock.ms = T + 30 * 86_400_000;
    const later = await reconcileDeadlines(outbox, { dryRun: true });
    expect(later.rearmed.map((f) => f.runId)).toContain(soon);
    expect(later.rearmed.map((f) => f.runId)).not.toContain(closed);
  });

  it('reads no more with 10,000 closed runs in the table, and so much per open run', async () => {
    const clock = { ms: T + 3 * 86_400_000, now: () => clock.ms };
    const { outbox } = service(clock);
    const measure = async () => {
      const metered = meteredOutbox(clock);
      const report = await reconcileDeadlines(metered.outbox, { dryRun: true });
      metered.doc.destroy();
      const { requests, readUnits } = metered.reads();
      return { examined: report.examined, requests, readUnits };
    };
    const { call } = service(clock);
    // The closed runs' domain, kept 90 days: their closed rows are listed as any closed run's.
    await call('RegisterDomain', { name: DOMAIN, workflowExecutionRetentionPeriodInDays: '90' });
    const before = await measure();
    // 10,000 closed runs: one written open and then closed as the store commits it, with its rows,
    // then its items copied under 9,999 other run ids (writing each through the store would make
    // this file the slowest of the suite, for the same items).
    const store = new DynamoExecutionStore({ doc: table().doc, tableName: table().tableName });
    await openThenClose(store, 'closed-0');
    // Its rows written as the outbox writes them the day it closed (it closed at T0).
    const closedDay = { ms: (T0 + 86_400) * 1000, now: () => closedDay.ms };
    await syncRows(service(closedDay).outbox, 'closed-0');
    await copyRun('closed-0', 9_999);
    const after = await measure();
    expect(after).toEqual(before);
    // 200 open runs more: what a pass reads grows with them, by about one small read each.
    await registerLongType(call, 'open-crowd');
    await inParallel(200, async (i) => {
      await syncRows(outbox, await runWithTimer(call, 'open-crowd', `open-${i}`));
    });
    const crowd = await measure();
    expect(crowd.examined - after.examined).toBe(200);
    const perOpenRun = (crowd.readUnits - after.readUnits) / 200;
    console.log(`reconciler: read units per open run per pass ${perOpenRun.toFixed(3)}`);
    expect(perOpenRun).toBeLessThanOrEqual(1.1);
  }, 600_000);
});

/**
 * Copies every item of run `runId` (its state, history and visibility rows: every item whose keys
 * name it) under the run ids `${runId}-1` … `${runId}-<copies>`, 25 items to a BatchWriteItem.
 */
async function copyRun(runId: string, copies: number): Promise<void> {
  const { doc, tableName } = table();
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.scan({
      TableName: tableName,
      ...(start ? { ExclusiveStartKey: start } : {}),
    });
    for (const item of page.Items ?? [])
      if (String(item.pk).includes(runId) || String(item.sk).includes(runId)) items.push(item);
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  // The state item and the closed rows (by start and by close time, by type, by close status).
  expect(items.length).toBeGreaterThanOrEqual(4);
  const puts = Array.from({ length: copies }, (_, i) =>
    items.map((item) => ({ PutRequest: { Item: renamed(item, runId, `${runId}-${i + 1}`) } })),
  ).flat();
  await inParallel(Math.ceil(puts.length / 25), async (b) => {
    let batch = puts.slice(b * 25, b * 25 + 25);
    while (batch.length > 0) {
      const out = await doc.batchWrite({ RequestItems: { [tableName]: batch } });
      batch = (out.UnprocessedItems?.[tableName] ?? []) as typeof batch;
    }
  });
}

/** `value` with `from` replaced by `to` in every string (binary attributes kept as they are). */
function renamed(value: unknown, from: string, to: string): Record<string, unknown> {
  const walk = (v: unknown): unknown =>
    typeof v === 'string'
      ? v.replaceAll(from, to)
      : Array.isArray(v)
        ? v.map(walk)
        : v instanceof Uint8Array || v === null || typeof v !== 'object'
          ? v
          : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
  return walk(value) as Record<string, unknown>;
}

/** `count` calls of `each`, 32 at a time. */
async function inParallel(count: number, each: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) await each(i);
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

/** A run committed open (its alarm in the due index), then terminated, through the store. */
async function openThenClose(store: DynamoExecutionStore, runId: string): Promise<void> {
  const run = new RunDriver();
  const execution = { workflowId: runId, runId };
  const opened = { ...run.state, execution, alarm: { key: 'execution', at: T / 1000 } };
  const noQueue = { add: [], remove: [] };
  await store.commit([{ state: opened, events: run.history, queue: noQueue }], []);
  const loaded = await store.loadRun(runId);
  if (loaded === undefined) throw new Error(`run ${runId} was not written`);
  run.state = loaded.state;
  const events = run.terminate();
  await store.commit(
    [{ state: { ...run.state, execution }, base: loaded, events, queue: noQueue }],
    [],
  );
}
