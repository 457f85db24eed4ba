/**
 * What the ambiguous-outcome workload (test/contract/ambiguous-workload.test.ts) is checked against
 * once every run closed: each run's history, signals and child; the pending counts and visibility
 * lists; the activity responses refused though they landed; and the errors callers saw. Each check
 * adds what is wrong, as text, to `problems`.
 */
import {
  CountPendingActivityTasksCommand,
  CountPendingDecisionTasksCommand,
  type HistoryEvent,
  ListClosedWorkflowExecutionsCommand,
  ListOpenWorkflowExecutionsCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import type { SwfCall } from '../../lib/sdk/index.js';
import { historyProblems, MIXED, pagedHistory } from './ambiguous-workload.js';

/** One run of the workload as its caller saw it start. */
export interface WorkloadRun {
  readonly workflowId: string;
  readonly kind: string;
  readonly runId: string | undefined;
  readonly startError: string | undefined;
  readonly startFailedTries: number;
}

/** The signals a caller sent to one run: calls, tries that saw an error, the errors it was left with. */
export interface SignalNote {
  calls: number;
  failedTries: number;
  errors: string[];
}

/** How each kind of run closes. */
export const expectedClose = {
  full: 'COMPLETED',
  cancel: 'CANCELED',
  terminate: 'TERMINATED',
} as const;

const expectedOf = (run: WorkloadRun) => expectedClose[run.kind as keyof typeof expectedClose];

/** Where the workload ran, and what its callers did. */
export interface WorkloadSite {
  readonly swf: SWFClient;
  readonly domain: string;
  readonly status: ReadonlyMap<string, string | undefined>;
  readonly cancelTries: ReadonlyMap<string, number>;
  readonly signalTries: ReadonlyMap<string, SignalNote>;
}

/** One run: it started (or failed midway, a note), closed as its kind should, and its history holds. */
export async function checkRun(
  site: WorkloadSite,
  run: WorkloadRun,
  problems: string[],
  notes: string[],
): Promise<void> {
  if (run.runId === undefined) {
    // docs/architecture.md: a start that failed midway (its workflowId claimed, its run never written) keeps the
    // workflowId taken for 30 s. Any other failure to start is a problem.
    const midway =
      run.startError === 'WorkflowExecutionAlreadyStartedFault' && run.startFailedTries > 0;
    if (midway) notes.push(`${run.workflowId}: start failed midway`);
    else
      problems.push(
        `${run.workflowId}: start ${run.startError} after ${run.startFailedTries} failed tries`,
      );
    return;
  }
  const status = site.status.get(run.workflowId);
  if (status !== expectedOf(run)) problems.push(`${run.workflowId} (${run.kind}): ${status}`);
  const events = await pagedHistory(site.swf, site.domain, {
    workflowId: run.workflowId,
    runId: run.runId,
  });
  if (status !== expectedOf(run))
    console.log(
      run.workflowId,
      run.kind,
      JSON.stringify(events.map((e) => `${e.eventId}:${e.eventType}`)),
    );
  const cancels = events.filter((e) => e.eventType === 'WorkflowExecutionCancelRequested').length;
  // Each RequestCancelWorkflowExecution that lands records one, as SWF does: a retried call may add more.
  if (cancels > 1 + (site.cancelTries.get(run.workflowId) ?? 0))
    problems.push(`${run.workflowId}: ${cancels} cancel requests`);
  for (const p of historyProblems(events)) problems.push(`${run.workflowId}: ${p}`);
  const signals = events.filter((e) => e.eventType === 'WorkflowExecutionSignaled');
  checkSignals(run, signals, site.signalTries.get(run.workflowId), problems);
  await checkChild(site, run, events, signals, problems);
}

/** Each signal call recorded once, or once more per try that saw an error; none lost. */
function checkSignals(
  run: WorkloadRun,
  signals: HistoryEvent[],
  note: SignalNote | undefined,
  problems: string[],
): void {
  for (const name of ['go', 'extra']) {
    const n = signals.filter(
      (s) => s.workflowExecutionSignaledEventAttributes?.signalName === name,
    ).length;
    const closedEarly = run.kind === 'terminate' || run.kind === 'cancel';
    if (n > 1 + (note?.failedTries ?? 0))
      problems.push(
        `${run.workflowId}: ${n} '${name}' signals for one call (${note?.failedTries} failed tries)`,
      );
    if (n === 0 && !closedEarly)
      problems.push(`${run.workflowId}: '${name}' signal lost (${note?.errors})`);
  }
}

/** The child: closed, and its signal to the parent recorded once on each side. */
async function checkChild(
  site: WorkloadSite,
  run: WorkloadRun,
  events: HistoryEvent[],
  signals: HistoryEvent[],
  problems: string[],
): Promise<void> {
  const childId = `${run.workflowId}-child`;
  const started = events.find((e) => e.eventType === 'ChildWorkflowExecutionStarted')
    ?.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
  if (started?.runId === undefined) {
    if (run.kind === 'full') problems.push(`${run.workflowId}: no child started`);
    return;
  }
  const childEvents = await pagedHistory(site.swf, site.domain, {
    workflowId: childId,
    runId: started.runId,
  });
  for (const p of historyProblems(childEvents)) problems.push(`${childId}: ${p}`);
  if (!/^WorkflowExecution(Completed|Terminated)$/.test(childEvents.at(-1)?.eventType ?? ''))
    problems.push(`${childId}: ends with ${childEvents.at(-1)?.eventType}`);
  const sent = childEvents.filter(
    (e) => e.eventType === 'ExternalWorkflowExecutionSignaled',
  ).length;
  const got = signals.filter(
    (s) => s.workflowExecutionSignaledEventAttributes?.signalName === 'from-child',
  ).length;
  if (sent !== got && !(sent === 0 && got === 0))
    problems.push(`${childId}: signalled ${sent}, parent got ${got}`);
}

/**
 * Pending counts: nothing is left queued once every run closed (pollers ran till the end). Under
 * mixed outcomes a commit that failed leaves the entries it wrote ahead of it, counted until a poll
 * finds them stale (up to 60 s: UNCOMMITTED_ENTRY_GRACE_SECONDS), as SWF's counts are estimates.
 */
export async function checkPendingCounts(
  swf: SWFClient,
  domain: string,
  problems: string[],
): Promise<void> {
  if (!MIXED)
    for (const list of ['main-decisions', 'child-decisions']) {
      const { count } = await swf.send(
        new CountPendingDecisionTasksCommand({ domain, taskList: { name: list } }),
      );
      if (count !== 0) problems.push(`${list}: ${count} pending decision tasks`);
    }
  const { count: acts } = await swf.send(
    new CountPendingActivityTasksCommand({ domain, taskList: { name: 'workers' } }),
  );
  if (acts !== 0 && !MIXED) problems.push(`workers: ${acts} pending activity tasks`);
}

/** Visibility agrees: no open executions listed, every run and child listed closed once. */
export async function checkVisibility(
  swf: SWFClient,
  domain: string,
  problems: string[],
): Promise<void> {
  const since = new Date(Date.now() - 600_000);
  const open = await swf.send(
    new ListOpenWorkflowExecutionsCommand({ domain, startTimeFilter: { oldestDate: since } }),
  );
  if ((open.executionInfos ?? []).length > 0)
    problems.push(
      `listed open: ${(open.executionInfos ?? []).map((e) => e.execution?.workflowId)}`,
    );
  const closed = await swf.send(
    new ListClosedWorkflowExecutionsCommand({
      domain,
      startTimeFilter: { oldestDate: since },
      maximumPageSize: 1000,
    }),
  );
  const listed = (closed.executionInfos ?? []).map((e) => e.execution?.runId);
  if (new Set(listed).size !== listed.length) problems.push('a run listed closed twice');
}

/**
 * An activity response answered UnknownResourceFault is fine when its run had closed or the task had
 * timed out; not when its own outcome is in the history (it landed, and the worker was told the task
 * is unknown).
 */
export async function checkRefusedResponses(
  swf: SWFClient,
  domain: string,
  runs: readonly WorkloadRun[],
  calls: readonly SwfCall[],
  problems: string[],
): Promise<void> {
  const histories = await historiesByRunId(swf, domain, runs);
  for (const c of calls) {
    if (
      !/^RespondActivityTask/.test(c.action) ||
      (c.error as Error | undefined)?.name !== 'UnknownResourceFault'
    )
      continue;
    const token = String((c.input as { taskToken?: string }).taskToken ?? '');
    const [, runId, scheduled, started] = Buffer.from(token.split('.')[0] ?? '', 'base64url')
      .toString('utf8')
      .split('.');
    const own = (histories.get(runId ?? '') ?? []).find((e) => {
      const a =
        e.activityTaskCompletedEventAttributes ??
        e.activityTaskFailedEventAttributes ??
        e.activityTaskCanceledEventAttributes;
      return (
        a !== undefined &&
        String(a.scheduledEventId) === scheduled &&
        String(a.startedEventId) === started
      );
    });
    // (Under mixed outcomes the workers' client retries a 500 itself: its retry of a response that
    // landed is told the task is unknown, SWF's own ambiguity.)
    if (own !== undefined && !MIXED)
      problems.push(
        `${c.action} landed (${own.eventType} ${own.eventId}) but answered UnknownResourceFault`,
      );
  }
}

/** The history of every run and of its child, by runId. */
async function historiesByRunId(
  swf: SWFClient,
  domain: string,
  runs: readonly WorkloadRun[],
): Promise<Map<string, HistoryEvent[]>> {
  const histories = new Map<string, HistoryEvent[]>();
  for (const run of runs) {
    if (run.runId === undefined) continue;
    const events = await pagedHistory(swf, domain, {
      workflowId: run.workflowId,
      runId: run.runId,
    });
    histories.set(run.runId, events);
    const child = events.find((e) => e.eventType === 'ChildWorkflowExecutionStarted')
      ?.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
    if (child?.runId !== undefined && child.workflowId !== undefined)
      histories.set(
        child.runId,
        await pagedHistory(swf, domain, { workflowId: child.workflowId, runId: child.runId }),
      );
  }
  return histories;
}

/** The calls the service answered with a 5xx. */
export function serverErrorsOf(calls: readonly SwfCall[]): SwfCall[] {
  return calls.filter((c) => {
    const e = c.error as { $metadata?: { httpStatusCode?: number }; name?: string } | undefined;
    return e !== undefined && (e.$metadata?.httpStatusCode ?? 0) >= 500;
  });
}

/** The errors callers saw, as `<action>: <fault>`, but for polls and those the workload causes. */
export function callErrorsOf(calls: readonly SwfCall[]): string[] {
  return (
    calls
      .filter((c) => c.error !== undefined && !/^PollFor/.test(c.action))
      // Inherent to the workload (seen without ambiguous outcomes): a run terminated under a decider or a
      // heartbeating activity answers their next call UnknownResourceFault.
      .filter(
        (c) =>
          !(
            /^(RecordActivityTaskHeartbeat|RespondDecisionTaskCompleted|RespondActivityTask\w+)$/.test(
              c.action,
            ) && (c.error as Error).name === 'UnknownResourceFault'
          ),
      )
      .map((c) => `${c.action}: ${(c.error as Error).name}`)
  );
}
