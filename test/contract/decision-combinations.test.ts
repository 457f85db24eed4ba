/**
 * Combinations of decisions, in one RespondDecisionTaskCompleted and across consecutive decision tasks,
 * held against an independent model of SWF (test/support/decision-oracle.ts). Each generated scenario
 * (fixed seed) runs a few decision tasks of one execution; between and during them workers start,
 * complete and cancel activities and signals arrive. After every response the whole history (ids, order,
 * attributes), DescribeWorkflowExecution's counts and the workers' heartbeats must be what the model says.
 */
import {
  type Decision,
  DeprecateActivityTypeCommand,
  type HistoryEvent,
  RecordActivityTaskHeartbeatCommand,
  RegisterActivityTypeCommand,
  RegisterWorkflowTypeCommand,
  RespondActivityTaskCanceledCommand,
  RespondActivityTaskCompletedCommand,
  RespondDecisionTaskCompletedCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/local-service.js';
import { expectFault, type SwfDriver, uid } from '../support/decider.js';
import {
  closeKinds,
  type ExpectedEvent,
  type ModelDecision,
  type ModelWorld,
  RunModel,
  situations,
} from '../support/decision-oracle.js';
import { serveDomain } from '../support/local.js';
import { pendingActivities, pendingDecisions } from '../support/waiting.js';

let swf: SWFClient;
let driver: SwfDriver;
let service: LocalService;
let close: () => Promise<void>;
const domain = 'combos';
const lambdaRole = 'arn:aws:iam::000000000000:role/combos';

const world: ModelWorld = {
  workflowType: { name: 'combo-wf', version: '1' },
  activityTypes: {
    act: { name: 'combo-act', version: '1' },
    old: { name: 'combo-old', version: '1' },
    bare: { name: 'combo-bare', version: '1' },
  },
  ghostType: { name: 'combo-ghost', version: '1' },
  actDefaults: {
    scheduleToStartTimeout: '3600',
    scheduleToCloseTimeout: '7200',
    startToCloseTimeout: '3000',
    heartbeatTimeout: 'NONE',
    taskPriority: '3',
  },
  bareValues: {
    scheduleToStartTimeout: '1000',
    scheduleToCloseTimeout: '2000',
    startToCloseTimeout: '1500',
    heartbeatTimeout: '900',
  },
  lambdaName: 'held',
  lambdaTimeout: '300',
  continued: {
    executionStartToCloseTimeout: '3600',
    taskStartToCloseTimeout: '60',
    childPolicy: 'TERMINATE',
  },
};

beforeAll(async () => {
  ({ swf, close, driver, service } = await serveDomain(domain, { polling: { maxWaitMs: 1_000 } }));
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...world.workflowType,
      defaultTaskList: { name: 'combo-unused' },
      defaultExecutionStartToCloseTimeout: '3600',
      defaultTaskStartToCloseTimeout: '60',
      defaultChildPolicy: 'TERMINATE',
    }),
  );
  await swf.send(
    new RegisterActivityTypeCommand({
      domain,
      ...world.activityTypes.act,
      defaultTaskList: { name: 'combo-act-unused' },
      defaultTaskScheduleToStartTimeout: world.actDefaults.scheduleToStartTimeout,
      defaultTaskScheduleToCloseTimeout: world.actDefaults.scheduleToCloseTimeout,
      defaultTaskStartToCloseTimeout: world.actDefaults.startToCloseTimeout,
      defaultTaskHeartbeatTimeout: world.actDefaults.heartbeatTimeout,
      defaultTaskPriority: world.actDefaults.taskPriority,
    }),
  );
  await swf.send(new RegisterActivityTypeCommand({ domain, ...world.activityTypes.bare }));
  await swf.send(
    new RegisterActivityTypeCommand({
      domain,
      ...world.activityTypes.old,
      defaultTaskList: { name: 'x' },
      defaultTaskScheduleToStartTimeout: 'NONE',
      defaultTaskScheduleToCloseTimeout: 'NONE',
      defaultTaskStartToCloseTimeout: 'NONE',
      defaultTaskHeartbeatTimeout: 'NONE',
    }),
  );
  await swf.send(
    new DeprecateActivityTypeCommand({ domain, activityType: world.activityTypes.old }),
  );
  // A function that never answers: its tasks stay open, as a long-running Lambda task's would.
  service.lambda.register(world.lambdaName, () => new Promise<string>(() => {}));
});
afterAll(async () => {
  await close();
  const reach = [...situations].sort(([a], [b]) => a.localeCompare(b));
  console.log(`situations the model met:\n${reach.map(([k, v]) => `  ${k}: ${v}`).join('\n')}`);
});

// ---------------------------------------------------------------------------------------------------
// The model's decisions on the wire

function toWire(d: ModelDecision, run: { taskList: string; activityTaskList: string }): Decision {
  switch (d.kind) {
    case 'schedule': {
      const activityType =
        d.type === 'act'
          ? world.activityTypes.act
          : d.type === 'old'
            ? world.activityTypes.old
            : d.type === 'ghost'
              ? world.ghostType
              : world.activityTypes.bare;
      const bare = d.type.startsWith('bare');
      const leaveOut = bare ? d.type.replace(/^bare-(no-)?/, '') : '';
      const timeouts = bare
        ? Object.fromEntries(
            Object.entries(world.bareValues).filter(([k]) => k !== `${leaveOut}Timeout`),
          )
        : {};
      return {
        decisionType: 'ScheduleActivityTask',
        scheduleActivityTaskDecisionAttributes: {
          activityType,
          activityId: d.activityId,
          ...(leaveOut === 'taskList' ? {} : { taskList: { name: run.activityTaskList } }),
          ...timeouts,
          ...(d.control === undefined ? {} : { control: d.control }),
          ...(d.input === undefined ? {} : { input: d.input }),
          ...(d.taskPriority === undefined ? {} : { taskPriority: d.taskPriority }),
        },
      };
    }
    case 'cancelActivity':
      return {
        decisionType: 'RequestCancelActivityTask',
        requestCancelActivityTaskDecisionAttributes: { activityId: d.activityId },
      };
    case 'startTimer':
      return {
        decisionType: 'StartTimer',
        startTimerDecisionAttributes: {
          timerId: d.timerId,
          startToFireTimeout: d.startToFireTimeout,
          ...(d.control === undefined ? {} : { control: d.control }),
        },
      };
    case 'cancelTimer':
      return { decisionType: 'CancelTimer', cancelTimerDecisionAttributes: { timerId: d.timerId } };
    case 'marker':
      return {
        decisionType: 'RecordMarker',
        recordMarkerDecisionAttributes: {
          markerName: d.markerName,
          ...(d.details === undefined ? {} : { details: d.details }),
        },
      };
    case 'lambda':
      return {
        decisionType: 'ScheduleLambdaFunction',
        scheduleLambdaFunctionDecisionAttributes: {
          id: d.id,
          name: world.lambdaName,
          startToCloseTimeout: world.lambdaTimeout,
          ...(d.input === undefined ? {} : { input: d.input }),
          ...(d.control === undefined ? {} : { control: d.control }),
        },
      };
    case 'complete':
      return {
        decisionType: 'CompleteWorkflowExecution',
        completeWorkflowExecutionDecisionAttributes:
          d.result === undefined ? {} : { result: d.result },
      };
    case 'fail':
      return {
        decisionType: 'FailWorkflowExecution',
        failWorkflowExecutionDecisionAttributes: {
          ...(d.reason === undefined ? {} : { reason: d.reason }),
          ...(d.details === undefined ? {} : { details: d.details }),
        },
      };
    case 'cancel':
      return {
        decisionType: 'CancelWorkflowExecution',
        cancelWorkflowExecutionDecisionAttributes:
          d.details === undefined ? {} : { details: d.details },
      };
    case 'continueAsNew':
      return {
        decisionType: 'ContinueAsNewWorkflowExecution',
        continueAsNewWorkflowExecutionDecisionAttributes: {
          taskList: { name: run.taskList },
          ...(d.input === undefined ? {} : { input: d.input }),
        },
      };
    case 'continueAsNewUnknownVersion':
      return {
        decisionType: 'ContinueAsNewWorkflowExecution',
        continueAsNewWorkflowExecutionDecisionAttributes: {
          taskList: { name: run.taskList },
          workflowTypeVersion: 'never-registered',
        },
      };
  }
}

