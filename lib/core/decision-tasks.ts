/**
 * Decision tasks: handing one out, and applying the decider's response. A decision
 * SWF would refuse becomes its `*Failed` event with the documented cause, never an exception.
 */
import { assertNever } from './assert-never.js';
import { closeDecisionTypes, closeFailedEvent, type Decision } from './decision.js';
import { type DecisionAccess, recordRefusal } from './decision-permissions.js';
import type { ExecutionState } from './execution-state.js';
import {
  type ExecutionRequest,
  type MissingDefault,
  resolveExecutionConfig,
} from './executions.js';
import type { TypeRef } from './history-event.js';
import { executionLimits } from './limits.js';
import { ownProperty } from './own-property.js';
import type { ActivityTypeRecord, TaskList, WorkflowTypeRecord } from './registry.js';
import { Transition } from './transition.js';

export function startDecisionTask(
  state: ExecutionState,
  identity: string | undefined,
  now: number,
): Transition {
  const task = state.decisionTask;
  if (task.status !== 'scheduled') throw new Error('no scheduled decision task to start');
  const t = new Transition(state, now);
  t.record({
    eventType: 'DecisionTaskStarted',
    attributes: {
      ...(identity === undefined ? {} : { identity }),
      scheduledEventId: task.scheduledEventId,
    },
  });
  return t;
}

/** Registered types the decisions refer to, loaded by the caller before the core runs. */
export interface TypeLookup {
  activityType(ref: TypeRef): ActivityTypeRecord | undefined;
  workflowType(ref: TypeRef): WorkflowTypeRecord | undefined;
}

export interface DecisionResponse {
  readonly decisions: readonly Decision[];
  readonly executionContext?: string;
  readonly taskList?: TaskList;
  readonly taskListScheduleToStartTimeout?: string;
}

/** A run to start because a ContinueAsNewWorkflowExecution decision closed this one. */
export interface ContinuedRun {
  readonly runId: string;
  readonly workflowType: TypeRef;
  readonly request: Required<
    Pick<
      ExecutionRequest,
      | 'taskList'
      | 'executionStartToCloseTimeout'
      | 'taskStartToCloseTimeout'
      | 'childPolicy'
      | 'taskPriority'
    >
  > &
    Pick<ExecutionRequest, 'lambdaRole'>;
  readonly input?: string;
  readonly tagList?: readonly string[];
}

export interface CompletionResult {
  readonly transition: Transition;
  readonly continuedRun?: ContinuedRun;
}

/**
 * RespondDecisionTaskCompleted, in SWF's order: DecisionTaskCompleted, each decision in
 * order, UNHANDLED_DECISION for a close that would hide events the decider has not seen, then the
 * decision task that is owed. The caller has validated the request (close decision last, attributes
 * present) and resolved the token to this execution's started decision task.
 */
export function completeDecisionTask(
  state: ExecutionState,
  response: DecisionResponse,
  types: TypeLookup,
  ctx: {
    readonly now: number;
    readonly newRunId: () => string;
    readonly lambdaAvailable?: boolean;
    /**
     * How many more executions the domain can have open (SWF's quota: 100,000, children
     * included); a child start past it fails with OPEN_WORKFLOWS_LIMIT_EXCEEDED. Unbounded if unset.
     */
    readonly openWorkflowsRoom?: number;
    /** The responding caller's policies; unset when no access policies apply (all is allowed). */
    readonly access?: DecisionAccess;
  },
): CompletionResult {
  const task = state.decisionTask;
  if (task.status !== 'started') throw new Error('no started decision task to complete');
  // Events that schedule a decision task and arrived while this one was out.
  const unhandled = state.decisionTaskOwed;
  const t = new Transition(state, ctx.now);
  const completed = t.record({
    eventType: 'DecisionTaskCompleted',
    attributes: {
      ...(response.executionContext === undefined
        ? {}
        : { executionContext: response.executionContext }),
      scheduledEventId: task.scheduledEventId,
      startedEventId: task.startedEventId,
      ...(response.taskList === undefined ? {} : { taskList: response.taskList }),
      ...(response.taskListScheduleToStartTimeout === undefined
        ? {}
        : { taskListScheduleToStartTimeout: response.taskListScheduleToStartTimeout }),
    },
  });
  const apply = new DecisionApplier({
    transition: t,
    completedEventId: completed.eventId,
    types,
    unhandled,
    newRunId: ctx.newRunId,
    lambdaAvailable: ctx.lambdaAvailable ?? true,
    openWorkflowsRoom: ctx.openWorkflowsRoom ?? Number.POSITIVE_INFINITY,
    access: ctx.access,
  });
  for (const decision of response.decisions) apply.decision(decision);
  t.scheduleDecisionTaskIfOwed();
  return apply.continuedRun === undefined
    ? { transition: t }
    : { transition: t, continuedRun: apply.continuedRun };
}

