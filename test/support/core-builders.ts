/**
 * Builders for unit tests of the pure core (lib/core): registered types, decisions, and a `RunDriver`
 * that drives one execution through the core's transitions while keeping its full history, so a test
 * can compare the state the transitions produced with the replay of the history they appended.
 */

import {
  type ActivityOutcome,
  closeActivityTask,
  startActivityTask,
} from '../../lib/core/activity-tasks.js';
import type { Decision, DecisionAttributes, DecisionType } from '../../lib/core/decision.js';
import type { DecisionAccess } from '../../lib/core/decision-permissions.js';
import {
  type ContinuedRun,
  completeDecisionTask,
  type DecisionResponse,
  startDecisionTask,
  type TypeLookup,
} from '../../lib/core/decision-tasks.js';
import type { ExecutionConfig, ExecutionState } from '../../lib/core/execution-state.js';
import {
  requestCancelExecution,
  type SignalRequest,
  signalExecution,
  startRun,
  type TerminateRequest,
  terminateExecution,
} from '../../lib/core/executions.js';
import type { EventOf, EventType, HistoryEvent, TypeRef } from '../../lib/core/history-event.js';
import type {
  ActivityTypeConfiguration,
  ActivityTypeRecord,
  WorkflowTypeConfiguration,
  WorkflowTypeRecord,
} from '../../lib/core/registry.js';
import { type RunIdentity, replay } from '../../lib/core/replay.js';
import type { Transition } from '../../lib/core/transition.js';

/** Epoch seconds every driven run starts at. */
export const T0 = 1_700_000_000;
export const DOMAIN = 'unit-domain';
export const WORKFLOW_ID = 'wf-1';
export const RUN_ID = 'run-1';

// ---------------------------------------------------------------------------------------------------
// Registered types
// ---------------------------------------------------------------------------------------------------

/** An activity type with every default registered. */
export const fullActivityDefaults: ActivityTypeConfiguration = {
  defaultTaskList: { name: 'activity-default-list' },
  defaultTaskScheduleToStartTimeout: '11',
  defaultTaskScheduleToCloseTimeout: '22',
  defaultTaskStartToCloseTimeout: '33',
  defaultTaskHeartbeatTimeout: '44',
  defaultTaskPriority: '7',
};

/** A workflow type with every default registered. */
export const fullWorkflowDefaults: WorkflowTypeConfiguration = {
  defaultTaskList: { name: 'workflow-default-list' },
  defaultExecutionStartToCloseTimeout: '3600',
  defaultTaskStartToCloseTimeout: '30',
  defaultChildPolicy: 'TERMINATE',
  defaultTaskPriority: '5',
};

export function activityType(
  name: string,
  configuration: ActivityTypeConfiguration = fullActivityDefaults,
  overrides: Partial<ActivityTypeRecord> = {},
): ActivityTypeRecord {
  return {
    kind: 'activity',
    domain: DOMAIN,
    name,
    version: '1',
    status: 'REGISTERED',
    creationDate: T0 - 100,
    configuration,
    ...overrides,
  };
}

export function workflowType(
  name: string,
  version: string,
  configuration: WorkflowTypeConfiguration = fullWorkflowDefaults,
  overrides: Partial<WorkflowTypeRecord> = {},
): WorkflowTypeRecord {
  return {
    kind: 'workflow',
    domain: DOMAIN,
    name,
    version,
    status: 'REGISTERED',
    creationDate: T0 - 100,
    configuration,
    ...overrides,
  };
}

/** The registered types most tests need; names say what is special about each. */
export const standardTypes = {
  activities: [
    activityType('full'),
    activityType('bare', {}),
    activityType('deprecated', fullActivityDefaults, { status: 'DEPRECATED' }),
  ],
  workflows: [
    workflowType('main', '1'),
    workflowType('main', '2', {
      defaultTaskList: { name: 'v2-list' },
      defaultExecutionStartToCloseTimeout: '7200',
      defaultTaskStartToCloseTimeout: '60',
      defaultChildPolicy: 'ABANDON',
      defaultTaskPriority: '9',
      defaultLambdaRole: 'arn:aws:iam::123456789012:role/v2',
    }),
    workflowType('main', 'bare', {}),
    workflowType('main', 'deprecated', fullWorkflowDefaults, { status: 'DEPRECATED' }),
    workflowType('child', '1'),
    workflowType('child', 'bare', {}),
    workflowType('child', 'deprecated', fullWorkflowDefaults, { status: 'DEPRECATED' }),
  ],
} as const;

export function typeLookup(
  types: {
    readonly activities: readonly ActivityTypeRecord[];
    readonly workflows: readonly WorkflowTypeRecord[];
  } = standardTypes,
): TypeLookup {
  const key = (ref: TypeRef) => `${ref.name}@${ref.version}`;
  const activities = new Map(types.activities.map((t) => [key(t), t]));
  const workflows = new Map(types.workflows.map((t) => [key(t), t]));
  return {
    activityType: (ref) => activities.get(key(ref)),
    workflowType: (ref) => workflows.get(key(ref)),
  };
}

