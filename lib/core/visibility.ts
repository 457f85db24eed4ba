/**
 * Visibility: which listing rows an execution has is a function of its state.
 * Every filter SWF offers gets its own rows, sorted by time, so that every List/Count is a Query that
 * reads what it returns: open rows by start time; closed rows both by start and by close time. Two
 * filters are answered from rows kept for others: a workflowId has at most one open run, which its
 * open-run pointer names already, so open runs have no workflowId rows (ListOpen/CountOpen with an
 * executionFilter read the pointer); a type name's rows are the rows of its versions, merged (a
 * typeFilter without a version reads every version's rows), so there are no rows by name alone; and
 * COMPLETED, the close status of most executions, is read from the closed rows of all executions,
 * filtered by status, so only the other close statuses have rows of their own.
 */
import type { ExecutionState } from './execution-state.js';
import type { ExecutionRef, TypeRef } from './history-event.js';
import { executionTimeoutSeconds } from './limits.js';

/** WorkflowExecutionInfo as ListOpen/ListClosedWorkflowExecutions return it (timestamps epoch seconds). */
export interface ExecutionInfo {
  readonly execution: ExecutionRef;
  readonly workflowType: TypeRef;
  readonly startTimestamp: number;
  readonly closeTimestamp?: number;
  readonly executionStatus: 'OPEN' | 'CLOSED';
  readonly closeStatus?: string;
  readonly parent?: ExecutionRef;
  readonly tagList?: readonly string[];
  readonly cancelRequested: boolean;
}

export function executionInfo(state: ExecutionState): ExecutionInfo {
  return {
    execution: state.execution,
    workflowType: state.workflowType,
    startTimestamp: state.startTimestamp,
    ...(state.closeTimestamp === undefined ? {} : { closeTimestamp: state.closeTimestamp }),
    executionStatus: state.status,
    ...(state.closeStatus === undefined ? {} : { closeStatus: state.closeStatus }),
    ...(state.parent === undefined ? {} : { parent: state.parent.execution }),
    ...(state.tagList.length === 0 ? {} : { tagList: state.tagList }),
    cancelRequested: state.cancelRequested,
  };
}

/** Which list a row belongs to: open by start time, closed by start time, closed by close time. */
export type VisibilityList = 'open' | 'closed-by-start' | 'closed-by-close';

/** The filter a row answers: at most one filter per request, so one row per filter value. */
export type VisibilityFilter =
  | { readonly kind: 'all' }
  | { readonly kind: 'workflowId'; readonly workflowId: string }
  | { readonly kind: 'type'; readonly name: string }
  | { readonly kind: 'typeVersion'; readonly name: string; readonly version: string }
  | { readonly kind: 'tag'; readonly tag: string }
  | { readonly kind: 'closeStatus'; readonly status: string };

export interface VisibilityRow {
  readonly domain: string;
  readonly list: VisibilityList;
  readonly filter: VisibilityFilter;
  /** Epoch seconds the row sorts by (start or close time). */
  readonly time: number;
  readonly runId: string;
}

/**
 * The close status without rows of its own: a closeStatusFilter of it reads the closed rows of all
 * executions and keeps those of that status. Most executions complete, so those reads keep nearly
 * every row they read, and each completed execution is written two rows fewer.
 */
export const STATUS_READ_FROM_ALL = 'COMPLETED';

function filtersOf(state: ExecutionState, closed: boolean): VisibilityFilter[] {
  const { name, version } = state.workflowType;
  const filters: VisibilityFilter[] = [
    { kind: 'all' },
    ...(closed ? [{ kind: 'workflowId', workflowId: state.execution.workflowId } as const] : []),
    { kind: 'typeVersion', name, version },
    ...[...new Set(state.tagList)].map((tag): VisibilityFilter => ({ kind: 'tag', tag })),
  ];
  if (closed && state.closeStatus !== undefined && state.closeStatus !== STATUS_READ_FROM_ALL)
    filters.push({ kind: 'closeStatus', status: state.closeStatus });
  return filters;
}

export function visibilityRows(state: ExecutionState): VisibilityRow[] {
  const base = { domain: state.domain, runId: state.execution.runId };
  if (state.status === 'OPEN') {
    return filtersOf(state, false).map((filter) => ({
      ...base,
      list: 'open',
      filter,
      time: state.startTimestamp,
    }));
  }
  const closedAt = state.closeTimestamp ?? state.startTimestamp;
  return filtersOf(state, true).flatMap((filter): VisibilityRow[] => [
    { ...base, list: 'closed-by-start', filter, time: state.startTimestamp },
    { ...base, list: 'closed-by-close', filter, time: closedAt },
  ]);
}

/** What a listing shows of a run changed between two states (or the run is new). */
export const visibilityChanged = (before: ExecutionState | undefined, after: ExecutionState) =>
  before === undefined || !sameInfo(executionInfo(before), executionInfo(after));

const sameInfo = (a: ExecutionInfo, b: ExecutionInfo) => JSON.stringify(a) === JSON.stringify(b);

