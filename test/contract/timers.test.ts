/**
 * Timers through the official SDK: firing on time,
 * cancellation, id reuse, timers dropped on close, the wait-for-signal-with-timer pattern of the order workflow
 * with both outcomes and the race between the two, and the lateness of 200 timers.
 */
import {
  type Decision,
  type HistoryEvent,
  RegisterWorkflowTypeCommand,
  TerminateWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import {
  at,
  decide,
  eventIds,
  eventsOf,
  eventTypes,
  expectFault,
  type StartedDecisionTask,
  single,
  sleep,
} from '../support/decider.js';
import { domainForFile } from '../support/local.js';
import {
  awaitDecision,
  awaitHistory,
  latenessMs,
  pendingDecisions,
  percentile,
} from '../support/waiting.js';

const domain = 'timers-contract';
const wf = { name: 'wf', version: '1' };
/** A timer fires at most this late after TimerStarted + startToFireTimeout. */
const LATENESS_LIMIT_MS = 100;

const server = domainForFile(domain, { polling: { maxWaitMs: 1_000 } }, async ({ swf }) => {
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...wf,
      defaultTaskList: { name: 'unused' },
      defaultExecutionStartToCloseTimeout: '600',
      defaultTaskStartToCloseTimeout: '30',
      defaultChildPolicy: 'TERMINATE',
    }),
  );
});

/** Starts an execution and answers its first decision task with `decisions`. */
async function startWith(decisions: Decision[]) {
  const started = await server.driver.start(wf);
  const first = await server.driver.pollDecision(started.taskList);
  await server.driver.respond(first.taskToken, decisions);
  return started;
}

const timerStarted = (events: readonly HistoryEvent[], timerId: string) =>
  eventsOf(events, 'TimerStarted').filter(
    (e) => e.timerStartedEventAttributes?.timerId === timerId,
  );

/** Event ids go up by one and timestamps never go back. */
function expectWellOrdered(events: readonly HistoryEvent[]) {
  expect(eventIds(events)).toEqual(events.map((_, i) => i + 1));
  for (let i = 1; i < events.length; i++) {
    expect(at(events[i]), `event ${i + 1} is not older than event ${i}`).toBeGreaterThanOrEqual(
      at(events[i - 1]),
    );
  }
}

