/**
 * Calls to the visibility operations, through the official SDK and as raw JSON, with their answers
 * read in the visibility oracle's terms (test/support/visibility-oracle.ts), and the judgement of an
 * answer against what the oracle expects.
 */
import {
  CountClosedWorkflowExecutionsCommand,
  CountOpenWorkflowExecutionsCommand,
  ListClosedWorkflowExecutionsCommand,
  ListOpenWorkflowExecutionsCommand,
  type SWFClient,
  type WorkflowExecutionInfo,
} from '@aws-sdk/client-swf';
import { expect } from 'vitest';
import { rawCall } from './contract.js';
import {
  type CloseStatus,
  compareListing,
  type Expected,
  type ExpectedInfo,
  type Ref,
  type TimeFilter,
  type VisibilityAction,
  type VisibilityRequest,
} from './visibility-oracle.js';

export const fromSdk = (i: WorkflowExecutionInfo): ExpectedInfo => ({
  execution: { workflowId: i.execution?.workflowId ?? '', runId: i.execution?.runId ?? '' },
  workflowType: { name: i.workflowType?.name ?? '', version: i.workflowType?.version ?? '' },
  startMs: i.startTimestamp?.getTime() ?? Number.NaN,
  ...(i.closeTimestamp === undefined ? {} : { closeMs: i.closeTimestamp.getTime() }),
  executionStatus: i.executionStatus as 'OPEN' | 'CLOSED',
  ...(i.closeStatus === undefined ? {} : { closeStatus: i.closeStatus as CloseStatus }),
  ...(i.parent === undefined
    ? {}
    : { parent: { workflowId: i.parent.workflowId ?? '', runId: i.parent.runId ?? '' } }),
  // An absent tagList and an empty one say the same; so do an absent cancelRequested and false.
  tagList: i.tagList ?? [],
  cancelRequested: i.cancelRequested ?? false,
});

interface RawInfo {
  execution: Ref;
  workflowType: { name: string; version: string };
  startTimestamp: number;
  closeTimestamp?: number;
  executionStatus: 'OPEN' | 'CLOSED';
  closeStatus?: CloseStatus;
  parent?: Ref;
  tagList?: string[];
  cancelRequested?: boolean;
}

const fromWire = (i: RawInfo): ExpectedInfo => ({
  execution: i.execution,
  workflowType: i.workflowType,
  startMs: Math.round(i.startTimestamp * 1000),
  ...(i.closeTimestamp === undefined ? {} : { closeMs: Math.round(i.closeTimestamp * 1000) }),
  executionStatus: i.executionStatus,
  ...(i.closeStatus === undefined ? {} : { closeStatus: i.closeStatus }),
  ...(i.parent === undefined ? {} : { parent: i.parent }),
  tagList: i.tagList ?? [],
  cancelRequested: i.cancelRequested ?? false,
});

export type Outcome =
  | { kind: 'fault'; fault: string; message: string }
  | { kind: 'list'; infos: ExpectedInfo[]; pageSizes: number[] }
  | { kind: 'count'; count: number; truncated: boolean | undefined };

export const toDate = (f: TimeFilter | undefined) =>
  f === undefined
    ? undefined
    : {
        oldestDate: new Date(f.oldestDate * 1000),
        ...(f.latestDate === undefined ? {} : { latestDate: new Date(f.latestDate * 1000) }),
      };

/** One page of ListOpen or ListClosedWorkflowExecutions through the SDK. */
export const listPage = (client: SWFClient, action: VisibilityAction, input: object) =>
  action === 'ListOpenWorkflowExecutions'
    ? client.send(new ListOpenWorkflowExecutionsCommand(input as never))
    : client.send(new ListClosedWorkflowExecutionsCommand(input as never));

/** One request through the official SDK (time bounds in whole milliseconds), every page. */
export async function viaSdk(
  swf: SWFClient,
  action: VisibilityAction,
  request: VisibilityRequest,
): Promise<Outcome> {
  const input = {
    ...request,
    startTimeFilter: toDate(request.startTimeFilter),
    closeTimeFilter: toDate(request.closeTimeFilter),
  } as never;
  try {
    if (action === 'CountOpenWorkflowExecutions' || action === 'CountClosedWorkflowExecutions') {
      const out =
        action === 'CountOpenWorkflowExecutions'
          ? await swf.send(new CountOpenWorkflowExecutionsCommand(input))
          : await swf.send(new CountClosedWorkflowExecutionsCommand(input));
      return { kind: 'count', count: out.count ?? Number.NaN, truncated: out.truncated };
    }
    const infos: ExpectedInfo[] = [];
    const pageSizes: number[] = [];
    let nextPageToken: string | undefined;
    do {
      const paged = {
        ...(input as object),
        ...(nextPageToken === undefined ? {} : { nextPageToken }),
      };
      const out = await listPage(swf, action, paged);
      infos.push(...(out.executionInfos ?? []).map(fromSdk));
      pageSizes.push(out.executionInfos?.length ?? 0);
      nextPageToken = out.nextPageToken;
    } while (nextPageToken !== undefined && pageSizes.length < 200);
    return { kind: 'list', infos, pageSizes };
  } catch (error) {
    const e = error as Error;
    return { kind: 'fault', fault: e.name, message: e.message };
  }
}

