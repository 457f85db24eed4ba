/**
 * An independent model of Amazon SWF's timeouts for one workflow execution, written from the SWF API
 * reference and developer guide ("Amazon SWF Timeout Types", ActivityTaskTimedOut, DecisionTaskTimedOut,
 * WorkflowExecutionTimedOut, RecordActivityTaskHeartbeat, RespondDecisionTaskCompleted).
 * It shares no code with lib/: it keeps its own ledger of what is open and
 * when each timeout falls due (in integer milliseconds), and predicts the history, the open counts and
 * which calls SWF refuses.
 *
 * What the documentation leaves open is decided here as noted (each one is listed in the sweep's report):
 * - deadlines that fall due at the same millisecond fire in a fixed order: the execution's own timeout,
 *   then timers, activities (each: SCHEDULE_TO_START, SCHEDULE_TO_CLOSE, START_TO_CLOSE, HEARTBEAT) and
 *   the decision task, each by event id;
 * - a call that arrives at or after a deadline (before the timer service has recorded it) is too late;
 * - a temporary task-list override is also reverted when the task started on it hits START_TO_CLOSE.
 */
import {
  type Activity,
  activityTimeouts,
  type Deadline,
  type DecisionTask,
  type Dur,
  type OracleConfig,
  type OracleDecision,
  type OracleEvent,
  type Outcome,
  openCountsOf,
  pendingDeadlines,
  refused,
  type TaskRef,
  type Timer,
} from './timeout-oracle-terms.js';

export type {
  ActivityDefaults,
  Deadline,
  Dur,
  OracleConfig,
  OracleDecision,
  OracleEvent,
  Outcome,
  TaskRef,
} from './timeout-oracle-terms.js';

export class TimeoutOracle {
  readonly events: OracleEvent[] = [];
  status: 'OPEN' | 'CLOSED' = 'OPEN';
  closeStatus: string | undefined;
  /** The ledger: open activities and timers, and the decision task. */
  readonly activities = new Map<string, Activity>();
  readonly timers = new Map<string, Timer>();
  decision: DecisionTask = { status: 'none' };
  private owed = false;
  /** Inside RespondDecisionTaskCompleted: a decision task owed is scheduled after every decision. */
  private responding = false;
  private override: { list: string; timeout?: Dur } | undefined;
  private previousStartedEventId = 0;

  constructor(readonly config: OracleConfig) {
    this.record(config.startAt, 'WorkflowExecutionStarted', {
      executionStartToCloseTimeout: config.executionStartToCloseTimeout,
      taskStartToCloseTimeout: config.taskStartToCloseTimeout,
      childPolicy: config.childPolicy,
      taskList: { name: config.taskList },
      workflowType: config.workflowType,
    });
    this.scheduleDecisionTask(config.startAt);
  }

  // ---- reading the model ----

  openCounts() {
    return openCountsOf(this, this.status === 'OPEN');
  }

  /** The list the scheduled decision task waits on, if one waits. */
  decisionTaskList(): string | undefined {
    return this.decision.status === 'scheduled' ? this.decision.taskList : undefined;
  }

  /** Tasks scheduled on a list and not yet handed out (CountPending{Decision,Activity}Tasks). */
  pendingTasks(kind: 'decision' | 'activity', list: string): number {
    if (this.status !== 'OPEN') return 0;
    if (kind === 'decision') return this.decisionTaskList() === list ? 1 : 0;
    return [...this.activities.values()].filter(
      (a) => a.taskList === list && a.startedEventId === undefined,
    ).length;
  }

  /** Ids of the open activities, not started or started. */
  activityIds(started: boolean): string[] {
    return [...this.activities.values()]
      .filter((a) => (a.startedEventId !== undefined) === started)
      .map((a) => a.activityId);
  }

  /** Every pending deadline, in the order SWF fires them. */
  deadlines(): Deadline[] {
    return this.status === 'OPEN' ? pendingDeadlines(this) : [];
  }

  /** The next deadline of a task or timer. */
  nextTaskDeadline(): Deadline | undefined {
    return this.deadlines().find((d) => d.kind !== 'execution');
  }

  /** The started decision task, if one is. */
  startedDecisionTask(): TaskRef | undefined {
    const d = this.decision;
    return d.status === 'started'
      ? { scheduledEventId: d.scheduledEventId, startedEventId: d.startedEventId }
      : undefined;
  }

  // ---- the timer service ----

