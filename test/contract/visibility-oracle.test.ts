/**
 * Visibility against an independent oracle (test/support/visibility-oracle.ts): a generated workload
 * of a few dozen executions on the local server (two type names, three versions, tags, children,
 * continue-as-new chains, every close status, cancel requests, several runs of one workflowId, a
 * second domain and a domain that keeps nothing after close), then every combination SWF allows of
 * ListOpen/ListClosed/CountOpen/CountClosedWorkflowExecutions (each time filter with ranges built from
 * the executions' own times, each exclusive filter, both orders, page sizes 1, 2 and the default,
 * followed to the last page) compared with what the oracle says, and the invalid combinations with
 * the faults they must get. The oracle knows the executions from what the test did and from their
 * histories (start and close event times), never from a listing.
 */

import {
  CountClosedWorkflowExecutionsCommand,
  CountOpenWorkflowExecutionsCommand,
  type Decision,
  DeleteWorkflowTypeCommand,
  DeprecateDomainCommand,
  DeprecateWorkflowTypeCommand,
  type HistoryEvent,
  ListClosedWorkflowExecutionsCommand,
  ListOpenWorkflowExecutionsCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  RequestCancelWorkflowExecutionCommand,
  type StartChildWorkflowExecutionDecisionAttributes,
  type SWFClient,
  TerminateWorkflowExecutionCommand,
  type WorkflowExecutionInfo,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/local-service.js';
import { rawCall } from '../support/contract.js';
import { decide, SwfDriver, sleep, uid } from '../support/decider.js';
import { serveDomain, startTestServer } from '../support/local.js';
import {
  CLOSE_STATUSES,
  type CloseStatus,
  compareListing,
  type Expected,
  type ExpectedInfo,
  expected,
  expectedInfo,
  infoDifferences,
  type KnownExecution,
  type OracleWorld,
  type Ref,
  type TimeFilter,
  type VisibilityAction,
  type VisibilityRequest,
} from '../support/visibility-oracle.js';
import { awaitDecision, awaitHistory } from '../support/waiting.js';

const DOMAIN = 'oracle';
const OTHER = 'oracle-other';
const GONE = 'oracle-gone';

const ORDER_1 = { name: 'order', version: '1' };
const ORDER_2 = { name: 'order', version: '2' };
const ORDERLY = { name: 'orderly', version: '1' };
const TYPES = [ORDER_1, ORDER_2, ORDERLY];

const LONG_TAG = 't'.repeat(256);
const TAGS = ['red', 'Red', 'blue', 'a|b', 'ünï ☃', '', LONG_TAG, 'kid', 'chain', 'gen-1', 'gen-2'];

let swf: SWFClient;
let service: LocalService;
let close: () => Promise<void>;
const drivers = new Map<string, SwfDriver>();
const driverOf = (domain: string) => {
  const driver = drivers.get(domain);
  if (driver === undefined) throw new Error(`no driver for ${domain}`);
  return driver;
};

/** What the workload did to one execution; the times come from its history afterwards. */
interface Made {
  domain: string;
  execution: Ref;
  workflowType: { name: string; version: string };
  tagList: string[];
  parent?: Ref;
  cancelRequested: boolean;
  closeStatus?: CloseStatus;
  /** Client clock right after the close (for runs whose history is gone at once: retention 0). */
  closedByMs?: number;
  startMs?: number;
  closeMs?: number;
}

const made: Made[] = [];
let world: OracleWorld;

const startChild = (attributes: StartChildWorkflowExecutionDecisionAttributes): Decision => ({
  decisionType: 'StartChildWorkflowExecution',
  startChildWorkflowExecutionDecisionAttributes: attributes,
});

async function start(
  domain: string,
  workflowType: { name: string; version: string },
  workflowId: string,
  tagList: string[],
  extra: {
    executionStartToCloseTimeout?: string;
    childPolicy?: 'TERMINATE' | 'REQUEST_CANCEL';
  } = {},
): Promise<Made & { taskList: string }> {
  const driver = driverOf(domain);
  const { execution, taskList } = await driver.start(workflowType, {
    workflowId,
    ...(tagList.length === 0 ? {} : { tagList }),
    ...extra,
  });
  const m: Made = { domain, execution, workflowType, tagList, cancelRequested: false };
  made.push(m);
  return { ...m, taskList, execution };
}

const record = (m: Made) => made.find((x) => x.execution.runId === m.execution.runId) ?? m;

async function requestCancel(m: Made): Promise<void> {
  await driverOf(m.domain).swf.send(
    new RequestCancelWorkflowExecutionCommand({ domain: m.domain, ...m.execution }),
  );
  record(m).cancelRequested = true;
}

async function terminate(m: Made, childPolicy?: 'TERMINATE' | 'REQUEST_CANCEL' | 'ABANDON') {
  await driverOf(m.domain).swf.send(
    new TerminateWorkflowExecutionCommand({
      domain: m.domain,
      ...m.execution,
      reason: 'oracle',
      ...(childPolicy === undefined ? {} : { childPolicy }),
    }),
  );
  closed(m, 'TERMINATED');
}

function closed(m: Made, status: CloseStatus) {
  const r = record(m);
  r.closeStatus = status;
  r.closedByMs = Date.now();
}

/** Answers the run's pending decision task with `decisions` (one that closes it, usually). */
async function answer(m: Made & { taskList: string }, decisions: Decision[], status?: CloseStatus) {
  const driver = driverOf(m.domain);
  const task = await awaitDecision(driver, m.taskList);
  await driver.respond(task.taskToken, decisions);
  if (status !== undefined) closed(m, status);
}

/** Closes a run by continuing it as new; the new run is recorded as started by the same workflowId. */
async function continueAsNew(
  m: Made & { taskList: string },
  tagList: string[],
  version?: string,
): Promise<Made & { taskList: string }> {
  const taskList = uid('next');
  await answer(
    m,
    [
      decide.continueAsNew({
        taskList: { name: taskList },
        tagList,
        ...(version === undefined ? {} : { workflowTypeVersion: version }),
      }),
    ],
    'CONTINUED_AS_NEW',
  );
  const events = await driverOf(m.domain).history(m.execution);
  const attributes = events.find(
    (e) => e.eventType === 'WorkflowExecutionContinuedAsNew',
  )?.workflowExecutionContinuedAsNewEventAttributes;
  const runId = attributes?.newExecutionRunId;
  if (runId === undefined) throw new Error('no continued run');
  const next: Made = {
    domain: m.domain,
    execution: { workflowId: m.execution.workflowId, runId },
    workflowType: { name: m.workflowType.name, version: version ?? m.workflowType.version },
    tagList,
    ...(m.parent === undefined ? {} : { parent: m.parent }),
    cancelRequested: false,
  };
  made.push(next);
  return { ...next, taskList };
}

/** A parent's decision starting a child; the child is recorded once its run is known. */
async function spawn(
  parent: Made & { taskList: string },
  workflowType: { name: string; version: string },
  workflowId: string,
  tagList: string[],
): Promise<Made & { taskList: string }> {
  const driver = driverOf(parent.domain);
  const taskList = uid('child');
  await answer(parent, [
    startChild({
      workflowId,
      workflowType,
      taskList: { name: taskList },
      ...(tagList.length === 0 ? {} : { tagList }),
    }),
  ]);
  const events = await awaitHistory(driver, parent.execution, (es) =>
    es.some(
      (e) =>
        e.eventType === 'ChildWorkflowExecutionStarted' &&
        e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId ===
          workflowId,
    ),
  );
  const runId = events.find(
    (e) =>
      e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId === workflowId,
  )?.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.runId;
  if (runId === undefined) throw new Error('child not started');
  const child: Made = {
    domain: parent.domain,
    execution: { workflowId, runId },
    workflowType,
    tagList,
    parent: parent.execution,
    cancelRequested: false,
  };
  made.push(child);
  return { ...child, taskList };
}

/** The workload: every kind of execution SWF lists, in one domain, and a few in two others. */
async function workload(): Promise<void> {
  // Timed out (a second to run): started first, so they are long closed when the lists are read.
  const timedOut1 = await start(DOMAIN, ORDER_2, 'timeout-1', ['red'], {
    executionStartToCloseTimeout: '1',
  });
  const timedOut2 = await start(DOMAIN, ORDERLY, 'timeout-2', ['blue', 'blue'], {
    executionStartToCloseTimeout: '1',
  });
  await requestCancel(timedOut2);

  // A parent that times out (3 s) with an open child: its child policy (TERMINATE) ends the child.
  const p5 = await start(DOMAIN, ORDERLY, 'parent-5', ['blue'], {
    executionStartToCloseTimeout: '3',
  });
  const k6 = await spawn(p5, ORDER_1, 'kid-6', ['kid', 'red']);

  // Open ones.
  await start(DOMAIN, ORDER_1, 'open-1', ['red']);
  const open2 = await start(DOMAIN, ORDER_2, 'open-2', ['blue', 'red']);
  await requestCancel(open2);
  await start(DOMAIN, ORDERLY, 'open-3', []);
  const open4 = await start(DOMAIN, ORDER_1, 'open-4', ['Red']);
  await requestCancel(open4);
  await requestCancel(open4);
  await start(DOMAIN, ORDER_2, 'open-5', ['a|b', '']);
  await start(DOMAIN, ORDERLY, 'open-6', ['ünï ☃', LONG_TAG, 'red', 'blue', 'a|b']);

  // Completed, failed, canceled, terminated.
  const c1 = await start(DOMAIN, ORDER_1, 'completed-1', ['red']);
  const c2 = await start(DOMAIN, ORDER_2, 'completed-2', ['blue']);
  const c3 = await start(DOMAIN, ORDERLY, 'completed-3', []);
  const f1 = await start(DOMAIN, ORDER_1, 'failed-1', ['Red', '']);
  const f2 = await start(DOMAIN, ORDERLY, 'failed-2', ['blue']);
  const x1 = await start(DOMAIN, ORDER_2, 'canceled-1', ['red', 'a|b']);
  const x2 = await start(DOMAIN, ORDER_1, 'canceled-2', []);
  const t1 = await start(DOMAIN, ORDERLY, 'terminated-1', ['red']);
  const t2 = await start(DOMAIN, ORDER_1, 'terminated-2', ['ünï ☃']);
  await answer(c1, [decide.complete('done')], 'COMPLETED');
  await requestCancel(c2);
  await answer(c2, [decide.complete('done anyway')], 'COMPLETED');
  await answer(c3, [decide.complete()], 'COMPLETED');
  await answer(f1, [decide.fail('no', 'details')], 'FAILED');
  await answer(f2, [decide.fail()], 'FAILED');
  for (const x of [x1, x2]) {
    await requestCancel(x);
    await answer(x, [decide.cancel('bye')], 'CANCELED');
  }
  await terminate(t1);
  await requestCancel(t2);
  await terminate(t2);

  // Continue-as-new chains: one to a new version, open at the end; one completed at the end.
  const chainA1 = await start(DOMAIN, ORDER_1, 'chain-a', ['chain']);
  const chainA2 = await continueAsNew(chainA1, ['chain', 'gen-1']);
  const chainA3 = await continueAsNew(chainA2, ['chain', 'gen-2'], '2');
  await requestCancel(chainA3);
  const chainB1 = await start(DOMAIN, ORDERLY, 'chain-b', ['chain', 'red']);
  const chainB2 = await continueAsNew(chainB1, ['chain']);
  await answer(chainB2, [decide.complete()], 'COMPLETED');

  // Several runs of one workflowId: completed, failed, terminated, then open.
  const same1 = await start(DOMAIN, ORDER_1, 'same', ['red']);
  await answer(same1, [decide.complete()], 'COMPLETED');
  const same2 = await start(DOMAIN, ORDER_2, 'same', ['blue']);
  await answer(same2, [decide.fail('again')], 'FAILED');
  const same3 = await start(DOMAIN, ORDERLY, 'same', []);
  await terminate(same3);
  await start(DOMAIN, ORDER_1, 'same', ['red', 'blue']);

  // Children: one completes, one stays open; one is terminated by its parent's termination, one
  // has a cancel requested by it; one fails after its parent completed.
  const p1 = await start(DOMAIN, ORDER_1, 'parent-1', ['red']);
  const k1 = await spawn(p1, ORDER_2, 'kid-1', ['kid']);
  await answer(k1, [decide.complete()], 'COMPLETED');
  await spawn(p1, ORDERLY, 'kid-2', ['kid', 'red']);
  const p2 = await start(DOMAIN, ORDER_2, 'parent-2', []);
  const k3 = await spawn(p2, ORDER_1, 'kid-3', ['kid']);
  await terminate(p2, 'TERMINATE');
  closed(k3, 'TERMINATED');
  const p3 = await start(DOMAIN, ORDERLY, 'parent-3', ['blue']);
  const k4 = await spawn(p3, ORDER_2, 'kid-4', []);
  await terminate(p3, 'REQUEST_CANCEL');
  record(k4).cancelRequested = true;
  const p4 = await start(DOMAIN, ORDER_1, 'parent-4', []);
  const k5 = await spawn(p4, ORDER_1, 'kid-5', ['kid']);
  // The parent completes: its child is not closed by that (no child policy applies).
  await answer(p4, [decide.complete()], 'COMPLETED');
  await answer(k5, [decide.fail('child failed')], 'FAILED');

  // A parent terminated with ABANDON: its child stays open, and still names its parent.
  const p6 = await start(DOMAIN, ORDER_2, 'parent-6', ['red']);
  await spawn(p6, ORDER_2, 'kid-7', []);
  await terminate(p6, 'ABANDON');
  // A cancel requested by another execution's decision (RequestCancelExternalWorkflowExecution).
  const target = await start(DOMAIN, ORDER_1, 'cancel-target', ['blue']);
  const requester = await start(DOMAIN, ORDER_2, 'cancel-requester', []);
  await answer(requester, [
    {
      decisionType: 'RequestCancelExternalWorkflowExecution',
      requestCancelExternalWorkflowExecutionDecisionAttributes: { ...target.execution },
    },
  ]);
  record(target).cancelRequested = true;

  // Another domain with the same workflowIds, types and tags: never in this domain's lists.
  await start(OTHER, ORDER_1, 'open-1', ['red']);
  const otherClosed = await start(OTHER, ORDER_1, 'completed-1', ['red']);
  await answer(otherClosed, [decide.complete()], 'COMPLETED');

  // A domain that keeps nothing after close.
  await start(GONE, ORDER_1, 'open-1', ['red']);
  const gone1 = await start(GONE, ORDER_1, 'completed-1', ['red']);
  await answer(gone1, [decide.complete()], 'COMPLETED');
  const gone2 = await start(GONE, ORDER_2, 'terminated-1', ['blue']);
  await terminate(gone2);

  closed(timedOut1, 'TIMED_OUT');
  closed(timedOut2, 'TIMED_OUT');
  closed(p5, 'TIMED_OUT');
  closed(k6, 'TERMINATED');
}

const CLOSE_EVENTS: Record<string, CloseStatus> = {
  WorkflowExecutionCompleted: 'COMPLETED',
  WorkflowExecutionFailed: 'FAILED',
  WorkflowExecutionCanceled: 'CANCELED',
  WorkflowExecutionTerminated: 'TERMINATED',
  WorkflowExecutionContinuedAsNew: 'CONTINUED_AS_NEW',
  WorkflowExecutionTimedOut: 'TIMED_OUT',
};

/** Reads each run's history until it shows what the workload did; the times come from there. */
async function settle(m: Made): Promise<void> {
  const driver = driverOf(m.domain);
  if (m.domain === GONE && m.closeStatus !== undefined) {
    // Gone with its close: the oracle only needs to know it closed.
    m.closeMs = m.closedByMs ?? Date.now();
    m.startMs = 0;
    return;
  }
  const events = await awaitHistory(
    driver,
    m.execution,
    (es) =>
      m.closeStatus === undefined ||
      es.some((e) => CLOSE_EVENTS[e.eventType ?? ''] === m.closeStatus),
    8_000,
  );
  const startEvent = events.find((e) => e.eventType === 'WorkflowExecutionStarted');
  const closeEvent = events.find((e) => CLOSE_EVENTS[e.eventType ?? ''] !== undefined);
  m.startMs = ms(startEvent);
  if (m.closeStatus !== undefined) m.closeMs = ms(closeEvent);
  else if (closeEvent !== undefined)
    throw new Error(`${m.execution.workflowId} closed unexpectedly: ${closeEvent.eventType}`);
  if (m.cancelRequested)
    await awaitHistory(driver, m.execution, (es) =>
      es.some((e) => e.eventType === 'WorkflowExecutionCancelRequested'),
    );
}

const ms = (e: HistoryEvent | undefined) => {
  const t = e?.eventTimestamp?.getTime();
  if (t === undefined) throw new Error('event without a time');
  return t;
};

const known = (m: Made): KnownExecution => ({
  domain: m.domain,
  execution: m.execution,
  workflowType: m.workflowType,
  startMs: m.startMs ?? Number.NaN,
  ...(m.closeMs === undefined ? {} : { closeMs: m.closeMs }),
  ...(m.closeStatus === undefined ? {} : { closeStatus: m.closeStatus }),
  ...(m.parent === undefined ? {} : { parent: m.parent }),
  tagList: m.tagList,
  cancelRequested: m.cancelRequested,
});

beforeAll(async () => {
  const served = await serveDomain(DOMAIN, { polling: { maxWaitMs: 2_000 } });
  ({ swf, service, close } = served);
  drivers.set(DOMAIN, served.driver);
  for (const [name, retention] of [
    [OTHER, '1'],
    [GONE, '0'],
  ] as const) {
    await swf.send(
      new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: retention }),
    );
    drivers.set(name, new SwfDriver(swf, name));
  }
  for (const domain of [DOMAIN, OTHER, GONE])
    for (const type of TYPES)
      await swf.send(
        new RegisterWorkflowTypeCommand({
          domain,
          ...type,
          defaultTaskList: { name: 'unused' },
          defaultExecutionStartToCloseTimeout: '3600',
          defaultTaskStartToCloseTimeout: '600',
          defaultChildPolicy: 'TERMINATE',
        }),
      );
  await workload();
  for (const m of made) await settle(m);
  // Visibility outlives the registry: a deleted type's executions are still listed by its name, and a
  // deprecated domain still answers (SWF allows visibility calls there).
  await swf.send(new DeprecateWorkflowTypeCommand({ domain: DOMAIN, workflowType: ORDERLY }));
  await swf.send(new DeleteWorkflowTypeCommand({ domain: DOMAIN, workflowType: ORDERLY }));
  await swf.send(new DeprecateDomainCommand({ name: OTHER }));
  // Visibility is eventually consistent: the stream consumer writes the rows. Every change above is
  // in the table by now (the histories show it), so once the stream has caught up twice (a change
  // that causes another, a parent's termination of its child, is in the table before the second)
  // the rows are written.
  await service.streamCaughtUp();
  await sleep(200);
  await service.streamCaughtUp();
  world = {
    executions: made.map(known),
    domains: new Map([
      [DOMAIN, 1],
      [OTHER, 1],
      [GONE, 0],
    ]),
    nowMs: Date.now(),
  };
}, 60_000);
afterAll(() => close());

