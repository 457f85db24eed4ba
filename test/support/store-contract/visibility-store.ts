/**
 * What every VisibilityStore answers, run against each implementation: the DynamoDB adapter
 * (test/integration/visibility-store.test.ts) and the in-memory fake the fast tests use
 * (test/unit/fakes/visibility-store.test.ts). A fake that drifts from the adapter fails here.
 */
import { describe, expect, it } from 'vitest';
import type { CloseStatus, ExecutionState } from '../../../lib/core/execution-state.js';
import { startRun } from '../../../lib/core/executions.js';
import {
  type VisibilityFilter,
  type VisibilityList,
  visibilityRows,
  visibilityWrites,
} from '../../../lib/core/visibility.js';
import type { VisibilityQuery, VisibilityStore } from '../../../lib/ports/visibility-store.js';
import { runConfig } from '../core-builders.js';

export interface VisibilityStoreOptions {
  /** The clock retention is judged by (epoch seconds). */
  readonly nowSeconds: () => number;
  readonly maxCount?: number;
}

const NOW = 1_800_000_000;
const DAY = 86_400;

interface RunSpec {
  readonly runId: string;
  readonly start: number;
  readonly close?: number;
  readonly closeStatus?: CloseStatus;
  readonly version?: string;
  readonly tags?: readonly string[];
  readonly domain?: string;
}

function stateOf(spec: RunSpec): ExecutionState {
  const open = startRun(
    {
      domain: spec.domain ?? 'vis',
      execution: { workflowId: `wf-${spec.runId}`, runId: spec.runId },
      workflowType: { name: 'type', version: spec.version ?? '1' },
      config: runConfig,
      ...(spec.tags === undefined ? {} : { tagList: spec.tags }),
    },
    spec.start,
  ).state;
  return spec.close === undefined
    ? open
    : {
        ...open,
        status: 'CLOSED',
        closeStatus: spec.closeStatus ?? 'COMPLETED',
        closeTimestamp: spec.close,
      };
}

/** Writes a run's rows as the outbox does, closed rows expiring a day after the close. */
async function put(store: VisibilityStore, spec: RunSpec): Promise<ExecutionState> {
  const state = stateOf(spec);
  const expiresAt = spec.close === undefined ? undefined : spec.close + DAY;
  await store.apply(visibilityWrites(undefined, state, state), expiresAt);
  return state;
}

const query = (
  list: VisibilityList,
  filter: VisibilityFilter = { kind: 'all' },
  extra: Partial<VisibilityQuery> = {},
): VisibilityQuery => ({
  domain: 'vis',
  list,
  filter,
  range: { oldest: 0 },
  retention: DAY,
  ...extra,
});

/** The runIds of every page of a listing, `limit` at a time. */
async function runIds(
  store: VisibilityStore,
  q: VisibilityQuery,
  limit = 100,
  reverse = false,
): Promise<string[]> {
  const ids: string[] = [];
  for (let after: string | undefined, pages = 0; pages < 100; pages++) {
    const page = await store.list(q, { limit, reverse, ...(after === undefined ? {} : { after }) });
    ids.push(...page.infos.map((i) => i.execution.runId));
    if (page.next === undefined) return ids;
    expect(page.infos).toHaveLength(limit);
    after = page.next;
  }
  throw new Error('the listing never ended');
}