describe('StartTimer', () => {
  it('fires on time: TimerFired then a decision task, lateness under 100 ms', async () => {
    const { execution, taskList } = await startWith([decide.startTimer('t1', '1', 'ctl')]);
    const task = await awaitDecision(server.driver, taskList);
    const started = single(task.events, 'TimerStarted');
    expect(started.timerStartedEventAttributes).toEqual({
      timerId: 't1',
      control: 'ctl',
      startToFireTimeout: '1',
      decisionTaskCompletedEventId: 4,
    });
    const fired = single(task.events, 'TimerFired');
    expect(fired.timerFiredEventAttributes).toEqual({
      timerId: 't1',
      startedEventId: started.eventId,
    });
    expect(eventTypes(task.events).slice(3)).toEqual([
      'DecisionTaskCompleted',
      'TimerStarted',
      'TimerFired',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    const lateness = latenessMs(fired, started, 1);
    expect(lateness).toBeGreaterThanOrEqual(0);
    expect(lateness).toBeLessThan(LATENESS_LIMIT_MS);
    // the decision task is scheduled by the fire, at the same instant
    expect(at(task.events[6])).toBe(at(fired));
    expect((await server.driver.describe(execution)).openCounts?.openTimers).toBe(0);
    await server.driver.respond(task.taskToken, [decide.complete()]);
    expectWellOrdered(await server.driver.history(execution));
  });

  it('keeps several timers of one execution apart, each firing at its own time', async () => {
    const { execution, taskList } = await startWith([
      decide.startTimer('short', '1'),
      decide.startTimer('long', '2'),
    ]);
    const events = await awaitHistory(
      server.driver,
      execution,
      (e) => eventsOf(e, 'TimerFired').length === 2,
    );
    const [first, second] = eventsOf(events, 'TimerFired');
    expect(first?.timerFiredEventAttributes?.timerId).toBe('short');
    expect(second?.timerFiredEventAttributes?.timerId).toBe('long');
    for (const [id, seconds] of [
      ['short', 1],
      ['long', 2],
    ] as const) {
      const started = timerStarted(events, id)[0];
      const fired = eventsOf(events, 'TimerFired').find(
        (e) => e.timerFiredEventAttributes?.timerId === id,
      );
      expect(fired?.timerFiredEventAttributes?.startedEventId).toBe(started?.eventId);
      const lateness = latenessMs(fired, started, seconds);
      expect(lateness).toBeGreaterThanOrEqual(0);
      expect(lateness).toBeLessThan(LATENESS_LIMIT_MS);
    }
    // both fires while no decider polled: one decision task, scheduled by the first
    expect(eventsOf(events, 'DecisionTaskScheduled')).toHaveLength(2);
    const task = await awaitDecision(server.driver, taskList);
    await server.driver.respond(task.taskToken, [decide.complete()]);
  });
});

describe('CancelTimer', () => {
  it('prevents the timer from firing', async () => {
    const { execution, taskList } = await startWith([decide.startTimer('c', '1')]);
    await server.driver.signal(execution);
    const task = await awaitDecision(server.driver, taskList);
    await server.driver.respond(task.taskToken, [decide.cancelTimer('c')]);
    const history = await server.driver.history(execution);
    const started = single(history, 'TimerStarted');
    const canceled = single(history, 'TimerCanceled');
    expect(canceled.timerCanceledEventAttributes).toEqual({
      timerId: 'c',
      startedEventId: started.eventId,
      decisionTaskCompletedEventId: (canceled.eventId ?? 0) - 1,
    });
    // wait well past the deadline: nothing fires and no decision task is scheduled
    await sleep(at(started) + 1_500 - Date.now());
    const after = await server.driver.history(execution);
    expect(eventsOf(after, 'TimerFired')).toEqual([]);
    expect(after).toHaveLength(history.length);
    expect(eventTypes(after).at(-1)).toBe('TimerCanceled');
    expect(await pendingDecisions(server.driver, taskList)).toBe(0);
    expect((await server.driver.describe(execution)).openCounts).toMatchObject({
      openTimers: 0,
      openDecisionTasks: 0,
    });
  });

  it('cancels a timer started in the same response', async () => {
    const { execution } = await startWith([
      decide.startTimer('same', '1'),
      decide.cancelTimer('same'),
    ]);
    const history = await server.driver.history(execution);
    expect(eventTypes(history).slice(-2)).toEqual(['TimerStarted', 'TimerCanceled']);
    await sleep(at(single(history, 'TimerStarted')) + 1_500 - Date.now());
    expect(await server.driver.history(execution)).toHaveLength(history.length);
  });
});

describe('timer ids', () => {
  it('are reusable after the timer fired and after it was canceled', async () => {
    const { execution, taskList } = await startWith([decide.startTimer('r', '1')]);
    // fired → reuse
    const afterFire = await awaitDecision(server.driver, taskList);
    expect(eventsOf(afterFire.events, 'TimerFired')).toHaveLength(1);
    await server.driver.respond(afterFire.taskToken, [decide.startTimer('r', '60')]);
    // canceled → reuse
    await server.driver.signal(execution);
    const toCancel = await awaitDecision(server.driver, taskList);
    await server.driver.respond(toCancel.taskToken, [decide.cancelTimer('r')]);
    await server.driver.signal(execution);
    const afterCancel = await awaitDecision(server.driver, taskList);
    await server.driver.respond(afterCancel.taskToken, [decide.startTimer('r', '1')]);
    const last = await awaitDecision(server.driver, taskList);

    expect(eventsOf(last.events, 'StartTimerFailed')).toEqual([]);
    const starts = timerStarted(last.events, 'r');
    expect(starts).toHaveLength(3);
    const fires = eventsOf(last.events, 'TimerFired');
    expect(fires.map((e) => e.timerFiredEventAttributes?.startedEventId)).toEqual([
      starts[0]?.eventId,
      starts[2]?.eventId,
    ]);
    expect(single(last.events, 'TimerCanceled').timerCanceledEventAttributes?.startedEventId).toBe(
      starts[1]?.eventId,
    );
    const lateness = latenessMs(fires[1], starts[2], 1);
    expect(lateness).toBeGreaterThanOrEqual(0);
    expect(lateness).toBeLessThan(LATENESS_LIMIT_MS);
    await server.driver.respond(last.taskToken, [decide.complete()]);
  });

  it('are unique among open timers: TIMER_ID_ALREADY_IN_USE, and CancelTimer of an unknown id fails', async () => {
    const { execution, taskList } = await startWith([
      decide.startTimer('dup', '60'),
      decide.startTimer('dup', '1'),
    ]);
    const task = await awaitDecision(server.driver, taskList);
    expect(single(task.events, 'StartTimerFailed').startTimerFailedEventAttributes).toMatchObject({
      timerId: 'dup',
      cause: 'TIMER_ID_ALREADY_IN_USE',
    });
    await server.driver.respond(task.taskToken, [
      decide.cancelTimer('nope'),
      decide.cancelTimer('dup'),
    ]);
    const next = await awaitDecision(server.driver, taskList);
    expect(single(next.events, 'CancelTimerFailed').cancelTimerFailedEventAttributes).toMatchObject(
      {
        timerId: 'nope',
        cause: 'TIMER_ID_UNKNOWN',
      },
    );
    single(next.events, 'TimerCanceled');
    await server.driver.respond(next.taskToken, [decide.complete()]);
    expect((await server.driver.describe(execution)).executionInfo?.closeStatus).toBe('COMPLETED');
  });
});

describe('closing an execution', () => {
  it('drops its timers: no TimerFired in a closed history', async () => {
    const completed = await startWith([decide.startTimer('t', '1'), decide.complete('done')]);
    const terminated = await startWith([decide.startTimer('t', '1')]);
    await server.swf.send(
      new TerminateWorkflowExecutionCommand({ domain, ...terminated.execution, reason: 'stop' }),
    );
    const before = await Promise.all([
      server.driver.history(completed.execution),
      server.driver.history(terminated.execution),
    ]);
    await sleep(Math.max(...before.map((h) => at(single(h, 'TimerStarted')))) + 1_500 - Date.now());
    const [c, t] = await Promise.all([
      server.driver.history(completed.execution),
      server.driver.history(terminated.execution),
    ]);
    expect(eventTypes(c).slice(-2)).toEqual(['TimerStarted', 'WorkflowExecutionCompleted']);
    expect(eventTypes(t).at(-1)).toBe('WorkflowExecutionTerminated');
    expect(c).toHaveLength(before[0]?.length ?? -1);
    expect(t).toHaveLength(before[1]?.length ?? -1);
    expect(eventsOf([...c, ...t], 'TimerFired')).toEqual([]);
    expect((await server.driver.describe(terminated.execution)).openCounts?.openTimers).toBe(0);
    expect(await pendingDecisions(server.driver, terminated.taskList)).toBe(0);
  });
});

/**
 * The order workflow's decider that waits for a signal with a timer: a signal that arrived before the timer
 * fired wins (cancel the timer if it is still open, then complete with the signal's input); a timer
 * that fired first means the wait timed out (fail). When both are in the history their relative order
 * tells which came first.
 */
function waitForSignal(task: StartedDecisionTask): Decision[] {
  const signal = task.events.find((e) => e.eventType === 'WorkflowExecutionSignaled');
  const fired = task.events.find((e) => e.eventType === 'TimerFired');
  if (
    signal !== undefined &&
    (fired === undefined || (signal.eventId ?? 0) < (fired.eventId ?? 0))
  ) {
    const input = signal.workflowExecutionSignaledEventAttributes?.input ?? '';
    return [
      ...(fired === undefined ? [decide.cancelTimer('wait')] : []),
      decide.complete(`signaled:${input}`),
    ];
  }
  if (fired !== undefined) return [decide.fail('TimedOutWaitingForSignal')];
  return [];
}

describe('waiting for a signal with a timer', () => {
  it('signal first: the decider cancels the timer and the timer never fires', async () => {
    const { execution, taskList } = await startWith([decide.startTimer('wait', '2')]);
    await sleep(200);
    await server.driver.signal(execution, 'CancelOrder', 'order 3553');
    const task = await awaitDecision(server.driver, taskList);
    expect(eventsOf(task.events, 'TimerFired')).toEqual([]);
    await server.driver.respond(task.taskToken, waitForSignal(task));
    const started = single(task.events, 'TimerStarted');
    await sleep(at(started) + 2_300 - Date.now());
    const history = await server.driver.history(execution);
    expect(eventTypes(history).slice(-4)).toEqual([
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'TimerCanceled',
      'WorkflowExecutionCompleted',
    ]);
    expect(eventsOf(history, 'TimerFired')).toEqual([]);
    expect(
      single(history, 'WorkflowExecutionCompleted').workflowExecutionCompletedEventAttributes
        ?.result,
    ).toBe('signaled:order 3553');
    expect((await server.driver.describe(execution)).executionInfo?.closeStatus).toBe('COMPLETED');
  });

  it('timer first: the decider takes the timed-out branch; a later signal finds the execution closed', async () => {
    const { execution, taskList } = await startWith([decide.startTimer('wait', '1')]);
    const task = await awaitDecision(server.driver, taskList);
    expect(eventsOf(task.events, 'WorkflowExecutionSignaled')).toEqual([]);
    single(task.events, 'TimerFired');
    await server.driver.respond(task.taskToken, waitForSignal(task));
    const history = await server.driver.history(execution);
    expect(
      single(history, 'WorkflowExecutionFailed').workflowExecutionFailedEventAttributes?.reason,
    ).toBe('TimedOutWaitingForSignal');
    expect((await server.driver.describe(execution)).executionInfo?.closeStatus).toBe('FAILED');
    await expectFault(server.driver.signal(execution, 'CancelOrder'), 'UnknownResourceFault');
  });

  it('race: TimerFired and WorkflowExecutionSignaled in one history, in their true order', async () => {
    // Signals sent at these offsets (ms) from the timer's deadline; none polled until both happened.
    const offsets = [-300, -100, -30, -10, 0, 0, 10, 30, 100, 300];
    const results = await Promise.all(
      offsets.map(async (offset) => {
        const { execution, taskList } = await startWith([decide.startTimer('wait', '1')]);
        const started = single(await server.driver.history(execution), 'TimerStarted');
        await sleep(at(started) + 1_000 + offset - Date.now());
        const sentAt = Date.now();
        await server.driver.signal(execution, 'CancelOrder', String(offset));
        const answeredAt = Date.now();
        await awaitHistory(server.driver, execution, (e) => eventsOf(e, 'TimerFired').length === 1);
        const task = await awaitDecision(server.driver, taskList);
        const decisions = waitForSignal(task);
        await server.driver.respond(task.taskToken, decisions);
        return { offset, execution, task, sentAt, answeredAt, decisions };
      }),
    );
    for (const { offset, execution, task, sentAt, answeredAt, decisions } of results) {
      const started = single(task.events, 'TimerStarted');
      const fired = single(task.events, 'TimerFired');
      const signaled = single(task.events, 'WorkflowExecutionSignaled');
      // both before the decision task started, so the decider saw both
      expect(signaled.eventId).toBeLessThan(task.startedEventId ?? 0);
      expect(fired.eventId).toBeLessThan(task.startedEventId ?? 0);
      // the fire came on time and the signal when it was sent
      expect(latenessMs(fired, started, 1)).toBeGreaterThanOrEqual(0);
      expect(latenessMs(fired, started, 1)).toBeLessThan(LATENESS_LIMIT_MS);
      expect(at(signaled)).toBeGreaterThanOrEqual(sentAt);
      expect(at(signaled)).toBeLessThanOrEqual(answeredAt);
      // ids follow time
      const signalFirst = (signaled.eventId ?? 0) < (fired.eventId ?? 0);
      if (signalFirst) expect(at(signaled)).toBeLessThanOrEqual(at(fired));
      else expect(at(fired)).toBeLessThanOrEqual(at(signaled));
      // far enough from the deadline the order is known
      if (offset <= -100) expect(signalFirst, `signal ${offset} ms before the deadline`).toBe(true);
      if (offset >= 100) expect(signalFirst, `signal ${offset} ms after the deadline`).toBe(false);
      // one decision task for both events, and the decider's choice follows the order
      expect(eventsOf(task.events, 'DecisionTaskScheduled')).toHaveLength(2);
      expect(decisions.map((d) => d.decisionType)).toEqual([
        signalFirst ? 'CompleteWorkflowExecution' : 'FailWorkflowExecution',
      ]);
      const history = await server.driver.history(execution);
      expectWellOrdered(history);
      expect((await server.driver.describe(execution)).executionInfo?.closeStatus).toBe(
        signalFirst ? 'COMPLETED' : 'FAILED',
      );
    }
  });
});

/** Runs `work` over `items` with at most `limit` at a time. */
async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
) {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: limit }, async () => {
    while (next < items.length) {
      const index = next++;
      out[index] = await work(items[index] as T, index);
    }
  });
  await Promise.all(lanes);
  return out;
}

