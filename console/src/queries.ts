/** SWF's list and count requests for a listing of executions (routes.ts's ExecutionQuery). */
import type { ExecutionQuery, TimeRange } from './routes.js';
import type { Epoch } from './swf.js';

const RANGE_SECONDS: Record<Exclude<TimeRange, 'all' | 'custom'>, number> = {
  '1h': 3600,
  '24h': 86_400,
  '7d': 7 * 86_400,
  '30d': 30 * 86_400,
};

/** The time filter: SWF requires one, so "any time" is from the epoch on. */
export function timeFilter(
  query: ExecutionQuery,
  nowSeconds: Epoch,
): { oldestDate: Epoch; latestDate?: Epoch } {
  if (query.range === 'all') return { oldestDate: 0 };
  if (query.range !== 'custom')
    return { oldestDate: Math.floor(nowSeconds - RANGE_SECONDS[query.range]) };
  const seconds = (text: string) => {
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
  };
  const oldest = seconds(query.from);
  const latest = seconds(query.to);
  return { oldestDate: oldest ?? 0, ...(latest === undefined ? {} : { latestDate: latest }) };
}

/** The one filter SWF takes besides time (they are mutually exclusive), or none. */
function filterOf(query: ExecutionQuery): Record<string, unknown> {
  const value = query.value.trim();
  if (value === '') return {};
  switch (query.filter) {
    case 'none':
      return {};
    case 'workflowId':
      return { executionFilter: { workflowId: value } };
    case 'type': {
      const version = query.version.trim();
      return { typeFilter: { name: value, ...(version === '' ? {} : { version }) } };
    }
    case 'tag':
      return { tagFilter: { tag: value } };
    case 'closeStatus':
      return query.status === 'closed' ? { closeStatusFilter: { status: value } } : {};
  }
}

export interface ListingRequests {
  readonly list: { readonly action: string; readonly input: Record<string, unknown> };
  readonly count: { readonly action: string; readonly input: Record<string, unknown> };
}

/** The list request (one page) and the count request of a listing. */
export function listingRequests(
  domain: string,
  query: ExecutionQuery,
  nowSeconds: Epoch,
  nextPageToken?: string,
): ListingRequests {
  const open = query.status === 'open';
  const time = timeFilter(query, nowSeconds);
  const timeKey = open || query.timeField === 'start' ? 'startTimeFilter' : 'closeTimeFilter';
  const common = { domain, [timeKey]: time, ...filterOf(query) };
  const kind = open ? 'Open' : 'Closed';
  return {
    list: {
      action: `List${kind}WorkflowExecutions`,
      input: {
        ...common,
        maximumPageSize: query.size,
        ...(query.oldestFirst ? { reverseOrder: true } : {}),
        ...(nextPageToken === undefined ? {} : { nextPageToken }),
      },
    },
    count: { action: `Count${kind}WorkflowExecutions`, input: common },
  };
}