const missingDefaultCause: Record<MissingDefault, string> = {
  taskList: 'DEFAULT_TASK_LIST_UNDEFINED',
  executionStartToCloseTimeout: 'DEFAULT_EXECUTION_START_TO_CLOSE_TIMEOUT_UNDEFINED',
  taskStartToCloseTimeout: 'DEFAULT_TASK_START_TO_CLOSE_TIMEOUT_UNDEFINED',
  childPolicy: 'DEFAULT_CHILD_POLICY_UNDEFINED',
};

interface DecisionApplierOptions {
  /** The transition the decisions' events are recorded in. */
  readonly transition: Transition;
  /** The DecisionTaskCompleted event's id, which the decisions' events name. */
  readonly completedEventId: number;
  readonly types: TypeLookup;
  /** Events arrived while the task was out: a close decision fails with UNHANDLED_DECISION. */
  readonly unhandled: boolean;
  readonly newRunId: () => string;
  readonly lambdaAvailable: boolean;
  /** How many more executions the domain can have open; each child started takes one. */
  readonly openWorkflowsRoom: number;
  /** The responding caller's policies; undefined when no access policies apply. */
  readonly access: DecisionAccess | undefined;
}

class DecisionApplier {
  continuedRun: ContinuedRun | undefined;
  private readonly t: Transition;
  private readonly dtc: number;
  private readonly types: TypeLookup;
  private readonly unhandled: boolean;
  private readonly newRunId: () => string;
  private readonly lambdaAvailable: boolean;
  private openWorkflowsRoom: number;
  private readonly access: DecisionAccess | undefined;

  constructor(options: DecisionApplierOptions) {
    this.t = options.transition;
    this.dtc = options.completedEventId;
    this.types = options.types;
    this.unhandled = options.unhandled;
    this.newRunId = options.newRunId;
    this.lambdaAvailable = options.lambdaAvailable;
    this.openWorkflowsRoom = options.openWorkflowsRoom;
    this.access = options.access;
  }

  decision(d: Decision): undefined {
    if (this.t.state.status !== 'OPEN') return; // nothing follows a close (validation keeps it last)
    // The caller's policies first, as SWF checks them: a refusal is the decision's *Failed event.
    if (this.access !== undefined && recordRefusal(d, this.access, this.types, this.t, this.dtc))
      return;
    if (closeDecisionTypes.has(d.decisionType) && this.unhandled) return this.unhandledClose(d);
    const decisionTaskCompletedEventId = this.dtc;
    switch (d.decisionType) {
      case 'ScheduleActivityTask':
        return this.scheduleActivity(d.attributes);
      case 'RequestCancelActivityTask':
        return this.requestCancelActivity(d.attributes.activityId);
      case 'CompleteWorkflowExecution':
        return void this.t.record({
          eventType: 'WorkflowExecutionCompleted',
          attributes: { ...d.attributes, decisionTaskCompletedEventId },
        });
      case 'FailWorkflowExecution':
        return void this.t.record({
          eventType: 'WorkflowExecutionFailed',
          attributes: { ...d.attributes, decisionTaskCompletedEventId },
        });
      case 'CancelWorkflowExecution':
        return void this.t.record({
          eventType: 'WorkflowExecutionCanceled',
          attributes: { ...d.attributes, decisionTaskCompletedEventId },
        });
      case 'ContinueAsNewWorkflowExecution':
        return this.continueAsNew(d.attributes);
      case 'RecordMarker':
        return void this.t.record({
          eventType: 'MarkerRecorded',
          attributes: { ...d.attributes, decisionTaskCompletedEventId },
        });
      case 'StartTimer':
        return this.startTimer(d.attributes);
      case 'CancelTimer':
        return this.cancelTimer(d.attributes.timerId);
      case 'SignalExternalWorkflowExecution':
        return void this.t.record({
          eventType: 'SignalExternalWorkflowExecutionInitiated',
          attributes: { ...d.attributes, decisionTaskCompletedEventId },
        });
      case 'RequestCancelExternalWorkflowExecution':
        return void this.t.record({
          eventType: 'RequestCancelExternalWorkflowExecutionInitiated',
          attributes: { ...d.attributes, decisionTaskCompletedEventId },
        });
      case 'StartChildWorkflowExecution':
        return this.startChild(d.attributes);
      case 'ScheduleLambdaFunction':
        return this.scheduleLambda(d.attributes);
      default:
        return assertNever(d);
    }
  }