describe('timer lateness', () => {
  it('200 timers of 1–3 s fire with p99 lateness ≤ 100 ms', async () => {
    const count = 200;
    const runs = await mapLimit(
      Array.from({ length: count }, (_, i) => i),
      20,
      async (i) => {
        const seconds = 1 + (i % 3);
        const started = await startWith([decide.startTimer(`t${i}`, String(seconds))]);
        return { ...started, seconds };
      },
    );
    const lateness = await mapLimit(runs, 20, async ({ execution, taskList, seconds }) => {
      const task = await awaitDecision(server.driver, taskList, 15_000);
      const started = single(task.events, 'TimerStarted');
      const fired = single(task.events, 'TimerFired');
      expect(fired.timerFiredEventAttributes?.startedEventId).toBe(started.eventId);
      await server.driver.respond(task.taskToken, [decide.complete()]);
      expect(execution.runId).toBeTruthy();
      return latenessMs(fired, started, seconds);
    });
    const p50 = percentile(lateness, 50);
    const p99 = percentile(lateness, 99);
    const max = Math.max(...lateness);
    const min = Math.min(...lateness);
    console.log(
      `timer lateness over ${count} timers: p50 ${p50} ms, p99 ${p99} ms, min ${min} ms, max ${max} ms`,
    );
    expect(min).toBeGreaterThanOrEqual(0);
    expect(p99).toBeLessThanOrEqual(100);
  }, 60_000);
});
