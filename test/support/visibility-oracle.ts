/**
 * An oracle of what SWF's visibility actions must answer (ListOpenWorkflowExecutions,
 * ListClosedWorkflowExecutions, CountOpenWorkflowExecutions, CountClosedWorkflowExecutions), computed
 * from what a test knows of the executions it made: their ids, types, tags, parents, whether a cancel
 * was requested, how each closed, and the times of their start and close events. It reads nothing of
 * the service's own code (lib/core, lib/operations): only the AWS API reference, as quoted here.
 *
 * - Filters, API reference, ListClosedWorkflowExecutions: "startTimeFilter and closeTimeFilter are
 *   mutually exclusive. You must specify one of these in a request but not both." and
 *   "closeStatusFilter, executionFilter, typeFilter and tagFilter are mutually exclusive. You can
 *   specify at most one of these in a request." (ListOpen: "executionFilter, typeFilter and tagFilter
 *   are mutually exclusive"; startTimeFilter is required there).
 * - Ranges, ExecutionTimeFilter: oldestDate "Specifies the oldest start or close date and time to
 *   return", latestDate "the latest": both bounds belong to the range; no latestDate, no upper bound.
 * - Order, reverseOrder: "By default the results are returned in descending order of the start or the
 *   close time of the executions." with startTimeFilter/closeTimeFilter: "the returned results are
 *   ordered by their start times" / "by their close times". Executions with the same time may come in
 *   any order (the reference names no tie-break).
 * - Members, WorkflowExecutionInfo: closeStatus "If the execution status is closed then this specifies
 *   how the execution was closed"; closeTimestamp "Set only if the execution status is CLOSED"; parent
 *   "If this workflow execution is a child of another execution then contains the workflow execution
 *   that started this execution"; cancelRequested "Set to true if a cancellation is requested for this
 *   workflow execution".
 * - Retention: a closed execution is visible for the domain's retention after its close;
 *   a retention of 0 keeps nothing after close.
 *
 * Where the reference is silent the oracle is lenient or makes a choice, named here: executions with
 * equal times may come in any order; an absent tagList and an empty one are the same, and so are an
 * absent cancelRequested and false; a typeFilter whose version is the empty string (the model allows
 * it) filters by name alone; an oldestDate after the latestDate is not asked.
 */

export const CLOSE_STATUSES = [
  'COMPLETED',
  'FAILED',
  'CANCELED',
  'TERMINATED',
  'CONTINUED_AS_NEW',
  'TIMED_OUT',
] as const;
export type CloseStatus = (typeof CLOSE_STATUSES)[number];

export interface Ref {
  readonly workflowId: string;
  readonly runId: string;
}

/** What the test knows of one execution it made. Times are epoch milliseconds. */
export interface KnownExecution {
  readonly domain: string;
  readonly execution: Ref;
  readonly workflowType: { readonly name: string; readonly version: string };
  readonly startMs: number;
  readonly closeMs?: number;
  readonly closeStatus?: CloseStatus;
  readonly parent?: Ref;
  readonly tagList: readonly string[];
  readonly cancelRequested: boolean;
}

/** A time filter as sent: epoch seconds, fractions allowed. */
export interface TimeFilter {
  readonly oldestDate: number;
  readonly latestDate?: number;
}

export type VisibilityAction =
  | 'ListOpenWorkflowExecutions'
  | 'ListClosedWorkflowExecutions'
  | 'CountOpenWorkflowExecutions'
  | 'CountClosedWorkflowExecutions';

/** A request as it goes on the wire (any member may be missing, or of a value the model refuses). */
export interface VisibilityRequest {
  readonly domain: string;
  readonly startTimeFilter?: TimeFilter;
  readonly closeTimeFilter?: TimeFilter;
  readonly executionFilter?: { readonly workflowId: string };
  readonly typeFilter?: { readonly name: string; readonly version?: string };
  readonly tagFilter?: { readonly tag: string };
  readonly closeStatusFilter?: { readonly status: string };
  readonly maximumPageSize?: number;
  readonly reverseOrder?: boolean;
}

/** An execution as a listing must show it (WorkflowExecutionInfo), times in epoch milliseconds. */
export interface ExpectedInfo {
  readonly execution: Ref;
  readonly workflowType: { readonly name: string; readonly version: string };
  readonly startMs: number;
  readonly closeMs?: number;
  readonly executionStatus: 'OPEN' | 'CLOSED';
  readonly closeStatus?: CloseStatus;
  readonly parent?: Ref;
  readonly tagList: readonly string[];
  readonly cancelRequested: boolean;
}

export type Expected =
  | { readonly kind: 'fault'; readonly fault: string; readonly why: string }
  /** `sortMs` of each info: the time the listing is ordered by. */
  | { readonly kind: 'list'; readonly infos: readonly ExpectedInfo[]; readonly sortMs: number[] }
  | { readonly kind: 'count'; readonly count: number };

