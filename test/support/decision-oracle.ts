/**
 * An independent model of what SWF records for a run (the AWS API reference's Decision and
 * HistoryEvent pages), written for the decision-combination sweep without reading lib/core: the run's open
 * activities, timers and Lambda tasks, its decision task, and whether events that schedule a decision
 * task were recorded while the current one was out (UNHANDLED_DECISION). Each step returns the events
 * SWF appends, with every attribute it names.
 */
import {
  closeFailedEvent,
  closeKinds,
  type DecisionTaskStatus,
  type ExpectedEvent,
  type ModelDecision,
  type ModelWorld,
  type OpenActivity,
} from './decision-oracle-terms.js';

export {
  closeKinds,
  type ExpectedEvent,
  type ModelDecision,
  type ModelWorld,
} from './decision-oracle-terms.js';

/** How often each situation came up across all models (printed by the sweep, to judge its reach). */
export const situations = new Map<string, number>();
const saw = (situation: string) => situations.set(situation, (situations.get(situation) ?? 0) + 1);

/** Appends a decision's event; `schedulesDecisionTask` marks a decision task owed. */
type Recorder = (
  eventType: string,
  attributes: Record<string, unknown>,
  schedulesDecisionTask?: boolean,
) => number;

/** Activity types that lack a default the decision does not give, and the cause SWF records. */
const MISSING_DEFAULT: Record<string, string> = {
  'bare-no-taskList': 'DEFAULT_TASK_LIST_UNDEFINED',
  'bare-no-scheduleToStart': 'DEFAULT_SCHEDULE_TO_START_TIMEOUT_UNDEFINED',
  'bare-no-scheduleToClose': 'DEFAULT_SCHEDULE_TO_CLOSE_TIMEOUT_UNDEFINED',
  'bare-no-startToClose': 'DEFAULT_START_TO_CLOSE_TIMEOUT_UNDEFINED',
  'bare-no-heartbeat': 'DEFAULT_HEARTBEAT_TIMEOUT_UNDEFINED',
};

/** Why ScheduleActivityTask fails, in SWF's order: the type, then the id, then a missing default. */
function scheduleFailure(type: string, idInUse: boolean): string | undefined {
  if (type === 'ghost') return 'ACTIVITY_TYPE_DOES_NOT_EXIST';
  if (type === 'old') return 'ACTIVITY_TYPE_DEPRECATED';
  if (idInUse) return 'ACTIVITY_ID_ALREADY_IN_USE';
  return MISSING_DEFAULT[type];
}

export class RunModel {
  readonly events: ExpectedEvent[] = [];
  status: 'OPEN' | 'CLOSED' = 'OPEN';
  closeStatus: string | undefined;
  readonly activities = new Map<string, OpenActivity>();
  readonly timers = new Map<string, number>();
  readonly lambdas = new Map<string, { scheduledEventId: number; started: boolean }>();
  decisionTask: DecisionTaskStatus;
  /** An event that schedules a decision task was recorded after the started task's DecisionTaskStarted. */
  unseen = false;
  previousStartedEventId = 0;
  /** DescribeWorkflowExecution's latestExecutionContext: the last one a response gave. */
  latestExecutionContext: string | undefined;

  constructor(
    readonly world: ModelWorld,
    readonly taskList: string,
    readonly activityTaskList: string,
  ) {
    this.push({ eventType: 'WorkflowExecutionStarted', attributes: {}, loose: true });
    const scheduled = this.push(this.decisionTaskScheduled());
    this.decisionTask = { status: 'scheduled', scheduledEventId: scheduled };
  }

  get nextEventId() {
    return this.events.length + 1;
  }

  private push(event: ExpectedEvent): number {
    this.events.push(event);
    return this.events.length;
  }

  private decisionTaskScheduled(): ExpectedEvent {
    return {
      eventType: 'DecisionTaskScheduled',
      attributes: { taskList: { name: this.taskList } },
      loose: true,
    };
  }

  /**
   * An event from outside the decider (a worker, a signal, the service): one that schedules a decision
   * task adds DecisionTaskScheduled when none is open, nothing when one is scheduled, and leaves one
   * owed (UNHANDLED_DECISION) when one is started.
   */
  private external(event: ExpectedEvent, schedulesDecisionTask: boolean): number {
    saw(`${event.eventType} while the decision task is ${this.decisionTask.status}`);
    const id = this.push(event);
    if (!schedulesDecisionTask) return id;
    if (this.decisionTask.status === 'none') {
      const scheduled = this.push(this.decisionTaskScheduled());
      this.decisionTask = { status: 'scheduled', scheduledEventId: scheduled };
    } else if (this.decisionTask.status === 'started') {
      this.unseen = true;
    }
    return id;
  }