  /**
   * Records every deadline due by `until`, earliest first. `stamp` is when each is recorded: at its own
   * time but never before `notBefore` (a punctual timer service that had fallen behind), or all at
   * `until` (a late one).
   */
  fireUpTo(until: number, stamp: 'own' | 'until', notBefore: number): void {
    for (;;) {
      const d = this.deadlines()[0];
      if (d === undefined || d.at > until) return;
      this.fire(d, stamp === 'until' ? until : Math.max(d.at, notBefore));
    }
  }

  private fire(d: Deadline, at: number): void {
    switch (d.kind) {
      case 'execution':
        this.record(at, 'WorkflowExecutionTimedOut', {
          timeoutType: 'START_TO_CLOSE',
          childPolicy: this.config.childPolicy,
        });
        this.close('TIMED_OUT');
        return;
      case 'timer': {
        const t = this.timers.get(d.timerId);
        if (t === undefined) return;
        this.timers.delete(d.timerId);
        this.record(at, 'TimerFired', { timerId: t.timerId, startedEventId: t.startedEventId });
        this.trigger(at);
        return;
      }
      case 'activity': {
        const a = this.activities.get(d.activityId);
        if (a === undefined) return;
        this.activities.delete(d.activityId);
        // "Contains the content of the details parameter for the last call made by the activity to
        // RecordActivityTaskHeartbeat" (ActivityTaskTimedOutEventAttributes), whatever the timeout.
        this.record(at, 'ActivityTaskTimedOut', {
          timeoutType: d.timeoutType,
          scheduledEventId: a.scheduledEventId,
          startedEventId: a.startedEventId ?? 0,
          ...(a.beatDetails === undefined ? {} : { details: a.beatDetails }),
        });
        this.trigger(at);
        return;
      }
      case 'decision': {
        const task = this.decision;
        if (task.status === 'none') return;
        this.record(at, 'DecisionTaskTimedOut', {
          timeoutType: d.timeoutType,
          scheduledEventId: task.scheduledEventId,
          startedEventId: task.status === 'started' ? task.startedEventId : 0,
        });
        this.decision = { status: 'none' };
        // "Amazon SWF will revert the override and schedule a new decision task to the original task
        // list" (RespondDecisionTaskCompleted, taskListScheduleToStartTimeout).
        if (this.override?.timeout !== undefined) this.override = undefined;
        this.scheduleDecisionTask(at);
        return;
      }
    }
  }

  // ---- calls ----

  pollForDecisionTask(list: string, now: number, identity: string): Outcome<TaskRef | undefined> {
    const d = this.decision;
    if (this.status !== 'OPEN' || d.status !== 'scheduled' || d.taskList !== list)
      return { ok: true, value: undefined };
    if (this.passed(now, (x) => x.kind === 'decision')) return { ok: true, value: undefined };
    const started = this.record(now, 'DecisionTaskStarted', {
      identity,
      scheduledEventId: d.scheduledEventId,
    });
    this.decision = {
      status: 'started',
      scheduledEventId: d.scheduledEventId,
      startedEventId: started.eventId,
      startedAt: now,
      taskList: d.taskList,
    };
    return {
      ok: true,
      value: { scheduledEventId: d.scheduledEventId, startedEventId: started.eventId },
    };
  }

  previousStarted(): number {
    return this.previousStartedEventId;
  }

  respondDecisionTaskCompleted(
    token: TaskRef,
    now: number,
    decisions: readonly OracleDecision[],
    override?: { list: string; timeout?: Dur },
  ): Outcome {
    const d = this.decision;
    if (this.status !== 'OPEN') return refused;
    if (d.status !== 'started' || d.startedEventId !== token.startedEventId) return refused;
    if (this.passed(now, (x) => x.kind === 'decision')) return refused;
    const completed = this.record(now, 'DecisionTaskCompleted', {
      scheduledEventId: d.scheduledEventId,
      startedEventId: d.startedEventId,
      ...(override === undefined
        ? {}
        : {
            taskList: { name: override.list },
            ...(override.timeout === undefined
              ? {}
              : { taskListScheduleToStartTimeout: override.timeout }),
          }),
    });
    if (override !== undefined)
      this.override = {
        list: override.list,
        ...(override.timeout === undefined || override.timeout === 'NONE'
          ? {}
          : { timeout: override.timeout }),
      };
    this.decision = { status: 'none' };
    this.previousStartedEventId = d.startedEventId;
    this.responding = true;
    const dtc = completed.eventId;
    for (const decision of decisions) this.apply(decision, dtc, now);
    this.responding = false;
    if (this.owed) this.scheduleDecisionTask(now);
    return { ok: true, value: undefined };
  }