export function visibilityStoreContract(
  newStore: (options: VisibilityStoreOptions) => Promise<VisibilityStore>,
): void {
  const store = () => newStore({ nowSeconds: () => NOW });

  it('lists open runs newest first, oldest first when reversed, a page at a time', async () => {
    const s = await store();
    for (const [runId, start] of [
      ['r1', NOW - 50],
      ['r2', NOW - 30],
      ['r3', NOW - 40],
      ['r4', NOW - 10],
    ] as const)
      await put(s, { runId, start });
    expect(await runIds(s, query('open'))).toEqual(['r4', 'r2', 'r3', 'r1']);
    expect(await runIds(s, query('open'), 3)).toEqual(['r4', 'r2', 'r3', 'r1']);
    expect(await runIds(s, query('open'), 1, true)).toEqual(['r1', 'r3', 'r2', 'r4']);
    const full = await s.list(query('open'), { limit: 4, reverse: false });
    expect(full.next).toBeUndefined();
    expect(full.infos[0]).toMatchObject({
      execution: { workflowId: 'wf-r4', runId: 'r4' },
      executionStatus: 'OPEN',
      startTimestamp: NOW - 10,
    });
    expect(await s.count(query('open'))).toEqual({ count: 4, truncated: false });
  });

  it('keeps a time range inclusive, to the millisecond', async () => {
    const s = await store();
    await put(s, { runId: 'early', start: NOW - 100.002 });
    await put(s, { runId: 'edge', start: NOW - 100 });
    await put(s, { runId: 'late', start: NOW - 99.998 });
    const range = (oldest: number, latest: number) =>
      runIds(s, query('open', { kind: 'all' }, { range: { oldest, latest } }));
    expect(await range(NOW - 100, NOW - 100)).toEqual(['edge']);
    expect(await range(NOW - 100.002, NOW - 100)).toEqual(['edge', 'early']);
    expect(await range(NOW - 100.0015, NOW - 99.998)).toEqual(['late', 'edge']);
    // Bounds inside one millisecond hold no whole millisecond: no row.
    expect(await range(NOW - 100.0004, NOW - 100.0001)).toEqual([]);
    expect(await range(NOW, NOW - 1)).toEqual([]);
  });

  it('answers each filter from its own rows, a type name from its versions', async () => {
    const s = await store();
    await put(s, { runId: 'a', start: NOW - 9, version: '1', tags: ['red', 'red'] });
    await put(s, { runId: 'b', start: NOW - 8, version: '2', tags: ['blue'] });
    await put(s, { runId: 'c', start: NOW - 7, version: '3' });
    await put(s, { runId: 'other', start: NOW - 6, domain: 'elsewhere' });
    expect(await runIds(s, query('open', { kind: 'tag', tag: 'red' }))).toEqual(['a']);
    expect(
      await runIds(s, query('open', { kind: 'typeVersion', name: 'type', version: '2' })),
    ).toEqual(['b']);
    const byName = query('open', { kind: 'type', name: 'type' }, { versions: ['1', '2'] });
    expect(await runIds(s, byName)).toEqual(['b', 'a']);
    expect(await runIds(s, byName, 1)).toEqual(['b', 'a']);
    expect(await s.count(byName)).toEqual({ count: 2, truncated: false });
    expect(await runIds(s, query('open'))).toEqual(['c', 'b', 'a']);
  });

  it('lists closed runs by start and by close time, by workflowId and by close status', async () => {
    const s = await store();
    await put(s, { runId: 'done', start: NOW - 300, close: NOW - 10 });
    await put(s, { runId: 'failed', start: NOW - 200, close: NOW - 100, closeStatus: 'FAILED' });
    await put(s, { runId: 'open', start: NOW - 50 });
    expect(await runIds(s, query('closed-by-start'))).toEqual(['failed', 'done']);
    expect(await runIds(s, query('closed-by-close'))).toEqual(['done', 'failed']);
    const status = (closeStatus: CloseStatus) =>
      runIds(s, query('closed-by-close', { kind: 'closeStatus', status: closeStatus }));
    expect(await status('COMPLETED')).toEqual(['done']);
    expect(await status('FAILED')).toEqual(['failed']);
    expect(await status('TIMED_OUT')).toEqual([]);
    expect(
      await runIds(s, query('closed-by-start', { kind: 'workflowId', workflowId: 'wf-done' })),
    ).toEqual(['done']);
    expect(
      await s.count(query('closed-by-start', { kind: 'closeStatus', status: 'COMPLETED' })),
    ).toEqual({ count: 1, truncated: false });
  });

  it('hides closed runs past their retention', async () => {
    const s = await store();
    await put(s, { runId: 'kept', start: NOW - 3 * DAY, close: NOW - DAY / 2 });
    await put(s, { runId: 'expired', start: NOW - 3 * DAY, close: NOW - 2 * DAY });
    expect(await runIds(s, query('closed-by-start'))).toEqual(['kept']);
    expect(await runIds(s, query('closed-by-close'))).toEqual(['kept']);
    expect(await s.count(query('closed-by-close'))).toEqual({ count: 1, truncated: false });
  });

  it('moves a run from the open lists to the closed ones, and removes rows a change takes away', async () => {
    const s = await store();
    const open = await put(s, { runId: 'r', start: NOW - 60, tags: ['t'] });
    const closed = stateOf({ runId: 'r', start: NOW - 60, close: NOW - 5, tags: ['t'] });
    await s.apply(visibilityWrites(open, closed, closed), NOW + DAY);
    expect(await runIds(s, query('open'))).toEqual([]);
    expect(await runIds(s, query('closed-by-close', { kind: 'tag', tag: 't' }))).toEqual(['r']);
    // A replayed change is harmless: the rows of what the run is now stay as they are.
    await s.apply(visibilityWrites(undefined, open, closed), undefined);
    expect(await runIds(s, query('open'))).toEqual([]);
    expect(await runIds(s, query('closed-by-start'))).toEqual(['r']);
    await s.apply(
      { put: [], remove: visibilityRows(closed), info: { ...open } as never },
      undefined,
    );
    expect(await runIds(s, query('closed-by-start'))).toEqual([]);
  });

  it('stops counting at its cap, and says so', async () => {
    const s = await newStore({ nowSeconds: () => NOW, maxCount: 3 });
    for (let i = 0; i < 5; i++) await put(s, { runId: `r${i}`, start: NOW - i });
    expect(await s.count(query('open'))).toEqual({ count: 3, truncated: true });
    expect(await s.count(query('open', { kind: 'all' }, { range: { oldest: NOW - 2 } }))).toEqual({
      count: 3,
      truncated: false,
    });
  });

  describe('a page cursor', () => {
    it('goes on after rows written since the page before', async () => {
      const s = await store();
      await put(s, { runId: 'r1', start: NOW - 30 });
      await put(s, { runId: 'r2', start: NOW - 20 });
      const first = await s.list(query('open'), { limit: 1, reverse: false });
      expect(first.infos.map((i) => i.execution.runId)).toEqual(['r2']);
      await put(s, { runId: 'newest', start: NOW - 1 });
      const second = await s.list(query('open'), {
        limit: 5,
        reverse: false,
        ...(first.next === undefined ? {} : { after: first.next }),
      });
      expect(second.infos.map((i) => i.execution.runId)).toEqual(['r1']);
    });
  });
}