  private unhandledClose(d: Decision): undefined {
    const eventType = closeFailedEvent[d.decisionType];
    if (eventType === undefined) return;
    this.t.record({
      eventType,
      attributes: { cause: 'UNHANDLED_DECISION', decisionTaskCompletedEventId: this.dtc },
    });
  }

  private scheduleActivity(
    a: Extract<Decision, { decisionType: 'ScheduleActivityTask' }>['attributes'],
  ): undefined {
    const fail = (cause: string) =>
      void this.t.record({
        eventType: 'ScheduleActivityTaskFailed',
        attributes: {
          activityType: a.activityType,
          activityId: a.activityId,
          cause,
          decisionTaskCompletedEventId: this.dtc,
        },
      });
    const type = this.types.activityType(a.activityType);
    if (type === undefined) return fail('ACTIVITY_TYPE_DOES_NOT_EXIST');
    if (type.status === 'DEPRECATED') return fail('ACTIVITY_TYPE_DEPRECATED');
    const open = this.t.state.activities;
    if (ownProperty(open, a.activityId) !== undefined) return fail('ACTIVITY_ID_ALREADY_IN_USE');
    if (Object.keys(open).length >= executionLimits.openActivities)
      return fail('OPEN_ACTIVITIES_LIMIT_EXCEEDED');
    const c = type.configuration;
    const taskList = a.taskList ?? c.defaultTaskList;
    if (taskList === undefined) return fail('DEFAULT_TASK_LIST_UNDEFINED');
    const scheduleToStartTimeout = a.scheduleToStartTimeout ?? c.defaultTaskScheduleToStartTimeout;
    if (scheduleToStartTimeout === undefined)
      return fail('DEFAULT_SCHEDULE_TO_START_TIMEOUT_UNDEFINED');
    const scheduleToCloseTimeout = a.scheduleToCloseTimeout ?? c.defaultTaskScheduleToCloseTimeout;
    if (scheduleToCloseTimeout === undefined)
      return fail('DEFAULT_SCHEDULE_TO_CLOSE_TIMEOUT_UNDEFINED');
    const startToCloseTimeout = a.startToCloseTimeout ?? c.defaultTaskStartToCloseTimeout;
    if (startToCloseTimeout === undefined) return fail('DEFAULT_START_TO_CLOSE_TIMEOUT_UNDEFINED');
    const heartbeatTimeout = a.heartbeatTimeout ?? c.defaultTaskHeartbeatTimeout;
    if (heartbeatTimeout === undefined) return fail('DEFAULT_HEARTBEAT_TIMEOUT_UNDEFINED');
    this.t.record({
      eventType: 'ActivityTaskScheduled',
      attributes: {
        activityType: a.activityType,
        activityId: a.activityId,
        ...(a.input === undefined ? {} : { input: a.input }),
        ...(a.control === undefined ? {} : { control: a.control }),
        scheduleToStartTimeout,
        scheduleToCloseTimeout,
        startToCloseTimeout,
        taskList,
        taskPriority: a.taskPriority ?? c.defaultTaskPriority ?? '0',
        decisionTaskCompletedEventId: this.dtc,
        heartbeatTimeout,
      },
    });
  }