  private apply(x: OracleDecision, dtc: number, now: number): void {
    if (x.kind === 'schedule') this.scheduleActivity(x, dtc, now);
    else if (x.kind === 'cancelActivity') this.cancelActivity(x.activityId, dtc, now);
    else if (x.kind === 'startTimer') this.startTimer(x.timerId, x.seconds, dtc, now);
    else this.cancelTimer(x.timerId, dtc, now);
  }

  private scheduleActivity(
    x: Extract<OracleDecision, { kind: 'schedule' }>,
    dtc: number,
    now: number,
  ): void {
    const type = { name: x.typeName, version: '1' };
    const defaults = this.config.activityTypes[x.typeName];
    const timeouts =
      defaults === undefined
        ? { cause: 'ACTIVITY_TYPE_DOES_NOT_EXIST' }
        : this.activities.has(x.activityId)
          ? { cause: 'ACTIVITY_ID_ALREADY_IN_USE' }
          : activityTimeouts(x.timeouts, defaults);
    if ('cause' in timeouts) {
      this.record(now, 'ScheduleActivityTaskFailed', {
        activityType: type,
        activityId: x.activityId,
        cause: timeouts.cause,
        decisionTaskCompletedEventId: dtc,
      });
      this.trigger(now);
      return;
    }
    const scheduled = this.record(now, 'ActivityTaskScheduled', {
      activityType: type,
      activityId: x.activityId,
      scheduleToStartTimeout: timeouts.scheduleToStart,
      scheduleToCloseTimeout: timeouts.scheduleToClose,
      startToCloseTimeout: timeouts.startToClose,
      taskList: { name: x.taskList },
      taskPriority: '0',
      decisionTaskCompletedEventId: dtc,
      heartbeatTimeout: timeouts.heartbeat,
    });
    this.activities.set(x.activityId, {
      activityId: x.activityId,
      activityType: type,
      scheduledEventId: scheduled.eventId,
      scheduledAt: now,
      taskList: x.taskList,
      timeouts,
    });
  }

  private cancelActivity(activityId: string, dtc: number, now: number): void {
    const a = this.activities.get(activityId);
    if (a === undefined) {
      this.record(now, 'RequestCancelActivityTaskFailed', {
        activityId,
        cause: 'ACTIVITY_ID_UNKNOWN',
        decisionTaskCompletedEventId: dtc,
      });
      this.trigger(now);
      return;
    }
    const requested = this.record(now, 'ActivityTaskCancelRequested', {
      activityId,
      decisionTaskCompletedEventId: dtc,
    });
    a.cancelRequestedEventId = requested.eventId;
    if (a.startedEventId !== undefined) return;
    this.activities.delete(activityId);
    this.record(now, 'ActivityTaskCanceled', {
      scheduledEventId: a.scheduledEventId,
      startedEventId: 0,
      latestCancelRequestedEventId: requested.eventId,
    });
    this.trigger(now);
  }

  private startTimer(timerId: string, seconds: number, dtc: number, now: number): void {
    if (this.timers.has(timerId)) {
      this.record(now, 'StartTimerFailed', {
        timerId,
        cause: 'TIMER_ID_ALREADY_IN_USE',
        decisionTaskCompletedEventId: dtc,
      });
      this.trigger(now);
      return;
    }
    const started = this.record(now, 'TimerStarted', {
      timerId,
      startToFireTimeout: String(seconds),
      decisionTaskCompletedEventId: dtc,
    });
    this.timers.set(timerId, {
      timerId,
      startedEventId: started.eventId,
      fireAt: now + seconds * 1000,
    });
  }

  private cancelTimer(timerId: string, dtc: number, now: number): void {
    const t = this.timers.get(timerId);
    if (t === undefined) {
      this.record(now, 'CancelTimerFailed', {
        timerId,
        cause: 'TIMER_ID_UNKNOWN',
        decisionTaskCompletedEventId: dtc,
      });
      this.trigger(now);
      return;
    }
    this.timers.delete(timerId);
    this.record(now, 'TimerCanceled', {
      timerId,
      startedEventId: t.startedEventId,
      decisionTaskCompletedEventId: dtc,
    });
  }