  signal(signalName: string, input: string): void {
    this.external(
      { eventType: 'WorkflowExecutionSignaled', attributes: { signalName, input } },
      true,
    );
  }

  decisionTaskStarted(identity: string): number {
    const task = this.decisionTask;
    if (task.status !== 'scheduled') throw new Error('model: no scheduled decision task');
    const started = this.push({
      eventType: 'DecisionTaskStarted',
      attributes: { identity, scheduledEventId: task.scheduledEventId },
    });
    this.decisionTask = {
      status: 'started',
      scheduledEventId: task.scheduledEventId,
      startedEventId: started,
    };
    this.unseen = false;
    return started;
  }

  /** Activities scheduled and not started: the ones a poll may hand out. */
  waitingActivities(): OpenActivity[] {
    return [...this.activities.values()].filter((a) => a.startedEventId === undefined);
  }

  /** The one a poll hands out: highest taskPriority, then the oldest. */
  nextActivity(): OpenActivity | undefined {
    return this.waitingActivities().sort(
      (a, b) => b.taskPriority - a.taskPriority || a.scheduledEventId - b.scheduledEventId,
    )[0];
  }

  startedActivities(): OpenActivity[] {
    return [...this.activities.values()].filter((a) => a.startedEventId !== undefined);
  }

  activityStarted(activityId: string, identity: string): number {
    const activity = this.activities.get(activityId);
    if (activity === undefined || activity.startedEventId !== undefined)
      throw new Error(`model: ${activityId} is not waiting`);
    activity.startedEventId = this.external(
      {
        eventType: 'ActivityTaskStarted',
        attributes: { identity, scheduledEventId: activity.scheduledEventId },
      },
      false,
    );
    return activity.startedEventId;
  }

  activityCompleted(activityId: string, result: string): void {
    const activity = this.activities.get(activityId);
    if (activity?.startedEventId === undefined) throw new Error('model: not started');
    this.activities.delete(activityId);
    this.external(
      {
        eventType: 'ActivityTaskCompleted',
        attributes: {
          result,
          scheduledEventId: activity.scheduledEventId,
          startedEventId: activity.startedEventId,
        },
      },
      true,
    );
  }

  /** The worker answers a cancel request with RespondActivityTaskCanceled. */
  activityCanceledByWorker(activityId: string, details: string): void {
    const activity = this.activities.get(activityId);
    if (activity?.startedEventId === undefined) throw new Error('model: not started');
    this.activities.delete(activityId);
    this.external(
      {
        eventType: 'ActivityTaskCanceled',
        attributes: {
          details,
          scheduledEventId: activity.scheduledEventId,
          startedEventId: activity.startedEventId,
          ...(activity.latestCancelRequestedEventId === undefined
            ? {}
            : { latestCancelRequestedEventId: activity.latestCancelRequestedEventId }),
        },
      },
      true,
    );
  }

  /** The service starts each Lambda task it scheduled (LambdaFunctionStarted schedules no task). */
  lambdasStarted(): void {
    for (const fn of this.lambdas.values()) {
      if (fn.started) continue;
      fn.started = true;
      this.external(
        {
          eventType: 'LambdaFunctionStarted',
          attributes: { scheduledEventId: fn.scheduledEventId },
        },
        false,
      );
    }
  }

  /**
   * Whether RespondDecisionTaskCompleted refuses the list as a whole: a close decision must be the last
   * one (SWF's message: "Close must be last decision in list"), so two close decisions are
   * refused too.
   */
  static refuses(decisions: readonly ModelDecision[]): boolean {
    return decisions.some((d, i) => closeKinds.has(d.kind) && i !== decisions.length - 1);
  }