// ---------------------------------------------------------------------------------------------------
// Calling the service and reading its answers in the oracle's terms

const fromSdk = (i: WorkflowExecutionInfo): ExpectedInfo => ({
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

type Outcome =
  | { kind: 'fault'; fault: string; message: string }
  | { kind: 'list'; infos: ExpectedInfo[]; pageSizes: number[] }
  | { kind: 'count'; count: number; truncated: boolean | undefined };

const toDate = (f: TimeFilter | undefined) =>
  f === undefined
    ? undefined
    : {
        oldestDate: new Date(f.oldestDate * 1000),
        ...(f.latestDate === undefined ? {} : { latestDate: new Date(f.latestDate * 1000) }),
      };

/** One page of ListOpen or ListClosedWorkflowExecutions through the SDK. */
const listPage = (client: SWFClient, action: VisibilityAction, input: object) =>
  action === 'ListOpenWorkflowExecutions'
    ? client.send(new ListOpenWorkflowExecutionsCommand(input as never))
    : client.send(new ListClosedWorkflowExecutionsCommand(input as never));

/** One request through the official SDK (time bounds in whole milliseconds), every page. */
async function viaSdk(action: VisibilityAction, request: VisibilityRequest): Promise<Outcome> {
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

/** One request as raw JSON (time bounds as given, sub-millisecond fractions kept), every page. */
async function viaWire(action: VisibilityAction, request: VisibilityRequest): Promise<Outcome> {
  const infos: ExpectedInfo[] = [];
  const pageSizes: number[] = [];
  let nextPageToken: string | undefined;
  do {
    const response = await rawCall(service.endpoint, action, {
      ...request,
      ...(nextPageToken === undefined ? {} : { nextPageToken }),
    });
    const body = JSON.parse(response.text) as Record<string, unknown>;
    if (response.status !== 200) {
      const type = String(body.__type ?? '');
      return {
        kind: 'fault',
        fault: type.slice(type.indexOf('#') + 1),
        message: String(body.message),
      };
    }
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

/** The differences between what the service answered and what the oracle says, empty when none. */
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

/** Runs requests a few at a time; returns every difference. */
async function check(
  cases: readonly { action: VisibilityAction; request: VisibilityRequest; wire?: boolean }[],
): Promise<string[]> {
  const problems: string[] = [];
  let next = 0;
  const worker = async () => {
    for (;;) {
      const c = cases[next++];
      if (c === undefined) return;
      const outcome = await (c.wire === true ? viaWire : viaSdk)(c.action, c.request);
      problems.push(...judge(c.action, c.request, outcome, expected(c.action, c.request, world)));
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return problems;
}

// ---------------------------------------------------------------------------------------------------
// The combinations

type FilterPart = Pick<
  VisibilityRequest,
  'executionFilter' | 'typeFilter' | 'tagFilter' | 'closeStatusFilter'
>;

/** Every filter value worth asking: the workload's ids, types, tags and statuses, and some unknown. */
function filters(closed: boolean): FilterPart[] {
  const ids = [...new Set(made.map((m) => m.execution.workflowId)), 'nobody'];
  return [
    {},
    ...ids.map((workflowId) => ({ executionFilter: { workflowId } })),
    ...['order', 'orderly', 'ord', 'unknown'].map((name) => ({ typeFilter: { name } })),
    ...[...TYPES, { name: 'order', version: '9' }].map((t) => ({ typeFilter: t })),
    ...[...TAGS, 'RED', 'nothing'].map((tag) => ({ tagFilter: { tag } })),
    ...(closed ? CLOSE_STATUSES.map((status) => ({ closeStatusFilter: { status } })) : []),
  ];
}

/** Time ranges built from the times a list is ordered by (epoch ms): both ends exact, or just off. */
function ranges(times: readonly number[]): TimeFilter[] {
  const t = [...new Set(times)].sort((a, b) => a - b);
  const at = (f: number) => t[Math.min(t.length - 1, Math.floor(f * t.length))] ?? 0;
  const s = (msValue: number) => msValue / 1000;
  const low = at(0.25);
  const high = at(0.75);
  const mid = at(0.5);
  return [
    { oldestDate: 0 },
    { oldestDate: s(mid) },
    { oldestDate: s(low), latestDate: s(high) },
    { oldestDate: s(low + 1), latestDate: s(high - 1) },
    { oldestDate: s(mid), latestDate: s(mid) },
    { oldestDate: 0, latestDate: s(mid) },
    { oldestDate: s((t[t.length - 1] ?? 0) + 1) },
  ];
}

const openTimes = () =>
  world.executions
    .filter((e) => e.domain === DOMAIN && e.closeStatus === undefined)
    .map((e) => e.startMs);
const closedStarts = () =>
  world.executions
    .filter((e) => e.domain === DOMAIN && e.closeStatus !== undefined)
    .map((e) => e.startMs);
const closedCloses = () =>
  world.executions
    .filter((e) => e.domain === DOMAIN && e.closeStatus !== undefined)
    .map((e) => e.closeMs ?? 0);

type Case = { action: VisibilityAction; request: VisibilityRequest; wire?: boolean };

/** Lists in both orders with the default page size for every range; pages of 1 and 2 for the widest. */
/** workflowIds asked with every range: those of several runs, a child, an open run, none. */
const RANGED_IDS = new Set(['same', 'chain-a', 'chain-b', 'kid-1', 'open-1', 'nobody']);

/** Whether a filter is asked with every range (the other workflowIds only with the widest). */
const everyRange = (filter: FilterPart) =>
  filter.executionFilter === undefined || RANGED_IDS.has(filter.executionFilter.workflowId);

/** Lists in both orders with the default page size for every range; pages of 1 and 2 for the widest. */
function listCases(
  action: VisibilityAction,
  timeMember: 'startTimeFilter' | 'closeTimeFilter',
  times: number[],
  closed: boolean,
): Case[] {
  const cases: Case[] = [];
  const all = ranges(times);
  for (const filter of filters(closed))
    for (const [index, range] of all.entries()) {
      if (index > 0 && !everyRange(filter)) continue;
      for (const reverseOrder of [false, true]) {
        const base = { domain: DOMAIN, [timeMember]: range, ...filter, reverseOrder };
        cases.push({ action, request: base });
        if (index === 0) {
          cases.push({ action, request: { ...base, maximumPageSize: 1 } });
          if (everyRange(filter)) cases.push({ action, request: { ...base, maximumPageSize: 2 } });
        }
        if (index === 2 && Object.keys(filter).length === 0)
          cases.push({ action, request: { ...base, maximumPageSize: 3 } });
      }
    }
  return cases;
}

function countCases(
  action: VisibilityAction,
  timeMember: 'startTimeFilter' | 'closeTimeFilter',
  times: number[],
  closed: boolean,
): Case[] {
  return filters(closed).flatMap((filter) =>
    ranges(times)
      .filter((_, index) => index === 0 || everyRange(filter))
      .map((range) => ({
        action,
        request: { domain: DOMAIN, [timeMember]: range, ...filter },
      })),
  );
}

const report = (problems: string[]) => {
  // Print them all before failing: a sweep should show every difference, not the first.
  if (problems.length > 0)
    console.log(`${problems.length} differences:\n${problems.slice(0, 60).join('\n')}`);
  expect(problems).toEqual([]);
};

describe('the workload', () => {
  it('has what it set out to have: every close status, children, chains, several runs of one id', () => {
    const statuses = new Set(made.map((m) => m.closeStatus));
    for (const status of CLOSE_STATUSES) expect(statuses).toContain(status);
    expect(made.filter((m) => m.parent !== undefined).length).toBeGreaterThanOrEqual(5);
    expect(made.filter((m) => m.execution.workflowId === 'same')).toHaveLength(4);
    expect(made.length).toBeGreaterThanOrEqual(40);
    for (const m of made) expect(m.startMs, m.execution.workflowId).not.toBeNaN();
  });
});

describe('DescribeWorkflowExecution', () => {
  it('shows each execution as the oracle does, and a closed one of a domain keeping nothing is gone', async () => {
    const problems: string[] = [];
    for (const e of world.executions) {
      const driver = driverOf(e.domain);
      const gone = e.domain === GONE && e.closeStatus !== undefined;
      try {
        const out = await driver.describe(e.execution);
        if (gone) problems.push(`${e.execution.workflowId} in ${e.domain}: still described`);
        else if (out.executionInfo === undefined)
          problems.push(`${e.execution.workflowId}: no info`);
        else {
          const diff = infoDifferences(fromSdk(out.executionInfo), expectedInfo(e));
          if (diff.length > 0)
            problems.push(`${e.execution.workflowId}/${e.execution.runId}: ${diff.join('; ')}`);
        }
      } catch (error) {
        if (!gone || (error as Error).name !== 'UnknownResourceFault')
          problems.push(
            `${e.execution.workflowId}: ${(error as Error).name} ${(error as Error).message}`,
          );
      }
    }
    report(problems);
  });
});

describe('ListOpenWorkflowExecutions and CountOpenWorkflowExecutions', () => {
  it('list every filter × range × order × page size as the oracle does', async () => {
    report(
      await check(listCases('ListOpenWorkflowExecutions', 'startTimeFilter', openTimes(), false)),
    );
  });
  it('count every filter × range as the oracle does', async () => {
    report(
      await check(countCases('CountOpenWorkflowExecutions', 'startTimeFilter', openTimes(), false)),
    );
  });
});

describe('ListClosedWorkflowExecutions and CountClosedWorkflowExecutions', () => {
  it('list by start time: every filter × range × order × page size', async () => {
    report(
      await check(
        listCases('ListClosedWorkflowExecutions', 'startTimeFilter', closedStarts(), true),
      ),
    );
  });
  it('list by close time: every filter × range × order × page size', async () => {
    report(
      await check(
        listCases('ListClosedWorkflowExecutions', 'closeTimeFilter', closedCloses(), true),
      ),
    );
  });
  it('count by start and by close time: every filter × range', async () => {
    report(
      await check([
        ...countCases('CountClosedWorkflowExecutions', 'startTimeFilter', closedStarts(), true),
        ...countCases('CountClosedWorkflowExecutions', 'closeTimeFilter', closedCloses(), true),
      ]),
    );
  });
});

describe('time bounds with fractions of a millisecond (raw JSON, as a client other than the SDK may send)', () => {
  it('keep both bounds inclusive and compare exactly', async () => {
    const cases: Case[] = [];
    for (const [action, member, times] of [
      ['ListOpenWorkflowExecutions', 'startTimeFilter', openTimes()],
      ['CountOpenWorkflowExecutions', 'startTimeFilter', openTimes()],
      ['ListClosedWorkflowExecutions', 'startTimeFilter', closedStarts()],
      ['ListClosedWorkflowExecutions', 'closeTimeFilter', closedCloses()],
      ['CountClosedWorkflowExecutions', 'closeTimeFilter', closedCloses()],
    ] as const) {
      const t = [...new Set(times)].sort((a, b) => a - b);
      const low = t[1] ?? 0;
      const high = t[t.length - 2] ?? 0;
      for (const range of [
        // Around the bounds by less than a millisecond: both ends in, then both out.
        { oldestDate: low / 1000 - 0.0004, latestDate: high / 1000 + 0.0004 },
        { oldestDate: low / 1000 + 0.0004, latestDate: high / 1000 - 0.0004 },
        // Exactly the bounds, written as decimals of seconds.
        {
          oldestDate: Number((low / 1000).toFixed(3)),
          latestDate: Number((high / 1000).toFixed(3)),
        },
        // One run alone, between fractions around it.
        { oldestDate: low / 1000 - 0.0001, latestDate: low / 1000 + 0.0001 },
      ])
        for (const reverseOrder of [false, true])
          cases.push({
            action,
            request: {
              domain: DOMAIN,
              [member]: range,
              ...(action.startsWith('List') ? { reverseOrder } : {}),
            },
            wire: true,
          });
    }
    report(await check(cases));
  });
});

describe('other domains', () => {
  it('see nothing of each other, and one keeping nothing after close lists only its open runs', async () => {
    const cases: Case[] = [];
    for (const domain of [OTHER, GONE, DOMAIN]) {
      const parts: FilterPart[] = [
        {},
        { executionFilter: { workflowId: 'open-1' } },
        { executionFilter: { workflowId: 'completed-1' } },
        { executionFilter: { workflowId: 'terminated-1' } },
        { typeFilter: { name: 'order' } },
        { typeFilter: ORDER_1 },
        { tagFilter: { tag: 'red' } },
        { tagFilter: { tag: 'blue' } },
      ];
      for (const part of parts) {
        const base = { domain, ...part };
        const all = { oldestDate: 0 };
        cases.push({
          action: 'ListOpenWorkflowExecutions',
          request: { ...base, startTimeFilter: all },
        });
        cases.push({
          action: 'CountOpenWorkflowExecutions',
          request: { ...base, startTimeFilter: all },
        });
        for (const member of ['startTimeFilter', 'closeTimeFilter'] as const) {
          cases.push({
            action: 'ListClosedWorkflowExecutions',
            request: { ...base, [member]: all },
          });
          cases.push({
            action: 'CountClosedWorkflowExecutions',
            request: { ...base, [member]: all },
          });
        }
      }
      for (const status of CLOSE_STATUSES)
        for (const member of ['startTimeFilter', 'closeTimeFilter'] as const) {
          const request = { domain, [member]: { oldestDate: 0 }, closeStatusFilter: { status } };
          cases.push({ action: 'ListClosedWorkflowExecutions', request });
          cases.push({ action: 'CountClosedWorkflowExecutions', request });
        }
    }
    report(await check(cases));
  });
});

describe('page sizes', () => {
  it('take 0 as the default, and page to the end in both orders with every size up to the whole', async () => {
    const cases: Case[] = [];
    const all = { oldestDate: 0 };
    for (const maximumPageSize of [0, 3, 5, 7, 1000])
      for (const reverseOrder of [false, true]) {
        cases.push({
          action: 'ListOpenWorkflowExecutions',
          request: { domain: DOMAIN, startTimeFilter: all, maximumPageSize, reverseOrder },
        });
        for (const member of ['startTimeFilter', 'closeTimeFilter'] as const)
          cases.push({
            action: 'ListClosedWorkflowExecutions',
            request: { domain: DOMAIN, [member]: all, maximumPageSize, reverseOrder },
          });
      }
    report(await check(cases));
  });
});

describe('invalid combinations', () => {
  const all = { oldestDate: 0 };
  const exclusive: Record<string, FilterPart> = {
    executionFilter: { executionFilter: { workflowId: 'open-1' } },
    typeFilter: { typeFilter: { name: 'order' } },
    tagFilter: { tagFilter: { tag: 'red' } },
    closeStatusFilter: { closeStatusFilter: { status: 'FAILED' } },
  };
  /** Every set of two or more of the given filters. */
  const combinations = (names: string[]): FilterPart[] => {
    const out: FilterPart[] = [];
    for (let mask = 0; mask < 1 << names.length; mask++) {
      const chosen = names.filter((_, i) => (mask & (1 << i)) !== 0);
      if (chosen.length >= 2)
        out.push(Object.assign({}, ...chosen.map((n) => exclusive[n])) as FilterPart);
    }
    return out;
  };

  it('refuse two or more exclusive filters, both time filters or neither, with ValidationException', async () => {
    const cases: Case[] = [];
    for (const action of ['ListOpenWorkflowExecutions', 'CountOpenWorkflowExecutions'] as const) {
      for (const part of combinations(['executionFilter', 'typeFilter', 'tagFilter']))
        cases.push({ action, request: { domain: DOMAIN, startTimeFilter: all, ...part } });
      cases.push({ action, request: { domain: DOMAIN } });
      cases.push({ action, request: { domain: DOMAIN, tagFilter: { tag: 'red' } } });
    }
    for (const action of [
      'ListClosedWorkflowExecutions',
      'CountClosedWorkflowExecutions',
    ] as const) {
      for (const part of combinations(Object.keys(exclusive)))
        for (const member of ['startTimeFilter', 'closeTimeFilter'] as const)
          cases.push({ action, request: { domain: DOMAIN, [member]: all, ...part } });
      cases.push({
        action,
        request: { domain: DOMAIN, startTimeFilter: all, closeTimeFilter: all },
      });
      cases.push({
        action,
        request: {
          domain: DOMAIN,
          startTimeFilter: all,
          closeTimeFilter: all,
          tagFilter: { tag: 'x' },
        },
      });
      cases.push({ action, request: { domain: DOMAIN } });
      cases.push({ action, request: { domain: DOMAIN, closeStatusFilter: { status: 'FAILED' } } });
    }
    report(await check([...cases, ...cases.map((c) => ({ ...c, wire: true }))]));
  });

  it('refuse members out of the model’s bounds with ValidationException, and an unknown domain with UnknownResourceFault', async () => {
    const cases: Case[] = [];
    const actions: VisibilityAction[] = [
      'ListOpenWorkflowExecutions',
      'CountOpenWorkflowExecutions',
      'ListClosedWorkflowExecutions',
      'CountClosedWorkflowExecutions',
    ];
    for (const action of actions) {
      const base = { domain: DOMAIN, startTimeFilter: all };
      const bad: VisibilityRequest[] = [
        { ...base, executionFilter: { workflowId: '' } },
        { ...base, executionFilter: { workflowId: 'w'.repeat(257) } },
        { ...base, typeFilter: { name: '' } },
        { ...base, typeFilter: { name: 'n'.repeat(257) } },
        { ...base, typeFilter: { name: 'order', version: 'v'.repeat(65) } },
        { ...base, tagFilter: { tag: 't'.repeat(257) } },
        { ...base, domain: '' },
        { ...base, domain: 'no-such-domain' },
      ];
      if (action.startsWith('List'))
        bad.push({ ...base, maximumPageSize: 1001 }, { ...base, maximumPageSize: -1 });
      if (action.includes('Closed'))
        bad.push(
          { ...base, closeStatusFilter: { status: 'OPEN' } },
          { ...base, closeStatusFilter: { status: 'completed' } },
          { domain: DOMAIN, closeTimeFilter: all, closeStatusFilter: { status: 'TIMEDOUT' } },
        );
      for (const request of bad) {
        cases.push({ action, request });
        cases.push({ action, request, wire: true });
      }
    }
    report(await check(cases));
  });

  it('accept the longest values the model allows', async () => {
    const cases: Case[] = [];
    const all = { oldestDate: 0 };
    for (const action of ['ListOpenWorkflowExecutions', 'CountClosedWorkflowExecutions'] as const)
      for (const part of [
        { executionFilter: { workflowId: 'w'.repeat(256) } },
        { typeFilter: { name: 'n'.repeat(256), version: 'v'.repeat(64) } },
        { tagFilter: { tag: LONG_TAG } },
      ])
        cases.push({ action, request: { domain: DOMAIN, startTimeFilter: all, ...part } });
    report(await check(cases));
  });
});

describe('executions that share a start and a close time (a server clock that stands still)', () => {
  it('are each listed once, on whichever page, by every filter, page size and order', async () => {
    const at = Date.now();
    const frozen = await startTestServer({ clock: { now: () => at } });
    try {
      const domain = 'frozen';
      await frozen.swf.send(
        new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }),
      );
      for (const type of [ORDER_1, ORDER_2])
        await frozen.swf.send(
          new RegisterWorkflowTypeCommand({
            domain,
            ...type,
            defaultTaskList: { name: 'unused' },
            defaultExecutionStartToCloseTimeout: '3600',
            defaultTaskStartToCloseTimeout: '600',
            defaultChildPolicy: 'TERMINATE',
          }),
        );
      const driver = new SwfDriver(frozen.swf, domain);
      const runs: KnownExecution[] = [];
      for (let i = 0; i < 24; i++) {
        const workflowType = i % 3 === 0 ? ORDER_2 : ORDER_1;
        const tagList = i % 2 === 0 ? ['even'] : ['odd'];
        const { execution } = await driver.start(workflowType, { workflowId: `tie-${i}`, tagList });
        const terminated = i % 4 === 1;
        if (terminated)
          await frozen.swf.send(
            new TerminateWorkflowExecutionCommand({ domain, ...execution, reason: 'tie' }),
          );
        runs.push({
          domain,
          execution,
          workflowType,
          startMs: at,
          ...(terminated ? { closeMs: at, closeStatus: 'TERMINATED' as const } : {}),
          tagList,
          cancelRequested: false,
        });
      }
      await frozen.service.streamCaughtUp();
      const tieWorld: OracleWorld = {
        executions: runs,
        domains: new Map([[domain, 1]]),
        nowMs: Date.now(),
      };
      const problems: string[] = [];
      const all = { oldestDate: 0 };
      const exact = { oldestDate: at / 1000, latestDate: at / 1000 };
      const parts: FilterPart[] = [
        {},
        { typeFilter: { name: 'order' } },
        { typeFilter: ORDER_2 },
        { tagFilter: { tag: 'even' } },
        { executionFilter: { workflowId: 'tie-5' } },
      ];
      for (const part of parts)
        for (const range of [all, exact])
          for (const maximumPageSize of Object.keys(part).length === 0 ? [1, 2, 5, 0] : [2, 0])
            for (const reverseOrder of [false, true])
              for (const [action, member] of [
                ['ListOpenWorkflowExecutions', 'startTimeFilter'],
                ['ListClosedWorkflowExecutions', 'startTimeFilter'],
                ['ListClosedWorkflowExecutions', 'closeTimeFilter'],
              ] as const) {
                const request = { domain, [member]: range, ...part, maximumPageSize, reverseOrder };
                const infos: ExpectedInfo[] = [];
                const pageSizes: number[] = [];
                let nextPageToken: string | undefined;
                do {
                  const input = {
                    ...request,
                    [member]: toDate(range),
                    ...(nextPageToken === undefined ? {} : { nextPageToken }),
                  } as never;
                  const out = await listPage(frozen.swf, action, input);
                  infos.push(...(out.executionInfos ?? []).map(fromSdk));
                  pageSizes.push(out.executionInfos?.length ?? 0);
                  nextPageToken = out.nextPageToken;
                } while (nextPageToken !== undefined && pageSizes.length < 100);
                problems.push(
                  ...judge(
                    action,
                    request,
                    { kind: 'list', infos, pageSizes },
                    expected(action, request, tieWorld),
                  ),
                );
              }
      report(problems);
    } finally {
      await frozen.close();
    }
  });
});

describe('retention, on a server clock the test sets', () => {
  /**
   * A server whose clock reads `clock.t` (epoch ms), a domain with the given retention and an open,
   * a terminated and a completed... run; returns what the oracle needs and a way to ask it.
   */
  async function agingDomain(retentionDays: string, startMs: number) {
    const clock = { t: startMs };
    const server = await startTestServer({ clock: { now: () => clock.t } });
    const domain = `aging-${retentionDays}`;
    await server.swf.send(
      new RegisterDomainCommand({
        name: domain,
        workflowExecutionRetentionPeriodInDays: retentionDays,
      }),
    );
    await server.swf.send(
      new RegisterWorkflowTypeCommand({
        domain,
        ...ORDER_1,
        defaultTaskList: { name: 'unused' },
        // Ten days: the open run must outlive the retention the test lets pass.
        defaultExecutionStartToCloseTimeout: '864000',
        defaultTaskStartToCloseTimeout: '600',
        defaultChildPolicy: 'TERMINATE',
      }),
    );
    const driver = new SwfDriver(server.swf, domain);
    const runs: KnownExecution[] = [];
    for (const [workflowId, closes] of [
      ['stays-open', false],
      ['terminated', true],
      ['also-terminated', true],
    ] as const) {
      const { execution } = await driver.start(ORDER_1, { workflowId, tagList: ['aging'] });
      if (closes)
        await server.swf.send(new TerminateWorkflowExecutionCommand({ domain, ...execution }));
      runs.push({
        domain,
        execution,
        workflowType: ORDER_1,
        startMs: clock.t,
        ...(closes ? { closeMs: clock.t, closeStatus: 'TERMINATED' as const } : {}),
        tagList: ['aging'],
        cancelRequested: false,
      });
    }
    // Every row is written at the clock of the changes, before the test moves it.
    await server.service.streamCaughtUp();
    /** Every list and count, and DescribeWorkflowExecution of every run, against the oracle at `clock.t`. */
    const compare = async (): Promise<string[]> => {
      await server.service.streamCaughtUp();
      const agedWorld: OracleWorld = {
        executions: runs,
        domains: new Map([[domain, Number(retentionDays)]]),
        nowMs: clock.t,
      };
      const problems: string[] = [];
      const all = { oldestDate: 0 };
      for (const part of [
        {},
        { tagFilter: { tag: 'aging' } },
        { executionFilter: { workflowId: 'terminated' } },
      ])
        for (const [action, member] of [
          ['ListOpenWorkflowExecutions', 'startTimeFilter'],
          ['CountOpenWorkflowExecutions', 'startTimeFilter'],
          ['ListClosedWorkflowExecutions', 'startTimeFilter'],
          ['ListClosedWorkflowExecutions', 'closeTimeFilter'],
          ['CountClosedWorkflowExecutions', 'startTimeFilter'],
          ['CountClosedWorkflowExecutions', 'closeTimeFilter'],
        ] as const) {
          const request = { domain, [member]: all, ...part };
          const outcome = await viaWireAt(server.service.endpoint, action, request);
          problems.push(...judge(action, request, outcome, expected(action, request, agedWorld)));
        }
      for (const run of runs) {
        const shown = await driver.describe(run.execution).then(
          () => 'described',
          (error: Error) => error.name,
        );
        const gone =
          run.closeMs !== undefined && run.closeMs + Number(retentionDays) * 86_400_000 <= clock.t;
        if ((shown === 'UnknownResourceFault') !== gone)
          problems.push(`DescribeWorkflowExecution ${run.execution.workflowId}: ${shown}`);
      }
      return problems;
    };
    return { server, clock, driver, runs, compare };
  }

  it('keeps nothing of a run closed in a domain of retention 0 once the stream has handled its close', async () => {
    // RegisterDomain: "If you pass the value NONE or 0 (zero), then the workflow execution history
    // isn't retained. As soon as the workflow execution completes, the execution record and its
    // history are deleted." docs/swf-differences.md, "Retention": "(`0`/`NONE`: as soon as the stream
    // consumer has handled the close, a moment after it)". The runs close a millisecond into a second; the lists are read a
    // millisecond later, in the same second.
    const second = Math.floor(Date.now() / 1000) * 1000;
    const aging = await agingDomain('0', second + 1);
    try {
      aging.clock.t = second + 2;
      report(await aging.compare());
    } finally {
      await aging.server.close();
    }
  });

  it('drops closed runs from every list, count and Describe once a retention of 1 day has passed', async () => {
    const start = Date.now();
    const aging = await agingDomain('1', start);
    try {
      // A page token issued now, used after its 24 hours (ListClosedWorkflowExecutions:
      // "Each pagination token expires after 24 hours. Using an expired pagination token will
      // return a 400 error: "Specified token has exceeded its maximum lifetime".").
      const first = await viaWirePage(aging.server.service.endpoint, {
        domain: 'aging-1',
        startTimeFilter: { oldestDate: 0 },
        maximumPageSize: 1,
      });
      // Within the retention (a second short of it), and past it (a second beyond).
      aging.clock.t = start + 86_400_000 - 1_000;
      const within = await aging.compare();
      aging.clock.t = start + 86_400_000 + 1_000;
      const past = await aging.compare();
      const expired = await rawCall(aging.server.service.endpoint, 'ListClosedWorkflowExecutions', {
        domain: 'aging-1',
        startTimeFilter: { oldestDate: 0 },
        maximumPageSize: 1,
        nextPageToken: first,
      });
      const problems = [...within, ...past];
      if (
        expired.status !== 400 ||
        !expired.text.includes('Specified token has exceeded its maximum lifetime')
      )
        problems.push(`a token 24 hours old: ${expired.status} ${expired.text}`);
      report(problems);
    } finally {
      await aging.server.close();
    }
  });
});

/** viaWire against another server's endpoint. */
async function viaWireAt(
  endpoint: string,
  action: VisibilityAction,
  request: VisibilityRequest,
): Promise<Outcome> {
  const response = await rawCall(endpoint, action, request);
  const body = JSON.parse(response.text) as Record<string, unknown>;
  if (response.status !== 200) {
    const type = String(body.__type ?? '');
    return {
      kind: 'fault',
      fault: type.slice(type.indexOf('#') + 1),
      message: String(body.message),
    };
  }
  if (action.startsWith('Count'))
    return { kind: 'count', count: body.count as number, truncated: body.truncated as boolean };
  if (body.nextPageToken !== undefined) throw new Error('a second page: not expected here');
  const page = (body.executionInfos ?? []) as RawInfo[];
  return { kind: 'list', infos: page.map(fromWire), pageSizes: [page.length] };
}

/** The nextPageToken of one page of ListClosedWorkflowExecutions. */
async function viaWirePage(endpoint: string, request: VisibilityRequest): Promise<string> {
  const response = await rawCall(endpoint, 'ListClosedWorkflowExecutions', request);
  const token = (JSON.parse(response.text) as { nextPageToken?: string }).nextPageToken;
  if (token === undefined) throw new Error(`no token: ${response.text}`);
  return token;
}
