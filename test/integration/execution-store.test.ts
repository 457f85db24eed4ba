/**
 * The execution store against DynamoDB Local: a run's latest events live in its state item until they
 * outgrow it, then move to a history chunk written before the commit. Whatever the split, every read
 * of the history sees every event once, in order; a writer holding an older version never loses events
 * another writer moved; queue entries exist before the commit that schedules their task.
 */
import { randomBytes } from 'node:crypto';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableRef } from '../../lib/adapters/dynamodb/client.js';
import { DynamoExecutionStore } from '../../lib/adapters/dynamodb/execution-store.js';
import { itemSize } from '../../lib/adapters/dynamodb/item-size.js';
import { keys } from '../../lib/adapters/dynamodb/keys.js';
import type { ExecutionState } from '../../lib/core/execution-state.js';
import { signalExecution } from '../../lib/core/executions.js';
import type { HistoryEvent } from '../../lib/core/history-event.js';
import { queueChanges } from '../../lib/core/task-queue.js';
import type { LoadedRun, RunWrite } from '../../lib/ports/run-store.js';
import { RunDriver, recordMarker, scheduleActivity } from '../support/core-builders.js';
import { freshTable } from '../support/local.js';

let table: TableRef;
let destroy: () => void;

beforeAll(async () => {
  const { tableName, doc, client } = await freshTable('exec-store');
  client.destroy();
  table = { doc, tableName };
  destroy = () => doc.destroy();
});
afterAll(() => destroy?.());

const storeWith = (stateItemBudget?: number) =>
  new DynamoExecutionStore(table, stateItemBudget === undefined ? {} : { stateItemBudget });

/** A run driven by the pure core, each step committed through a store as one write. */
class StoredRun {
  readonly driver: RunDriver;
  private committed = 0;
  loaded: LoadedRun | undefined;
  /** The events of the latest commit. */
  lastEvents: HistoryEvent[] = [];

  constructor(
    private readonly store: DynamoExecutionStore,
    runId: string,
    startAt?: number,
  ) {
    this.driver = new RunDriver(startAt === undefined ? {} : { startAt });
    // RunDriver's runs share one runId: give this one its own.
    const execution = { ...this.driver.state.execution, runId };
    this.driver.state = { ...this.driver.state, execution };
  }

  get runId() {
    return this.driver.state.execution.runId;
  }

  /** Commits what the driver appended since the last commit. */
  async commit(step: (driver: RunDriver) => unknown = () => undefined, via = this.store) {
    const before = this.loaded?.state;
    step(this.driver);
    const events = this.driver.history.slice(this.committed);
    const write: RunWrite = {
      state: this.driver.state,
      events,
      queue: queueChanges(before, this.driver.state),
      ...(this.loaded === undefined ? {} : { base: this.loaded }),
    };
    expect(await via.commit([write], [])).toBe('committed');
    this.committed = this.driver.history.length;
    this.lastEvents = events;
    this.loaded = await this.store.loadRun(this.runId);
  }

  async readAll(store = this.store): Promise<readonly HistoryEvent[]> {
    return (await store.readHistory(this.runId, { limit: 10_000, reverse: false })).events;
  }
}

/** Reads the whole history page by page (size `limit`) in one direction. */
async function readPaged(
  store: DynamoExecutionStore,
  runId: string,
  limit: number,
  reverse: boolean,
): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  let after: number | undefined;
  for (;;) {
    const page = await store.readHistory(runId, {
      limit,
      reverse,
      ...(after === undefined ? {} : { after }),
    });
    events.push(...page.events);
    if (page.next === undefined) return events;
    after = page.next;
  }
}

async function chunksOf(runId: string) {
  const result = await table.doc.query({
    TableName: table.tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :h)',
    ExpressionAttributeValues: { ':pk': keys.runPartition(runId), ':h': 'H|' },
    ConsistentRead: true,
  });
  return (result.Items ?? []).map((item) => ({
    first: Number(item.first),
    last: Number(item.last),
  }));
}

async function stateItemBytes(runId: string): Promise<number> {
  const { Item } = await table.doc.get({
    TableName: table.tableName,
    Key: keys.runState(runId),
    ConsistentRead: true,
  });
  return Item === undefined ? 0 : itemSize(marshall(Item));
}

