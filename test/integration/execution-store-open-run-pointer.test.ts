/**
 * The execution store's open-run pointer against DynamoDB Local: the item that names a workflowId's
 * open run, put by its start, left by its close, and taken over only when it is safe to.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoExecutionStore } from '../../lib/adapters/dynamodb/execution-store.js';
import { keys } from '../../lib/adapters/dynamodb/keys.js';
import { queueChanges } from '../../lib/core/task-queue.js';
import type { RunWrite } from '../../lib/ports/run-store.js';
import { executionStoreTable, StoredRun } from '../support/stored-run.js';

const { table, storeWith } = executionStoreTable('exec-store-pointer');

describe("a workflowId's open-run pointer, written around its run's commits", () => {
  let store: DynamoExecutionStore;
  beforeAll(() => {
    store = storeWith();
  });
  const pointerKey = (run: StoredRun) =>
    keys.openRun(run.driver.state.domain, run.driver.state.execution.workflowId);
  const readPointer = async (run: StoredRun) =>
    (await table().doc.get({ TableName: table().tableName, Key: pointerKey(run) })).Item;
  const putPointer = (run: StoredRun, runId: string, since: number) =>
    table().doc.put({
      TableName: table().tableName,
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
    await table().doc.put({
      TableName: table().tableName,
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
    const doc = table().doc;
    const racing = new DynamoExecutionStore({
      tableName: table().tableName,
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