// ---------------------------------------------------------------------------------------------------
// Decisions
// ---------------------------------------------------------------------------------------------------

export type DecisionOf<T extends DecisionType> = Extract<Decision, { decisionType: T }>;

export function decision<T extends DecisionType>(
  decisionType: T,
  attributes: DecisionAttributes[T],
): DecisionOf<T> {
  return { decisionType, attributes } as DecisionOf<T>;
}

/** ScheduleActivityTask of type `full` (every default registered) unless the type is given. */
export function scheduleActivity(
  activityId: string,
  attributes: Partial<DecisionAttributes['ScheduleActivityTask']> = {},
): DecisionOf<'ScheduleActivityTask'> {
  return decision('ScheduleActivityTask', {
    activityType: { name: 'full', version: '1' },
    activityId,
    ...attributes,
  });
}

/** ScheduleActivityTask of type `bare` with every value given in the decision. */
export function scheduleBareActivity(
  activityId: string,
  omit: readonly (keyof DecisionAttributes['ScheduleActivityTask'])[] = [],
): DecisionOf<'ScheduleActivityTask'> {
  const all: Record<string, unknown> = {
    activityType: { name: 'bare', version: '1' },
    activityId,
    taskList: { name: 'explicit-list' },
    scheduleToStartTimeout: '1',
    scheduleToCloseTimeout: '2',
    startToCloseTimeout: '3',
    heartbeatTimeout: '4',
  };
  for (const key of omit) delete all[key];
  return decision(
    'ScheduleActivityTask',
    all as unknown as DecisionAttributes['ScheduleActivityTask'],
  );
}

export const cancelActivity = (activityId: string) =>
  decision('RequestCancelActivityTask', { activityId });
export const startTimer = (timerId: string, startToFireTimeout = '60') =>
  decision('StartTimer', { timerId, startToFireTimeout });
export const cancelTimer = (timerId: string) => decision('CancelTimer', { timerId });
export const recordMarker = (markerName: string, details?: string) =>
  decision('RecordMarker', details === undefined ? { markerName } : { markerName, details });
export const completeWorkflow = (result?: string) =>
  decision('CompleteWorkflowExecution', result === undefined ? {} : { result });
export const failWorkflow = (reason?: string, details?: string) =>
  decision('FailWorkflowExecution', {
    ...(reason === undefined ? {} : { reason }),
    ...(details === undefined ? {} : { details }),
  });
export const cancelWorkflow = (details?: string) =>
  decision('CancelWorkflowExecution', details === undefined ? {} : { details });
export const continueAsNew = (
  attributes: DecisionAttributes['ContinueAsNewWorkflowExecution'] = {},
) => decision('ContinueAsNewWorkflowExecution', attributes);
export const startChild = (
  workflowId: string,
  attributes: Partial<DecisionAttributes['StartChildWorkflowExecution']> = {},
) =>
  decision('StartChildWorkflowExecution', {
    workflowType: { name: 'child', version: '1' },
    workflowId,
    ...attributes,
  });
export const scheduleLambda = (id: string, name = 'fn') =>
  decision('ScheduleLambdaFunction', { id, name });

/** The four decisions that close an execution, by the failure event each turns into. */
export const closeDecisions = [
  ['CompleteWorkflowExecution', completeWorkflow('done'), 'CompleteWorkflowExecutionFailed'],
  ['FailWorkflowExecution', failWorkflow('why'), 'FailWorkflowExecutionFailed'],
  ['CancelWorkflowExecution', cancelWorkflow('bye'), 'CancelWorkflowExecutionFailed'],
  ['ContinueAsNewWorkflowExecution', continueAsNew(), 'ContinueAsNewWorkflowExecutionFailed'],
] as const;

// ---------------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------------

export const eventTypes = (events: readonly HistoryEvent[]): EventType[] =>
  events.map((e) => e.eventType);

export function eventsOfType<T extends EventType>(
  events: readonly HistoryEvent[],
  type: T,
): EventOf<T>[] {
  return events.filter((e): e is EventOf<T> => e.eventType === type);
}

/** The one event of that type; throws when there is none or more than one. */
export function onlyEvent<T extends EventType>(
  events: readonly HistoryEvent[],
  type: T,
): EventOf<T> {
  const found = eventsOfType(events, type);
  const [event] = found;
  if (found.length !== 1 || event === undefined) {
    throw new Error(`expected exactly one ${type}, found ${found.length}: ${eventTypes(events)}`);
  }
  return event;
}

// ---------------------------------------------------------------------------------------------------
// A driven run
// ---------------------------------------------------------------------------------------------------