/** A workflow's worth of steps, with payloads from a few bytes to a few KB. */
const steps: ((d: RunDriver) => unknown)[] = [
  (d) => d.decide([scheduleActivity('a1'), recordMarker('m1', 'x'.repeat(40))]),
  (d) => d.startActivity('a1'),
  (d) => d.signal('small', 'hi'),
  (d) => d.closeActivity('a1', { kind: 'completed', result: 'r'.repeat(300) }),
  (d) => d.decide([scheduleActivity('a2'), scheduleActivity('a3')]),
  (d) => d.signal('big', randomBytes(1500).toString('base64')),
  (d) => d.startActivity('a2'),
  (d) => d.startActivity('a3'),
  (d) => d.closeActivity('a2'),
  (d) => d.closeActivity('a3', { kind: 'failed', reason: 'no', details: 'd'.repeat(900) }),
  (d) => d.decide([recordMarker('m2', 'y'.repeat(2000))]),
  (d) => d.signal('after'),
];

describe('a run history split between chunks and the state item', () => {
  it.each([
    ['every commit moves the earlier events to a chunk', 0],
    ['the default budget: the state item stays near one write unit', undefined],
    ['events never leave the state item', 1_000_000],
  ])('reads every event once, in order, after every commit (%s)', async (_, budget) => {
    const store = storeWith(budget);
    const run = new StoredRun(store, `split-${budget ?? 'default'}`);
    await run.commit();
    expect(await run.readAll()).toEqual(run.driver.history);
    for (const step of steps) {
      await run.commit(step);
      expect(await run.readAll()).toEqual(run.driver.history);
    }
    const history = run.driver.history;
    for (const limit of [1, 3, 7]) {
      expect(await readPaged(store, run.runId, limit, false)).toEqual(history);
      expect(await readPaged(store, run.runId, limit, true)).toEqual([...history].reverse());
    }
    // From the middle, either way.
    const middle = history[Math.floor(history.length / 2)]?.eventId ?? 1;
    const forward = await store.readHistory(run.runId, { after: middle, limit: 5, reverse: false });
    expect(forward.events).toEqual(history.filter((e) => e.eventId >= middle).slice(0, 5));
    const backward = await store.readHistory(run.runId, { after: middle, limit: 5, reverse: true });
    expect(backward.events).toEqual(
      [...history]
        .reverse()
        .filter((e) => e.eventId <= middle)
        .slice(0, 5),
    );
    // The recent events a caller holds stand in for reading them.
    const loaded = run.loaded as LoadedRun;
    expect(
      (
        await store.readHistory(run.runId, {
          limit: 10_000,
          reverse: false,
          recent: loaded.recentEvents ?? [],
        })
      ).events,
    ).toEqual(history);

    const chunks = await chunksOf(run.runId);
    if (budget === 1_000_000) expect(chunks).toEqual([]);
    else expect(chunks.length).toBeGreaterThan(0);
    if (budget === 0) expect(loaded.recentEvents).toEqual(run.lastEvents);
  });

  it('keeps the state item within its budget while it holds more than one commit of events', async () => {
    const store = storeWith();
    const run = new StoredRun(store, 'budget');
    await run.commit();
    for (let i = 0; i < 20; i++) {
      const before = run.loaded?.recentEvents?.length ?? 0;
      await run.commit((d) => d.signal(`s${i}`, randomBytes(60).toString('base64')));
      const after = run.loaded?.recentEvents?.length ?? 0;
      // It kept the earlier events only when the item stayed within one write unit.
      if (after > 1 && after > before)
        expect(await stateItemBytes(run.runId)).toBeLessThanOrEqual(1024);
    }
    expect(await run.readAll()).toEqual(run.driver.history);
    expect((await chunksOf(run.runId)).length).toBeGreaterThan(0);
  });

  it('writes a commit of very large events as chunks in its transaction', async () => {
    const store = storeWith();
    const run = new StoredRun(store, 'large');
    await run.commit();
    // Random payloads do not deflate: 3 × 32 KB is past what the state item takes.
    await run.commit((d) => {
      for (let i = 0; i < 3; i++) d.signal(`big${i}`, randomBytes(24_000).toString('base64'));
    });
    expect(run.loaded?.recentEvents).toEqual([]);
    expect(await stateItemBytes(run.runId)).toBeLessThan(4096);
    await run.commit((d) => d.signal('next'));
    expect(await run.readAll()).toEqual(run.driver.history);
  });

  it('cuts chunks by bytes: characters outside ASCII take up to three', async () => {
    const store = storeWith();
    const run = new StoredRun(store, 'multibyte');
    await run.commit();
    // 270,000 characters (under a chunk's 300,000 bytes) but 810,000 bytes, which deflate halves at most.
    const text = () =>
      Array.from({ length: 90_000 }, () =>
        String.fromCharCode(0x4e00 + Math.floor(Math.random() * 20_000)),
      ).join('');
    await run.commit((d) => {
      for (let i = 0; i < 3; i++) d.signal(`wide${i}`, text());
    });
    // The start's events, moved out of the state item, then one chunk per signal.
    expect((await chunksOf(run.runId)).length).toBe(4);
    expect(await run.readAll()).toEqual(run.driver.history);
  });

  it('never loses events to a writer that moves a shorter chunk from an older version', async () => {
    const keeping = storeWith(1_000_000);
    const moving = storeWith(0);
    const run = new StoredRun(keeping, 'race');
    await run.commit();
    await run.commit((d) => d.signal('one'));
    const stale = run.loaded as LoadedRun; // holds events 1..n in its recent events
    await run.commit((d) => d.signal('two'));
    await run.commit((d) => d.signal('three'));
    // Version 5 moves everything so far (1..m, m > n) to the chunk keyed by event 1.
    await run.commit((d) => d.signal('four'), moving);
    const moved = await chunksOf(run.runId);
    expect(moved).toHaveLength(1);
    const last = moved[0]?.last ?? 0;
    expect(last).toBeGreaterThan(stale.recentEvents?.at(-1)?.eventId ?? Infinity);

    // A writer that loaded version 2 moves its (shorter) events to the same chunk, then loses.
    const outcome = await moving.commit(
      [
        {
          state: { ...stale.state, nextEventId: stale.state.nextEventId + 1 },
          base: stale,
          events: [],
          queue: { add: [], remove: [] },
        },
      ],
      [],
    );
    expect(outcome).toBe('conflict');
    expect(await chunksOf(run.runId)).toEqual(moved);
    expect(await run.readAll()).toEqual(run.driver.history);
  });
});