  /**
   * RespondDecisionTaskCompleted with a list the service takes: DecisionTaskCompleted, each decision's
   * event(s) in order, and, if the run is still open and a decision task is owed (events the decider
   * has not seen, or a decision's own event that schedules one), DecisionTaskScheduled after them all.
   */
  respond(decisions: readonly ModelDecision[], executionContext?: string): void {
    const task = this.decisionTask;
    if (task.status !== 'started') throw new Error('model: no started decision task');
    if (RunModel.refuses(decisions)) throw new Error('model: the service refuses this list');
    const dtc = this.push({
      eventType: 'DecisionTaskCompleted',
      attributes: {
        ...(executionContext === undefined ? {} : { executionContext }),
        scheduledEventId: task.scheduledEventId,
        startedEventId: task.startedEventId,
      },
    });
    this.previousStartedEventId = task.startedEventId;
    if (executionContext !== undefined) this.latestExecutionContext = executionContext;
    this.decisionTask = { status: 'none' };
    const unseen = this.unseen;
    this.unseen = false;
    let owed = unseen;
    const record: Recorder = (eventType, attributes, dt = false) => {
      if (dt) owed = true;
      return this.push({
        eventType,
        attributes: { ...attributes, decisionTaskCompletedEventId: dtc },
      });
    };
    for (const d of decisions) {
      if (this.status !== 'OPEN') break;
      if (closeKinds.has(d.kind)) {
        saw(`close ${d.kind}${unseen ? ' UNHANDLED_DECISION' : ''}`);
        if (this.activities.size > 0) saw('close with open activities');
        if (this.timers.size > 0) saw('close with open timers');
        if (this.lambdas.size > 0) saw('close with open Lambda tasks');
        if (owed && !unseen) saw('close after a failed decision in the same list');
      }
      if (closeKinds.has(d.kind) && unseen) {
        const failed = closeFailedEvent[d.kind] ?? '';
        record(failed, { cause: 'UNHANDLED_DECISION' }, true);
        continue;
      }
      this.apply(d, record, () => {
        owed = true;
      });
    }
    if (this.status === 'OPEN' && owed) {
      const scheduled = this.push(this.decisionTaskScheduled());
      this.decisionTask = { status: 'scheduled', scheduledEventId: scheduled };
    }
  }

  /** Records what decision `d` adds to the history; `owe` marks a decision task owed. */
  private apply(d: ModelDecision, record: Recorder, owe: () => void): undefined {
    switch (d.kind) {
      case 'schedule':
        return this.schedule(d, record);
      case 'cancelActivity':
        return this.cancelActivity(d.activityId, record, owe);
      case 'startTimer':
        return this.startTimer(d, record);
      case 'cancelTimer':
        return this.cancelTimer(d.timerId, record);
      case 'marker':
        record('MarkerRecorded', {
          markerName: d.markerName,
          ...(d.details === undefined ? {} : { details: d.details }),
        });
        return;
      case 'lambda':
        return this.scheduleLambda(d, record);
      case 'complete':
        record('WorkflowExecutionCompleted', d.result === undefined ? {} : { result: d.result });
        return this.close('COMPLETED');
      case 'fail':
        record('WorkflowExecutionFailed', {
          ...(d.reason === undefined ? {} : { reason: d.reason }),
          ...(d.details === undefined ? {} : { details: d.details }),
        });
        return this.close('FAILED');
      case 'cancel':
        record('WorkflowExecutionCanceled', d.details === undefined ? {} : { details: d.details });
        return this.close('CANCELED');
      case 'continueAsNew':
        return this.continueAsNew(d.input, record);
      case 'continueAsNewUnknownVersion':
        record(
          'ContinueAsNewWorkflowExecutionFailed',
          { cause: 'WORKFLOW_TYPE_DOES_NOT_EXIST' },
          true,
        );
        return;
    }
  }

  /** ScheduleActivityTask: the type is checked first, then the id, then the type's defaults. */
  private schedule(d: Extract<ModelDecision, { kind: 'schedule' }>, record: Recorder): undefined {
    const activityType = this.activityTypeOf(d.type);
    const cause = scheduleFailure(d.type, this.activities.has(d.activityId));
    if (cause !== undefined) {
      saw(`ScheduleActivityTaskFailed ${cause}`);
      record('ScheduleActivityTaskFailed', { activityType, activityId: d.activityId, cause }, true);
      return;
    }
    const w = this.world;
    const timeouts =
      d.type === 'act'
        ? {
            scheduleToStartTimeout: w.actDefaults.scheduleToStartTimeout,
            scheduleToCloseTimeout: w.actDefaults.scheduleToCloseTimeout,
            startToCloseTimeout: w.actDefaults.startToCloseTimeout,
            heartbeatTimeout: w.actDefaults.heartbeatTimeout,
          }
        : { ...w.bareValues };
    const priority = d.taskPriority ?? (d.type === 'act' ? w.actDefaults.taskPriority : '0');
    const scheduledEventId = record('ActivityTaskScheduled', {
      activityType,
      activityId: d.activityId,
      ...(d.input === undefined ? {} : { input: d.input }),
      ...(d.control === undefined ? {} : { control: d.control }),
      ...timeouts,
      taskList: { name: this.activityTaskList },
      taskPriority: priority,
    });
    this.activities.set(d.activityId, {
      activityId: d.activityId,
      scheduledEventId,
      taskPriority: Number(priority),
    });
  }