// ---------------------------------------------------------------------------------------------------
// Comparing the service with the model

const attributesOf = (event: HistoryEvent): unknown => {
  const type = event.eventType ?? '';
  const member = `${type[0]?.toLowerCase()}${type.slice(1)}EventAttributes`;
  return (event as unknown as Record<string, unknown>)[member];
};

function expectHistory(actual: HistoryEvent[], expected: readonly ExpectedEvent[], label: string) {
  expect(
    actual.map((e) => `${e.eventId} ${e.eventType}`),
    `${label}: event ids and types`,
  ).toEqual(expected.map((e, i) => `${i + 1} ${e.eventType}`));
  expected.forEach((e, i) => {
    const got = attributesOf(actual[i] as HistoryEvent);
    const what = `${label}: attributes of event ${i + 1} ${e.eventType}`;
    if (e.loose) expect(got, what).toMatchObject(e.attributes);
    else expect(got, what).toEqual(e.attributes);
  });
}

// ---------------------------------------------------------------------------------------------------
// Generated scenarios

type WorldAction =
  | { readonly k: 'signal' }
  | { readonly k: 'startActivity' }
  | { readonly k: 'completeActivity'; readonly pick: number }
  | { readonly k: 'workerCancels'; readonly pick: number };

interface Step {
  readonly before: readonly WorldAction[];
  readonly during: readonly WorldAction[];
  readonly decisions: readonly ModelDecision[];
  readonly executionContext?: string;
}

const text = fc.constantFrom('x', 'ctl', '', 'ünï', '{"a":1}');

const nonClose: fc.Arbitrary<ModelDecision> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record(
      {
        kind: fc.constant('schedule' as const),
        activityId: fc.constantFrom('a1', 'a2', 'a3'),
        type: fc.oneof(
          { weight: 12, arbitrary: fc.constant('act' as const) },
          { weight: 2, arbitrary: fc.constant('bare-full' as const) },
          {
            weight: 3,
            arbitrary: fc.constantFrom(
              ...([
                'ghost',
                'old',
                'bare-no-taskList',
                'bare-no-scheduleToStart',
                'bare-no-scheduleToClose',
                'bare-no-startToClose',
                'bare-no-heartbeat',
              ] as const),
            ),
          },
        ),
        control: text,
        input: text,
        taskPriority: fc.constantFrom('7', '-2'),
      },
      { requiredKeys: ['kind', 'activityId', 'type'] },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('cancelActivity' as const),
      activityId: fc.constantFrom('a1', 'a2', 'a3', 'a1', 'a2', 'a3', 'zz'),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        kind: fc.constant('startTimer' as const),
        timerId: fc.constantFrom('t1', 't2'),
        startToFireTimeout: fc.constantFrom('3600', '7200'),
        control: text,
      },
      { requiredKeys: ['kind', 'timerId', 'startToFireTimeout'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('cancelTimer' as const),
      timerId: fc.constantFrom('t1', 't2', 'tz'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        kind: fc.constant('marker' as const),
        markerName: fc.constantFrom('m', 'note'),
        details: text,
      },
      { requiredKeys: ['kind', 'markerName'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        kind: fc.constant('lambda' as const),
        id: fc.constantFrom('l1', 'l2'),
        input: text,
        control: text,
      },
      { requiredKeys: ['kind', 'id'] },
    ),
  },
);

