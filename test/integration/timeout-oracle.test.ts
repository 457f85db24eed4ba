/**
 * Generated interleavings of task lifecycles and the clock, each step checked against an independent
 * model of SWF's timeouts (test/support/timeout-oracle.ts): the whole history (ids, order, every
 * attribute, timestamps), DescribeWorkflowExecution's open counts, and which calls are refused.
 *
 * A schedule drives one execution: the decider polls (on its task list or an override list) and
 * answers, late or in time, with activities of random timeouts (given, NONE, or the type's default),
 * timers, timer and activity cancellations, task-list overrides with a schedule-to-start timeout;
 * workers poll, heartbeat (with and without details) and complete, fail or cancel, with their current
 * token or a stale one; signals arrive; and the clock moves, to just before or after the next deadline
 * or anywhere, with the timer service punctual, late, or stalled (the window in which a deadline has
 * passed and its fire has not come). Every run ends past the execution's own timeout, after which every
 * token is refused and no poll gets a task.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LambdaInvoker, LambdaRequest, LambdaResult } from '../../lib/ports/lambda-invoker.js';
import { type Answer, ManualClockService } from '../support/manual-clock-service.js';
import { storesForFile } from '../support/stores.js';
import {
  type Dur,
  type OracleDecision,
  type TaskRef,
  TimeoutOracle,
} from '../support/timeout-oracle.js';

const stores = storesForFile('timeout-oracle');

const ACTIVITY_TYPES = {
  full: { scheduleToStart: '6', scheduleToClose: '20', startToClose: '9', heartbeat: '4' },
  bare: { startToClose: '7' },
  unlimited: {
    scheduleToStart: 'NONE',
    scheduleToClose: 'NONE',
    startToClose: 'NONE',
    heartbeat: 'NONE',
  },
} as const;
type TypeName = keyof typeof ACTIVITY_TYPES;

const MAIN_LIST = 'deciders';
const ALT_LIST = 'deciders-alt';
const ACTIVITY_IDS = ['a0', 'a1', 'a2'];
const TIMER_IDS = ['t0', 't1'];

// ---- the generated schedules ----

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

const stepArb = fc.oneof(
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
type Step = typeof stepArb extends fc.Arbitrary<infer S> ? S : never;

const configArb = fc.record({
  taskStartToClose: fc.oneof(fc.constant('NONE'), fc.integer({ min: 3, max: 30 }).map(String)),
  executionStartToClose: fc.integer({ min: 40, max: 240 }).map(String),
  childPolicy: fc.constantFrom('TERMINATE', 'REQUEST_CANCEL', 'ABANDON'),
  typeDefaults: fc.oneof(
    { weight: 5, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  ),
});
type Config = typeof configArb extends fc.Arbitrary<infer C> ? C : never;

// ---- one schedule, run against the service and the oracle ----

let clockBase = Math.floor(Date.now() / 1000) * 1000;

interface Tokens {
  decision: { token: string; ref: TaskRef }[];
  activity: Map<string, { token: string; ref: TaskRef }[]>;
}

async function registerTypes(service: ManualClockService, domain: string) {
  await service.must('RegisterDomain', {
    name: domain,
    workflowExecutionRetentionPeriodInDays: '1',
  });
  await service.must('RegisterWorkflowType', {
    domain,
    name: 'w',
    version: '1',
    defaultTaskList: { name: MAIN_LIST },
    defaultExecutionStartToCloseTimeout: '600',
    defaultTaskStartToCloseTimeout: '60',
    defaultChildPolicy: 'ABANDON',
  });
  for (const [name, d] of Object.entries(ACTIVITY_TYPES) as [TypeName, Record<string, string>][])
    await service.must('RegisterActivityType', {
      domain,
      name,
      version: '1',
      ...(d.scheduleToStart === undefined
        ? {}
        : { defaultTaskScheduleToStartTimeout: d.scheduleToStart }),
      ...(d.scheduleToClose === undefined
        ? {}
        : { defaultTaskScheduleToCloseTimeout: d.scheduleToClose }),
      ...(d.startToClose === undefined ? {} : { defaultTaskStartToCloseTimeout: d.startToClose }),
      ...(d.heartbeat === undefined ? {} : { defaultTaskHeartbeatTimeout: d.heartbeat }),
    });
}

class Mismatch extends Error {}

/** Runs one schedule; throws a Mismatch (with the step log) at the first disagreement. */
async function runSchedule(config: Config, steps: readonly Step[]): Promise<void> {
  clockBase += 30 * 86_400_000;
  const service = new ManualClockService(stores(), clockBase);
  const domain = `to-${randomUUID().slice(0, 8)}`;
  await registerTypes(service, domain);
  // Start on a round second plus some milliseconds, away from the registration.
  service.clock.ms += 1_000 + 137;
  const started = await service.must('StartWorkflowExecution', {
    domain,
    workflowId: 'w',
    workflowType: { name: 'w', version: '1' },
    // Given, or left to the workflow type's defaults (task list, 600 s, 60 s, ABANDON).
    ...(config.typeDefaults
      ? {}
      : {
          taskList: { name: MAIN_LIST },
          taskStartToCloseTimeout: config.taskStartToClose,
          executionStartToCloseTimeout: config.executionStartToClose,
          childPolicy: config.childPolicy,
        }),
  });
  const execution = { workflowId: 'w', runId: started.runId };
  const o = new TimeoutOracle({
    startAt: service.clock.ms,
    taskList: MAIN_LIST,
    taskStartToCloseTimeout: config.typeDefaults ? '60' : config.taskStartToClose,
    executionStartToCloseTimeout: config.typeDefaults ? '600' : config.executionStartToClose,
    childPolicy: config.typeDefaults ? 'ABANDON' : config.childPolicy,
    workflowType: { name: 'w', version: '1' },
    activityTypes: ACTIVITY_TYPES,
  });
  const log: string[] = [`config ${JSON.stringify(config)}`];
  const fail = (what: string): never => {
    throw new Mismatch(`${what}\n--- steps ---\n${log.join('\n')}`);
  };
  const tokens: Tokens = { decision: [], activity: new Map() };

  const sameAnswer = (label: string, got: Answer, expectedOk: boolean) => {
    if (got.ok !== expectedOk)
      fail(
        `${label}: service ${got.ok ? 'accepted' : `refused (${got.fault})`}, SWF would ${expectedOk ? 'accept' : 'refuse (UnknownResourceFault)'}`,
      );
    if (!got.ok && got.fault !== 'UnknownResourceFault') fail(`${label}: fault ${got.fault}`);
  };

  /** Moves the clock by `by` ms before a call, the timer service punctual unless it is stalled. */
  let stalled = false;
  let checks = 0;
  const before = async (by: number) => {
    let target = service.clock.ms + by;
    // Never call at the very millisecond of a deadline: which side of it SWF takes is not documented.
    while (o.deadlines().some((d) => d.at === target)) target += 1;
    if (stalled) service.advanceStalled(target);
    else {
      const from = service.clock.ms;
      await service.advancePunctual(target);
      o.fireUpTo(target, 'own', from);
    }
  };

  const check = async (label: string) => {
    const page = await service.must('GetWorkflowExecutionHistory', {
      domain,
      execution,
      maximumPageSize: 1000,
    });
    const got = (page.events ?? []) as {
      eventId: number;
      eventType: string;
      eventTimestamp: number;
      [k: string]: unknown;
    }[];
    const want = o.events;
    for (let i = 0; i < Math.max(got.length, want.length); i++) {
      const g = got[i];
      const w = want[i];
      const show = (e: unknown) => JSON.stringify(e);
      if (g === undefined || w === undefined)
        fail(
          `${label}: history length ${got.length}, expected ${want.length}; event ${i + 1}: service ${show(g)}, oracle ${show(w)}`,
        );
      if (g === undefined || w === undefined) return;
      const member = `${w.eventType.charAt(0).toLowerCase()}${w.eventType.slice(1)}EventAttributes`;
      let attributes = g[member] as Record<string, unknown> | undefined;
      if (w.eventType === 'WorkflowExecutionStarted' && attributes !== undefined)
        attributes = Object.fromEntries(
          Object.keys(w.attributes).map((k) => [k, (attributes as Record<string, unknown>)[k]]),
        );
      const same =
        g.eventId === w.eventId &&
        g.eventType === w.eventType &&
        JSON.stringify(sortKeys(attributes)) === JSON.stringify(sortKeys(w.attributes));
      if (!same)
        fail(
          `${label}: event ${i + 1} differs\n service: ${g.eventType} ${show(g[member])}\n oracle:  ${w.eventType} ${show(w.attributes)}\n service history: ${got.map((e) => `${e.eventId}:${e.eventType}`).join(' ')}\n oracle history:  ${want.map((e) => `${e.eventId}:${e.eventType}`).join(' ')}`,
        );
      if (Math.abs(g.eventTimestamp * 1000 - w.at) > 2)
        fail(
          `${label}: event ${i + 1} ${w.eventType} stamped ${g.eventTimestamp * 1000 - o.config.startAt} ms after the start, expected ${w.at - o.config.startAt}`,
        );
    }
    const described = await service.must('DescribeWorkflowExecution', { domain, execution });
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
    if (service.errors.length > 0) fail(`${label}: outbox error ${String(service.errors[0])}`);
    // What waits on each list: every third check, and not while the timer service stalls (a task past
    // its timeout stays queued until its fire comes, though no poll is handed it).
    if (stalled || checks++ % 3 !== 0) return;
    for (const [kind, name] of [
      ['decision', MAIN_LIST],
      ['decision', ALT_LIST],
      ...ACTIVITY_IDS.map((id) => ['activity', `acts-${id}`] as const),
    ] as const) {
      const action =
        kind === 'decision' ? 'CountPendingDecisionTasks' : 'CountPendingActivityTasks';
      const { count } = await service.must(action, { domain, taskList: { name } });
      if (count !== o.pendingTasks(kind, name))
        fail(
          `${label}: ${action} on ${name} ${String(count)}, expected ${o.pendingTasks(kind, name)}`,
        );
    }
  };

  const activityToken = (id: string, p: number) => {
    const list = tokens.activity.get(id) ?? [];
    return list.length === 0 ? undefined : list[Math.max(0, list.length - 1 - p)];
  };

  const pollDecision = async (label: string, wrong: boolean) => {
    const waiting = o.decisionTaskList() ?? MAIN_LIST;
    const list = wrong ? (waiting === MAIN_LIST ? ALT_LIST : MAIN_LIST) : waiting;
    const got = await service.call('PollForDecisionTask', {
      domain,
      taskList: { name: list },
      identity: 'decider',
    });
    const want = o.pollForDecisionTask(list, service.clock.ms, 'decider');
    log.push(
      `+${service.clock.ms - o.config.startAt}ms ${label} poll ${list} -> ${want.ok && want.value ? `started ${want.value.startedEventId}` : 'none'}`,
    );
    const token = got.ok ? (got.value?.taskToken as string | undefined) : undefined;
    const expected = want.ok ? want.value : undefined;
    if ((token !== undefined) !== (expected !== undefined))
      fail(
        `${label}: service ${token ? 'handed out' : 'gave no'} decision task, SWF would ${expected ? 'hand one out' : 'give none'}`,
      );
    if (token !== undefined && expected !== undefined) {
      if (got.ok && got.value?.startedEventId !== expected.startedEventId)
        fail(
          `${label}: startedEventId ${String(got.value?.startedEventId)}, expected ${expected.startedEventId}`,
        );
      if (got.ok && got.value?.previousStartedEventId !== o.previousStarted())
        fail(
          `${label}: previousStartedEventId ${String(got.value?.previousStartedEventId)}, expected ${o.previousStarted()}`,
        );
      tokens.decision.push({ token, ref: expected });
    }
  };

  const pollActivity = async (label: string, id: string) => {
    const got = await service.call('PollForActivityTask', {
      domain,
      taskList: { name: `acts-${id}` },
      identity: 'worker',
    });
    const want = o.pollForActivityTask(`acts-${id}`, service.clock.ms, 'worker');
    const expected = want.ok ? want.value : undefined;
    log.push(
      `+${service.clock.ms - o.config.startAt}ms ${label} poll ${id} -> ${expected ? `started ${expected.startedEventId}` : 'none'}`,
    );
    const token = got.ok ? (got.value?.taskToken as string | undefined) : undefined;
    if ((token !== undefined) !== (expected !== undefined))
      fail(
        `${label}: service ${token ? 'handed out' : 'gave no'} activity task, SWF would ${expected ? 'hand one out' : 'give none'}`,
      );
    if (token === undefined || expected === undefined) return undefined;
    if (got.ok && got.value?.startedEventId !== expected.startedEventId)
      fail(
        `${label}: startedEventId ${String(got.value?.startedEventId)}, expected ${expected.startedEventId}`,
      );
    const entry = { token, ref: expected };
    const list = tokens.activity.get(id) ?? [];
    list.push(entry);
    tokens.activity.set(id, list);
    return entry;
  };

  const heartbeat = async (
    label: string,
    id: string,
    chosen: { token: string; ref: TaskRef },
    details: string | undefined,
  ) => {
    const got = await service.call('RecordActivityTaskHeartbeat', {
      taskToken: chosen.token,
      ...(details === undefined ? {} : { details }),
    });
    const want = o.recordActivityTaskHeartbeat(chosen.ref, service.clock.ms, details);
    log.push(
      `+${service.clock.ms - o.config.startAt}ms ${label} ${id} task ${chosen.ref.startedEventId} ${details ?? '-'} -> ${want.ok ? `ok cancelRequested=${want.value.cancelRequested}` : 'refused'}`,
    );
    sameAnswer(label, got, want.ok);
    if (got.ok && want.ok && got.value?.cancelRequested !== want.value.cancelRequested)
      fail(
        `${label}: cancelRequested ${String(got.value?.cancelRequested)}, expected ${want.value.cancelRequested}`,
      );
  };

  const respondActivity = async (
    label: string,
    id: string,
    chosen: { token: string; ref: TaskRef },
    how: 'completed' | 'failed' | 'canceled',
  ) => {
    const action = {
      completed: 'RespondActivityTaskCompleted',
      failed: 'RespondActivityTaskFailed',
      canceled: 'RespondActivityTaskCanceled',
    } as const;
    const extra = {
      completed: { result: 'r' },
      failed: { reason: 'f' },
      canceled: { details: 'c' },
    };
    const got = await service.call(action[how], { taskToken: chosen.token, ...extra[how] });
    const want = o.respondActivityTask(chosen.ref, service.clock.ms, how);
    log.push(
      `+${service.clock.ms - o.config.startAt}ms ${label} ${id} ${how} task ${chosen.ref.startedEventId} -> ${want.ok ? 'ok' : 'refused'}`,
    );
    sameAnswer(label, got, want.ok);
  };

  await check('start');
  for (const [n, step] of steps.entries()) {
    const at = () => `+${service.clock.ms - o.config.startAt}ms`;
    const label = `step ${n} ${step.t}`;
    switch (step.t) {
      case 'pollD': {
        await before(step.dt);
        await pollDecision(label, step.wrong);
        break;
      }
      case 'respondD': {
        // The decider answers the task it holds (polling for one first if it holds none), unless the
        // step sends an older token.
        await before(step.dt);
        if (step.pick === 0 && o.startedDecisionTask() === undefined && !stalled) {
          await pollDecision(`${label} (poll first)`, false);
          await check(`${label} (poll first)`);
          await before(1 + (step.dt % 700));
        }
        const chosen = tokens.decision[tokens.decision.length - 1 - Math.min(step.pick, 1)];
        if (chosen === undefined) continue;
        const decisions = step.decisions.map(oracleDecision);
        const override =
          step.override === undefined
            ? undefined
            : {
                list: step.override.toAlt ? ALT_LIST : MAIN_LIST,
                ...(step.override.timeout === undefined ? {} : { timeout: step.override.timeout }),
              };
        const got = await service.call('RespondDecisionTaskCompleted', {
          taskToken: chosen.token,
          decisions: decisions.map(toWire),
          ...(override === undefined
            ? {}
            : {
                taskList: { name: override.list },
                ...(override.timeout === undefined
                  ? {}
                  : { taskListScheduleToStartTimeout: override.timeout }),
              }),
        });
        const want = o.respondDecisionTaskCompleted(
          chosen.ref,
          service.clock.ms,
          decisions,
          override,
        );
        log.push(
          `${at()} ${label} task ${chosen.ref.startedEventId} ${JSON.stringify(decisions)} override ${JSON.stringify(override)} -> ${want.ok ? 'ok' : 'refused'}`,
        );
        sameAnswer(label, got, want.ok);
        break;
      }
      case 'pollA': {
        await before(step.dt);
        await pollActivity(label, chooseActivity(step.target, o.activityIds(false)));
        break;
      }
      case 'beat': {
        const id = chooseActivity(step.target, o.activityIds(true));
        const chosen = activityToken(id, step.pick);
        if (chosen === undefined) continue;
        await before(step.dt);
        await heartbeat(label, id, chosen, step.details);
        break;
      }
      case 'close': {
        const id = chooseActivity(step.target, o.activityIds(true));
        const chosen = activityToken(id, step.pick);
        if (chosen === undefined) continue;
        await before(step.dt);
        await respondActivity(label, id, chosen, step.how);
        break;
      }
      case 'work': {
        // A worker's whole go at an activity: it takes it, heartbeats now and then, and answers (or
        // walks away), each call checked on its own.
        await before(step.dt);
        const id = chooseActivity(step.target, o.activityIds(false));
        const task = await pollActivity(label, id);
        if (task === undefined) break;
        await check(`${label} (took ${id})`);
        if (step.stall !== undefined) stalled = true;
        for (const [i, beat] of step.beats.entries()) {
          await before(beat.gap);
          await heartbeat(`${label} beat ${i}`, id, task, beat.details);
          await check(`${label} beat ${i}`);
        }
        if (step.end !== 'walk away') {
          await before(step.endGap);
          await respondActivity(`${label} ${step.end}`, id, task, step.end);
        }
        if (step.stall !== undefined) {
          const from = service.clock.ms;
          let target = from + step.stall;
          while (o.deadlines().some((d) => d.at === target)) target += 1;
          await service.advanceLate(target);
          o.fireUpTo(target, 'until', from);
          stalled = false;
          log.push(`+${target - o.config.startAt}ms ${label} the timer service catches up`);
          await check(`${label} (caught up)`);
        }
        break;
      }
      case 'signal': {
        await before(step.dt);
        const got = await service.call('SignalWorkflowExecution', {
          domain,
          workflowId: 'w',
          runId: execution.runId,
          signalName: 's',
          input: 'i',
        });
        const want = o.signal(service.clock.ms);
        log.push(`${at()} ${label} -> ${want.ok ? 'ok' : 'refused'}`);
        sameAnswer(label, got, want.ok);
        break;
      }
      case 'advance': {
        const next = o.nextTaskDeadline();
        let target =
          step.to === 'next' && next !== undefined && next.at + step.delta > service.clock.ms
            ? Math.max(service.clock.ms + 1, next.at + step.delta)
            : service.clock.ms + step.far;
        while (o.deadlines().some((d) => d.at === target)) target += 1;
        const from = service.clock.ms;
        if (step.mode === 'stalled') {
          service.advanceStalled(target);
          stalled = true;
        } else if (step.mode === 'late') {
          await service.advanceLate(target);
          o.fireUpTo(target, 'until', from);
          stalled = false;
        } else {
          await service.advancePunctual(target);
          o.fireUpTo(target, 'own', from);
          stalled = false;
        }
        log.push(
          `${at()} ${label} ${step.mode} to ${target - o.config.startAt}ms (next deadline ${next ? `${next.kind}${'timeoutType' in next ? ` ${next.timeoutType}` : ''} at ${next.at - o.config.startAt}` : 'none'})`,
        );
        break;
      }
    }
    await check(label);
  }

  // The end: past the execution's timeout, late; then every token is refused and no poll gets a task.
  const end = o.config.startAt + Number(o.config.executionStartToCloseTimeout) * 1000 + 1;
  const from = service.clock.ms;
  await service.advanceLate(Math.max(end, service.clock.ms + 1));
  o.fireUpTo(Math.max(end, from + 1), 'until', from);
  log.push(`+${service.clock.ms - o.config.startAt}ms end`);
  await check('end');
  if (o.status !== 'CLOSED') fail('the execution outlived its timeout in the oracle');
  for (const { token } of tokens.decision)
    sameAnswer(
      'late decision',
      await service.call('RespondDecisionTaskCompleted', { taskToken: token }),
      false,
    );
  for (const list of tokens.activity.values())
    for (const { token } of list) {
      sameAnswer(
        'late heartbeat',
        await service.call('RecordActivityTaskHeartbeat', { taskToken: token }),
        false,
      );
      sameAnswer(
        'late completion',
        await service.call('RespondActivityTaskCompleted', { taskToken: token }),
        false,
      );
    }
  for (const name of [MAIN_LIST, ALT_LIST, ...ACTIVITY_IDS.map((id) => `acts-${id}`)]) {
    const d = await service.must('PollForDecisionTask', { domain, taskList: { name } });
    const a = await service.must('PollForActivityTask', { domain, taskList: { name } });
    if (d.taskToken !== undefined || a.taskToken !== undefined)
      fail(`a task handed out on ${name} after the close`);
  }
  await check('after the end');
  // ORACLE_LOG=n prints the first n schedules' steps; ORACLE_STATS tallies what the runs exercised.
  if (process.env.ORACLE_LOG !== undefined && printed++ < Number(process.env.ORACLE_LOG))
    console.log(log.join('\n'));
  for (const e of o.events) {
    const timeout = e.eventType.endsWith('TimedOut') ? `:${String(e.attributes.timeoutType)}` : '';
    const details = e.attributes.details === undefined ? '' : '+details';
    tally(`${e.eventType}${timeout}${details}`);
  }
  for (const line of log) {
    const outcome = /-> (refused|none|ok|started)/.exec(line);
    if (outcome !== null) tally(`${line.split(' ')[3]}:${outcome[1]}`);
  }
}

