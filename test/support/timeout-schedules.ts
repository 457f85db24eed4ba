/**
 * The generated schedules of the timeout oracle test: a configuration of one execution and the steps
 * that drive it (polls, answers, heartbeats, signals, the clock and the timer service's punctuality).
 */
import fc from 'fast-check';
import { ACTIVITY_IDS, TIMER_IDS, type TypeName } from './timeout-domain.js';
import type { OracleDecision } from './timeout-oracle.js';

const dur = fc.oneof(
  { weight: 1, arbitrary: fc.constant('NONE') },
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 25 }).map(String) },
);
const optionalDur = fc.option(dur, { nil: undefined, freq: 3 });

const decisionArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('schedule' as const),
      id: fc.nat(ACTIVITY_IDS.length - 1),
      type: fc.constantFrom<TypeName>('full', 'bare', 'unlimited'),
      scheduleToStart: optionalDur,
      scheduleToClose: optionalDur,
      startToClose: optionalDur,
      heartbeat: optionalDur,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('cancelActivity' as const),
      id: fc.nat(ACTIVITY_IDS.length - 1),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('startTimer' as const),
      id: fc.nat(TIMER_IDS.length - 1),
      seconds: fc.integer({ min: 0, max: 30 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('cancelTimer' as const),
      id: fc.nat(TIMER_IDS.length - 1),
    }),
  },
);

type GeneratedDecision = typeof decisionArb extends fc.Arbitrary<infer D> ? D : never;

const dt = fc.integer({ min: 1, max: 2_500 });
/** Mostly the latest token; now and then an older one. */
const pick = fc.oneof(
  { weight: 5, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.nat(3) },
);
/** Mostly an activity the step applies to; now and then any. */
const target = fc.record({
  any: fc.oneof(
    { weight: 5, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  ),
  n: fc.nat(7),
});

export const stepArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('pollD' as const),
      /** Poll the list the task is not on (now and then). */
      wrong: fc.oneof(
        { weight: 6, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
      dt,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('respondD' as const),
      pick,
      decisions: fc.array(decisionArb, { maxLength: 4, size: 'max' }),
      override: fc.option(
        fc.record({ toAlt: fc.boolean(), timeout: fc.option(dur, { nil: undefined }) }),
        { nil: undefined, freq: 4 },
      ),
      dt,
    }),
  },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('pollA' as const), target, dt }) },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant('beat' as const),
      target,
      pick,
      details: fc.option(fc.constantFrom('p1', 'p2', 'p3'), { nil: undefined, freq: 3 }),
      dt,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('close' as const),
      target,
      pick,
      how: fc.constantFrom('completed' as const, 'failed' as const, 'canceled' as const),
      dt,
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('signal' as const), dt }) },
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant('work' as const),
      target,
      dt,
      beats: fc.array(
        fc.record({
          gap: fc.integer({ min: 100, max: 7_000 }),
          details: fc.option(fc.constantFrom('q1', 'q2'), { nil: undefined, freq: 4 }),
        }),
        { maxLength: 4 },
      ),
      end: fc.constantFrom(
        'completed' as const,
        'failed' as const,
        'canceled' as const,
        'walk away' as const,
      ),
      endGap: fc.integer({ min: 100, max: 7_000 }),
      /** The timer service stalls while the worker heartbeats, and catches up late once it walks away. */
      stall: fc.oneof(
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 25_000 }) },
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('advance' as const),
      to: fc.constantFrom('next' as const, 'next' as const, 'anywhere' as const),
      delta: fc.oneof(fc.constant(-1), fc.constant(1), fc.integer({ min: 2, max: 2_500 })),
      far: fc.integer({ min: 1, max: 20_000 }),
      mode: fc.constantFrom('punctual' as const, 'late' as const, 'stalled' as const),
    }),
  },
);
export type Step = typeof stepArb extends fc.Arbitrary<infer S> ? S : never;

export const configArb = fc.record({
  taskStartToClose: fc.oneof(fc.constant('NONE'), fc.integer({ min: 3, max: 30 }).map(String)),
  executionStartToClose: fc.integer({ min: 40, max: 240 }).map(String),
  childPolicy: fc.constantFrom('TERMINATE', 'REQUEST_CANCEL', 'ABANDON'),
  typeDefaults: fc.oneof(
    { weight: 5, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  ),
});
export type Config = typeof configArb extends fc.Arbitrary<infer C> ? C : never;

/** A generated decision in the oracle's terms. */
export function oracleDecision(d: GeneratedDecision): OracleDecision {
  if (d.kind === 'schedule') {
    const id = ACTIVITY_IDS[d.id] as string;
    const timeouts = {
      ...(d.scheduleToStart === undefined ? {} : { scheduleToStart: d.scheduleToStart }),
      ...(d.scheduleToClose === undefined ? {} : { scheduleToClose: d.scheduleToClose }),
      ...(d.startToClose === undefined ? {} : { startToClose: d.startToClose }),
      ...(d.heartbeat === undefined ? {} : { heartbeat: d.heartbeat }),
    };
    return { kind: 'schedule', activityId: id, typeName: d.type, taskList: `acts-${id}`, timeouts };
  }
  if (d.kind === 'cancelActivity')
    return { kind: 'cancelActivity', activityId: ACTIVITY_IDS[d.id] as string };
  if (d.kind === 'startTimer')
    return { kind: 'startTimer', timerId: TIMER_IDS[d.id] as string, seconds: d.seconds };
  return { kind: 'cancelTimer', timerId: TIMER_IDS[d.id] as string };
}

export function chooseActivity(target: { any: boolean; n: number }, open: string[]): string {
  const from = target.any || open.length === 0 ? ACTIVITY_IDS : open;
  return from[target.n % from.length] as string;
}
