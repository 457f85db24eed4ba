/**
 * Every view has a URL: the part after `#`, so that a link to any view works on the local server
 * and behind the proxy alike, with no route on the server. Parsing and formatting are inverse.
 */
import type { ExecutionRef, TypeRef } from './swf.js';

export type RegistrationStatus = 'REGISTERED' | 'DEPRECATED';
export const TIME_RANGES = ['1h', '24h', '7d', '30d', 'all', 'custom'] as const;
export type TimeRange = (typeof TIME_RANGES)[number];
export const FILTER_KINDS = ['none', 'workflowId', 'type', 'tag', 'closeStatus'] as const;
export type FilterKind = (typeof FILTER_KINDS)[number];
export const CLOSE_STATUSES = [
  'COMPLETED',
  'FAILED',
  'CANCELED',
  'TERMINATED',
  'CONTINUED_AS_NEW',
  'TIMED_OUT',
] as const;
export const PAGE_SIZES = [25, 50, 100, 250] as const;

/** A listing of executions: SWF's filters (one at a time, as SWF takes them) and time range. */
export interface ExecutionQuery {
  readonly status: 'open' | 'closed';
  readonly filter: FilterKind;
  /** The workflowId, type name, tag or close status the filter matches. */
  readonly value: string;
  /** The type's version, for a type filter (optional, as in SWF). */
  readonly version: string;
  /** Which time the range is on, for closed executions (open ones only have a start). */
  readonly timeField: 'start' | 'close';
  readonly range: TimeRange;
  /** A custom range's ends, as `datetime-local` inputs give them (local time). */
  readonly from: string;
  readonly to: string;
  readonly oldestFirst: boolean;
  readonly size: number;
}

export const DEFAULT_QUERY: ExecutionQuery = {
  status: 'open',
  filter: 'none',
  value: '',
  version: '',
  timeField: 'start',
  range: 'all',
  from: '',
  to: '',
  oldestFirst: false,
  size: 50,
};

export const EXECUTION_TABS = ['summary', 'history', 'timeline'] as const;
export type ExecutionTab = (typeof EXECUTION_TABS)[number];

export type Route =
  | { readonly view: 'domains'; readonly status: RegistrationStatus }
  | { readonly view: 'executions'; readonly domain: string; readonly query: ExecutionQuery }
  | { readonly view: 'types'; readonly domain: string; readonly status: RegistrationStatus }
  | {
      readonly view: 'execution';
      readonly domain: string;
      readonly execution: ExecutionRef;
      readonly tab: ExecutionTab;
      /** The event shown opened in the history. */
      readonly event?: number;
    }
  | {
      readonly view: 'start';
      readonly domain: string;
      readonly type?: TypeRef;
      /** Start again: the run whose start is copied. */
      readonly from?: ExecutionRef;
    }
  | { readonly view: 'metrics'; readonly domain?: string }
  | { readonly view: 'notFound'; readonly path: string };

const enc = encodeURIComponent;
const dec = (part: string) => {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
};
const oneOf = <T extends string>(values: readonly T[], value: string | null, fallback: T): T =>
  value !== null && (values as readonly string[]).includes(value) ? (value as T) : fallback;
const status = (params: URLSearchParams): RegistrationStatus =>
  params.get('status') === 'DEPRECATED' ? 'DEPRECATED' : 'REGISTERED';