const stats = new Map<string, number>();
const tally = (key: string) => stats.set(key, (stats.get(key) ?? 0) + 1);
let printed = 0;

/** A generated decision in the oracle's terms. */
function oracleDecision(d: GeneratedDecision): OracleDecision {
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

function chooseActivity(target: { any: boolean; n: number }, open: string[]): string {
  const from = target.any || open.length === 0 ? ACTIVITY_IDS : open;
  return from[target.n % from.length] as string;
}

function toWire(d: OracleDecision): Record<string, unknown> {
  switch (d.kind) {
    case 'schedule':
      return {
        decisionType: 'ScheduleActivityTask',
        scheduleActivityTaskDecisionAttributes: {
          activityType: { name: d.typeName, version: '1' },
          activityId: d.activityId,
          taskList: { name: d.taskList },
          ...(d.timeouts.scheduleToStart === undefined
            ? {}
            : { scheduleToStartTimeout: d.timeouts.scheduleToStart }),
          ...(d.timeouts.scheduleToClose === undefined
            ? {}
            : { scheduleToCloseTimeout: d.timeouts.scheduleToClose }),
          ...(d.timeouts.startToClose === undefined
            ? {}
            : { startToCloseTimeout: d.timeouts.startToClose }),
          ...(d.timeouts.heartbeat === undefined ? {} : { heartbeatTimeout: d.timeouts.heartbeat }),
        },
      };
    case 'cancelActivity':
      return {
        decisionType: 'RequestCancelActivityTask',
        requestCancelActivityTaskDecisionAttributes: { activityId: d.activityId },
      };
    case 'startTimer':
      return {
        decisionType: 'StartTimer',
        startTimerDecisionAttributes: { timerId: d.timerId, startToFireTimeout: String(d.seconds) },
      };
    case 'cancelTimer':
      return { decisionType: 'CancelTimer', cancelTimerDecisionAttributes: { timerId: d.timerId } };
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

describe('timeouts against an independent oracle, on generated interleavings', () => {
  it('agree on every history, open count and refusal', async () => {
    await fc.assert(
      fc.asyncProperty(
        configArb,
        fc.array(stepArb, { minLength: 20, maxLength: 60, size: 'max' }),
        (c, s) => runSchedule(c, s),
      ),
      {
        seed: Number(process.env.ORACLE_SEED ?? 20240611),
        numRuns: Number(process.env.ORACLE_RUNS ?? 50),
        endOnFailure: process.env.ORACLE_SHRINK === undefined,
      },
    );
    if (process.env.ORACLE_STATS !== undefined)
      console.log(
        [...stats.entries()]
          .sort()
          .map(([k, v]) => `${k} ${v}`)
          .join('\n'),
      );
  }, 120_000);
});

/** One execution with one activity scheduled with the given timeouts, and the oracle beside it. */
async function oneActivity(
  timeouts: {
    scheduleToStart?: Dur;
    scheduleToClose?: Dur;
    startToClose?: Dur;
    heartbeat?: Dur;
  },
  also: OracleDecision[] = [],
) {
  clockBase += 30 * 86_400_000;
  const service = new ManualClockService(stores(), clockBase);
  const domain = `to-${randomUUID().slice(0, 8)}`;
  await registerTypes(service, domain);
  service.clock.ms += 1_000;
  const started = await service.must('StartWorkflowExecution', {
    domain,
    workflowId: 'w',
    workflowType: { name: 'w', version: '1' },
    taskList: { name: MAIN_LIST },
    taskStartToCloseTimeout: 'NONE',
    executionStartToCloseTimeout: '600',
    childPolicy: 'TERMINATE',
  });
  const execution = { workflowId: 'w', runId: started.runId };
  const o = new TimeoutOracle({
    startAt: service.clock.ms,
    taskList: MAIN_LIST,
    taskStartToCloseTimeout: 'NONE',
    executionStartToCloseTimeout: '600',
    childPolicy: 'TERMINATE',
    workflowType: { name: 'w', version: '1' },
    activityTypes: ACTIVITY_TYPES,
  });
  const d = await service.must('PollForDecisionTask', {
    domain,
    taskList: { name: MAIN_LIST },
    identity: 'decider',
  });
  const dRef = o.pollForDecisionTask(MAIN_LIST, service.clock.ms, 'decider');
  const decision: OracleDecision = {
    kind: 'schedule',
    activityId: 'a0',
    typeName: 'unlimited',
    taskList: 'acts-a0',
    timeouts,
  };
  await service.must('RespondDecisionTaskCompleted', {
    taskToken: d.taskToken,
    decisions: [decision, ...also].map(toWire),
  });
  if (dRef.ok && dRef.value)
    o.respondDecisionTaskCompleted(dRef.value, service.clock.ms, [decision, ...also]);
  const history = async () => {
    const page = await service.must('GetWorkflowExecutionHistory', { domain, execution });
    return (page.events ?? []) as { eventType: string; [k: string]: unknown }[];
  };
  const startActivity = async () => {
    const task = await service.must('PollForActivityTask', {
      domain,
      taskList: { name: 'acts-a0' },
      identity: 'worker',
    });
    const ref = o.pollForActivityTask('acts-a0', service.clock.ms, 'worker');
    return { token: task.taskToken as string, ref: ref.ok ? ref.value : undefined };
  };
  return { service, o, domain, execution, history, startActivity };
}

const timedOut = (events: { eventType: string; [k: string]: unknown }[]) =>
  events
    .filter((e) => e.eventType === 'ActivityTaskTimedOut')
    .map((e) => e.activityTaskTimedOutEventAttributes);

describe('timeouts that fire late, several of them due', () => {
  it('a START_TO_CLOSE due before a HEARTBEAT a heartbeat pushed is the one recorded', async () => {
    // Started at 0 with start-to-close 10 s and heartbeat 6 s; a heartbeat at 5 s moves the heartbeat
    // timeout to 11 s. START_TO_CLOSE falls due first (10 s); the timer service hands the fire over at 12 s.
    const { service, history, startActivity } = await oneActivity({
      scheduleToStart: 'NONE',
      scheduleToClose: 'NONE',
      startToClose: '10',
      heartbeat: '6',
    });
    const { token } = await startActivity();
    const t0 = service.clock.ms;
    service.advanceStalled(t0 + 5_000);
    await service.must('RecordActivityTaskHeartbeat', { taskToken: token, details: 'half' });
    await service.advanceLate(t0 + 12_000);
    expect(timedOut(await history())).toEqual([
      { timeoutType: 'START_TO_CLOSE', scheduledEventId: 5, startedEventId: 6, details: 'half' },
    ]);
  });
  it('a timer due before a HEARTBEAT a heartbeat pushed fires first', async () => {
    // The activity starts at 0 with a heartbeat timeout of 6 s and a timer of 8 s runs beside it; a
    // heartbeat at 5 s moves the heartbeat timeout to 11 s. The fire comes at 12 s: the timer fell
    // due first, so TimerFired (and the decision task it schedules) comes first in the history.
    const { service, history, startActivity } = await oneActivity(
      { scheduleToStart: 'NONE', scheduleToClose: 'NONE', startToClose: 'NONE', heartbeat: '6' },
      [{ kind: 'startTimer', timerId: 't0', seconds: 8 }],
    );
    const { token } = await startActivity();
    const t0 = service.clock.ms;
    service.advanceStalled(t0 + 5_000);
    await service.must('RecordActivityTaskHeartbeat', { taskToken: token });
    await service.advanceLate(t0 + 12_000);
    const events = (await history()).map((e) => e.eventType);
    expect(events.slice(events.indexOf('ActivityTaskStarted') + 1)).toEqual([
      'TimerFired',
      'DecisionTaskScheduled',
      'ActivityTaskTimedOut',
    ]);
  });
});

describe('calls on an execution past its own timeout, the fire not come', () => {
  // "Once a workflow execution has timed out, you can't take any action on it other than visibility
  // calls" (Amazon SWF Timeout Types). The service refuses a worker's or decider's call sent after a
  // task's timeout though its fire has not come; an execution's own timeout must hold the same way.
  for (const [action, extra] of [
    ['SignalWorkflowExecution', { signalName: 's' }],
    ['RequestCancelWorkflowExecution', {}],
    ['TerminateWorkflowExecution', { reason: 'r' }],
  ] as const) {
    it(`${action} is refused and records nothing; the timeout closes the run`, async () => {
      const { service, domain, execution, history } = await oneActivity({ startToClose: '5' });
      const before = (await history()).length;
      // The run's timeout is 600 s; the timer service stalls past it.
      service.advanceStalled(service.clock.ms + 600_000 + 10);
      const answer = await service.call(action, {
        domain,
        workflowId: execution.workflowId,
        runId: execution.runId,
        ...extra,
      });
      expect(answer).toMatchObject({ ok: false, fault: 'UnknownResourceFault' });
      expect((await history()).length).toBe(before);
      await service.deliverDue();
      const events = await history();
      expect(events.at(-1)?.eventType).toBe('WorkflowExecutionTimedOut');
      expect(events.length).toBe(before + 1);
    });
  }
});

/** A parent (execution timeout `parent` s, child policy `policy`) that has started one child (`child` s). */
async function parentAndChild(parent: number, child: number, policy: string) {
  clockBase += 30 * 86_400_000;
  const service = new ManualClockService(stores(), clockBase);
  const domain = `to-${randomUUID().slice(0, 8)}`;
  await registerTypes(service, domain);
  service.clock.ms += 1_000;
  const started = await service.must('StartWorkflowExecution', {
    domain,
    workflowId: 'parent',
    workflowType: { name: 'w', version: '1' },
    taskList: { name: MAIN_LIST },
    taskStartToCloseTimeout: 'NONE',
    executionStartToCloseTimeout: String(parent),
    childPolicy: policy,
  });
  const parentRun = { workflowId: 'parent', runId: started.runId as string };
  const task = await service.must('PollForDecisionTask', { domain, taskList: { name: MAIN_LIST } });
  await service.must('RespondDecisionTaskCompleted', {
    taskToken: task.taskToken,
    decisions: [
      {
        decisionType: 'StartChildWorkflowExecution',
        startChildWorkflowExecutionDecisionAttributes: {
          workflowType: { name: 'w', version: '1' },
          workflowId: 'child',
          taskList: { name: 'child-deciders' },
          executionStartToCloseTimeout: String(child),
          taskStartToCloseTimeout: 'NONE',
          childPolicy: 'ABANDON',
        },
      },
    ],
  });
  const events = async (execution: { workflowId: string; runId: string }) => {
    const page = await service.must('GetWorkflowExecutionHistory', { domain, execution });
    return (page.events ?? []) as { eventType: string; [k: string]: unknown }[];
  };
  const parentEvents = await events(parentRun);
  const childStarted = parentEvents.find((e) => e.eventType === 'ChildWorkflowExecutionStarted');
  if (childStarted === undefined) throw new Error('the child did not start');
  const childRun = (
    childStarted.childWorkflowExecutionStartedEventAttributes as {
      workflowExecution: { workflowId: string; runId: string };
    }
  ).workflowExecution;
  const describeRun = async (execution: { workflowId: string; runId: string }) =>
    service.must('DescribeWorkflowExecution', { domain, execution });
  return { service, domain, parentRun, childRun, events, describeRun, t0: service.clock.ms };
}

describe("a child's timeouts, as its parent sees them", () => {
  for (const mode of ['punctual', 'late'] as const)
    it(`the child times out first: ChildWorkflowExecutionTimedOut in the parent (${mode} fire)`, async () => {
      const { service, parentRun, childRun, events, describeRun, t0 } = await parentAndChild(
        60,
        10,
        'TERMINATE',
      );
      expect((await describeRun(parentRun)).openCounts).toMatchObject({
        openChildWorkflowExecutions: 1,
      });
      if (mode === 'late') await service.advanceLate(t0 + 25_000);
      else await service.advancePunctual(t0 + 25_000);
      const child = await events(childRun);
      expect(child.at(-1)).toMatchObject({
        eventType: 'WorkflowExecutionTimedOut',
        workflowExecutionTimedOutEventAttributes: {
          timeoutType: 'START_TO_CLOSE',
          childPolicy: 'ABANDON',
        },
      });
      const parent = await events(parentRun);
      const initiated = parent.find((e) => e.eventType === 'StartChildWorkflowExecutionInitiated');
      const started = parent.find((e) => e.eventType === 'ChildWorkflowExecutionStarted');
      // ChildWorkflowExecutionStarted scheduled a decision task that no decider has taken yet: the
      // timeout joins it, no second one is scheduled.
      expect(parent.slice(-3).map((e) => e.eventType)).toEqual([
        'ChildWorkflowExecutionStarted',
        'DecisionTaskScheduled',
        'ChildWorkflowExecutionTimedOut',
      ]);
      expect(parent.at(-1)?.childWorkflowExecutionTimedOutEventAttributes).toEqual({
        workflowExecution: childRun,
        workflowType: { name: 'w', version: '1' },
        timeoutType: 'START_TO_CLOSE',
        initiatedEventId: initiated?.eventId,
        startedEventId: started?.eventId,
      });
      expect((await describeRun(parentRun)).openCounts).toMatchObject({
        openChildWorkflowExecutions: 0,
        openDecisionTasks: 1,
      });
      expect((await describeRun(childRun)).executionInfo).toMatchObject({
        executionStatus: 'CLOSED',
        closeStatus: 'TIMED_OUT',
      });
    });

  for (const policy of ['TERMINATE', 'REQUEST_CANCEL', 'ABANDON'])
    it(`the parent times out first: its child policy ${policy} is applied, and the child's own timeout later tells the closed parent nothing`, async () => {
      const { service, parentRun, childRun, events, describeRun, t0 } = await parentAndChild(
        10,
        30,
        policy,
      );
      await service.advanceLate(t0 + 15_000);
      const parent = await events(parentRun);
      expect(parent.at(-1)).toMatchObject({
        eventType: 'WorkflowExecutionTimedOut',
        workflowExecutionTimedOutEventAttributes: {
          timeoutType: 'START_TO_CLOSE',
          childPolicy: policy,
        },
      });
      const child = await events(childRun);
      const childInfo = (await describeRun(childRun)).executionInfo;
      if (policy === 'TERMINATE') {
        // The child's own policy is recorded; the cause says the parent's policy closed it.
        expect(child.at(-1)).toMatchObject({
          eventType: 'WorkflowExecutionTerminated',
          workflowExecutionTerminatedEventAttributes: {
            childPolicy: 'ABANDON',
            cause: 'CHILD_POLICY_APPLIED',
          },
        });
        expect(childInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'TERMINATED' });
      } else if (policy === 'REQUEST_CANCEL') {
        expect(child.map((e) => e.eventType)).toEqual([
          'WorkflowExecutionStarted',
          'DecisionTaskScheduled',
          'WorkflowExecutionCancelRequested',
        ]);
        expect(child.at(-1)?.workflowExecutionCancelRequestedEventAttributes).toEqual({
          cause: 'CHILD_POLICY_APPLIED',
        });
        expect(childInfo).toMatchObject({ executionStatus: 'OPEN', cancelRequested: true });
      } else {
        expect(child.map((e) => e.eventType)).toEqual([
          'WorkflowExecutionStarted',
          'DecisionTaskScheduled',
        ]);
        expect(childInfo).toMatchObject({ executionStatus: 'OPEN' });
      }
      const parentLength = parent.length;
      await service.advanceLate(t0 + 45_000);
      expect((await events(parentRun)).length).toBe(parentLength);
      if (policy !== 'TERMINATE')
        expect((await events(childRun)).at(-1)?.eventType).toBe('WorkflowExecutionTimedOut');
    });

  it("a child that times out after its parent's own timeout passed, the parent's fire not come, is not reported to the parent", async () => {
    // The parent's timeout (10 s) passes first, then the child's (12 s); the timer service reaches the
    // child first. The parent timed out at 10 s: it hears of nothing after that.
    const { service, parentRun, childRun, events, t0 } = await parentAndChild(10, 12, 'ABANDON');
    const before = (await events(parentRun)).length;
    service.advanceStalled(t0 + 13_000);
    await service.deliverDue(childRun.runId);
    expect((await events(childRun)).at(-1)?.eventType).toBe('WorkflowExecutionTimedOut');
    expect((await events(parentRun)).length).toBe(before);
    await service.deliverDue();
    const parent = await events(parentRun);
    expect(parent.slice(before).map((e) => e.eventType)).toEqual(['WorkflowExecutionTimedOut']);
  });
});

/** A Lambda service whose functions answer when the test says. */
class HeldLambda implements LambdaInvoker {
  readonly available = true;
  readonly calls: { request: LambdaRequest; answer: (result: LambdaResult) => void }[] = [];
  invoke(request: LambdaRequest): Promise<LambdaResult> {
    return new Promise((answer) => this.calls.push({ request, answer }));
  }
}

/** A run that has scheduled Lambda function `f` (start-to-close 10 s), its invocation held. */
async function heldLambdaTask() {
  clockBase += 30 * 86_400_000;
  const lambda = new HeldLambda();
  const service = new ManualClockService(stores(), clockBase, lambda);
  const domain = `to-${randomUUID().slice(0, 8)}`;
  await registerTypes(service, domain);
  service.clock.ms += 1_000;
  const started = await service.must('StartWorkflowExecution', {
    domain,
    workflowId: 'w',
    workflowType: { name: 'w', version: '1' },
    taskList: { name: MAIN_LIST },
    taskStartToCloseTimeout: 'NONE',
    executionStartToCloseTimeout: '600',
    childPolicy: 'TERMINATE',
    lambdaRole: 'arn:aws:iam::000000000000:role/swf-lambda',
  });
  const execution = { workflowId: 'w', runId: started.runId as string };
  const task = await service.must('PollForDecisionTask', { domain, taskList: { name: MAIN_LIST } });
  await service.must('RespondDecisionTaskCompleted', {
    taskToken: task.taskToken,
    decisions: [
      {
        decisionType: 'ScheduleLambdaFunction',
        scheduleLambdaFunctionDecisionAttributes: {
          id: 'f',
          name: 'fn',
          startToCloseTimeout: '10',
        },
      },
    ],
  });
  const t0 = service.clock.ms;
  // The invocation runs in the background: wait (in real time) for it to reach the function.
  for (let i = 0; i < 200 && lambda.calls.length === 0; i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  expect(lambda.calls).toHaveLength(1);
  const history = async () => {
    const page = await service.must('GetWorkflowExecutionHistory', { domain, execution });
    return (page.events ?? []) as { eventType: string; [k: string]: unknown }[];
  };
  const counts = async () =>
    (await service.must('DescribeWorkflowExecution', { domain, execution })).openCounts;
  /** The function answers; whatever it leads to is recorded before this resolves. */
  const answer = async (result: LambdaResult) => {
    lambda.calls[0]?.answer(result);
    const before = JSON.stringify(await history());
    for (let i = 0; i < 30; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (JSON.stringify(await history()) !== before) break;
    }
  };
  return { service, history, counts, answer, t0 };
}

describe('a Lambda task and its START_TO_CLOSE timeout', () => {
  it('answered in time: LambdaFunctionCompleted', async () => {
    const { service, history, counts, answer, t0 } = await heldLambdaTask();
    expect(await counts()).toMatchObject({ openLambdaFunctions: 1 });
    await service.advancePunctual(t0 + 9_000);
    await answer({ kind: 'completed', result: 'ok' });
    const events = await history();
    expect(events.slice(-2).map((e) => e.eventType)).toEqual([
      'LambdaFunctionCompleted',
      'DecisionTaskScheduled',
    ]);
    expect(await counts()).toMatchObject({ openLambdaFunctions: 0 });
    await service.advancePunctual(t0 + 20_000);
    expect(await history()).toEqual(events);
  });

  it('not answered: LambdaFunctionTimedOut at 10 s; the answer that comes later records nothing', async () => {
    const { service, history, counts, answer, t0 } = await heldLambdaTask();
    const scheduled = (await history()).find((e) => e.eventType === 'LambdaFunctionScheduled');
    const started = (await history()).find((e) => e.eventType === 'LambdaFunctionStarted');
    await service.advancePunctual(t0 + 12_000);
    const events = await history();
    expect(events.slice(-2).map((e) => e.eventType)).toEqual([
      'LambdaFunctionTimedOut',
      'DecisionTaskScheduled',
    ]);
    expect(events.at(-2)?.lambdaFunctionTimedOutEventAttributes).toEqual({
      scheduledEventId: scheduled?.eventId,
      startedEventId: started?.eventId,
      timeoutType: 'START_TO_CLOSE',
    });
    expect(Number(events.at(-2)?.eventTimestamp) * 1000).toBeCloseTo(t0 + 10_000, -1);
    expect(await counts()).toMatchObject({ openLambdaFunctions: 0 });
    await answer({ kind: 'completed', result: 'late' });
    expect(await history()).toEqual(events);
  });

  it('answered after its timeout, the fire not come: the answer records nothing, the fire records the timeout', async () => {
    // As a worker's answer after its task's timeout is refused though the fire has not come.
    const { service, history, answer, t0 } = await heldLambdaTask();
    const before = (await history()).length;
    service.advanceStalled(t0 + 11_000);
    await answer({ kind: 'completed', result: 'late' });
    expect((await history()).length).toBe(before);
    await service.deliverDue();
    expect((await history()).slice(before).map((e) => e.eventType)).toEqual([
      'LambdaFunctionTimedOut',
      'DecisionTaskScheduled',
    ]);
  });
});