export interface OracleWorld {
  /** Every execution the test made, in any domain. */
  readonly executions: readonly KnownExecution[];
  /** Registered domains, with their retention in days. */
  readonly domains: ReadonlyMap<string, number>;
  /** The time the question is asked (epoch ms), for retention. */
  readonly nowMs: number;
}

const isOpen = (action: VisibilityAction) =>
  action === 'ListOpenWorkflowExecutions' || action === 'CountOpenWorkflowExecutions';
const isList = (action: VisibilityAction) => action.startsWith('List');

/** The fault a request must get, if any, from the service model's constraints and the reference. */
export function faultOf(
  action: VisibilityAction,
  request: VisibilityRequest,
  world: OracleWorld,
): { fault: string; why: string } | undefined {
  const validation = (why: string) => ({ fault: 'ValidationException', why });
  // Member constraints of the model (Coral validates them before the action runs).
  if (request.domain.length < 1 || request.domain.length > 256)
    return validation('domain: length 1-256');
  for (const member of ['startTimeFilter', 'closeTimeFilter'] as const) {
    const filter = request[member];
    if (filter !== undefined && typeof filter.oldestDate !== 'number')
      return validation(`${member}.oldestDate: required`);
  }
  if (request.executionFilter !== undefined) {
    const id = request.executionFilter.workflowId;
    if (id.length < 1 || id.length > 256) return validation('workflowId: length 1-256');
  }
  if (request.typeFilter !== undefined) {
    const { name, version } = request.typeFilter;
    if (name.length < 1 || name.length > 256) return validation('typeFilter.name: length 1-256');
    if (version !== undefined && version.length > 64)
      return validation('typeFilter.version: length 0-64');
  }
  if (request.tagFilter !== undefined && request.tagFilter.tag.length > 256)
    return validation('tagFilter.tag: length 0-256');
  if (
    !isOpen(action) &&
    request.closeStatusFilter !== undefined &&
    !(CLOSE_STATUSES as readonly string[]).includes(request.closeStatusFilter.status)
  )
    return validation('closeStatusFilter.status: enum');
  if (isList(action) && request.maximumPageSize !== undefined) {
    const size = request.maximumPageSize;
    if (size < 0 || size > 1000) return validation('maximumPageSize: 0-1000');
  }
  // The action's own rules.
  if (isOpen(action)) {
    if (request.startTimeFilter === undefined)
      return validation('startTimeFilter: required (Member must not be null)');
  } else {
    const both = request.startTimeFilter !== undefined && request.closeTimeFilter !== undefined;
    const neither = request.startTimeFilter === undefined && request.closeTimeFilter === undefined;
    if (both || neither)
      return validation('startTimeFilter and closeTimeFilter: exactly one must be given');
  }
  const exclusive = [
    request.executionFilter,
    request.typeFilter,
    request.tagFilter,
    ...(isOpen(action) ? [] : [request.closeStatusFilter]),
  ].filter((f) => f !== undefined);
  if (exclusive.length > 1) return validation('more than one exclusive filter');
  if (!world.domains.has(request.domain))
    return { fault: 'UnknownResourceFault', why: 'unknown domain' };
  return undefined;
}

/** Whether a closed execution is still within its domain's retention at `nowMs`. */
function retained(e: KnownExecution, world: OracleWorld): boolean {
  if (e.closeMs === undefined) return true;
  const days = world.domains.get(e.domain) ?? 0;
  return e.closeMs + days * 86_400_000 > world.nowMs;
}

/** What the service should show of `e` (DescribeWorkflowExecution's executionInfo, a listing's info). */
export const expectedInfo = (e: KnownExecution): ExpectedInfo => ({
  execution: e.execution,
  workflowType: e.workflowType,
  startMs: e.startMs,
  ...(e.closeMs === undefined ? {} : { closeMs: e.closeMs }),
  executionStatus: e.closeStatus === undefined ? 'OPEN' : 'CLOSED',
  ...(e.closeStatus === undefined ? {} : { closeStatus: e.closeStatus }),
  ...(e.parent === undefined ? {} : { parent: e.parent }),
  tagList: e.tagList,
  cancelRequested: e.cancelRequested,
});

/** Inclusive range of epoch seconds against a time of epoch milliseconds, compared exactly. */
function inRange(ms: number, filter: TimeFilter): boolean {
  // ms / 1000 is not exact in binary; compare in milliseconds of the bound instead.
  const oldestMs = filter.oldestDate * 1000;
  const latestMs =
    filter.latestDate === undefined ? Number.POSITIVE_INFINITY : filter.latestDate * 1000;
  return ms >= oldestMs - 1e-6 && ms <= latestMs + 1e-6;
}