  /** Not yet started: cancelled at once. Started: flagged; the worker learns on its next heartbeat. */
  private requestCancelActivity(activityId: string): undefined {
    const activity = ownProperty(this.t.state.activities, activityId);
    if (activity === undefined) {
      this.t.record({
        eventType: 'RequestCancelActivityTaskFailed',
        attributes: {
          activityId,
          cause: 'ACTIVITY_ID_UNKNOWN',
          decisionTaskCompletedEventId: this.dtc,
        },
      });
      return;
    }
    const requested = this.t.record({
      eventType: 'ActivityTaskCancelRequested',
      attributes: { activityId, decisionTaskCompletedEventId: this.dtc },
    });
    if (activity.startedEventId !== undefined) return;
    this.t.record({
      eventType: 'ActivityTaskCanceled',
      attributes: {
        scheduledEventId: activity.scheduledEventId,
        startedEventId: 0,
        latestCancelRequestedEventId: requested.eventId,
      },
    });
  }

  private startTimer(
    a: Extract<Decision, { decisionType: 'StartTimer' }>['attributes'],
  ): undefined {
    const timers = this.t.state.timers;
    const cause =
      ownProperty(timers, a.timerId) !== undefined
        ? 'TIMER_ID_ALREADY_IN_USE'
        : Object.keys(timers).length >= executionLimits.openTimers
          ? 'OPEN_TIMERS_LIMIT_EXCEEDED'
          : undefined;
    if (cause !== undefined) {
      this.t.record({
        eventType: 'StartTimerFailed',
        attributes: { timerId: a.timerId, cause, decisionTaskCompletedEventId: this.dtc },
      });
      return;
    }
    this.t.record({
      eventType: 'TimerStarted',
      attributes: { ...a, decisionTaskCompletedEventId: this.dtc },
    });
  }

  private cancelTimer(timerId: string): undefined {
    const timer = ownProperty(this.t.state.timers, timerId);
    if (timer === undefined) {
      this.t.record({
        eventType: 'CancelTimerFailed',
        attributes: { timerId, cause: 'TIMER_ID_UNKNOWN', decisionTaskCompletedEventId: this.dtc },
      });
      return;
    }
    this.t.record({
      eventType: 'TimerCanceled',
      attributes: {
        timerId,
        startedEventId: timer.startedEventId,
        decisionTaskCompletedEventId: this.dtc,
      },
    });
  }

  /** The new run takes the type's registered defaults, not this run's settings. */
  private continueAsNew(
    a: Extract<Decision, { decisionType: 'ContinueAsNewWorkflowExecution' }>['attributes'],
  ): undefined {
    const fail = (cause: string) =>
      void this.t.record({
        eventType: 'ContinueAsNewWorkflowExecutionFailed',
        attributes: { cause, decisionTaskCompletedEventId: this.dtc },
      });
    const current = this.t.state.workflowType;
    const workflowType = { name: current.name, version: a.workflowTypeVersion ?? current.version };
    const type = this.types.workflowType(workflowType);
    if (type === undefined) return fail('WORKFLOW_TYPE_DOES_NOT_EXIST');
    if (type.status === 'DEPRECATED') return fail('WORKFLOW_TYPE_DEPRECATED');
    const resolved = resolveExecutionConfig(a, type.configuration);
    if (!resolved.ok) return fail(missingDefaultCause[resolved.missing]);
    const c = resolved.config;
    const runId = this.newRunId();
    this.t.record({
      eventType: 'WorkflowExecutionContinuedAsNew',
      attributes: {
        ...(a.input === undefined ? {} : { input: a.input }),
        decisionTaskCompletedEventId: this.dtc,
        newExecutionRunId: runId,
        executionStartToCloseTimeout: c.executionStartToCloseTimeout,
        taskList: c.taskList,
        taskPriority: c.taskPriority,
        taskStartToCloseTimeout: c.taskStartToCloseTimeout,
        childPolicy: c.childPolicy,
        ...(a.tagList === undefined ? {} : { tagList: a.tagList }),
        workflowType,
        ...(c.lambdaRole === undefined ? {} : { lambdaRole: c.lambdaRole }),
      },
    });
    this.continuedRun = {
      runId,
      workflowType,
      request: c,
      ...(a.input === undefined ? {} : { input: a.input }),
      ...(a.tagList === undefined ? {} : { tagList: a.tagList }),
    };
  }

