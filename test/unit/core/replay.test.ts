import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../../lib/core/decision.js';
import type { ExecutionState } from '../../../lib/core/execution-state.js';
import type { HistoryEvent } from '../../../lib/core/history-event.js';
import { replay } from '../../../lib/core/replay.js';
import {
  cancelActivity,
  cancelTimer,
  cancelWorkflow,
  completeWorkflow,
  continueAsNew,
  eventTypes,
  failWorkflow,
  RunDriver,
  recordMarker,
  scheduleActivity,
  scheduleLambda,
  startChild,
  startTimer,
} from '../../support/core-builders.js';

/** A history as the store keeps it: JSON, where absent and undefined members are the same thing. */
const stored = (history: readonly HistoryEvent[]): HistoryEvent[] =>
  JSON.parse(JSON.stringify(history)) as HistoryEvent[];

/** Replaying what was stored gives the state the transitions produced. */
function expectReplayMatches(run: RunDriver) {
  expect(replay(run.identity, stored(run.history))).toEqual(run.state);
}

/** Invariants every history must keep. */
function expectWellFormed(history: readonly HistoryEvent[], state: ExecutionState) {
  expect(history.map((e) => e.eventId)).toStrictEqual(history.map((_, i) => i + 1));
  for (let i = 1; i < history.length; i++) {
    expect(history[i]?.eventTimestamp).toBeGreaterThanOrEqual(history[i - 1]?.eventTimestamp ?? 0);
  }
  let openDecisionTasks = 0;
  for (const type of eventTypes(history)) {
    if (type === 'DecisionTaskScheduled') openDecisionTasks++;
    if (type === 'DecisionTaskCompleted' || type === 'DecisionTaskTimedOut') openDecisionTasks--;
    expect(openDecisionTasks).toBeGreaterThanOrEqual(0);
    expect(openDecisionTasks).toBeLessThanOrEqual(1);
  }
  const closeAt = history.findIndex((e) => closingEvents.has(e.eventType));
  if (closeAt >= 0) {
    expect(closeAt, 'nothing follows the close').toBe(history.length - 1);
    expect(state.status).toBe('CLOSED');
  } else {
    expect(state.status).toBe('OPEN');
    // An owed decision task is always scheduled unless one is already out.
    if (state.decisionTask.status === 'none') expect(state.decisionTaskOwed).toBe(false);
  }
}

const closingEvents = new Set<string>([
  'WorkflowExecutionCompleted',
  'WorkflowExecutionFailed',
  'WorkflowExecutionCanceled',
  'WorkflowExecutionTerminated',
  'WorkflowExecutionTimedOut',
  'WorkflowExecutionContinuedAsNew',
]);

describe('replay', () => {
  it('rebuilds the state of a run that used every kind of decision, at every step', () => {
    const run = new RunDriver();
    const steps: (() => unknown)[] = [
      () =>
        run.decide([
          scheduleActivity('a1'),
          scheduleActivity('a2'),
          startTimer('t1'),
          startTimer('t2'),
          recordMarker('m', 'details'),
          startChild('child-1'),
          scheduleLambda('l1'),
        ]),
      () => run.startActivity('a1'),
      () => run.signal('s1', 'payload'),
      () => run.startDecisionTask(),
      () => run.signal('s2'),
      () => run.respond([cancelTimer('t1'), cancelActivity('a2'), cancelActivity('a1')]),
      () => run.closeActivity('a1', { kind: 'canceled', details: 'ok' }),
      () => run.requestCancel(),
      () => run.decide([cancelTimer('missing'), startTimer('t2'), scheduleActivity('a1')]),
      () => run.decide([cancelWorkflow('bye')]),
    ];
    for (const step of steps) {
      step();
      expectReplayMatches(run);
      expectWellFormed(run.history, run.state);
    }
    expect(run.state.closeStatus).toBe('CANCELED');
  });

  it('rebuilds a continued-as-new run, closed, with the link to the new run', () => {
    const run = new RunDriver();
    run.decide([scheduleActivity('a1'), startTimer('t1')]);
    run.signal();
    run.startDecisionTask();
    const { continuedRun } = run.respond([continueAsNew({ input: 'next' })]);

    const state = replay(run.identity, stored(run.history));

    expect(state).toEqual(run.state);
    expect(state.closeStatus).toBe('CONTINUED_AS_NEW');
    expect(state.newExecutionRunId).toBe(continuedRun?.runId);
    expect(state.activities).toStrictEqual({});
    expect(state.timers).toStrictEqual({});
  });

  it('refuses a history that does not begin with WorkflowExecutionStarted', () => {
    const run = new RunDriver();
    run.signal();
    expect(() => replay(run.identity, run.history.slice(1))).toThrow(/WorkflowExecutionStarted/);
    expect(() => replay(run.identity, [])).toThrow(/WorkflowExecutionStarted/);
  });

  it('refuses a history with a gap, a repeated event or a second start', () => {
    const run = new RunDriver();
    run.signal('a');
    run.signal('b');
    const [first, second, third, fourth] = run.history;
    if (!first || !second || !third || !fourth) throw new Error('short history');

    expect(() => replay(run.identity, [first, second, fourth])).toThrow(/event 4/);
    expect(() => replay(run.identity, [first, second, second])).toThrow(/event 2/);
    expect(() => replay(run.identity, [first, { ...first, eventId: 2 }])).toThrow(/first event/);
  });
});

