/**
 * Combinations of decisions, in one RespondDecisionTaskCompleted and across consecutive decision tasks,
 * held against an independent model of SWF (test/support/decision-oracle.ts). Each generated scenario
 * (fixed seed) runs a few decision tasks of one execution; between and during them workers start,
 * complete and cancel activities and signals arrive. After every response the whole history (ids, order,
 * attributes), DescribeWorkflowExecution's counts and the workers' heartbeats must be what the model says.
 */
import {
  RecordActivityTaskHeartbeatCommand,
  RespondActivityTaskCanceledCommand,
  RespondActivityTaskCompletedCommand,
  RespondDecisionTaskCompletedCommand,
} from '@aws-sdk/client-swf';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { expectFault, uid } from '../support/decider.js';
import {
  expectHistory,
  lambdaRole,
  serveCombos,
  toWire,
  world,
} from '../support/decision-combinations.js';
import {
  closeKinds,
  type ModelDecision,
  RunModel,
  situations,
} from '../support/decision-oracle.js';
import { servedForFile } from '../support/local.js';
import { pendingActivities, pendingDecisions } from '../support/waiting.js';

const server = servedForFile(serveCombos);
afterAll(() => {
  const reach = [...situations].sort(([a], [b]) => a.localeCompare(b));
  console.log(`situations the model met:\n${reach.map(([k, v]) => `  ${k}: ${v}`).join('\n')}`);
});

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
      await server.driver.signal(run.execution, `sig${n}`, `in${n}`);
      model.signal(`sig${n}`, `in${n}`);
      return;
    case 'startActivity': {
      if (model.waitingActivities().length === 0) return;
      const task = await server.driver.pollActivity(run.activityTaskList, 'worker');
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
      await server.swf.send(
        new RespondActivityTaskCompletedCommand({ taskToken, result: `r${n}` }),
      );
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
      await server.swf.send(
        new RespondActivityTaskCanceledCommand({ taskToken, details: `d${n}` }),
      );
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
      const { execution, taskList } = await server.driver.start(world.workflowType, { lambdaRole });
      const run = { execution, taskList, activityTaskList };
      const model = new RunModel(world, taskList, activityTaskList);
      const worker: Worker = { tokens: new Map() };
      let n = 0;
      for (const [stepIndex, s] of steps.entries()) {
        const label = `step ${stepIndex + 1} ${describeStep(s)}`;
        for (const a of s.before) await act(a, model, run, worker, n++);
        if (model.decisionTask.status === 'none')
          await act({ k: 'signal' }, model, run, worker, n++);

        const task = await server.driver.pollDecision(taskList, { identity: 'decider' });
        const startedEventId = model.decisionTaskStarted('decider');
        expect(task.startedEventId, `${label}: startedEventId`).toBe(startedEventId);
        expect(task.previousStartedEventId ?? 0, `${label}: previousStartedEventId`).toBe(
          model.previousStartedEventId,
        );
        expectHistory(task.events, model.events, `${label}: the decision task's history`);

        for (const a of s.during) await act(a, model, run, worker, n++);
        expect(
          (await server.driver.describe(execution)).openCounts,
          `${label}: openCounts while the task is out`,
        ).toEqual(model.openCounts());

        let decisions = s.decisions;
        if (RunModel.refuses(decisions)) {
          const before = await server.driver.history(execution);
          await expectFault(
            server.swf.send(
              new RespondDecisionTaskCompletedCommand({
                taskToken: task.taskToken,
                decisions: decisions.map((d) => toWire(d, run)),
              }),
            ),
            'ValidationException',
          );
          expect(
            await server.driver.history(execution),
            `${label}: a refused list records nothing`,
          ).toEqual(before);
          // The token stays good: answer again without the close decisions.
          decisions = decisions.filter((d) => !closeKinds.has(d.kind));
        }
        await server.driver.respond(
          task.taskToken,
          decisions.map((d) => toWire(d, run)),
          s.executionContext === undefined ? {} : { executionContext: s.executionContext },
        );
        const openBefore = [...model.activities.keys()];
        model.respond(decisions, s.executionContext);
        await server.service.streamCaughtUp();
        model.lambdasStarted();

        expectHistory(
          await server.driver.history(execution),
          model.events,
          `${label}: the history`,
        );
        const described = await server.driver.describe(execution);
        expect(described.executionInfo?.executionStatus, `${label}: status`).toBe(model.status);
        expect(described.latestExecutionContext, `${label}: latestExecutionContext`).toBe(
          model.latestExecutionContext,
        );
        const history = await server.driver.history(execution);
        const lastScheduled = history.filter((e) => e.eventType === 'ActivityTaskScheduled').at(-1);
        expect(
          described.latestActivityTaskTimestamp,
          `${label}: latestActivityTaskTimestamp`,
        ).toEqual(lastScheduled?.eventTimestamp);
        expect(
          await pendingActivities(server.driver, activityTaskList),
          `${label}: pending activities`,
        ).toBe(model.waitingActivities().length);
        expect(
          await pendingDecisions(server.driver, taskList),
          `${label}: pending decision tasks`,
        ).toBe(
          // a run continued as new has its successor's first decision task on the same list
          model.decisionTask.status === 'scheduled' || model.closeStatus === 'CONTINUED_AS_NEW'
            ? 1
            : 0,
        );
        if (model.status === 'OPEN') {
          expect(described.openCounts, `${label}: openCounts`).toEqual(model.openCounts());
          for (const activity of model.startedActivities()) {
            const taskToken = worker.tokens.get(activity.activityId) ?? '';
            const beat = await server.swf.send(
              new RecordActivityTaskHeartbeatCommand({ taskToken }),
            );
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
              server.swf.send(new RecordActivityTaskHeartbeatCommand({ taskToken })),
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