/** A run state whose latest execution context (any large member would do) deflate cannot shrink. */
const withContext = (state: ExecutionState, bytes: number): ExecutionState => ({
  ...state,
  latestExecutionContext: randomBytes(bytes).toString('base64'),
});

async function stateItem(runId: string) {
  const { Item } = await table.doc.get({
    TableName: table.tableName,
    Key: keys.runState(runId),
    ConsistentRead: true,
  });
  return Item ?? {};
}

describe("a run state item's version", () => {
  it('grows with every commit, also over an earlier release writing the same table (a bare count, or its version plus one)', async () => {
    const store = storeWith();
    const run = new StoredRun(store, 'versions');
    await run.commit();
    const first = (run.loaded as LoadedRun).version;
    await run.commit((d) => d.signal('one'));
    expect(run.loaded?.version).toBeGreaterThan(first);
    // What a container of the earlier release does: reads the version as a number and writes it
    // plus one (here as an update; it puts the whole item), guarded by the one it read.
    const olderWrites = async (version: (read: number) => number) => {
      const read = (await store.loadRun(run.runId))?.version ?? 0;
      await table.doc.update({
        TableName: table.tableName,
        Key: keys.runState(run.runId),
        UpdateExpression: 'SET version = :next',
        ConditionExpression: 'version = :read',
        ExpressionAttributeValues: { ':next': version(read), ':read': read },
      });
      run.loaded = await store.loadRun(run.runId);
    };
    await olderWrites((read) => read + 1);
    const afterOlder = run.loaded?.version ?? 0;
    await run.commit((d) => d.signal('after a container of the earlier release'));
    expect(run.loaded?.version).toBeGreaterThan(afterOlder);
    // An item the earlier release wrote before this one ever did: a bare count.
    await olderWrites(() => 7);
    await run.commit((d) => d.signal('after the upgrade'));
    const upgraded = run.loaded?.version ?? 0;
    expect(upgraded).toBeGreaterThan(7);
    await run.commit((d) => d.signal('and again'));
    expect(run.loaded?.version).toBeGreaterThan(upgraded);
    expect(await run.readAll()).toEqual(run.driver.history);
  });
});

