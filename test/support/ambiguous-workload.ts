/**
 * The workload of the ambiguous-outcome test (test/contract/ambiguous-workload.test.ts): its settings,
 * its two deciders (a main workflow with activities, timers, signals, a child and a Lambda task, and
 * the child that signals it), and SWF's invariants of one history.
 */
import {
  GetWorkflowExecutionHistoryCommand,
  type HistoryEvent,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { type Decider, decide, sleep } from '../../lib/sdk/index.js';

/** AMBIGUOUS_OUTCOMES: landed-retried (the default) or mixed (test/contract/ambiguous-workload.test.ts). */
export const MODE = process.env.AMBIGUOUS_OUTCOMES ?? 'landed-retried';
export const FRACTION = Number(process.env.AMBIGUOUS_FRACTION ?? '0.12');
export const RUNS = Number(process.env.AMBIGUOUS_RUNS ?? '8');
export const MIXED = MODE === 'mixed';
/** Lost tasks (mixed outcomes may lose a poll's answer) time out and are scheduled again. */
export const TASK_TIMEOUT = MIXED ? '8' : '25';

export const type = (name: string) => ({ name, version: '1' });

export const main: Decider = (state) => {
  if (state.cancelRequested) return [decide.cancelWorkflowExecution('asked')];
  const out = [];
  const { activities, timers, children, lambdaFunctions } = state;
  const wid = state.workflowExecution.workflowId ?? '';
  const a1 = activities.get('a1');
  if (a1 === undefined || (a1.status === 'timedOut' && a1.attempts < 5))
    out.push(
      decide.scheduleActivityTask({ activityId: 'a1', activityType: type('work'), input: 'one' }),
    );
  if (!activities.has('a2'))
    out.push(decide.scheduleActivityTask({ activityId: 'a2', activityType: type('slow') }));
  const a3 = activities.get('a3');
  if (a3 === undefined)
    out.push(
      decide.scheduleActivityTask({ activityId: 'a3', activityType: type('flaky'), input: '1' }),
    );
  else if ((a3.status === 'failed' || a3.status === 'timedOut') && a3.attempts < 5)
    out.push(
      decide.scheduleActivityTask({ activityId: 'a3', activityType: type('flaky'), input: '2' }),
    );
  if (!timers.has('t1')) out.push(decide.startTimer('t1', 1));
  if (!children.has(`${wid}-child`))
    out.push(
      decide.startChildWorkflowExecution({
        workflowId: `${wid}-child`,
        workflowType: type('child'),
        input: wid,
      }),
    );
  if (!lambdaFunctions.has('l1'))
    out.push(
      decide.scheduleLambdaFunction({
        id: 'l1',
        name: 'echo',
        input: wid,
        startToCloseTimeout: TASK_TIMEOUT,
      }),
    );
  const a2 = activities.get('a2');
  if (
    timers.get('t1')?.status === 'fired' &&
    a2 !== undefined &&
    (a2.status === 'scheduled' || a2.status === 'started') &&
    !a2.cancelRequested
  )
    out.push(decide.requestCancelActivityTask('a2'));
  const done =
    activities.get('a1')?.status === 'completed' &&
    (a2?.status === 'canceled' || (MIXED && a2?.status === 'timedOut')) &&
    a3?.status === 'completed' &&
    children.get(`${wid}-child`)?.status === 'completed' &&
    (lambdaFunctions.get('l1')?.status === 'completed' ||
      (MIXED && lambdaFunctions.get('l1')?.status === 'timedOut')) &&
    state.signals.some((s) => s.signalName === 'go');
  // A run planned to be terminated never completes of itself (its terminate would race its close).
  if (done && state.input !== 'terminate') return [decide.completeWorkflowExecution('done')];
  return out;
};

export const child: Decider = (state) => {
  const c = state.activities.get('c');
  if (c?.status === 'timedOut' && c.attempts < 5)
    return [
      decide.scheduleActivityTask({ activityId: 'c', activityType: type('work'), input: 'child' }),
    ];
  if (c === undefined)
    return [
      decide.scheduleActivityTask({ activityId: 'c', activityType: type('work'), input: 'child' }),
      decide.signalExternalWorkflowExecution({
        workflowId: state.input ?? '',
        signalName: 'from-child',
      }),
    ];
  const signalled = state.externalRequests.every((r) => r.status !== 'initiated');
  if (c.status === 'completed' && signalled)
    return [decide.completeWorkflowExecution('child done')];
  return [];
};

/** A call the caller makes itself, tried again on a 5xx or throttling; how many tries saw an error. */
export async function call<T>(
  send: () => Promise<T>,
): Promise<{ value?: T; error?: string; failedTries: number }> {
  let failedTries = 0;
  for (let attempt = 0; attempt < 6; attempt++) {
    try {
      return { value: await send(), failedTries };
    } catch (error) {
      const e = error as Error & { $metadata?: { httpStatusCode?: number } };
      const status = e.$metadata?.httpStatusCode ?? 0;
      if (status < 500 && e.name !== 'ThrottlingException') return { error: e.name, failedTries };
      failedTries++;
      await sleep(100);
    }
  }
  return { error: 'gave up', failedTries };
}

/** An execution's whole history, page by page. */
export async function pagedHistory(
  swf: SWFClient,
  domain: string,
  execution: { workflowId: string; runId: string },
): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  let nextPageToken: string | undefined;
  do {
    const page = await swf.send(
      new GetWorkflowExecutionHistoryCommand({
        domain,
        execution,
        ...(nextPageToken ? { nextPageToken } : {}),
      }),
    );
    events.push(...(page.events ?? []));
    nextPageToken = page.nextPageToken;
  } while (nextPageToken);
  return events;
}

