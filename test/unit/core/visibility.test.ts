import { describe, expect, it } from 'vitest';
import { keys } from '../../../lib/adapters/dynamodb/keys.js';
import { completeDecisionTask, startDecisionTask } from '../../../lib/core/decision-tasks.js';
import type { ExecutionState } from '../../../lib/core/execution-state.js';
import {
  requestCancelExecution,
  signalExecution,
  startRun,
  terminateExecution,
} from '../../../lib/core/executions.js';
import { outboxEffects } from '../../../lib/core/outbox.js';
import {
  expiryOf,
  latestExpiry,
  retentionSeconds,
  rowId,
  STATUS_READ_FROM_ALL,
  upFrontExpiry,
  type VisibilityRow,
  visibilityChanged,
  visibilityRows,
  visibilityWrites,
} from '../../../lib/core/visibility.js';
import {
  DOMAIN,
  RUN_ID,
  runConfig,
  T0,
  typeLookup,
  WORKFLOW_ID,
} from '../../support/core-builders.js';

const TYPE = { name: 'order', version: '2' };

function opened(tagList: readonly string[] = ['red', 'blue']): ExecutionState {
  return startRun(
    {
      domain: DOMAIN,
      execution: { workflowId: WORKFLOW_ID, runId: RUN_ID },
      workflowType: TYPE,
      config: runConfig,
      tagList,
    },
    T0 + 0.25,
  ).state;
}

const closed = (state: ExecutionState, at = T0 + 10.5) =>
  terminateExecution(state, { reason: 'done' }, at).state;

/** The run completed by its decider at T0 + 10.5. */
function completeExecution(state: ExecutionState): ExecutionState {
  const started = startDecisionTask(state, 'decider', T0 + 5);
  return completeDecisionTask(
    started.state,
    { decisions: [{ decisionType: 'CompleteWorkflowExecution', attributes: {} }] },
    typeLookup(),
    { now: T0 + 10.5, newRunId: () => 'next' },
  ).transition.state;
}

/** A row as `[list, filter kind and value, time]`, for readable expectations. */
const describeRow = (r: VisibilityRow) => [r.list, Object.values(r.filter).join(':'), r.time];
const ids = (rows: readonly VisibilityRow[]) => rows.map(rowId).sort();

describe('visibility rows', () => {
  it('gives an open run one start-time row per filter value, tags deduplicated', () => {
    const rows = visibilityRows(opened(['red', 'blue', 'red']));
    // A workflowId's open run is found through its open-run pointer; a type name's listing merges
    // the rows of its versions.
    expect(rows.map(describeRow)).toEqual([
      ['open', 'all', T0 + 0.25],
      ['open', 'typeVersion:order:2', T0 + 0.25],
      ['open', 'tag:red', T0 + 0.25],
      ['open', 'tag:blue', T0 + 0.25],
    ]);
    expect(rows.every((r) => r.domain === DOMAIN && r.runId === RUN_ID)).toBe(true);
  });

  it('gives a closed run rows by start and by close time, with its close status', () => {
    const rows = visibilityRows(closed(opened(['red'])));
    const byStart = rows.filter((r) => r.list === 'closed-by-start');
    const byClose = rows.filter((r) => r.list === 'closed-by-close');
    expect(byStart.map((r) => Object.values(r.filter).join(':'))).toEqual([
      'all',
      `workflowId:${WORKFLOW_ID}`,
      'typeVersion:order:2',
      'tag:red',
      'closeStatus:TERMINATED',
    ]);
    expect(byStart.every((r) => r.time === T0 + 0.25)).toBe(true);
    expect(byClose.map((r) => r.filter)).toEqual(byStart.map((r) => r.filter));
    expect(byClose.every((r) => r.time === T0 + 10.5)).toBe(true);
    expect(rows.some((r) => r.list === 'open')).toBe(false);
  });

  it('gives a completed run no close-status rows: COMPLETED is read from the rows of all runs', () => {
    const done = completeExecution(opened([]));
    expect(done.closeStatus).toBe(STATUS_READ_FROM_ALL);
    const filters = visibilityRows(done).map(
      (r) => `${r.list} ${Object.values(r.filter).join(':')}`,
    );
    expect(filters).toEqual([
      'closed-by-start all',
      'closed-by-close all',
      `closed-by-start workflowId:${WORKFLOW_ID}`,
      `closed-by-close workflowId:${WORKFLOW_ID}`,
      'closed-by-start typeVersion:order:2',
      'closed-by-close typeVersion:order:2',
    ]);
  });
});