describe('a run state too big for its item', () => {
  it('is written apart and read back whole, and back in its item once it is small again', async () => {
    const store = storeWith();
    const run = new StoredRun(store, 'apart');
    await run.commit();
    const big = withContext(run.driver.state, 600_000);
    run.driver.state = big;
    await run.commit((d) => d.signal('grown'));
    expect(run.loaded?.state).toEqual(run.driver.state);
    const item = await stateItem(run.runId);
    expect(item.state).toBeUndefined();
    expect(item.parts).toBe(3);
    expect(await stateItemBytes(run.runId)).toBeLessThan(4096);
    // A change record names the parts: the stream handler reads them.
    expect(await store.readStateApart(run.runId, String(item.apart))).toEqual(run.driver.state);
    expect((await store.scanOpenRuns()).find((s) => s.execution.runId === run.runId)).toEqual(
      run.driver.state,
    );

    run.driver.state = { ...run.driver.state, latestExecutionContext: 'small' };
    await run.commit((d) => d.signal('shrunk'));
    expect(run.loaded?.state).toEqual(run.driver.state);
    expect((await stateItem(run.runId)).apart).toBeUndefined();
    expect(await run.readAll()).toEqual(run.driver.history);
  });

  it("is the winner's when two writers of one version write theirs apart", async () => {
    const store = storeWith();
    const run = new StoredRun(store, 'apart-race');
    await run.commit();
    const base = run.loaded as LoadedRun;
    const write = (bytes: number): RunWrite => ({
      state: withContext({ ...base.state, nextEventId: base.state.nextEventId }, bytes),
      base,
      events: [],
      queue: { add: [], remove: [] },
    });
    const winner = write(500_000);
    expect(await store.commit([winner], [])).toBe('committed');
    // The loser wrote its parts before its commit failed: they are not the winner's.
    expect(await store.commit([write(500_000)], [])).toBe('conflict');
    expect((await store.loadRun(run.runId))?.state).toEqual(winner.state);
  });
});

