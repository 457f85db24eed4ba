/**
 * The visibility oracle's workload (test/contract/visibility-oracle.test.ts): a few dozen executions
 * on the local server (two type names, three versions, tags, children, continue-as-new chains, every
 * close status, cancel requests, several runs of one workflowId, a second domain and a domain that
 * keeps nothing after close), recorded as the test made them. Their times come from their
 * histories, never from a listing. One workload per test file: the module keeps what it made.
 */
import {
  type Decision,
  DeleteWorkflowTypeCommand,
  DeprecateDomainCommand,
  DeprecateWorkflowTypeCommand,
  type HistoryEvent,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  RequestCancelWorkflowExecutionCommand,
  type StartChildWorkflowExecutionDecisionAttributes,
  type SWFClient,
  TerminateWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import type { LocalService } from '../../lib/local/local-service.js';
import { decide, SwfDriver, sleep, uid } from './decider.js';
import { serveDomain } from './local.js';
import type { CloseStatus, KnownExecution, OracleWorld, Ref } from './visibility-oracle.js';
import { awaitDecision, awaitHistory } from './waiting.js';

export const DOMAIN = 'oracle';
export const OTHER = 'oracle-other';
export const GONE = 'oracle-gone';

export const ORDER_1 = { name: 'order', version: '1' };
export const ORDER_2 = { name: 'order', version: '2' };
export const ORDERLY = { name: 'orderly', version: '1' };
export const TYPES = [ORDER_1, ORDER_2, ORDERLY];

export const LONG_TAG = 't'.repeat(256);
export const TAGS = [
  'red',
  'Red',
  'blue',
  'a|b',
  'ünï ☃',
  '',
  LONG_TAG,
  'kid',
  'chain',
  'gen-1',
  'gen-2',
];

const drivers = new Map<string, SwfDriver>();
export const driverOf = (domain: string) => {
  const driver = drivers.get(domain);
  if (driver === undefined) throw new Error(`no driver for ${domain}`);
  return driver;
};

/** What the workload did to one execution; the times come from its history afterwards. */
export interface Made {
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

export interface VisibilityWorkload {
  readonly swf: SWFClient;
  readonly service: LocalService;
  readonly close: () => Promise<void>;
  /** Every execution the workload made, with its times. */
  readonly made: readonly Made[];
  /** What the oracle knows of them. */
  readonly world: OracleWorld;
}

/** Serves the three domains, runs the workload on them and waits until visibility has every change. */
export async function serveWorkload(): Promise<VisibilityWorkload> {
  if (made.length > 0) throw new Error('one workload per test file');
  const served = await serveDomain(DOMAIN, { polling: { maxWaitMs: 2_000 } });
  const { swf, service, close } = served;
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
  const world: OracleWorld = {
    executions: made.map(known),
    domains: new Map([
      [DOMAIN, 1],
      [OTHER, 1],
      [GONE, 0],
    ]),
    nowMs: Date.now(),
  };
  return { swf, service, close, made, world };
}