/** What a request must be answered with. */
export function expected(
  action: VisibilityAction,
  request: VisibilityRequest,
  world: OracleWorld,
): Expected {
  const fault = faultOf(action, request, world);
  if (fault !== undefined) return { kind: 'fault', ...fault };
  const open = isOpen(action);
  const byClose = !open && request.closeTimeFilter !== undefined;
  const filter = (byClose ? request.closeTimeFilter : request.startTimeFilter) as TimeFilter;
  const timeOf = (e: KnownExecution) => (byClose ? (e.closeMs as number) : e.startMs);
  const matches = world.executions.filter((e) => {
    if (e.domain !== request.domain) return false;
    if (open !== (e.closeStatus === undefined)) return false;
    if (!retained(e, world)) return false;
    if (!inRange(timeOf(e), filter)) return false;
    if (request.executionFilter !== undefined)
      return e.execution.workflowId === request.executionFilter.workflowId;
    if (request.typeFilter !== undefined) {
      const { name, version } = request.typeFilter;
      // An empty version (the model allows length 0) is taken as no version: see the report.
      return (
        e.workflowType.name === name &&
        (version === undefined || version === '' || e.workflowType.version === version)
      );
    }
    if (request.tagFilter !== undefined) return e.tagList.includes(request.tagFilter.tag);
    if (!open && request.closeStatusFilter !== undefined)
      return e.closeStatus === request.closeStatusFilter.status;
    return true;
  });
  if (!isList(action)) return { kind: 'count', count: matches.length };
  const sign = request.reverseOrder === true ? 1 : -1;
  const sorted = [...matches].sort((a, b) => sign * (timeOf(a) - timeOf(b)));
  return { kind: 'list', infos: sorted.map(expectedInfo), sortMs: sorted.map(timeOf) };
}

/**
 * Compares a whole listing (every page, in order) with the oracle's: the same executions, each shown
 * as expected, in the order of their times (those with equal times in any order). Returns the
 * differences, empty when none.
 */
export function compareListing(
  actual: readonly ExpectedInfo[],
  want: Extract<Expected, { kind: 'list' }>,
  byClose: boolean,
): string[] {
  const problems: string[] = [];
  const key = (r: Ref) => `${r.workflowId}/${r.runId}`;
  const wanted = new Map(want.infos.map((i) => [key(i.execution), i]));
  const seen = new Set<string>();
  for (const a of actual) {
    const k = key(a.execution);
    if (seen.has(k)) problems.push(`listed twice: ${k}`);
    seen.add(k);
    const w = wanted.get(k);
    if (w === undefined) {
      problems.push(`listed but should not be: ${k} (${a.executionStatus} ${a.closeStatus ?? ''})`);
      continue;
    }
    const diff = infoDifferences(a, w);
    if (diff.length > 0) problems.push(`${k}: ${diff.join('; ')}`);
  }
  for (const k of wanted.keys()) if (!seen.has(k)) problems.push(`missing: ${k}`);
  if (problems.length === 0) {
    const times = actual.map((a) => (byClose ? (a.closeMs ?? Number.NaN) : a.startMs));
    times.forEach((t, i) => {
      if (t !== want.sortMs[i])
        problems.push(
          `position ${i}: ${key(actual[i]?.execution ?? { workflowId: '?', runId: '?' })} has time ${t}, expected ${want.sortMs[i]}`,
        );
    });
  }
  return problems;
}

/** The members of one WorkflowExecutionInfo that differ from the oracle's. */
export function infoDifferences(a: ExpectedInfo, w: ExpectedInfo): string[] {
  const out: string[] = [];
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  if (!same(a.execution, w.execution)) out.push(`execution ${JSON.stringify(a.execution)}`);
  if (!same(a.workflowType, w.workflowType))
    out.push(`workflowType ${JSON.stringify(a.workflowType)} != ${JSON.stringify(w.workflowType)}`);
  if (a.startMs !== w.startMs) out.push(`startTimestamp ${a.startMs} != ${w.startMs}`);
  if (a.closeMs !== w.closeMs) out.push(`closeTimestamp ${a.closeMs} != ${w.closeMs}`);
  if (a.executionStatus !== w.executionStatus)
    out.push(`executionStatus ${a.executionStatus} != ${w.executionStatus}`);
  if (a.closeStatus !== w.closeStatus) out.push(`closeStatus ${a.closeStatus} != ${w.closeStatus}`);
  if (!same(a.parent, w.parent))
    out.push(`parent ${JSON.stringify(a.parent)} != ${JSON.stringify(w.parent)}`);
  if (!same(a.tagList, w.tagList))
    out.push(`tagList ${JSON.stringify(a.tagList)} != ${JSON.stringify(w.tagList)}`);
  if (a.cancelRequested !== w.cancelRequested)
    out.push(`cancelRequested ${a.cancelRequested} != ${w.cancelRequested}`);
  return out;
}