// A random run: each command acts only when it can (as a real caller would be refused otherwise).
type Command =
  | { kind: 'signal' }
  | { kind: 'cancelRequest' }
  | { kind: 'decide'; decisions: number[] }
  | { kind: 'startActivity'; pick: number }
  | { kind: 'closeActivity'; pick: number; outcome: 0 | 1 | 2 }
  | { kind: 'terminate' };

const decisionPool = (i: number): Decision => {
  const id = `x${i % 3}`;
  const choices: (() => Decision)[] = [
    () => scheduleActivity(id),
    () => cancelActivity(id),
    () => startTimer(id),
    () => cancelTimer(id),
    () => recordMarker(id),
    () => scheduleActivity(id, { activityType: { name: 'nope', version: '1' } }),
  ];
  return (choices[i % choices.length] ?? (() => recordMarker(id)))();
};

const closePool = [completeWorkflow('r'), failWorkflow('f'), cancelWorkflow('c'), continueAsNew()];

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.constant<Command>({ kind: 'signal' }),
  fc.constant<Command>({ kind: 'cancelRequest' }),
  fc
    .array(fc.nat(40), { maxLength: 5 })
    .map((decisions): Command => ({ kind: 'decide', decisions })),
  fc.nat(5).map((pick): Command => ({ kind: 'startActivity', pick })),
  fc
    .tuple(fc.nat(5), fc.constantFrom<0 | 1 | 2>(0, 1, 2))
    .map(([pick, outcome]): Command => ({ kind: 'closeActivity', pick, outcome })),
  fc.constant<Command>({ kind: 'terminate' }),
);

function apply(run: RunDriver, c: Command): void {
  const s = run.state;
  if (s.status !== 'OPEN') return;
  const activities = Object.values(s.activities);
  switch (c.kind) {
    case 'signal':
      run.signal();
      return;
    case 'cancelRequest':
      run.requestCancel();
      return;
    case 'decide': {
      if (s.decisionTask.status !== 'scheduled') return;
      // Numbers past 36 close the run, always as the last decision.
      const body = c.decisions.filter((n) => n < 36).map(decisionPool);
      const closing = c.decisions.find((n) => n >= 36);
      run.decide(
        closing === undefined ? body : [...body, closePool[closing % 4] ?? completeWorkflow()],
      );
      return;
    }
    case 'startActivity': {
      const queued = activities.filter((a) => a.startedEventId === undefined);
      const target = queued[c.pick % Math.max(queued.length, 1)];
      if (target !== undefined) run.startActivity(target.activityId);
      return;
    }
    case 'closeActivity': {
      const started = activities.filter((a) => a.startedEventId !== undefined);
      const target = started[c.pick % Math.max(started.length, 1)];
      if (target === undefined) return;
      const outcome = (
        [
          { kind: 'completed', result: 'r' },
          { kind: 'failed', reason: 'f' },
          { kind: 'canceled' },
        ] as const
      )[c.outcome];
      run.closeActivity(target.activityId, outcome);
      return;
    }
    case 'terminate':
      run.terminate();
      return;
  }
}

describe('replay, for any sequence of calls', () => {
  it('rebuilds the stored state and keeps the history well formed', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (commands) => {
        const run = new RunDriver();
        for (const c of commands) {
          apply(run, c);
          expectReplayMatches(run);
          expectWellFormed(run.history, run.state);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('is deterministic: the same history always gives the same state', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 25 }), (commands) => {
        const run = new RunDriver();
        for (const c of commands) apply(run, c);
        const history = stored(run.history);
        expect(replay(run.identity, history)).toStrictEqual(replay(run.identity, history));
      }),
      { numRuns: 50 },
    );
  });
});
