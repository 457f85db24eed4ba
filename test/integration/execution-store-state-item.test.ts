/**
 * The execution store's run state item against DynamoDB Local: its version, which grows with every
 * commit, and a state too big for its item, written apart and read back whole.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keys } from '../../lib/adapters/dynamodb/keys.js';
import type { ExecutionState } from '../../lib/core/execution-state.js';
import type { LoadedRun, RunWrite } from '../../lib/ports/run-store.js';
import {
  executionStoreTable,
  StoredRun,
  stateItem,
  stateItemBytes,
} from '../support/stored-run.js';

const { table, storeWith } = executionStoreTable('exec-store-state');

/** A run state whose latest execution context (any large member would do) deflate cannot shrink. */
const withContext = (state: ExecutionState, bytes: number): ExecutionState => ({
  ...state,
  latestExecutionContext: randomBytes(bytes).toString('base64'),
});

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
      await table().doc.update({
        TableName: table().tableName,
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
    const item = await stateItem(table(), run.runId);
    expect(item.state).toBeUndefined();
    expect(item.parts).toBe(3);
    expect(await stateItemBytes(table(), run.runId)).toBeLessThan(4096);
    // A change record names the parts: the stream handler reads them.
    expect(await store.readStateApart(run.runId, String(item.apart))).toEqual(run.driver.state);
    expect((await store.scanOpenRuns()).find((s) => s.execution.runId === run.runId)).toEqual(
      run.driver.state,
    );

    run.driver.state = { ...run.driver.state, latestExecutionContext: 'small' };
    await run.commit((d) => d.signal('shrunk'));
    expect(run.loaded?.state).toEqual(run.driver.state);
    expect((await stateItem(table(), run.runId)).apart).toBeUndefined();
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