/** The route of a location hash (`#/domains/d/executions?status=closed`). */
export function parseRoute(hash: string): Route {
  const text = hash.replace(/^#/, '') || '/';
  const [path = '/', search = ''] = text.split('?', 2);
  const params = new URLSearchParams(search);
  const parts = path
    .split('/')
    .filter((p) => p !== '')
    .map(dec);
  if (parts.length === 0 || (parts.length === 1 && parts[0] === 'domains'))
    return { view: 'domains', status: status(params) };
  if (parts[0] === 'metrics' && parts.length === 1) {
    const domain = params.get('domain');
    return domain === null || domain === '' ? { view: 'metrics' } : { view: 'metrics', domain };
  }
  const [root, domain, section, workflowId, runId, tab] = parts;
  if (root !== 'domains' || domain === undefined) return { view: 'notFound', path };
  if (section === undefined || (section === 'executions' && workflowId === undefined))
    return { view: 'executions', domain, query: parseQuery(params) };
  if (section === 'types' && parts.length === 3)
    return { view: 'types', domain, status: status(params) };
  if (section === 'start' && parts.length === 3) return startRoute(domain, params);
  if (
    section === 'executions' &&
    workflowId !== undefined &&
    runId !== undefined &&
    parts.length <= 6
  ) {
    const event = Number(params.get('event'));
    return {
      view: 'execution',
      domain,
      execution: { workflowId, runId },
      tab: oneOf(EXECUTION_TABS, tab ?? 'summary', 'summary'),
      ...(Number.isInteger(event) && event > 0 ? { event } : {}),
    };
  }
  return { view: 'notFound', path };
}

function startRoute(domain: string, params: URLSearchParams): Route {
  const name = params.get('type');
  const fromId = params.get('fromWorkflowId');
  const fromRun = params.get('fromRunId');
  return {
    view: 'start',
    domain,
    ...(name === null ? {} : { type: { name, version: params.get('version') ?? '' } }),
    ...(fromId === null || fromRun === null
      ? {}
      : { from: { workflowId: fromId, runId: fromRun } }),
  };
}

function parseQuery(params: URLSearchParams): ExecutionQuery {
  const size = Number(params.get('size'));
  const get = (name: string) => params.get(name) ?? '';
  return {
    status: params.get('status') === 'closed' ? 'closed' : 'open',
    filter: oneOf(FILTER_KINDS, params.get('filter'), 'none'),
    value: get('value'),
    version: get('version'),
    timeField: params.get('time') === 'close' ? 'close' : 'start',
    range: oneOf(TIME_RANGES, params.get('range'), DEFAULT_QUERY.range),
    from: get('from'),
    to: get('to'),
    oldestFirst: params.get('order') === 'oldest',
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_QUERY.size,
  };
}

/** The hash of a route (the inverse of parseRoute). */
export function hrefOf(route: Route): string {
  const query = (params: Record<string, string | undefined>) => {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(params))
      if (value !== undefined && value !== '') search.set(name, value);
    const text = search.toString();
    return text === '' ? '' : `?${text}`;
  };
  switch (route.view) {
    case 'domains':
      return `#/domains${query({ status: route.status === 'DEPRECATED' ? route.status : undefined })}`;
    case 'executions':
      return `#/domains/${enc(route.domain)}/executions${query(queryParams(route.query))}`;
    case 'types':
      return `#/domains/${enc(route.domain)}/types${query({ status: route.status === 'DEPRECATED' ? route.status : undefined })}`;
    case 'execution': {
      const { workflowId, runId } = route.execution;
      const tab = route.tab === 'summary' ? '' : `/${route.tab}`;
      return `#/domains/${enc(route.domain)}/executions/${enc(workflowId)}/${enc(runId)}${tab}${query({ event: route.event?.toString() })}`;
    }
    case 'start':
      return `#/domains/${enc(route.domain)}/start${query({
        type: route.type?.name,
        version: route.type?.version,
        fromWorkflowId: route.from?.workflowId,
        fromRunId: route.from?.runId,
      })}`;
    case 'metrics':
      return `#/metrics${query({ domain: route.domain })}`;
    case 'notFound':
      return `#${route.path}`;
  }
}

function queryParams(q: ExecutionQuery): Record<string, string | undefined> {
  const d = DEFAULT_QUERY;
  const differs = <K extends keyof ExecutionQuery>(key: K, text: string) =>
    q[key] === d[key] ? undefined : text;
  return {
    status: differs('status', q.status),
    filter: differs('filter', q.filter),
    value: q.filter === 'none' ? undefined : q.value,
    version: q.filter === 'type' ? q.version : undefined,
    time: q.status === 'closed' ? differs('timeField', q.timeField) : undefined,
    range: differs('range', q.range),
    from: q.range === 'custom' ? q.from : undefined,
    to: q.range === 'custom' ? q.to : undefined,
    order: q.oldestFirst ? 'oldest' : undefined,
    size: differs('size', String(q.size)),
  };
}

/** A link to an execution's view. */
export const executionHref = (
  domain: string,
  execution: ExecutionRef,
  tab: ExecutionTab = 'summary',
  event?: number,
) =>
  hrefOf({ view: 'execution', domain, execution, tab, ...(event === undefined ? {} : { event }) });