describe('queue entries around a commit', () => {
  it('exist once the commit that schedules their task lands, and go with the commit that starts it', async () => {
    const store = storeWith();
    const run = new StoredRun(store, 'queued');
    await run.commit();
    expect(run.driver.state.decisionTask.status).toBe('scheduled');
    const listName = run.driver.state.decisionTaskList.name;
    const queued = await store.peekQueue('decision', run.driver.state.domain, listName, 10);
    expect(queued.map((e) => e.runId)).toContain(run.runId);
    const entry = queued.find((e) => e.runId === run.runId);
    // Starting the task claims the entry: it is removed after the commit.
    const before = run.loaded?.state;
    run.driver.startDecisionTask();
    const events = run.driver.history.slice(-1);
    expect(
      await store.commit(
        [
          {
            state: run.driver.state,
            base: run.loaded as LoadedRun,
            events,
            queue: queueChanges(before, run.driver.state),
            ...(entry === undefined ? {} : { claim: entry }),
          },
        ],
        [],
      ),
    ).toBe('committed');
    const after = await store.peekQueue('decision', run.driver.state.domain, listName, 10);
    expect(after.map((e) => e.runId)).not.toContain(run.runId);
  });

  describe('of a commit that lost to another writer', () => {
    /** A run with nothing queued, and a signal to it at `at` (which schedules a decision task). */
    async function idleRun(name: string) {
      const store = storeWith();
      const run = new StoredRun(store, name);
      await run.commit();
      await run.commit((d) => d.decide([]));
      const base = run.loaded as LoadedRun;
      const signal = (at: number, signalName: string): RunWrite => {
        const t = signalExecution(base.state, { signalName }, at);
        return { state: t.state, base, events: t.events, queue: queueChanges(base.state, t.state) };
      };
      const entries = async () =>
        (
          await store.peekQueue(
            'decision',
            base.state.domain,
            base.state.decisionTaskList.name,
            1000,
          )
        )
          .filter((e) => e.runId === run.runId)
          .map((e) => e.scheduledAt);
      return { store, base, signal, entries };
    }

    it('are taken back: the task they name was scheduled at another moment by the winner', async () => {
      const { store, base, signal, entries } = await idleRun('raced-apart');
      const at = base.state.startTimestamp + 100;
      expect(await store.commit([signal(at, 'first')], [])).toBe('committed');
      expect(await store.commit([signal(at + 5, 'second')], [])).toBe('conflict');
      expect(await entries()).toEqual([at]);
    });

    it("are left when the winner committed the same task (same key): it is the winner's too", async () => {
      const { store, base, signal, entries } = await idleRun('raced-same');
      const at = base.state.startTimestamp + 100;
      expect(await store.commit([signal(at, 'first')], [])).toBe('committed');
      // The loser's entry overwrites the winner's (same key), then its commit fails.
      expect(await store.commit([signal(at, 'second')], [])).toBe('conflict');
      expect(await entries()).toEqual([at]);
    });
  });

  it('leaves none for a run that was not created', async () => {
    const store = storeWith();
    const first = new StoredRun(store, 'open-1');
    const domain = first.driver.state.domain;
    const workflowId = first.driver.state.execution.workflowId;
    const acquire = (runId: string) => ({
      kind: 'acquire' as const,
      domain,
      workflowId,
      runId,
      startedAt: first.driver.state.startTimestamp,
    });
    const list = first.driver.state.decisionTaskList.name;
    const write = (run: StoredRun): RunWrite => ({
      state: run.driver.state,
      events: run.driver.history,
      queue: queueChanges(undefined, run.driver.state),
    });
    expect(await store.commit([write(first)], [acquire(first.runId)])).toBe('committed');
    const second = new StoredRun(store, 'open-2');
    expect(await store.commit([write(second)], [acquire(second.runId)])).toBe('already-open');
    const queued = (await store.peekQueue('decision', domain, list, 100)).map((e) => e.runId);
    expect(queued).toContain(first.runId);
    expect(queued).not.toContain(second.runId);
    expect(await store.loadRun(second.runId)).toBeUndefined();
  });
});