  /**
   * Validation failures are recorded without an Initiated event and with initiatedEventId 0; only
   * WORKFLOW_ALREADY_RUNNING, found when the child is started, follows an Initiated event.
   */
  private startChild(
    a: Extract<Decision, { decisionType: 'StartChildWorkflowExecution' }>['attributes'],
  ): undefined {
    const fail = (cause: string) =>
      void this.t.record({
        eventType: 'StartChildWorkflowExecutionFailed',
        attributes: {
          workflowType: a.workflowType,
          cause,
          workflowId: a.workflowId,
          initiatedEventId: 0,
          decisionTaskCompletedEventId: this.dtc,
          ...(a.control === undefined ? {} : { control: a.control }),
        },
      });
    const type = this.types.workflowType(a.workflowType);
    if (type === undefined) return fail('WORKFLOW_TYPE_DOES_NOT_EXIST');
    if (type.status === 'DEPRECATED') return fail('WORKFLOW_TYPE_DEPRECATED');
    if (Object.keys(this.t.state.children).length >= executionLimits.openChildren)
      return fail('OPEN_CHILDREN_LIMIT_EXCEEDED');
    if (this.openWorkflowsRoom <= 0) return fail('OPEN_WORKFLOWS_LIMIT_EXCEEDED');
    const resolved = resolveExecutionConfig(a, type.configuration);
    if (!resolved.ok) return fail(missingDefaultCause[resolved.missing]);
    const c = resolved.config;
    this.openWorkflowsRoom -= 1;
    this.t.record({
      eventType: 'StartChildWorkflowExecutionInitiated',
      attributes: {
        workflowId: a.workflowId,
        workflowType: a.workflowType,
        ...(a.control === undefined ? {} : { control: a.control }),
        ...(a.input === undefined ? {} : { input: a.input }),
        executionStartToCloseTimeout: c.executionStartToCloseTimeout,
        taskList: c.taskList,
        taskPriority: c.taskPriority,
        decisionTaskCompletedEventId: this.dtc,
        childPolicy: c.childPolicy,
        taskStartToCloseTimeout: c.taskStartToCloseTimeout,
        ...(a.tagList === undefined ? {} : { tagList: a.tagList }),
        ...(c.lambdaRole === undefined ? {} : { lambdaRole: c.lambdaRole }),
      },
    });
  }

  private scheduleLambda(
    a: Extract<Decision, { decisionType: 'ScheduleLambdaFunction' }>['attributes'],
  ): undefined {
    const open = this.t.state.lambdaFunctions;
    // Without a Lambda backend (a local server with no functions) SWF's own cause for "no Lambda here".
    // Without a lambdaRole "any attempt to schedule a Lambda task fails" (SWF's StartWorkflowExecution
    // reference); the cause SWF documents for a decision that lacks permissions.
    const cause = !this.lambdaAvailable
      ? 'LAMBDA_SERVICE_NOT_AVAILABLE_IN_REGION'
      : this.t.state.config.lambdaRole === undefined
        ? 'OPERATION_NOT_PERMITTED'
        : ownProperty(open, a.id) !== undefined
          ? 'ID_ALREADY_IN_USE'
          : Object.keys(open).length >= executionLimits.openLambdaFunctions
            ? 'OPEN_LAMBDA_FUNCTIONS_LIMIT_EXCEEDED'
            : undefined;
    if (cause !== undefined) {
      this.t.record({
        eventType: 'ScheduleLambdaFunctionFailed',
        attributes: { id: a.id, name: a.name, cause, decisionTaskCompletedEventId: this.dtc },
      });
      return;
    }
    this.t.record({
      eventType: 'LambdaFunctionScheduled',
      attributes: {
        ...a,
        startToCloseTimeout: a.startToCloseTimeout ?? '900',
        decisionTaskCompletedEventId: this.dtc,
      },
    });
  }
}
