/**
 * The service and helpers shared by the decision-combination contract files: one domain with the types
 * the model of SWF (test/support/decision-oracle.ts) knows, the model's decisions on the wire, and the
 * comparison of a history with the model's.
 */
import {
  type Decision,
  DeprecateActivityTypeCommand,
  type HistoryEvent,
  RegisterActivityTypeCommand,
  RegisterWorkflowTypeCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { expect } from 'vitest';
import type { LocalService } from '../../lib/local/local-service.js';
import { type SwfDriver, uid } from './decider.js';
import type { ExpectedEvent, ModelDecision, ModelWorld } from './decision-oracle.js';
import { serveDomain } from './local.js';

export const domain = 'combos';
export const lambdaRole = 'arn:aws:iam::000000000000:role/combos';

export const world: ModelWorld = {
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

export interface CombosService {
  readonly swf: SWFClient;
  readonly driver: SwfDriver;
  readonly service: LocalService;
  readonly close: () => Promise<void>;
}

/** Serves the combinations' domain with the model's workflow, activity and Lambda types. */
export async function serveCombos(): Promise<CombosService> {
  const served = await serveDomain(domain, { polling: { maxWaitMs: 1_000 } });
  const { swf, service } = served;
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
  return served;
}

// ---------------------------------------------------------------------------------------------------
// The model's decisions on the wire

export function toWire(
  d: ModelDecision,
  run: { taskList: string; activityTaskList: string },
): Decision {
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
// ---------------------------------------------------------------------------------------------------
// Comparing the service with the model

const attributesOf = (event: HistoryEvent): unknown => {
  const type = event.eventType ?? '';
  const member = `${type[0]?.toLowerCase()}${type.slice(1)}EventAttributes`;
  return (event as unknown as Record<string, unknown>)[member];
};

export function expectHistory(
  actual: HistoryEvent[],
  expected: readonly ExpectedEvent[],
  label: string,
) {
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
// Chosen combinations whose outcome comes later or from elsewhere

export const types = (events: readonly HistoryEvent[]) => events.map((e) => e.eventType ?? '');
export const find = (events: readonly HistoryEvent[], eventType: string) =>
  events.filter((e) => e.eventType === eventType);

export const signalExternal = (
  workflowId: string,
  extra: { runId?: string; control?: string } = {},
) =>
  ({
    decisionType: 'SignalExternalWorkflowExecution',
    signalExternalWorkflowExecutionDecisionAttributes: { workflowId, signalName: 'ext', ...extra },
  }) satisfies Decision;
export const cancelExternal = (
  workflowId: string,
  extra: { runId?: string; control?: string } = {},
) =>
  ({
    decisionType: 'RequestCancelExternalWorkflowExecution',
    requestCancelExternalWorkflowExecutionDecisionAttributes: { workflowId, ...extra },
  }) satisfies Decision;
export const startChild = (
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
export const w = (d: ModelDecision, activityTaskList = 'unused') =>
  toWire(d, { taskList: 'unused', activityTaskList });

/** Reads the history until `done` holds (the outbox and the timers work in the background). */
export async function historyWhen(
  { service, driver }: Pick<CombosService, 'service' | 'driver'>,
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
