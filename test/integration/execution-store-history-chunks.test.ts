/**
 * The execution store against DynamoDB Local: a run's latest events live in its state item until they
 * outgrow it, then move to a history chunk written before the commit. Whatever the split, every read
 * of the history sees every event once, in order, and a writer holding an older version never loses
 * events another writer moved.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { LoadedRun } from '../../lib/ports/run-store.js';
import { type RunDriver, recordMarker, scheduleActivity } from '../support/core-builders.js';
import {
  chunksOf,
  executionStoreTable,
  readPaged,
  StoredRun,
  stateItemBytes,
} from '../support/stored-run.js';

const { table, storeWith } = executionStoreTable('exec-store-history');

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

    const chunks = await chunksOf(table(), run.runId);
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
        expect(await stateItemBytes(table(), run.runId)).toBeLessThanOrEqual(1024);
    }
    expect(await run.readAll()).toEqual(run.driver.history);
    expect((await chunksOf(table(), run.runId)).length).toBeGreaterThan(0);
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
    expect(await stateItemBytes(table(), run.runId)).toBeLessThan(4096);
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
    expect((await chunksOf(table(), run.runId)).length).toBe(4);
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
    const moved = await chunksOf(table(), run.runId);
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
    expect(await chunksOf(table(), run.runId)).toEqual(moved);
    expect(await run.readAll()).toEqual(run.driver.history);
  });
});