const closing: fc.Arbitrary<ModelDecision> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record(
      { kind: fc.constant('complete' as const), result: text },
      { requiredKeys: ['kind'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      { kind: fc.constant('fail' as const), reason: text, details: text },
      { requiredKeys: ['kind'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      { kind: fc.constant('cancel' as const), details: text },
      { requiredKeys: ['kind'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      { kind: fc.constant('continueAsNew' as const), input: text },
      { requiredKeys: ['kind'] },
    ),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'continueAsNewUnknownVersion' as const }) },
);

const decisionList: fc.Arbitrary<ModelDecision[]> = fc
  .record({
    body: fc.array(nonClose, { maxLength: 5 }),
    close: closing,
    second: closing,
    placement: fc.constantFrom(
      ...([
        'none',
        'none',
        'none',
        'none',
        'none',
        'none',
        'last',
        'last',
        'middle',
        'double',
      ] as const),
    ),
    at: fc.nat(),
  })
  .map(({ body, close: c, second, placement, at }) => {
    if (placement === 'none') return body;
    if (placement === 'last') return [...body, c];
    if (placement === 'double') return [...body, c, second];
    const i = body.length === 0 ? 0 : at % body.length;
    return [...body.slice(0, i), c, ...body.slice(i), ...(body.length === 0 ? [second] : [])];
  });

const worldAction: fc.Arbitrary<WorldAction> = fc.oneof(
  fc.constant({ k: 'signal' as const }),
  fc.constant({ k: 'startActivity' as const }),
  fc.constant({ k: 'startActivity' as const }),
  fc.record({ k: fc.constant('completeActivity' as const), pick: fc.nat() }),
  fc.record({ k: fc.constant('workerCancels' as const), pick: fc.nat() }),
);

const step: fc.Arbitrary<Step> = fc.record(
  {
    before: fc.array(worldAction, { maxLength: 2 }),
    during: fc.array(worldAction, { maxLength: 2 }),
    decisions: decisionList,
    executionContext: text,
  },
  { requiredKeys: ['before', 'during', 'decisions'] },
);

const scenarios = fc.sample(fc.array(step, { minLength: 1, maxLength: 6 }), {
  seed: Number(process.env.COMBO_SEED ?? 20_240_611),
  numRuns: Number(process.env.COMBO_RUNS ?? 60),
});

const describeDecision = (d: ModelDecision) => {
  switch (d.kind) {
    case 'schedule':
      return `Schedule(${d.activityId},${d.type})`;
    case 'cancelActivity':
      return `RCAT(${d.activityId})`;
    case 'startTimer':
      return `StartTimer(${d.timerId})`;
    case 'cancelTimer':
      return `CancelTimer(${d.timerId})`;
    case 'marker':
      return 'Marker';
    case 'lambda':
      return `Lambda(${d.id})`;
    default:
      return d.kind;
  }
};
const describeStep = (s: Step) =>
  [
    s.before.length > 0 ? `before[${s.before.map((a) => a.k).join(',')}]` : '',
    s.during.length > 0 ? `during[${s.during.map((a) => a.k).join(',')}]` : '',
    `[${s.decisions.map(describeDecision).join(', ')}]`,
  ]
    .filter((x) => x !== '')
    .join(' ');

interface Worker {
  readonly tokens: Map<string, string>;
}

/** Carries out one world action on the service and in the model (skipped if it cannot apply). */
async function act(
  action: WorldAction,
  model: RunModel,
  run: { execution: { workflowId: string; runId: string }; activityTaskList: string },
  worker: Worker,
  n: number,
): Promise<void> {
  switch (action.k) {
    case 'signal':
      await driver.signal(run.execution, `sig${n}`, `in${n}`);
      model.signal(`sig${n}`, `in${n}`);
      return;
    case 'startActivity': {
      if (model.waitingActivities().length === 0) return;
      const task = await driver.pollActivity(run.activityTaskList, 'worker');
      const activityId = task.activityId ?? '';
      expect(activityId, 'the poll hands out the highest priority, then the oldest').toBe(
        model.nextActivity()?.activityId,
      );
      const startedEventId = model.activityStarted(activityId, 'worker');
      expect(task.startedEventId).toBe(startedEventId);
      worker.tokens.set(activityId, task.taskToken);
      return;
    }
    case 'completeActivity': {
      const started = model.startedActivities();
      const activity = started[action.pick % Math.max(1, started.length)];
      if (activity === undefined) return;
      const taskToken = worker.tokens.get(activity.activityId) ?? '';
      await swf.send(new RespondActivityTaskCompletedCommand({ taskToken, result: `r${n}` }));
      worker.tokens.delete(activity.activityId);
      model.activityCompleted(activity.activityId, `r${n}`);
      return;
    }
    case 'workerCancels': {
      const requested = model
        .startedActivities()
        .filter((a) => a.latestCancelRequestedEventId !== undefined);
      const activity = requested[action.pick % Math.max(1, requested.length)];
      if (activity === undefined) return;
      const taskToken = worker.tokens.get(activity.activityId) ?? '';
      await swf.send(new RespondActivityTaskCanceledCommand({ taskToken, details: `d${n}` }));
      worker.tokens.delete(activity.activityId);
      model.activityCanceledByWorker(activity.activityId, `d${n}`);
      return;
    }
  }
}

describe('generated decision combinations against the model', () => {
  it.each(scenarios.map((steps, i) => [i, steps.map(describeStep).join(' ; '), steps] as const))(
    'scenario %i: %s',
    async (_i, _name, steps) => {
      const activityTaskList = uid('acts');
      const { execution, taskList } = await driver.start(world.workflowType, { lambdaRole });
      const run = { execution, taskList, activityTaskList };
      const model = new RunModel(world, taskList, activityTaskList);
      const worker: Worker = { tokens: new Map() };
      let n = 0;
      for (const [stepIndex, s] of steps.entries()) {
        const label = `step ${stepIndex + 1} ${describeStep(s)}`;
        for (const a of s.before) await act(a, model, run, worker, n++);
        if (model.decisionTask.status === 'none')
          await act({ k: 'signal' }, model, run, worker, n++);

        const task = await driver.pollDecision(taskList, { identity: 'decider' });
        const startedEventId = model.decisionTaskStarted('decider');
        expect(task.startedEventId, `${label}: startedEventId`).toBe(startedEventId);
        expect(task.previousStartedEventId ?? 0, `${label}: previousStartedEventId`).toBe(
          model.previousStartedEventId,
        );
        expectHistory(task.events, model.events, `${label}: the decision task's history`);

        for (const a of s.during) await act(a, model, run, worker, n++);
        expect(
          (await driver.describe(execution)).openCounts,
          `${label}: openCounts while the task is out`,
        ).toEqual(model.openCounts());

        let decisions = s.decisions;
        if (RunModel.refuses(decisions)) {
          const before = await driver.history(execution);
          await expectFault(
            swf.send(
              new RespondDecisionTaskCompletedCommand({
                taskToken: task.taskToken,
                decisions: decisions.map((d) => toWire(d, run)),
              }),
            ),
            'ValidationException',
          );
          expect(
            await driver.history(execution),
            `${label}: a refused list records nothing`,
          ).toEqual(before);
          // The token stays good: answer again without the close decisions.
          decisions = decisions.filter((d) => !closeKinds.has(d.kind));
        }
        await driver.respond(
          task.taskToken,
          decisions.map((d) => toWire(d, run)),
          s.executionContext === undefined ? {} : { executionContext: s.executionContext },
        );
        const openBefore = [...model.activities.keys()];
        model.respond(decisions, s.executionContext);
        await service.streamCaughtUp();
        model.lambdasStarted();

        expectHistory(await driver.history(execution), model.events, `${label}: the history`);
        const described = await driver.describe(execution);
        expect(described.executionInfo?.executionStatus, `${label}: status`).toBe(model.status);
        expect(described.latestExecutionContext, `${label}: latestExecutionContext`).toBe(
          model.latestExecutionContext,
        );
        const history = await driver.history(execution);
        const lastScheduled = history.filter((e) => e.eventType === 'ActivityTaskScheduled').at(-1);
        expect(
          described.latestActivityTaskTimestamp,
          `${label}: latestActivityTaskTimestamp`,
        ).toEqual(lastScheduled?.eventTimestamp);
        expect(
          await pendingActivities(driver, activityTaskList),
          `${label}: pending activities`,
        ).toBe(model.waitingActivities().length);
        expect(await pendingDecisions(driver, taskList), `${label}: pending decision tasks`).toBe(
          // a run continued as new has its successor's first decision task on the same list
          model.decisionTask.status === 'scheduled' || model.closeStatus === 'CONTINUED_AS_NEW'
            ? 1
            : 0,
        );
        if (model.status === 'OPEN') {
          expect(described.openCounts, `${label}: openCounts`).toEqual(model.openCounts());
          for (const activity of model.startedActivities()) {
            const taskToken = worker.tokens.get(activity.activityId) ?? '';
            const beat = await swf.send(new RecordActivityTaskHeartbeatCommand({ taskToken }));
            expect(beat.cancelRequested, `${label}: heartbeat of ${activity.activityId}`).toBe(
              activity.latestCancelRequestedEventId !== undefined,
            );
          }
        } else {
          expect(described.executionInfo?.closeStatus, `${label}: closeStatus`).toBe(
            model.closeStatus,
          );
          for (const activityId of openBefore) {
            const taskToken = worker.tokens.get(activityId);
            if (taskToken === undefined) continue;
            await expectFault(
              swf.send(new RecordActivityTaskHeartbeatCommand({ taskToken })),
              'UnknownResourceFault',
            );
          }
          break;
        }
      }
    },
  );
});

// ---------------------------------------------------------------------------------------------------
// Chosen combinations whose outcome comes later or from elsewhere: timers firing, children starting,
// signals and cancel requests reaching their targets.

const types = (events: readonly HistoryEvent[]) => events.map((e) => e.eventType ?? '');
const find = (events: readonly HistoryEvent[], eventType: string) =>
  events.filter((e) => e.eventType === eventType);

const signalExternal = (workflowId: string, extra: { runId?: string; control?: string } = {}) =>
  ({
    decisionType: 'SignalExternalWorkflowExecution',
    signalExternalWorkflowExecutionDecisionAttributes: { workflowId, signalName: 'ext', ...extra },
  }) satisfies Decision;
const cancelExternal = (workflowId: string, extra: { runId?: string; control?: string } = {}) =>
  ({
    decisionType: 'RequestCancelExternalWorkflowExecution',
    requestCancelExternalWorkflowExecutionDecisionAttributes: { workflowId, ...extra },
  }) satisfies Decision;
const startChild = (
  workflowId: string,
  extra: {
    control?: string;
    taskList?: string;
    workflowType?: { name: string; version: string };
  } = {},
) =>
  ({
    decisionType: 'StartChildWorkflowExecution',
    startChildWorkflowExecutionDecisionAttributes: {
      workflowType: extra.workflowType ?? world.workflowType,
      workflowId,
      taskList: { name: extra.taskList ?? uid('child-deciders') },
      ...(extra.control === undefined ? {} : { control: extra.control }),
    },
  }) satisfies Decision;
const w = (d: ModelDecision, activityTaskList = 'unused') =>
  toWire(d, { taskList: 'unused', activityTaskList });

/** Reads the history until `done` holds (the outbox and the timers work in the background). */
async function historyWhen(
  execution: { workflowId: string; runId: string },
  done: (events: HistoryEvent[]) => boolean,
  withinMs = 8_000,
): Promise<HistoryEvent[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    await service.streamCaughtUp();
    const events = await driver.history(execution);
    if (done(events)) return events;
    if (Date.now() > deadline)
      throw new Error(`history not as awaited within ${withinMs} ms: ${types(events).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('timers across decisions', () => {
  it('StartTimer, CancelTimer, StartTimer of one id in one list: only the second timer fires', async () => {
    const { execution, taskList } = await driver.start(world.workflowType);
    const task = await driver.pollDecision(taskList);
    await driver.respond(task.taskToken, [
      w({ kind: 'startTimer', timerId: 't', startToFireTimeout: '1', control: 'first' }),
      w({ kind: 'cancelTimer', timerId: 't' }),
      w({ kind: 'startTimer', timerId: 't', startToFireTimeout: '2', control: 'second' }),
    ]);
    const events = await historyWhen(execution, (h) => find(h, 'TimerFired').length > 0);
    expect(types(events)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'TimerStarted',
      'TimerCanceled',
      'TimerStarted',
      'TimerFired',
      'DecisionTaskScheduled',
    ]);
    expect(events[5]?.timerCanceledEventAttributes).toEqual({
      timerId: 't',
      startedEventId: 5,
      decisionTaskCompletedEventId: 4,
    });
    expect(events[7]?.timerFiredEventAttributes).toEqual({ timerId: 't', startedEventId: 7 });
    // the first timer's second would have come by now; nothing more is recorded
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(types(await driver.history(execution))).toHaveLength(9);
  });

  it('a timer that fired while the task was out: CancelTimer fails TIMER_ID_UNKNOWN, the id is free again, and a close is UNHANDLED_DECISION', async () => {
    const { execution, taskList } = await driver.start(world.workflowType);
    const first = await driver.pollDecision(taskList);
    await driver.respond(first.taskToken, [
      w({ kind: 'startTimer', timerId: 't', startToFireTimeout: '1' }),
    ]);
    await driver.signal(execution, 'wake');
    const second = await driver.pollDecision(taskList);
    expect(types(second.events).at(-1)).toBe('DecisionTaskStarted');
    expect(find(second.events, 'TimerFired')).toHaveLength(0);
    await historyWhen(execution, (h) => find(h, 'TimerFired').length === 1);
    await driver.respond(second.taskToken, [
      w({ kind: 'cancelTimer', timerId: 't' }),
      w({ kind: 'startTimer', timerId: 't', startToFireTimeout: '3600' }),
      w({ kind: 'complete', result: 'done' }),
    ]);
    const events = await driver.history(execution);
    expect(types(events).slice(8)).toEqual([
      'TimerFired',
      'DecisionTaskCompleted',
      'CancelTimerFailed',
      'TimerStarted',
      'CompleteWorkflowExecutionFailed',
      'DecisionTaskScheduled',
    ]);
    expect(events[10]?.cancelTimerFailedEventAttributes).toEqual({
      timerId: 't',
      cause: 'TIMER_ID_UNKNOWN',
      decisionTaskCompletedEventId: 10,
    });
    expect(events[12]?.completeWorkflowExecutionFailedEventAttributes).toEqual({
      cause: 'UNHANDLED_DECISION',
      decisionTaskCompletedEventId: 10,
    });
    expect((await driver.describe(execution)).openCounts).toMatchObject({
      openTimers: 1,
      openDecisionTasks: 1,
    });
  });

  it('a timerId is reused after its timer fired: the second fires with its own startedEventId', async () => {
    const { execution, taskList } = await driver.start(world.workflowType);
    const first = await driver.pollDecision(taskList);
    await driver.respond(first.taskToken, [
      w({ kind: 'startTimer', timerId: 't', startToFireTimeout: '1' }),
    ]);
    await historyWhen(execution, (h) => find(h, 'TimerFired').length === 1);
    const second = await driver.pollDecision(taskList);
    await driver.respond(second.taskToken, [
      w({ kind: 'startTimer', timerId: 't', startToFireTimeout: '1' }),
    ]);
    const events = await historyWhen(execution, (h) => find(h, 'TimerFired').length === 2);
    const started = find(events, 'TimerStarted').map((e) => e.eventId);
    expect(find(events, 'TimerFired').map((e) => e.timerFiredEventAttributes)).toEqual([
      { timerId: 't', startedEventId: started[0] },
      { timerId: 't', startedEventId: started[1] },
    ]);
  });

  it('a timer started and cancelled in one list never fires, and one left open by a close never fires', async () => {
    const a = await driver.start(world.workflowType);
    const b = await driver.start(world.workflowType);
    const ta = await driver.pollDecision(a.taskList);
    await driver.respond(ta.taskToken, [
      w({ kind: 'startTimer', timerId: 't', startToFireTimeout: '1' }),
      w({ kind: 'cancelTimer', timerId: 't' }),
    ]);
    const tb = await driver.pollDecision(b.taskList);
    await driver.respond(tb.taskToken, [
      w({ kind: 'startTimer', timerId: 't', startToFireTimeout: '1' }),
      w({ kind: 'complete' }),
    ]);
    const [ha, hb] = [await driver.history(a.execution), await driver.history(b.execution)];
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await service.streamCaughtUp();
    expect(await driver.history(a.execution)).toEqual(ha);
    expect(await driver.history(b.execution)).toEqual(hb);
    expect(types(ha).slice(3)).toEqual(['DecisionTaskCompleted', 'TimerStarted', 'TimerCanceled']);
    expect(types(hb).slice(3)).toEqual([
      'DecisionTaskCompleted',
      'TimerStarted',
      'WorkflowExecutionCompleted',
    ]);
  });
});

describe('activities across decisions', () => {
  it('Schedule, RequestCancel, Schedule of one activityId in one list: the second is the one handed out', async () => {
    const acts = uid('acts');
    const { execution, taskList } = await driver.start(world.workflowType);
    const task = await driver.pollDecision(taskList);
    await driver.respond(task.taskToken, [
      w({ kind: 'schedule', activityId: 'a', type: 'act', input: 'one' }, acts),
      w({ kind: 'cancelActivity', activityId: 'a' }),
      w({ kind: 'schedule', activityId: 'a', type: 'act', input: 'two' }, acts),
    ]);
    const events = await driver.history(execution);
    expect(types(events).slice(3)).toEqual([
      'DecisionTaskCompleted',
      'ActivityTaskScheduled',
      'ActivityTaskCancelRequested',
      'ActivityTaskCanceled',
      'ActivityTaskScheduled',
      'DecisionTaskScheduled',
    ]);
    expect(events[6]?.activityTaskCanceledEventAttributes).toEqual({
      scheduledEventId: 5,
      startedEventId: 0,
      latestCancelRequestedEventId: 6,
    });
    const worker = await driver.pollActivity(acts);
    expect(worker).toMatchObject({ activityId: 'a', input: 'two', startedEventId: 10 });
    const after = await driver.history(execution);
    expect(after[9]?.activityTaskStartedEventAttributes?.scheduledEventId).toBe(8);
    expect((await driver.describe(execution)).openCounts?.openActivityTasks).toBe(1);
    await swf.send(new RespondActivityTaskCompletedCommand({ taskToken: worker.taskToken }));
    const done = await driver.history(execution);
    expect(done[10]?.activityTaskCompletedEventAttributes).toEqual({
      scheduledEventId: 8,
      startedEventId: 10,
    });
  });
});

describe('signals and cancel requests combined', () => {
  it('an execution that signals itself and asks itself to cancel in one list sees both, then cancels', async () => {
    const { execution, taskList } = await driver.start(world.workflowType);
    const task = await driver.pollDecision(taskList);
    await driver.respond(task.taskToken, [
      { ...signalExternal(execution.workflowId, { control: 'c-sig' }) },
      cancelExternal(execution.workflowId, { runId: execution.runId, control: 'c-can' }),
      w({ kind: 'marker', markerName: 'm' }),
    ]);
    const events = await historyWhen(
      execution,
      (h) =>
        find(h, 'ExternalWorkflowExecutionSignaled').length === 1 &&
        find(h, 'ExternalWorkflowExecutionCancelRequested').length === 1,
    );
    expect(types(events).slice(3, 7)).toEqual([
      'DecisionTaskCompleted',
      'SignalExternalWorkflowExecutionInitiated',
      'RequestCancelExternalWorkflowExecutionInitiated',
      'MarkerRecorded',
    ]);
    expect([...types(events).slice(7)].sort()).toEqual(
      [
        'DecisionTaskScheduled',
        'ExternalWorkflowExecutionCancelRequested',
        'ExternalWorkflowExecutionSignaled',
        'WorkflowExecutionCancelRequested',
        'WorkflowExecutionSignaled',
      ].sort(),
    );
    expect(events[4]?.signalExternalWorkflowExecutionInitiatedEventAttributes).toEqual({
      workflowId: execution.workflowId,
      signalName: 'ext',
      control: 'c-sig',
      decisionTaskCompletedEventId: 4,
    });
    expect(events[5]?.requestCancelExternalWorkflowExecutionInitiatedEventAttributes).toEqual({
      workflowId: execution.workflowId,
      runId: execution.runId,
      control: 'c-can',
      decisionTaskCompletedEventId: 4,
    });
    expect(
      find(events, 'WorkflowExecutionSignaled')[0]?.workflowExecutionSignaledEventAttributes,
    ).toEqual({
      signalName: 'ext',
      externalWorkflowExecution: execution,
      externalInitiatedEventId: 5,
    });
    expect(
      find(events, 'WorkflowExecutionCancelRequested')[0]
        ?.workflowExecutionCancelRequestedEventAttributes,
    ).toEqual({ externalWorkflowExecution: execution, externalInitiatedEventId: 6 });
    expect(
      find(events, 'ExternalWorkflowExecutionCancelRequested')[0]
        ?.externalWorkflowExecutionCancelRequestedEventAttributes,
    ).toEqual({ workflowExecution: execution, initiatedEventId: 6 });
    expect((await driver.describe(execution)).executionInfo?.cancelRequested).toBe(true);
    const next = await driver.pollDecision(taskList);
    await driver.respond(next.taskToken, [w({ kind: 'cancel', details: 'asked myself' })]);
    expect((await driver.describe(execution)).executionInfo?.closeStatus).toBe('CANCELED');
  });

  it('requests to an unknown, a closed and an open execution in one list each get their own outcome', async () => {
    const open = await driver.start(world.workflowType);
    const closed = await driver.start(world.workflowType);
    const ct = await driver.pollDecision(closed.taskList);
    await driver.respond(ct.taskToken, [w({ kind: 'complete' })]);
    const { execution, taskList } = await driver.start(world.workflowType);
    const task = await driver.pollDecision(taskList);
    const ghost = uid('ghost');
    await driver.respond(task.taskToken, [
      signalExternal(ghost, { control: 'c1' }),
      signalExternal(closed.execution.workflowId, { runId: closed.execution.runId, control: 'c2' }),
      cancelExternal(closed.execution.workflowId, { control: 'c3' }),
      signalExternal(open.execution.workflowId, { control: 'c4' }),
      w({ kind: 'marker', markerName: 'm' }),
    ]);
    const events = await historyWhen(
      execution,
      (h) =>
        find(h, 'SignalExternalWorkflowExecutionFailed').length === 2 &&
        find(h, 'RequestCancelExternalWorkflowExecutionFailed').length === 1 &&
        find(h, 'ExternalWorkflowExecutionSignaled').length === 1,
    );
    expect(types(events).slice(3, 9)).toEqual([
      'DecisionTaskCompleted',
      'SignalExternalWorkflowExecutionInitiated',
      'SignalExternalWorkflowExecutionInitiated',
      'RequestCancelExternalWorkflowExecutionInitiated',
      'SignalExternalWorkflowExecutionInitiated',
      'MarkerRecorded',
    ]);
    expect(find(events, 'DecisionTaskScheduled')).toHaveLength(2);
    expect(
      find(events, 'SignalExternalWorkflowExecutionFailed').map(
        (e) => e.signalExternalWorkflowExecutionFailedEventAttributes,
      ),
    ).toEqual([
      {
        workflowId: ghost,
        cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
        initiatedEventId: 5,
        decisionTaskCompletedEventId: 4,
        control: 'c1',
      },
      {
        workflowId: closed.execution.workflowId,
        runId: closed.execution.runId,
        cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
        initiatedEventId: 6,
        decisionTaskCompletedEventId: 4,
        control: 'c2',
      },
    ]);
    expect(
      find(events, 'RequestCancelExternalWorkflowExecutionFailed')[0]
        ?.requestCancelExternalWorkflowExecutionFailedEventAttributes,
    ).toEqual({
      workflowId: closed.execution.workflowId,
      cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
      initiatedEventId: 7,
      decisionTaskCompletedEventId: 4,
      control: 'c3',
    });
    expect(
      find(events, 'ExternalWorkflowExecutionSignaled')[0]
        ?.externalWorkflowExecutionSignaledEventAttributes,
    ).toEqual({ workflowExecution: open.execution, initiatedEventId: 8 });
  });
});

describe('child workflows combined', () => {
  it('StartChildWorkflowExecution twice with one workflowId in one list: the first starts, the second is WORKFLOW_ALREADY_RUNNING', async () => {
    const { execution, taskList } = await driver.start(world.workflowType);
    const task = await driver.pollDecision(taskList);
    const childId = uid('child');
    await driver.respond(task.taskToken, [
      startChild(childId, { control: 'one' }),
      startChild(childId, { control: 'two' }),
    ]);
    const events = await historyWhen(
      execution,
      (h) =>
        find(h, 'ChildWorkflowExecutionStarted').length +
          find(h, 'StartChildWorkflowExecutionFailed').length ===
        2,
    );
    expect(types(events).slice(3)).toEqual([
      'DecisionTaskCompleted',
      'StartChildWorkflowExecutionInitiated',
      'StartChildWorkflowExecutionInitiated',
      'ChildWorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'StartChildWorkflowExecutionFailed',
    ]);
    expect(events[6]?.childWorkflowExecutionStartedEventAttributes).toMatchObject({
      initiatedEventId: 5,
      workflowType: world.workflowType,
    });
    expect(events[8]?.startChildWorkflowExecutionFailedEventAttributes).toEqual({
      workflowType: world.workflowType,
      workflowId: childId,
      cause: 'WORKFLOW_ALREADY_RUNNING',
      initiatedEventId: 6,
      decisionTaskCompletedEventId: 4,
      control: 'two',
    });
    expect((await driver.describe(execution)).openCounts?.openChildWorkflowExecutions).toBe(1);
  });

  it('a child with the parent’s own workflowId is WORKFLOW_ALREADY_RUNNING; a failed start beside a good one', async () => {
    const { execution, taskList } = await driver.start(world.workflowType);
    const task = await driver.pollDecision(taskList);
    const childId = uid('child');
    await driver.respond(task.taskToken, [
      startChild(execution.workflowId, { control: 'self' }),
      startChild(childId, { control: 'ghost', workflowType: { name: 'no-such-wf', version: '1' } }),
      startChild(childId, { control: 'good' }),
    ]);
    const events = await historyWhen(
      execution,
      (h) =>
        find(h, 'ChildWorkflowExecutionStarted').length === 1 &&
        find(h, 'StartChildWorkflowExecutionFailed').length === 2,
    );
    expect(types(events).slice(3, 8)).toEqual([
      'DecisionTaskCompleted',
      'StartChildWorkflowExecutionInitiated',
      'StartChildWorkflowExecutionFailed',
      'StartChildWorkflowExecutionInitiated',
      'DecisionTaskScheduled',
    ]);
    expect(events[5]?.startChildWorkflowExecutionFailedEventAttributes).toEqual({
      workflowType: { name: 'no-such-wf', version: '1' },
      workflowId: childId,
      cause: 'WORKFLOW_TYPE_DOES_NOT_EXIST',
      initiatedEventId: 0,
      decisionTaskCompletedEventId: 4,
      control: 'ghost',
    });
    expect(
      find(events, 'StartChildWorkflowExecutionFailed')
        .map((e) => e.startChildWorkflowExecutionFailedEventAttributes)
        .find((a) => a?.control === 'self'),
    ).toEqual({
      workflowType: world.workflowType,
      workflowId: execution.workflowId,
      cause: 'WORKFLOW_ALREADY_RUNNING',
      initiatedEventId: 5,
      decisionTaskCompletedEventId: 4,
      control: 'self',
    });
    expect(
      find(events, 'ChildWorkflowExecutionStarted')[0]?.childWorkflowExecutionStartedEventAttributes
        ?.initiatedEventId,
    ).toBe(7);
    expect(find(events, 'DecisionTaskScheduled')).toHaveLength(2);
  });

  it.each([
    ['CompleteWorkflowExecution', w({ kind: 'complete' })],
    ['FailWorkflowExecution', w({ kind: 'fail' })],
    ['CancelWorkflowExecution', w({ kind: 'cancel' })],
    ['ContinueAsNewWorkflowExecution', { ...w({ kind: 'continueAsNew' }) }],
  ] as const)(
    'a parent closed by %s leaves its open child running (child policy applies only to terminate and time-out)',
    async (_name, closeDecision) => {
      const { execution, taskList } = await driver.start(world.workflowType);
      const childId = uid('child');
      const childList = uid('child-deciders');
      const first = await driver.pollDecision(taskList);
      await driver.respond(first.taskToken, [startChild(childId, { taskList: childList })]);
      const started = await historyWhen(
        execution,
        (h) => find(h, 'ChildWorkflowExecutionStarted').length === 1,
      );
      const child = {
        workflowId: childId,
        runId:
          find(started, 'ChildWorkflowExecutionStarted')[0]
            ?.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.runId ?? '',
      };
      const second = await driver.pollDecision(taskList);
      await driver.respond(second.taskToken, [closeDecision]);
      await service.streamCaughtUp();
      const childEvents = await driver.history(child);
      expect(types(childEvents)).toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled']);
      expect((await driver.describe(child)).executionInfo).toMatchObject({
        executionStatus: 'OPEN',
        cancelRequested: false,
        parent: execution,
      });
      // the child closing later records nothing in the closed parent
      const parentEvents = await driver.history(execution);
      const ct = await driver.pollDecision(childList);
      await driver.respond(ct.taskToken, [w({ kind: 'complete' })]);
      await service.streamCaughtUp();
      expect(await driver.history(execution)).toEqual(parentEvents);
    },
  );
});

describe('Lambda tasks combined', () => {
  it('a Lambda task that ends while the task is out makes a close UNHANDLED_DECISION', async () => {
    let release: (value: string) => void = () => {};
    service.lambda.register(
      'gate',
      () =>
        new Promise<string>((resolve) => {
          release = resolve;
        }),
    );
    const { execution, taskList } = await driver.start(world.workflowType, { lambdaRole });
    const first = await driver.pollDecision(taskList);
    await driver.respond(first.taskToken, [
      {
        decisionType: 'ScheduleLambdaFunction',
        scheduleLambdaFunctionDecisionAttributes: {
          id: 'g',
          name: 'gate',
          startToCloseTimeout: '60',
        },
      },
    ]);
    await historyWhen(execution, (h) => find(h, 'LambdaFunctionStarted').length === 1);
    await driver.signal(execution, 'wake');
    const second = await driver.pollDecision(taskList);
    release('opened');
    await historyWhen(execution, (h) => find(h, 'LambdaFunctionCompleted').length === 1);
    await driver.respond(second.taskToken, [
      w({ kind: 'lambda', id: 'g' }),
      w({ kind: 'complete' }),
    ]);
    const events = await driver.history(execution);
    expect(types(events).slice(9)).toEqual([
      'LambdaFunctionCompleted',
      'DecisionTaskCompleted',
      'LambdaFunctionScheduled',
      'CompleteWorkflowExecutionFailed',
      'DecisionTaskScheduled',
    ]);
    expect(events[12]?.completeWorkflowExecutionFailedEventAttributes).toEqual({
      cause: 'UNHANDLED_DECISION',
      decisionTaskCompletedEventId: 11,
    });
  });
});

describe('outcomes the decider has not seen', () => {
  it('a child that closed while the parent’s task was out: requests to it fail, the close is UNHANDLED_DECISION', async () => {
    const { execution, taskList } = await driver.start(world.workflowType);
    const childId = uid('child');
    const childList = uid('child-deciders');
    const first = await driver.pollDecision(taskList);
    await driver.respond(first.taskToken, [startChild(childId, { taskList: childList })]);
    await historyWhen(execution, (h) => find(h, 'ChildWorkflowExecutionStarted').length === 1);
    const second = await driver.pollDecision(taskList);
    const ct = await driver.pollDecision(childList);
    await driver.respond(ct.taskToken, [w({ kind: 'complete', result: 'child done' })]);
    await historyWhen(execution, (h) => find(h, 'ChildWorkflowExecutionCompleted').length === 1);
    await driver.respond(second.taskToken, [
      cancelExternal(childId, { control: 'c1' }),
      signalExternal(childId, { control: 'c2' }),
      w({ kind: 'complete' }),
    ]);
    const events = await historyWhen(
      execution,
      (h) =>
        find(h, 'RequestCancelExternalWorkflowExecutionFailed').length === 1 &&
        find(h, 'SignalExternalWorkflowExecutionFailed').length === 1,
    );
    const completed = find(events, 'DecisionTaskCompleted').at(-1)?.eventId ?? -1;
    expect(types(events).slice(completed - 1, completed + 4)).toEqual([
      'DecisionTaskCompleted',
      'RequestCancelExternalWorkflowExecutionInitiated',
      'SignalExternalWorkflowExecutionInitiated',
      'CompleteWorkflowExecutionFailed',
      'DecisionTaskScheduled',
    ]);
    expect(
      find(events, 'RequestCancelExternalWorkflowExecutionFailed')[0]
        ?.requestCancelExternalWorkflowExecutionFailedEventAttributes,
    ).toEqual({
      workflowId: childId,
      cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
      initiatedEventId: completed + 1,
      decisionTaskCompletedEventId: completed,
      control: 'c1',
    });
    expect((await driver.describe(execution)).executionInfo?.executionStatus).toBe('OPEN');
    expect(find(events, 'DecisionTaskScheduled').length).toBe(3);
  });

  it('an activity that timed out while the task was out: RequestCancelActivityTask fails ACTIVITY_ID_UNKNOWN and the id is free', async () => {
    const acts = uid('acts');
    const { execution, taskList } = await driver.start(world.workflowType);
    const first = await driver.pollDecision(taskList);
    await driver.respond(first.taskToken, [
      {
        decisionType: 'ScheduleActivityTask',
        scheduleActivityTaskDecisionAttributes: {
          activityType: world.activityTypes.act,
          activityId: 'a',
          taskList: { name: acts },
          scheduleToStartTimeout: '1',
        },
      },
    ]);
    await driver.signal(execution, 'wake');
    const second = await driver.pollDecision(taskList);
    await historyWhen(execution, (h) => find(h, 'ActivityTaskTimedOut').length === 1);
    await driver.respond(second.taskToken, [
      w({ kind: 'cancelActivity', activityId: 'a' }),
      w({ kind: 'schedule', activityId: 'a', type: 'act' }, acts),
      w({ kind: 'fail', reason: 'too late' }),
    ]);
    const events = await driver.history(execution);
    const completed = find(events, 'DecisionTaskCompleted').at(-1)?.eventId ?? -1;
    expect(types(events).slice(completed - 2)).toEqual([
      'ActivityTaskTimedOut',
      'DecisionTaskCompleted',
      'RequestCancelActivityTaskFailed',
      'ActivityTaskScheduled',
      'FailWorkflowExecutionFailed',
      'DecisionTaskScheduled',
    ]);
    expect(events[completed - 2]?.activityTaskTimedOutEventAttributes).toEqual({
      timeoutType: 'SCHEDULE_TO_START',
      scheduledEventId: 5,
      startedEventId: 0,
    });
    expect(events[completed]?.requestCancelActivityTaskFailedEventAttributes).toEqual({
      activityId: 'a',
      cause: 'ACTIVITY_ID_UNKNOWN',
      decisionTaskCompletedEventId: completed,
    });
    expect(await pendingActivities(driver, acts)).toBe(1);
  });

  it('the decision task owed after failures goes to the task list the response names', async () => {
    const { execution, taskList } = await driver.start(world.workflowType);
    const moved = uid('moved');
    const first = await driver.pollDecision(taskList);
    await driver.signal(execution, 'during');
    await driver.swf.send(
      new RespondDecisionTaskCompletedCommand({
        taskToken: first.taskToken,
        decisions: [
          w({ kind: 'schedule', activityId: 'a', type: 'ghost' }),
          w({ kind: 'complete' }),
        ],
        taskList: { name: moved },
        executionContext: 'ctx',
      }),
    );
    const events = await driver.history(execution);
    expect(types(events).slice(4)).toEqual([
      'DecisionTaskCompleted',
      'ScheduleActivityTaskFailed',
      'CompleteWorkflowExecutionFailed',
      'DecisionTaskScheduled',
    ]);
    expect(events[4]?.decisionTaskCompletedEventAttributes).toEqual({
      executionContext: 'ctx',
      scheduledEventId: 2,
      startedEventId: 3,
      taskList: { name: moved },
    });
    expect(events[7]?.decisionTaskScheduledEventAttributes?.taskList).toEqual({ name: moved });
    expect(await pendingDecisions(driver, taskList)).toBe(0);
    const next = await driver.pollDecision(moved);
    expect(next.previousStartedEventId).toBe(3);
  });
});

/**
 * The decisions of one response are carried out in list order (the API
 * reference's Decision page: "The ordering of decisions should follow a logical flow"): a child
 * started before a signal or cancel request to it exists by the time the request is delivered, and a
 * request before the start does not find it.
 */
describe('requests to a child started in the same list', () => {
  it.each([
    [
      'SignalExternalWorkflowExecution',
      'ExternalWorkflowExecutionSignaled',
      'WorkflowExecutionSignaled',
    ],
    [
      'RequestCancelExternalWorkflowExecution',
      'ExternalWorkflowExecutionCancelRequested',
      'WorkflowExecutionCancelRequested',
    ],
  ] as const)(
    'StartChildWorkflowExecution, then %s to that child: the request reaches the child',
    async (decisionType, outcome, arrival) => {
      const { execution, taskList } = await driver.start(world.workflowType);
      const childId = uid('child');
      const task = await driver.pollDecision(taskList);
      await driver.respond(task.taskToken, [
        startChild(childId),
        decisionType === 'SignalExternalWorkflowExecution'
          ? signalExternal(childId)
          : cancelExternal(childId),
      ]);
      const settled = (h: HistoryEvent[]) =>
        find(h, 'ChildWorkflowExecutionStarted').length === 1 &&
        find(h, outcome).length +
          find(h, 'SignalExternalWorkflowExecutionFailed').length +
          find(h, 'RequestCancelExternalWorkflowExecutionFailed').length ===
          1;
      const events = await historyWhen(execution, settled);
      const child = {
        workflowId: childId,
        runId:
          find(events, 'ChildWorkflowExecutionStarted')[0]
            ?.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.runId ?? '',
      };
      expect(types(events).slice(3)).toEqual([
        'DecisionTaskCompleted',
        'StartChildWorkflowExecutionInitiated',
        decisionType === 'SignalExternalWorkflowExecution'
          ? 'SignalExternalWorkflowExecutionInitiated'
          : 'RequestCancelExternalWorkflowExecutionInitiated',
        'ChildWorkflowExecutionStarted',
        'DecisionTaskScheduled',
        outcome,
      ]);
      expect(events.at(-1)).toMatchObject({
        [`${outcome[0]?.toLowerCase()}${outcome.slice(1)}EventAttributes`]: {
          workflowExecution: child,
          initiatedEventId: 6,
        },
      });
      const childEvents = await historyWhen(child, (h) => find(h, arrival).length === 1);
      expect(childEvents.find((e) => e.eventType === arrival)).toMatchObject({
        [`${arrival[0]?.toLowerCase()}${arrival.slice(1)}EventAttributes`]: {
          externalWorkflowExecution: execution,
          externalInitiatedEventId: 6,
        },
      });
    },
  );

  it('a signal listed before the child’s start does not find it; the child starts', async () => {
    const { execution, taskList } = await driver.start(world.workflowType);
    const childId = uid('child');
    const task = await driver.pollDecision(taskList);
    await driver.respond(task.taskToken, [signalExternal(childId), startChild(childId)]);
    const events = await historyWhen(
      execution,
      (h) =>
        find(h, 'ChildWorkflowExecutionStarted').length === 1 &&
        find(h, 'SignalExternalWorkflowExecutionFailed').length === 1,
    );
    expect(
      find(events, 'SignalExternalWorkflowExecutionFailed')[0]
        ?.signalExternalWorkflowExecutionFailedEventAttributes,
    ).toEqual({
      workflowId: childId,
      cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
      initiatedEventId: 5,
      decisionTaskCompletedEventId: 4,
    });
  });
});