  pollForActivityTask(
    list: string,
    now: number,
    identity: string,
  ): Outcome<(TaskRef & { activityId: string }) | undefined> {
    if (this.status !== 'OPEN') return { ok: true, value: undefined };
    const waiting = [...this.activities.values()]
      .filter((a) => a.taskList === list && a.startedEventId === undefined)
      .filter(
        (a) => !this.passed(now, (x) => x.kind === 'activity' && x.activityId === a.activityId),
      )
      .sort((a, b) => a.scheduledEventId - b.scheduledEventId);
    const a = waiting[0];
    if (a === undefined) return { ok: true, value: undefined };
    const started = this.record(now, 'ActivityTaskStarted', {
      identity,
      scheduledEventId: a.scheduledEventId,
    });
    a.startedEventId = started.eventId;
    a.startedAt = now;
    return {
      ok: true,
      value: {
        activityId: a.activityId,
        scheduledEventId: a.scheduledEventId,
        startedEventId: started.eventId,
      },
    };
  }

  private startedActivity(token: TaskRef, now: number): Activity | undefined {
    if (this.status !== 'OPEN') return undefined;
    const a = [...this.activities.values()].find(
      (x) => x.scheduledEventId === token.scheduledEventId,
    );
    if (a === undefined || a.startedEventId !== token.startedEventId) return undefined;
    if (this.passed(now, (x) => x.kind === 'activity' && x.activityId === a.activityId))
      return undefined;
    return a;
  }

  recordActivityTaskHeartbeat(
    token: TaskRef,
    now: number,
    details: string | undefined,
  ): Outcome<{ cancelRequested: boolean }> {
    const a = this.startedActivity(token, now);
    if (a === undefined) return refused;
    a.beatAt = now;
    a.beaten = true;
    a.beatDetails = details;
    return { ok: true, value: { cancelRequested: a.cancelRequestedEventId !== undefined } };
  }

  respondActivityTask(
    token: TaskRef,
    now: number,
    how: 'completed' | 'failed' | 'canceled',
  ): Outcome {
    const a = this.startedActivity(token, now);
    if (a === undefined) return refused;
    this.activities.delete(a.activityId);
    const ids = { scheduledEventId: a.scheduledEventId, startedEventId: token.startedEventId };
    if (how === 'completed') this.record(now, 'ActivityTaskCompleted', { result: 'r', ...ids });
    if (how === 'failed') this.record(now, 'ActivityTaskFailed', { reason: 'f', ...ids });
    if (how === 'canceled')
      this.record(now, 'ActivityTaskCanceled', {
        details: 'c',
        ...ids,
        ...(a.cancelRequestedEventId === undefined
          ? {}
          : { latestCancelRequestedEventId: a.cancelRequestedEventId }),
      });
    this.trigger(now);
    return { ok: true, value: undefined };
  }

  signal(now: number): Outcome {
    if (this.status !== 'OPEN' || this.passed(now, () => false)) return refused;
    this.record(now, 'WorkflowExecutionSignaled', { signalName: 's', input: 'i' });
    this.trigger(now);
    return { ok: true, value: undefined };
  }

  // ---- bookkeeping ----

  /** A deadline of the execution itself, or one `mine` picks, has passed by `now`. */
  private passed(now: number, mine: (d: Deadline) => boolean): boolean {
    return this.deadlines().some((d) => d.at <= now && (d.kind === 'execution' || mine(d)));
  }

  /** An event the decider has not seen arrived: a decision task is owed. */
  private trigger(now: number): void {
    if (this.status !== 'OPEN') return;
    if (this.responding || this.decision.status === 'started') {
      this.owed = true;
      return;
    }
    if (this.decision.status === 'none') this.scheduleDecisionTask(now);
  }

  private scheduleDecisionTask(now: number): void {
    const list = this.override?.list ?? this.config.taskList;
    const scheduled = this.record(now, 'DecisionTaskScheduled', {
      taskList: { name: list },
      taskPriority: '0',
      startToCloseTimeout: this.config.taskStartToCloseTimeout,
      scheduleToStartTimeout: this.override?.timeout ?? 'NONE',
    });
    this.owed = false;
    this.decision = {
      status: 'scheduled',
      scheduledEventId: scheduled.eventId,
      scheduledAt: now,
      taskList: list,
      ...(this.override?.timeout === undefined ? {} : { scheduleToStart: this.override.timeout }),
    };
  }

  private close(status: string): void {
    this.status = 'CLOSED';
    this.closeStatus = status;
    this.activities.clear();
    this.timers.clear();
    this.decision = { status: 'none' };
  }

  private record(at: number, eventType: string, attributes: Record<string, unknown>): OracleEvent {
    const event = { eventId: this.events.length + 1, eventType, attributes, at };
    this.events.push(event);
    return event;
  }
}