export interface VisibilityChanges {
  readonly put: readonly VisibilityRow[];
  readonly remove: readonly VisibilityRow[];
  /** What the rows put show. */
  readonly info: ExecutionInfo;
}

/** The latest time a row can sort by, in milliseconds. */
export const MAX_VISIBILITY_MS = 999_999_999_999_999;

/**
 * Epoch seconds as the whole milliseconds rows are kept to. A bound between two milliseconds rounds
 * inward ('up' for the oldest, 'down' for the latest) so that a time range stays inclusive.
 */
export function visibilityMillis(seconds: number, round: 'up' | 'down' = 'up'): number {
  const ms = seconds * 1000;
  const nearest = Math.round(ms);
  const whole =
    Math.abs(ms - nearest) < 1e-3 ? nearest : round === 'up' ? Math.ceil(ms) : Math.floor(ms);
  return Math.min(MAX_VISIBILITY_MS, Math.max(0, whole));
}

/** Identity of a row: two rows with the same id are the same table item. */
export const rowId = (r: VisibilityRow) =>
  JSON.stringify([r.domain, r.list, r.filter, r.time, r.runId]);

/**
 * The row writes for one change `before → after` of a run, given the run as it is now (`current`,
 * undefined once it is gone or past its retention). Re-checking the current state keeps a replayed or
 * late record harmless: rows are put only when the record still describes what a listing should show
 * (a later change of what is shown has its own record, handled after this one); rows of `before` and
 * `after` that the current state does not have are removed either way.
 */
export function visibilityWrites(
  before: ExecutionState | undefined,
  after: ExecutionState,
  current: ExecutionState | undefined,
): VisibilityChanges {
  const info = executionInfo(after);
  const upToDate = current !== undefined && sameInfo(executionInfo(current), info);
  const put = upToDate ? visibilityRows(after) : [];
  const keep = new Set(
    (current === undefined ? [] : visibilityRows(current)).map((row) => rowId(row)),
  );
  const remove = new Map<string, VisibilityRow>();
  for (const row of [
    ...(before === undefined ? [] : visibilityRows(before)),
    ...visibilityRows(after),
  ])
    if (!keep.has(rowId(row))) remove.set(rowId(row), row);
  return { put, remove: [...remove.values()], info };
}

const SECONDS_PER_DAY = 86_400;

/** A domain's workflowExecutionRetentionPeriodInDays in seconds: `NONE` and `0` keep nothing. */
export function retentionSeconds(retentionPeriodInDays: string): number {
  const days = Number(retentionPeriodInDays);
  return Number.isFinite(days) && days > 0 ? days * SECONDS_PER_DAY : 0;
}

/**
 * When a closed run and everything of it disappear (epoch seconds, whole, for DynamoDB TTL); undefined
 * while it is open. A retention keeps the run at least that long (rounded up); a retention of 0 keeps
 * nothing after the close (rounded down), so the run is gone from lists, counts and Describe as soon
 * as the outbox has handled its close, not at the next whole second.
 */
export function expiryOf(state: ExecutionState, retention: number): number | undefined {
  if (state.status !== 'CLOSED') return undefined;
  const closedAt = state.closeTimestamp ?? state.startTimestamp;
  return retention > 0 ? Math.ceil(closedAt + retention) : Math.floor(closedAt);
}

/** The longest execution timeout for which a run's history is written with an expiry up front. */
const UP_FRONT_EXPIRY_MAX_SECONDS = 7 * SECONDS_PER_DAY;

/**
 * The expiry a write of `state` can give its items now, so the close need not update them one by one:
 * a history chunk of an open run cannot be needed after the latest the run can close (its start plus
 * its execution timeout) plus the retention, and a closed run's items expire at expiryOf. Up front
 * only when that latest close is near (a week): an item kept past its run's expiry costs storage, and
 * reads never see it (the state's expiry decides). A retention of 0 is left to the close's outbox.
 */
export function upFrontExpiry(
  state: ExecutionState,
  retention: number,
): { history?: number; state?: number } {
  if (retention <= 0) return {};
  const closed = expiryOf(state, retention);
  if (closed !== undefined) return { history: closed, state: closed };
  if (
    executionTimeoutSeconds(state.config.executionStartToCloseTimeout) > UP_FRONT_EXPIRY_MAX_SECONDS
  )
    return {};
  const latest = latestExpiry(state, retention);
  return latest === undefined ? {} : { history: latest };
}

/**
 * The latest a run's items can be needed: its start plus its execution timeout (when it must close at
 * the latest) plus the retention. For items written while the run is open that the close may not see
 * (a heartbeat recorded as the run closes): they expire then at the latest, whatever the close does.
 */
export function latestExpiry(state: ExecutionState, retention: number): number | undefined {
  const timeout = executionTimeoutSeconds(state.config.executionStartToCloseTimeout);
  if (!Number.isFinite(timeout)) return undefined;
  return Math.ceil(state.startTimestamp + timeout + Math.max(retention, 0));
}