describe("a workflowId's open-run pointer, written around its run's commits", () => {
  let store: DynamoExecutionStore;
  beforeAll(() => {
    store = storeWith();
  });
  const pointerKey = (run: StoredRun) =>
    keys.openRun(run.driver.state.domain, run.driver.state.execution.workflowId);
  const readPointer = async (run: StoredRun) =>
    (await table.doc.get({ TableName: table.tableName, Key: pointerKey(run) })).Item;
  const putPointer = (run: StoredRun, runId: string, since: number) =>
    table.doc.put({
      TableName: table.tableName,
      Item: { ...pointerKey(run), entity: 'OpenRun', runId, since },
    });
  /** A new run of its own workflowId, not committed yet. */
  /** A run to start (of `workflowId`, after `previous` closed: a start is not dated before it). */
  const newRun = (
    name: string,
    workflowId = `wf-${randomBytes(6).toString('hex')}`,
    previous?: StoredRun,
  ) => {
    const startAt = previous === undefined ? undefined : previous.driver.now + 1;
    const run = new StoredRun(store, `${name}-${randomBytes(6).toString('hex')}`, startAt);
    const execution = { ...run.driver.state.execution, workflowId };
    run.driver.state = { ...run.driver.state, execution };
    return run;
  };
  const pointer = (kind: 'acquire', run: StoredRun) => ({
    kind,
    domain: run.driver.state.domain,
    workflowId: run.driver.state.execution.workflowId,
    runId: run.runId,
    startedAt: run.driver.state.startTimestamp,
  });
  const startWrite = (run: StoredRun): RunWrite => ({
    state: run.driver.state,
    events: run.driver.history,
    queue: queueChanges(undefined, run.driver.state),
  });
  /** Closes a started run (terminates it), which leaves its pointer. */
  async function close(run: StoredRun) {
    const loaded = await store.loadRun(run.runId);
    if (loaded === undefined) throw new Error('not started');
    const before = run.driver.history.length;
    run.driver.terminate();
    const write: RunWrite = {
      state: run.driver.state,
      events: run.driver.history.slice(before),
      queue: queueChanges(loaded.state, run.driver.state),
      base: loaded,
    };
    expect(await store.commit([write], [])).toBe('committed');
  }

  it("is put by a start, with an expiry past the run's timeout, and blocks a second start", async () => {
    const run = newRun('plain');
    expect(await store.commit([startWrite(run)], [pointer('acquire', run)])).toBe('committed');
    expect(
      await store.findOpenRun(run.driver.state.domain, run.driver.state.execution.workflowId),
    ).toBe(run.runId);
    const { startTimestamp, config } = run.driver.state;
    expect((await readPointer(run))?.expiresAt).toBe(
      Math.ceil(startTimestamp + Number(config.executionStartToCloseTimeout) + 86_400),
    );
    const again = newRun('again', run.driver.state.execution.workflowId);
    expect(await store.commit([startWrite(again)], [pointer('acquire', again)])).toBe(
      'already-open',
    );
    expect(await store.loadRun(again.runId)).toBeUndefined();
  });

  it('is left by the close, and taken over by the next start of the workflowId', async () => {
    const first = newRun('closed');
    expect(await store.commit([startWrite(first)], [pointer('acquire', first)])).toBe('committed');
    await close(first);
    expect((await readPointer(first))?.runId).toBe(first.runId);
    const second = newRun('next', first.driver.state.execution.workflowId, first);
    expect(await store.commit([startWrite(second)], [pointer('acquire', second)])).toBe(
      'committed',
    );
    expect((await readPointer(first))?.runId).toBe(second.runId);
    await close(second);
    const third = newRun('third', first.driver.state.execution.workflowId, second);
    expect(await store.commit([startWrite(third)], [pointer('acquire', third)])).toBe('committed');
    expect((await readPointer(first))?.runId).toBe(third.runId);
  });

  it('is taken over at once when it names a run never written, which then can never be written', async () => {
    // A start that wrote its pointer a moment ago, and crashed (or is slow) before its run's state.
    const run = newRun('after-ghost');
    const ghost = newRun('ghost', run.driver.state.execution.workflowId);
    await putPointer(run, ghost.runId, Date.now() / 1000);
    expect(await store.commit([startWrite(run)], [pointer('acquire', run)])).toBe('committed');
    expect((await readPointer(run))?.runId).toBe(run.runId);
    // The start that wrote the pointer, coming to its state late: refused, so that the workflowId
    // never has two open runs.
    expect(await store.commit([startWrite(ghost)], [])).toBe('conflict');
    expect(await store.loadRun(ghost.runId)).toBeUndefined();
    // A pointer written before pointers had a time is taken over alike.
    const older = newRun('after-untimed');
    await table.doc.put({
      TableName: table.tableName,
      Item: { ...pointerKey(older), entity: 'OpenRun', runId: 'ghost-untimed' },
    });
    expect(await store.commit([startWrite(older)], [pointer('acquire', older)])).toBe('committed');
  });

  it('is not taken over when the run it names is written as the next start looks', async () => {
    // The fence and the slow start's state race for the same item: the state won, so the run is open.
    const slow = newRun('slow');
    const { workflowId } = slow.driver.state.execution;
    await putPointer(slow, slow.runId, Date.now() / 1000);
    let written = false;
    const doc = table.doc;
    const racing = new DynamoExecutionStore({
      tableName: table.tableName,
      doc: {
        get: async (input) => {
          const answer = await doc.get(input);
          // The next start has read the pointer and found no run: the slow start's state lands now.
          if (!written && String(input.Key?.pk).startsWith('RUN|')) {
            written = true;
            expect(await store.commit([startWrite(slow)], [])).toBe('committed');
          }
          return answer;
        },
        put: (input) => doc.put(input),
        update: (input) => doc.update(input),
        delete: (input) => doc.delete(input),
        query: (input) => doc.query(input),
        scan: (input) => doc.scan(input),
        transactWrite: (input) => doc.transactWrite(input),
        batchWrite: (input) => doc.batchWrite(input),
      },
    });
    const next = newRun('next', workflowId);
    expect(await racing.commit([startWrite(next)], [pointer('acquire', next)])).toBe(
      'already-open',
    );
    expect(written).toBe(true);
    expect((await store.loadRun(slow.runId))?.state.status).toBe('OPEN');
    expect(await store.loadRun(next.runId)).toBeUndefined();
    expect((await readPointer(slow))?.runId).toBe(slow.runId);
  });

  it('is given back by a start whose state was not written', async () => {
    const existing = newRun('exists');
    expect(await store.commit([startWrite(existing)], [])).toBe('committed');
    // The same runId started again under another workflowId: its state's put finds the run there.
    const clash = newRun('clash');
    clash.driver.state = {
      ...clash.driver.state,
      execution: { ...clash.driver.state.execution, runId: existing.runId },
    };
    expect(await store.commit([startWrite(clash)], [pointer('acquire', clash)])).toBe('conflict');
    expect(await readPointer(clash)).toBeUndefined();
  });

  it('is not taken over by a start dated before the close of the run it names', async () => {
    const first = newRun('closing');
    expect(await store.commit([startWrite(first)], [pointer('acquire', first)])).toBe('committed');
    // A start that read its clock, then lost the race to the close: the run was open at its time.
    const early = newRun('early', first.driver.state.execution.workflowId);
    await close(first);
    expect(await store.commit([startWrite(early)], [pointer('acquire', early)])).toBe(
      'already-open',
    );
    expect(await store.loadRun(early.runId)).toBeUndefined();
    const later = newRun('later', first.driver.state.execution.workflowId, first);
    expect(await store.commit([startWrite(later)], [pointer('acquire', later)])).toBe('committed');
  });

  it('is taken over inside a transaction too (a child started with its parent)', async () => {
    const parent = newRun('parent');
    await parent.commit();
    const stale = newRun('stale-child');
    expect(await store.commit([startWrite(stale)], [pointer('acquire', stale)])).toBe('committed');
    await close(stale);
    const child = newRun('child', stale.driver.state.execution.workflowId, stale);
    const loaded = await store.loadRun(parent.runId);
    if (loaded === undefined) throw new Error('no parent');
    const before = parent.driver.history.length;
    parent.driver.signal('child started');
    const parentWrite: RunWrite = {
      state: parent.driver.state,
      events: parent.driver.history.slice(before),
      queue: queueChanges(loaded.state, parent.driver.state),
      base: loaded,
    };
    expect(await store.commit([parentWrite, startWrite(child)], [pointer('acquire', child)])).toBe(
      'committed',
    );
    expect((await readPointer(child))?.runId).toBe(child.runId);
    // With the child open, the next such transaction finds the workflowId taken.
    const third = newRun('third', child.driver.state.execution.workflowId);
    const reloaded = await store.loadRun(parent.runId);
    if (reloaded === undefined) throw new Error('no parent');
    const again: RunWrite = { ...parentWrite, base: reloaded, events: [] };
    expect(await store.commit([again, startWrite(third)], [pointer('acquire', third)])).toBe(
      'already-open',
    );
    expect(await store.loadRun(third.runId)).toBeUndefined();
  });
});