/** SWF's invariants of one history: what is wrong with it, as text. */
export function historyProblems(events: HistoryEvent[]): string[] {
  const problems: string[] = [];
  events.forEach((e, i) => {
    if (e.eventId !== i + 1) problems.push(`event ${i + 1} has id ${e.eventId}`);
  });
  const count = new Map<string, number>();
  const bump = (key: string) => count.set(key, (count.get(key) ?? 0) + 1);
  for (const e of events) {
    const t = e.eventType ?? '';
    const attrs = Object.values(e).find(
      (v) => typeof v === 'object' && v !== null && !(v instanceof Date),
    ) as Record<string, unknown> | undefined;
    if (t.endsWith('TimedOut') && !MIXED) problems.push(`${t} at ${e.eventId}`);
    if (t === 'ActivityTaskStarted' || t === 'DecisionTaskStarted' || t === 'LambdaFunctionStarted')
      bump(`${t} for ${attrs?.scheduledEventId}`);
    if (/^ActivityTask(Completed|Failed|Canceled|TimedOut)$/.test(t))
      bump(`activity close for ${attrs?.scheduledEventId}`);
    if (/^LambdaFunction(Completed|Failed|TimedOut)$/.test(t))
      bump(`lambda close for ${attrs?.scheduledEventId}`);
    if (/^DecisionTask(Completed|TimedOut)$/.test(t))
      bump(`decision close for ${attrs?.startedEventId}`);
    if (/^(ChildWorkflowExecutionStarted|StartChildWorkflowExecutionFailed)$/.test(t))
      bump(`child start for ${attrs?.initiatedEventId}`);
    if (/^ChildWorkflowExecution(Completed|Failed|Canceled|Terminated|TimedOut)$/.test(t))
      bump(`child close for ${attrs?.initiatedEventId}`);
    if (/^(ExternalWorkflowExecutionSignaled|SignalExternalWorkflowExecutionFailed)$/.test(t))
      bump(`signal outcome for ${attrs?.initiatedEventId}`);
    if (t === 'TimerFired' || t === 'TimerCanceled') bump(`timer close ${attrs?.timerId}`);
    if (t === 'ActivityTaskCancelRequested') bump(`cancel request ${attrs?.activityId}`);
  }
  for (const [key, n] of count) if (n > 1) problems.push(`${n} × ${key}`);
  const closes = events.filter((e) =>
    /^WorkflowExecution(Completed|Failed|Canceled|Terminated|TimedOut|ContinuedAsNew)$/.test(
      e.eventType ?? '',
    ),
  );
  if (closes.length > 1) problems.push(`${closes.length} close events`);
  if (closes.length === 1 && closes[0] !== events.at(-1)) problems.push('events after the close');
  return problems;
}

export function countBy(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
