import { ValidationException } from '../core/faults.js';
import type { DomainRecord } from '../core/registry.js';
import {
  type ExecutionInfo,
  executionInfo,
  retentionSeconds,
  type VisibilityFilter,
  type VisibilityList,
} from '../core/visibility.js';
import type { VisibilityQuery } from '../ports/visibility-store.js';
import { type OperationDeps, operation } from './context.js';
import { RECENT_REGISTRY, requireDomain } from './domains.js';
import { nextPageToken, type PagingInput, pageRequest } from './paging.js';
import { loadOpenRun } from './run-mutation.js';

interface TimeFilter {
  oldestDate: number;
  latestDate?: number;
}

interface VisibilityInput extends PagingInput {
  domain: string;
  startTimeFilter?: TimeFilter;
  closeTimeFilter?: TimeFilter;
  executionFilter?: { workflowId: string };
  typeFilter?: { name: string; version?: string };
  tagFilter?: { tag: string };
  closeStatusFilter?: { status: string };
}

/** The mutually exclusive filters, with the shape names the live service's message uses. */
const EXCLUSIVE = [
  ['executionFilter', 'WorkflowExecutionFilter'],
  ['typeFilter', 'WorkflowTypeFilter'],
  ['tagFilter', 'TagFilter'],
  ['closeStatusFilter', 'CloseStatusFilter'],
] as const;

/** What a request asks for, before the domain's retention is known: what a page token is bound to. */
type Selection = Omit<VisibilityQuery, 'retention'>;

/**
 * Turns a request into a selection of one filter's rows: exactly one time filter
 * (start time for open executions), at most one of the exclusive filters.
 */
function selection(input: VisibilityInput, closed: boolean): Selection {
  const given = EXCLUSIVE.filter(([member]) => input[member] !== undefined);
  if (given.length > 1) {
    // The live service's wording [O]: `... in the same query: [WorkflowTypeFilter, CloseStatusFilter]`.
    throw new ValidationException(
      `Cannot specify more than one exclusive filters in the same query: [${given.map(([, shape]) => shape).join(', ')}]`,
    );
  }
  if (closed && input.startTimeFilter !== undefined && input.closeTimeFilter !== undefined) {
    throw new ValidationException('Cannot specify both a startTimeFilter and a closeTimeFilter');
  }
  const byClose = closed && input.closeTimeFilter !== undefined;
  const time = byClose ? input.closeTimeFilter : input.startTimeFilter;
  if (time === undefined)
    throw new ValidationException(
      'Either a startTimeFilter or a closeTimeFilter must be specified',
    );
  if (time.latestDate !== undefined && time.oldestDate > time.latestDate) {
    const member = byClose ? 'closeTimeFilter' : 'startTimeFilter';
    throw new ValidationException(
      `The ${member} is not valid: its oldestDate (${time.oldestDate}) is later than its latestDate (${time.latestDate})`,
    );
  }
  const list: VisibilityList = !closed ? 'open' : byClose ? 'closed-by-close' : 'closed-by-start';
  return {
    domain: input.domain,
    list,
    filter: filterOf(input),
    range: {
      oldest: time.oldestDate,
      ...(time.latestDate === undefined ? {} : { latest: time.latestDate }),
    },
  };
}

function filterOf(input: VisibilityInput): VisibilityFilter {
  if (input.executionFilter !== undefined)
    return { kind: 'workflowId', workflowId: input.executionFilter.workflowId };
  if (input.typeFilter !== undefined) {
    const { name, version } = input.typeFilter;
    return version === undefined || version === ''
      ? { kind: 'type', name }
      : { kind: 'typeVersion', name, version };
  }
  if (input.tagFilter !== undefined) return { kind: 'tag', tag: input.tagFilter.tag };
  if (input.closeStatusFilter !== undefined)
    return { kind: 'closeStatus', status: input.closeStatusFilter.status };
  return { kind: 'all' };
}

/**
 * The open run of a workflowId, if it started within the range, as a listing shows it: read through
 * the workflowId's open-run pointer (open runs have no workflowId rows: see core/visibility), so at
 * most one run, always up to date. A pointer naming a run that is closed or not there names none.
 */
async function openRunOf(
  deps: OperationDeps,
  selected: Selection,
  workflowId: string,
): Promise<ExecutionInfo[]> {
  const run = (await loadOpenRun(deps, selected.domain, workflowId))?.state;
  if (run === undefined) return [];
  const { oldest, latest } = selected.range;
  const started = run.startTimestamp;
  return started >= oldest && (latest === undefined || started <= latest)
    ? [executionInfo(run)]
    : [];
}

/** The workflowId of an open-list selection, which the open-run pointer answers. */
const pointerSelection = (selected: Selection) =>
  selected.list === 'open' && selected.filter.kind === 'workflowId'
    ? selected.filter.workflowId
    : undefined;

/**
 * The store's query for a selection: with the domain's retention, and for a type name the versions
 * whose rows it covers (every version ever registered: see core/visibility).
 */
async function storeQuery(
  deps: OperationDeps,
  selected: Selection,
  domain: DomainRecord,
): Promise<VisibilityQuery> {
  const { filter } = selected;
  const versions =
    filter.kind === 'type'
      ? { versions: await deps.registry.typeVersions('workflow', selected.domain, filter.name) }
      : {};
  return {
    ...selected,
    ...versions,
    retention: retentionSeconds(domain.retentionPeriodInDays),
  };
}

const listExecutions = (action: string, closed: boolean) =>
  operation<VisibilityInput>(async (input, deps) => {
    const domain = await requireDomain(deps, input.domain, RECENT_REGISTRY);
    const selected = selection(input, closed);
    // The token is bound to the request's own arguments, so the next page must repeat them.
    const args = { ...selected, reverseOrder: input.reverseOrder === true };
    const page = await pageRequest(deps, action, args, input);
    const workflowId = pointerSelection(selected);
    if (workflowId !== undefined)
      return { executionInfos: await openRunOf(deps, selected, workflowId) };
    const rows = await deps.visibility.list(await storeQuery(deps, selected, domain), page);
    return {
      executionInfos: rows.infos,
      ...(await nextPageToken(deps, action, args, rows.next)),
    };
  });

const countExecutions = (closed: boolean) =>
  operation<VisibilityInput>(async (input, deps) => {
    const domain = await requireDomain(deps, input.domain, RECENT_REGISTRY);
    const selected = selection(input, closed);
    const workflowId = pointerSelection(selected);
    if (workflowId !== undefined) {
      const count = (await openRunOf(deps, selected, workflowId)).length;
      return { count, truncated: false };
    }
    return deps.visibility.count(await storeQuery(deps, selected, domain));
  });

export const listOpenWorkflowExecutions = listExecutions('ListOpenWorkflowExecutions', false);
export const listClosedWorkflowExecutions = listExecutions('ListClosedWorkflowExecutions', true);
export const countOpenWorkflowExecutions = countExecutions(false);
export const countClosedWorkflowExecutions = countExecutions(true);
