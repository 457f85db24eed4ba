/**
 * What a generated schedule checks after each step: the service's whole history (ids, order, every
 * attribute, timestamps), its open counts, status and outbox, and now and then what waits on each list,
 * all against the timeout oracle.
 */
import type { ManualClockService } from './manual-clock-service.js';
import { ACTIVITY_IDS, ALT_LIST, MAIN_LIST } from './timeout-domain.js';
import type { OracleEvent, TimeoutOracle } from './timeout-oracle.js';

export type Execution = { workflowId: string; runId: string };

/** The execution under test, where the service keeps it. */
export interface CheckedRun {
  readonly service: ManualClockService;
  readonly domain: string;
  readonly execution: Execution;
}

type Fail = (what: string) => never;
type ServiceEvent = {
  eventId: number;
  eventType: string;
  eventTimestamp: number;
  [k: string]: unknown;
};

/** Checks the run against the oracle; `withPending` adds what waits on each task list. */
export async function checkAgainstOracle(
  run: CheckedRun,
  o: TimeoutOracle,
  label: string,
  withPending: boolean,
  fail: Fail,
): Promise<void> {
  await checkHistory(run, o, label, fail);
  await checkDescription(run, o, label, fail);
  if (run.service.errors.length > 0)
    fail(`${label}: outbox error ${String(run.service.errors[0])}`);
  if (withPending) await checkPendingTasks(run, o, label, fail);
}

async function checkHistory(run: CheckedRun, o: TimeoutOracle, label: string, fail: Fail) {
  const page = await run.service.must('GetWorkflowExecutionHistory', {
    domain: run.domain,
    execution: run.execution,
    maximumPageSize: 1000,
  });
  const got = (page.events ?? []) as ServiceEvent[];
  const want = o.events;
  const show = (e: unknown) => JSON.stringify(e);
  for (let i = 0; i < Math.max(got.length, want.length); i++) {
    const g = got[i];
    const w = want[i];
    if (g === undefined || w === undefined)
      return fail(
        `${label}: history length ${got.length}, expected ${want.length}; event ${i + 1}: service ${show(g)}, oracle ${show(w)}`,
      );
    const member = `${w.eventType.charAt(0).toLowerCase()}${w.eventType.slice(1)}EventAttributes`;
    if (!sameEvent(g, w, member))
      fail(
        `${label}: event ${i + 1} differs\n service: ${g.eventType} ${show(g[member])}\n oracle:  ${w.eventType} ${show(w.attributes)}\n service history: ${got.map((e) => `${e.eventId}:${e.eventType}`).join(' ')}\n oracle history:  ${want.map((e) => `${e.eventId}:${e.eventType}`).join(' ')}`,
      );
    if (Math.abs(g.eventTimestamp * 1000 - w.at) > 2)
      fail(
        `${label}: event ${i + 1} ${w.eventType} stamped ${g.eventTimestamp * 1000 - o.config.startAt} ms after the start, expected ${w.at - o.config.startAt}`,
      );
  }
}

/** Same id, type and attributes (of WorkflowExecutionStarted, those the oracle models). */
function sameEvent(g: ServiceEvent, w: OracleEvent, member: string): boolean {
  let attributes = g[member] as Record<string, unknown> | undefined;
  if (w.eventType === 'WorkflowExecutionStarted' && attributes !== undefined) {
    const all = attributes;
    attributes = Object.fromEntries(Object.keys(w.attributes).map((k) => [k, all[k]]));
  }
  return (
    g.eventId === w.eventId &&
    g.eventType === w.eventType &&
    JSON.stringify(sortKeys(attributes)) === JSON.stringify(sortKeys(w.attributes))
  );
}

async function checkDescription(run: CheckedRun, o: TimeoutOracle, label: string, fail: Fail) {
  const described = await run.service.must('DescribeWorkflowExecution', {
    domain: run.domain,
    execution: run.execution,
  });
  const info = described.executionInfo as Record<string, unknown>;
  const counts = described.openCounts;
  if (JSON.stringify(sortKeys(counts)) !== JSON.stringify(sortKeys(o.openCounts())))
    fail(
      `${label}: openCounts ${JSON.stringify(counts)}, expected ${JSON.stringify(o.openCounts())}`,
    );
  if (info.executionStatus !== o.status || info.closeStatus !== o.closeStatus)
    fail(
      `${label}: status ${info.executionStatus}/${info.closeStatus}, expected ${o.status}/${o.closeStatus}`,
    );
}

async function checkPendingTasks(run: CheckedRun, o: TimeoutOracle, label: string, fail: Fail) {
  for (const [kind, name] of [
    ['decision', MAIN_LIST],
    ['decision', ALT_LIST],
    ...ACTIVITY_IDS.map((id) => ['activity', `acts-${id}`] as const),
  ] as const) {
    const action = kind === 'decision' ? 'CountPendingDecisionTasks' : 'CountPendingActivityTasks';
    const { count } = await run.service.must(action, { domain: run.domain, taskList: { name } });
    if (count !== o.pendingTasks(kind, name))
      fail(
        `${label}: ${action} on ${name} ${String(count)}, expected ${o.pendingTasks(kind, name)}`,
      );
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, sortKeys(v)]),
    );
  return value;
}