/** The config of the run a RunDriver starts: deliberately unlike any registered type default. */
export const runConfig: ExecutionConfig = {
  taskList: { name: 'run-list' },
  taskStartToCloseTimeout: '120',
  executionStartToCloseTimeout: '86400',
  childPolicy: 'REQUEST_CANCEL',
  taskPriority: '3',
  lambdaRole: 'arn:aws:iam::123456789012:role/run-lambda',
};

export interface DriverOptions {
  readonly config?: ExecutionConfig;
  readonly types?: TypeLookup;
  readonly workflowType?: TypeRef;
  readonly lambdaAvailable?: boolean;
  /** When the run starts (epoch seconds; T0 by default). */
  readonly startAt?: number;
  /** The responding caller's policies, as the operation gives them (unset: all allowed). */
  readonly access?: DecisionAccess;
}

/**
 * One execution driven through the core. Every transition's events are appended to `history` and its
 * state kept, exactly as an operation would store them. `now` advances by one second per call.
 */
export class RunDriver {
  state: ExecutionState;
  readonly history: HistoryEvent[];
  now: number;
  readonly types: TypeLookup;
  readonly lambdaAvailable: boolean;
  readonly access: DecisionAccess | undefined;
  private runIds = 0;

  constructor(options: DriverOptions = {}) {
    this.now = options.startAt ?? T0;
    this.types = options.types ?? typeLookup();
    this.lambdaAvailable = options.lambdaAvailable ?? true;
    this.access = options.access;
    const started = startRun(
      {
        domain: DOMAIN,
        execution: { workflowId: WORKFLOW_ID, runId: RUN_ID },
        workflowType: options.workflowType ?? { name: 'main', version: '1' },
        config: options.config ?? runConfig,
        input: 'start-input',
      },
      this.now,
    );
    this.state = started.state;
    this.history = [...started.events];
  }

  get identity(): RunIdentity {
    return { domain: this.state.domain, execution: this.state.execution };
  }

  /** Appends a transition's events and adopts its state; returns the events it appended. */
  commit(t: Transition): HistoryEvent[] {
    this.state = t.state;
    this.history.push(...t.events);
    return t.events;
  }

  private tick(): number {
    this.now += 1;
    return this.now;
  }

  signal(signalName = 'sig', input?: string): HistoryEvent[] {
    const request: SignalRequest = input === undefined ? { signalName } : { signalName, input };
    return this.commit(signalExecution(this.state, request, this.tick()));
  }

  requestCancel(): HistoryEvent[] {
    return this.commit(requestCancelExecution(this.state, {}, this.tick()));
  }

  terminate(request: TerminateRequest = { reason: 'stop' }): HistoryEvent[] {
    return this.commit(terminateExecution(this.state, request, this.tick()));
  }

  startDecisionTask(identity = 'decider'): HistoryEvent[] {
    return this.commit(startDecisionTask(this.state, identity, this.tick()));
  }

  /** Completes the started decision task. */
  respond(
    decisions: readonly Decision[],
    extra: Omit<DecisionResponse, 'decisions'> = {},
  ): { events: HistoryEvent[]; continuedRun?: ContinuedRun } {
    const result = completeDecisionTask(this.state, { decisions, ...extra }, this.types, {
      now: this.tick(),
      newRunId: () => {
        this.runIds += 1;
        return `continued-${this.runIds}`;
      },
      lambdaAvailable: this.lambdaAvailable,
      ...(this.access === undefined ? {} : { access: this.access }),
    });
    const events = this.commit(result.transition);
    return result.continuedRun === undefined
      ? { events }
      : { events, continuedRun: result.continuedRun };
  }

  /**
   * Starts the scheduled decision task and completes it with these decisions; returns every event
   * appended, from DecisionTaskStarted on.
   */
  decide(
    decisions: readonly Decision[],
    extra: Omit<DecisionResponse, 'decisions'> = {},
  ): HistoryEvent[] {
    const started = this.startDecisionTask();
    return [...started, ...this.respond(decisions, extra).events];
  }

  activity(activityId: string) {
    const activity = this.state.activities[activityId];
    if (activity === undefined) throw new Error(`no open activity ${activityId}`);
    return activity;
  }

  startActivity(activityId: string, identity = 'worker'): HistoryEvent[] {
    return this.commit(
      startActivityTask(this.state, this.activity(activityId), identity, this.tick()),
    );
  }

  closeActivity(
    activityId: string,
    outcome: ActivityOutcome = { kind: 'completed', result: 'ok' },
  ): HistoryEvent[] {
    return this.commit(
      closeActivityTask(this.state, this.activity(activityId), outcome, this.tick()),
    );
  }

  /** The state replaying the whole history gives. */
  replayed(): ExecutionState {
    return replay(this.identity, this.history);
  }

  lastEventId(): number {
    return this.history.at(-1)?.eventId ?? 0;
  }
}