/** A fault's answer as raw JSON, named as the SDK names it (the part of `__type` after `#`). */
function wireFault(body: Record<string, unknown>): Outcome {
  const type = String(body.__type ?? '');
  return { kind: 'fault', fault: type.slice(type.indexOf('#') + 1), message: String(body.message) };
}

/** One request as raw JSON (time bounds as given, sub-millisecond fractions kept), every page. */
export async function viaWire(
  endpoint: string,
  action: VisibilityAction,
  request: VisibilityRequest,
): Promise<Outcome> {
  const infos: ExpectedInfo[] = [];
  const pageSizes: number[] = [];
  let nextPageToken: string | undefined;
  do {
    const response = await rawCall(endpoint, action, {
      ...request,
      ...(nextPageToken === undefined ? {} : { nextPageToken }),
    });
    const body = JSON.parse(response.text) as Record<string, unknown>;
    if (response.status !== 200) return wireFault(body);
    if (action.startsWith('Count'))
      return {
        kind: 'count',
        count: body.count as number,
        truncated: body.truncated as boolean | undefined,
      };
    const page = (body.executionInfos ?? []) as RawInfo[];
    infos.push(...page.map(fromWire));
    pageSizes.push(page.length);
    nextPageToken = body.nextPageToken as string | undefined;
  } while (nextPageToken !== undefined && pageSizes.length < 200);
  return { kind: 'list', infos, pageSizes };
}

export /** The differences between what the service answered and what the oracle says, empty when none. */
function judge(
  action: VisibilityAction,
  request: VisibilityRequest,
  outcome: Outcome,
  want: Expected,
): string[] {
  const what = `${action} ${JSON.stringify(request)}`;
  if (want.kind === 'fault') {
    if (outcome.kind !== 'fault')
      return [`${what}: answered, expected ${want.fault} (${want.why})`];
    if (outcome.fault !== want.fault)
      return [
        `${what}: ${outcome.fault} "${outcome.message}", expected ${want.fault} (${want.why})`,
      ];
    return [];
  }
  if (outcome.kind === 'fault') return [`${what}: ${outcome.fault} "${outcome.message}"`];
  if (want.kind === 'count') {
    if (outcome.kind !== 'count') return [`${what}: not a count`];
    const problems: string[] = [];
    if (outcome.count !== want.count)
      problems.push(`${what}: count ${outcome.count}, expected ${want.count}`);
    if (outcome.truncated === true) problems.push(`${what}: truncated`);
    return problems;
  }
  if (outcome.kind !== 'list') return [`${what}: not a list`];
  const problems = compareListing(outcome.infos, want, request.closeTimeFilter !== undefined).map(
    (p) => `${what}: ${p}`,
  );
  const max = request.maximumPageSize ?? 0;
  if (max > 0 && outcome.pageSizes.some((n) => n > max))
    problems.push(`${what}: a page over ${max}: ${outcome.pageSizes.join(',')}`);
  return problems;
}

/** The part of a request that picks executions, beside its time filter. */
export type FilterPart = Pick<
  VisibilityRequest,
  'executionFilter' | 'typeFilter' | 'tagFilter' | 'closeStatusFilter'
>;

export const report = (problems: string[]) => {
  // Print them all before failing: a sweep should show every difference, not the first.
  if (problems.length > 0)
    console.log(`${problems.length} differences:\n${problems.slice(0, 60).join('\n')}`);
  expect(problems).toEqual([]);
};

/** One page of a request as raw JSON to another server's endpoint. */
export async function viaWireAt(
  endpoint: string,
  action: VisibilityAction,
  request: VisibilityRequest,
): Promise<Outcome> {
  const response = await rawCall(endpoint, action, request);
  const body = JSON.parse(response.text) as Record<string, unknown>;
  if (response.status !== 200) return wireFault(body);
  if (action.startsWith('Count'))
    return { kind: 'count', count: body.count as number, truncated: body.truncated as boolean };
  if (body.nextPageToken !== undefined) throw new Error('a second page: not expected here');
  const page = (body.executionInfos ?? []) as RawInfo[];
  return { kind: 'list', infos: page.map(fromWire), pageSizes: [page.length] };
}

/** The nextPageToken of one page of ListClosedWorkflowExecutions. */
export async function viaWirePage(endpoint: string, request: VisibilityRequest): Promise<string> {
  const response = await rawCall(endpoint, 'ListClosedWorkflowExecutions', request);
  const token = (JSON.parse(response.text) as { nextPageToken?: string }).nextPageToken;
  if (token === undefined) throw new Error(`no token: ${response.text}`);
  return token;
}