describe('dead letters', () => {
  it("keep the start of a record too big for one item (a run's, with both its images)", async () => {
    const store = storeWith();
    const id = `letter-${randomBytes(4).toString('hex')}`;
    const record = randomBytes(600_000).toString('base64');
    await store.putDeadLetter(id, record, 'Error: it failed');
    const letter = (await store.listDeadLetters()).find((l) => l.id === id);
    expect(letter?.record.startsWith(record.slice(0, 65_536))).toBe(true);
    expect(letter?.record.length).toBeLessThan(70_000);
    expect(letter?.error).toBe('Error: it failed');
  });

  it('are all listed, past the megabyte one page of a Query holds', async () => {
    // Each letter keeps up to 64 K characters of its record: 20 of them are over 1 MB, and a Query
    // answers at most 1 MB a page (LastEvaluatedKey tells where the next one starts).
    const { tableName, doc, client } = await freshTable('letters');
    client.destroy();
    const store = new DynamoExecutionStore({ doc, tableName });
    try {
      const ids = Array.from({ length: 20 }, (_, i) => `letter-${i}`);
      for (const id of ids)
        await store.putDeadLetter(id, randomBytes(60_000).toString('base64'), 'Error: it failed');
      const listed = (await store.listDeadLetters()).map((l) => l.id);
      expect(listed.sort()).toEqual([...ids].sort());
    } finally {
      doc.destroy();
    }
  });
});