describe('visibilityChanged', () => {
  it('is true for a new run, a cancel request and a close; false for changes a listing does not show', () => {
    const start = opened();
    expect(visibilityChanged(undefined, start)).toBe(true);
    const signaled = signalExecution(start, { signalName: 's' }, T0 + 1).state;
    expect(visibilityChanged(start, signaled)).toBe(false);
    const cancel = requestCancelExecution(signaled, {}, T0 + 2).state;
    expect(visibilityChanged(signaled, cancel)).toBe(true);
    expect(visibilityChanged(cancel, closed(cancel))).toBe(true);
  });
});

describe('visibilityWrites', () => {
  it('puts the rows of a new run', () => {
    const start = opened();
    const writes = visibilityWrites(undefined, start, start);
    expect(ids(writes.put)).toEqual(ids(visibilityRows(start)));
    expect(writes.remove).toEqual([]);
    expect(writes.info).toMatchObject({ executionStatus: 'OPEN', tagList: ['red', 'blue'] });
  });

  it('replaces the open rows by closed ones when a run closes', () => {
    const start = opened();
    const end = closed(start);
    const writes = visibilityWrites(start, end, end);
    expect(ids(writes.put)).toEqual(ids(visibilityRows(end)));
    expect(ids(writes.remove)).toEqual(ids(visibilityRows(start)));
    expect(writes.info).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'TERMINATED' });
  });

  it('puts nothing for a record the run has moved past, and removes only rows it no longer has', () => {
    const start = opened();
    const end = closed(start);
    // The start record handled (or replayed) after the run closed: no open rows come back.
    const late = visibilityWrites(undefined, start, end);
    expect(late.put).toEqual([]);
    expect(ids(late.remove)).toEqual(ids(visibilityRows(start)));
    // The close record replayed: the closed rows it writes are the current ones, nothing else.
    const replayed = visibilityWrites(start, end, end);
    const current = new Set(ids(visibilityRows(end)));
    expect(replayed.remove.some((r) => current.has(rowId(r)))).toBe(false);
  });

  it('removes every row of a run that is gone (past its retention)', () => {
    const start = opened();
    const end = closed(start);
    const writes = visibilityWrites(start, end, undefined);
    expect(writes.put).toEqual([]);
    expect(ids(writes.remove)).toEqual(ids([...visibilityRows(start), ...visibilityRows(end)]));
  });
});

describe('retention', () => {
  it('reads the domain retention in days, NONE and 0 keeping nothing', () => {
    expect(retentionSeconds('NONE')).toBe(0);
    expect(retentionSeconds('0')).toBe(0);
    expect(retentionSeconds('1')).toBe(86_400);
    expect(retentionSeconds('90')).toBe(90 * 86_400);
  });

  it('expires a closed run its retention after the close, in whole seconds; an open one never', () => {
    const start = opened();
    expect(expiryOf(start, 86_400)).toBeUndefined();
    expect(expiryOf(closed(start, T0 + 10.5), 86_400)).toBe(T0 + 11 + 86_400);
    expect(expiryOf(closed(start, T0 + 10), 0)).toBe(T0 + 10);
    // A retention of 0 keeps nothing after the close, not until the next whole second.
    expect(expiryOf(closed(start, T0 + 10.5), 0)).toBe(T0 + 10);
  });
});

describe('outbox effects', () => {
  it('syncs visibility on start, cancel request and close, and expires the run on close', () => {
    const start = opened();
    const kinds = (before: ExecutionState | undefined, after: ExecutionState) =>
      outboxEffects(before, after)
        .map((e) => e.kind)
        .filter((k) => k === 'sync-visibility' || k === 'expire-run');
    expect(kinds(undefined, start)).toEqual(['sync-visibility']);
    const signaled = signalExecution(start, { signalName: 's' }, T0 + 1).state;
    expect(kinds(start, signaled)).toEqual([]);
    const cancel = requestCancelExecution(signaled, {}, T0 + 2).state;
    expect(kinds(signaled, cancel)).toEqual(['sync-visibility']);
    const end = closed(cancel);
    expect(kinds(cancel, end)).toEqual(['sync-visibility', 'expire-run']);
    // A record that changes nothing (the TTL attribute being set on the state item) asks for nothing.
    expect(kinds(end, end)).toEqual([]);
  });
});