  private activityTypeOf(type: Extract<ModelDecision, { kind: 'schedule' }>['type']) {
    const w = this.world;
    if (type === 'act') return w.activityTypes.act;
    if (type === 'old') return w.activityTypes.old;
    if (type === 'ghost') return w.ghostType;
    return w.activityTypes.bare;
  }

  /** RequestCancelActivityTask: a task not yet handed to a worker is canceled at once. */
  private cancelActivity(activityId: string, record: Recorder, owe: () => void): undefined {
    const activity = this.activities.get(activityId);
    saw(
      `RequestCancelActivityTask ${activity === undefined ? 'unknown' : activity.startedEventId === undefined ? 'scheduled' : 'started'}`,
    );
    if (activity === undefined) {
      record('RequestCancelActivityTaskFailed', { activityId, cause: 'ACTIVITY_ID_UNKNOWN' }, true);
      return;
    }
    const requested = record('ActivityTaskCancelRequested', { activityId });
    activity.latestCancelRequestedEventId = requested;
    if (activity.startedEventId !== undefined) return;
    this.activities.delete(activityId);
    this.push({
      eventType: 'ActivityTaskCanceled',
      attributes: {
        scheduledEventId: activity.scheduledEventId,
        startedEventId: 0,
        latestCancelRequestedEventId: requested,
      },
    });
    owe();
  }

  private startTimer(
    d: Extract<ModelDecision, { kind: 'startTimer' }>,
    record: Recorder,
  ): undefined {
    saw(`StartTimer ${this.timers.has(d.timerId) ? 'in use' : 'free'}`);
    if (this.timers.has(d.timerId)) {
      record('StartTimerFailed', { timerId: d.timerId, cause: 'TIMER_ID_ALREADY_IN_USE' }, true);
      return;
    }
    const started = record('TimerStarted', {
      timerId: d.timerId,
      ...(d.control === undefined ? {} : { control: d.control }),
      startToFireTimeout: d.startToFireTimeout,
    });
    this.timers.set(d.timerId, started);
  }

  private cancelTimer(timerId: string, record: Recorder): undefined {
    const started = this.timers.get(timerId);
    saw(`CancelTimer ${started === undefined ? 'unknown' : 'open'}`);
    if (started === undefined) {
      record('CancelTimerFailed', { timerId, cause: 'TIMER_ID_UNKNOWN' }, true);
      return;
    }
    this.timers.delete(timerId);
    record('TimerCanceled', { timerId, startedEventId: started });
  }

  private scheduleLambda(
    d: Extract<ModelDecision, { kind: 'lambda' }>,
    record: Recorder,
  ): undefined {
    const w = this.world;
    saw(`ScheduleLambdaFunction ${this.lambdas.has(d.id) ? 'in use' : 'free'}`);
    if (this.lambdas.has(d.id)) {
      const attributes = { id: d.id, name: w.lambdaName, cause: 'ID_ALREADY_IN_USE' };
      record('ScheduleLambdaFunctionFailed', attributes, true);
      return;
    }
    const scheduledEventId = record('LambdaFunctionScheduled', {
      id: d.id,
      name: w.lambdaName,
      ...(d.control === undefined ? {} : { control: d.control }),
      ...(d.input === undefined ? {} : { input: d.input }),
      startToCloseTimeout: w.lambdaTimeout,
    });
    this.lambdas.set(d.id, { scheduledEventId, started: false });
  }

  /** WorkflowExecutionContinuedAsNew, whose new run id the model cannot know: checked loosely. */
  private continueAsNew(input: string | undefined, record: Recorder): undefined {
    const w = this.world;
    const id = record('WorkflowExecutionContinuedAsNew', {
      ...(input === undefined ? {} : { input }),
      taskList: { name: this.taskList },
      workflowType: w.workflowType,
      ...w.continued,
    });
    const event = this.events[id - 1];
    if (event !== undefined) this.events[id - 1] = { ...event, loose: true };
    return this.close('CONTINUED_AS_NEW');
  }

  /** Closing abandons what is open: no events for it, nothing open any more. */
  private close(closeStatus: string): undefined {
    this.status = 'CLOSED';
    this.closeStatus = closeStatus;
    this.decisionTask = { status: 'none' };
    this.activities.clear();
    this.timers.clear();
    this.lambdas.clear();
  }

  openCounts() {
    return {
      openActivityTasks: this.activities.size,
      openDecisionTasks: this.decisionTask.status === 'none' ? 0 : 1,
      openTimers: this.timers.size,
      openChildWorkflowExecutions: 0,
      openLambdaFunctions: this.lambdas.size,
    };
  }
}
