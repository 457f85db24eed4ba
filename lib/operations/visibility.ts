import { ValidationException } from '../core/faults.js';
import type { VisibilityFilter, VisibilityList } from '../core/visibility.js';
import type { VisibilityQuery } from '../ports/visibility-store.js';
import { type OperationDeps, operation } from './context.js';
import { requireDomain } from './domains.js';
import { nextPageToken, type PagingInput, pageRequest } from './paging.js';

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

const EXCLUSIVE = ['executionFilter', 'typeFilter', 'tagFilter', 'closeStatusFilter'] as const;

/**
 * Turns a request into one Query over one filter's rows (swf-api.md §11): exactly one time filter
 * (start time for open executions), at most one of the exclusive filters.
 */
function visibilityQuery(input: VisibilityInput, closed: boolean): VisibilityQuery {
  const given = EXCLUSIVE.filter((name) => input[name] !== undefined);
  if (given.length > 1) {
    throw new ValidationException(
      `Cannot specify more than one exclusive filter in the same query: ${given.join(', ')}`,
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
    throw new ValidationException(
      `The oldestDate ${time.oldestDate} of the ${byClose ? 'closeTimeFilter' : 'startTimeFilter'} is later than its latestDate ${time.latestDate}`,
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

const listExecutions = (action: string, closed: boolean) =>
  operation<VisibilityInput>(async (input, deps) => {
    await requireDomain(deps, input.domain);
    const query = visibilityQuery(input, closed);
    const args = { ...query, reverseOrder: input.reverseOrder === true };
    const page = await deps.visibility.list(query, await pageRequest(deps, action, args, input));
    return {
      executionInfos: page.infos,
      ...(await nextPageToken(deps, action, args, page.next)),
    };
  });

const countExecutions = (closed: boolean) =>
  operation<VisibilityInput>(async (input, deps: OperationDeps) => {
    await requireDomain(deps, input.domain);
    return deps.visibility.count(visibilityQuery(input, closed));
  });

export const listOpenWorkflowExecutions = listExecutions('ListOpenWorkflowExecutions', false);
export const listClosedWorkflowExecutions = listExecutions('ListClosedWorkflowExecutions', true);
export const countOpenWorkflowExecutions = countExecutions(false);
export const countClosedWorkflowExecutions = countExecutions(true);