describe('visibility keys', () => {
  it('sorts rows by time, then runId, and bounds an inclusive range of fractional seconds', () => {
    const at = 1_326_592_619.474;
    const row = keys.visibilitySort(at, 'r');
    const { low, high } = keys.visibilityRange(at, at);
    expect(low <= row && row <= high).toBe(true);
    const later = keys.visibilitySort(at + 0.001, 'a');
    const earlier = keys.visibilitySort(at - 0.001, 'z');
    expect(later > high).toBe(true);
    expect(earlier < low).toBe(true);
    expect([later, row, earlier].sort()).toEqual([earlier, row, later]);
    // A bound between two milliseconds rounds inward.
    const between = keys.visibilityRange(at + 0.0004, at + 0.9996);
    expect(row < between.low).toBe(true);
    expect(keys.visibilitySort(at + 0.001, 'x') >= between.low).toBe(true);
    expect(keys.visibilitySort(at + 0.999, 'x') <= between.high).toBe(true);
    expect(keys.visibilitySort(at + 1, 'x') > between.high).toBe(true);
  });

  it('has no upper bound without a latestDate, and clamps times before the epoch', () => {
    const { low, high } = keys.visibilityRange(-5, undefined);
    expect(low).toBe('0000000000000000|');
    expect(keys.visibilitySort(4_000_000_000, 'r') < high).toBe(true);
  });

  it('shards every filter but a workflowId, and keeps tags with | unambiguous', () => {
    const all = keys.visibilityPartition('open', 'd', { kind: 'all' }, 3);
    expect(all).toBe('V|O|d|A|3');
    const byId = keys.visibilityPartition(
      'closed-by-close',
      'd',
      { kind: 'workflowId', workflowId: 'w' },
      3,
    );
    expect(byId).toBe('V|CC|d|W|w');
    const tagged = keys.visibilityPartition('closed-by-start', 'd', { kind: 'tag', tag: 'a|1' }, 2);
    expect(tagged).toBe('V|CS|d|G|a|1|2');
    // The shard is always the last segment, so (tag, shard) pairs never share a key.
    const partitions = ['a', 'a|1', 'a|1|2', '1', ''].flatMap((tag) =>
      [0, 1, 2, 3].map((shard) =>
        keys.visibilityPartition('closed-by-start', 'd', { kind: 'tag', tag }, shard),
      ),
    );
    expect(new Set(partitions).size).toBe(partitions.length);
  });
});

describe('expiry written up front', () => {
  const DAY = 86_400;
  const open = (executionStartToCloseTimeout: string): ExecutionState =>
    ({
      status: 'OPEN',
      startTimestamp: T0,
      config: { ...runConfig, executionStartToCloseTimeout },
    }) as ExecutionState;

  it("gives an open run's history the latest the run can close plus the retention", () => {
    expect(upFrontExpiry(open('3600'), 2 * DAY)).toEqual({ history: T0 + 3600 + 2 * DAY });
  });

  it('gives a closed run its expiry for every item the write makes', () => {
    const closed = {
      ...open('3600'),
      status: 'CLOSED',
      closeTimestamp: T0 + 10.2,
    } as ExecutionState;
    expect(upFrontExpiry(closed, DAY)).toEqual({ history: T0 + 11 + DAY, state: T0 + 11 + DAY });
  });

  it('leaves it to the close when the run may stay open long, or nothing is retained', () => {
    expect(upFrontExpiry(open(String(8 * DAY)), DAY)).toEqual({});
    expect(upFrontExpiry(open('NONE'), DAY)).toEqual({});
    expect(upFrontExpiry(open('3600'), 0)).toEqual({});
  });
});

describe('latest expiry of a run', () => {
  const run = (executionStartToCloseTimeout: string) =>
    ({
      startTimestamp: T0 + 0.5,
      config: { ...runConfig, executionStartToCloseTimeout },
    }) as ExecutionState;

  it('is its start plus its execution timeout plus the retention, whole seconds', () => {
    expect(latestExpiry(run('3600'), 86_400)).toBe(T0 + 1 + 3600 + 86_400);
    expect(latestExpiry(run('3600'), 0)).toBe(T0 + 1 + 3600);
  });

  it("counts an execution timeout of NONE as SWF's one-year limit", () => {
    expect(latestExpiry(run('NONE'), 86_400)).toBe(T0 + 1 + 31_536_000 + 86_400);
  });
});
