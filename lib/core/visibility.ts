/**
 * Visibility (swf-api.md §5.5, §11): which listing rows an execution has is a function of its state.
 * Every filter SWF offers gets its own rows, sorted by time, so that every List/Count is a Query that
 * reads what it returns: open rows by start time; closed rows both by start and by close time.
 */
import type { ExecutionState } from './execution-state.js';
import type { ExecutionRef, TypeRef } from './history-event.js';

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

/** The filter a row answers (swf-api.md §11): at most one filter per request, so one row per filter value. */
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

function filtersOf(state: ExecutionState, closed: boolean): VisibilityFilter[] {
  const { name, version } = state.workflowType;
  const filters: VisibilityFilter[] = [
    { kind: 'all' },
    { kind: 'workflowId', workflowId: state.execution.workflowId },
    { kind: 'type', name },
    { kind: 'typeVersion', name, version },
    ...[...new Set(state.tagList)].map((tag): VisibilityFilter => ({ kind: 'tag', tag })),
  ];
  if (closed && state.closeStatus !== undefined)
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

export interface VisibilityChanges {
  readonly put: readonly VisibilityRow[];
  readonly remove: readonly VisibilityRow[];
  readonly info: ExecutionInfo;
}

const rowId = (r: VisibilityRow) => JSON.stringify([r.list, r.filter, r.time]);

/**
 * The row writes a change of state needs: none if what a listing shows has not changed; otherwise the
 * current rows (rewritten: a put is idempotent) and the rows that no longer apply.
 */
export function visibilityChanges(
  before: ExecutionState | undefined,
  after: ExecutionState,
): VisibilityChanges | undefined {
  const info = executionInfo(after);
  if (before !== undefined && JSON.stringify(executionInfo(before)) === JSON.stringify(info))
    return undefined;
  const now = visibilityRows(after);
  const current = new Set(now.map(rowId));
  const remove = (before === undefined ? [] : visibilityRows(before)).filter(
    (r) => !current.has(rowId(r)),
  );
  return { put: now, remove, info };
}
