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

export type Dur = string;

export interface OracleEvent {
  readonly eventId: number;
  readonly eventType: string;
  readonly attributes: Record<string, unknown>;
  /** When SWF records it, epoch milliseconds. */
  readonly at: number;
}

export interface ActivityDefaults {
  readonly scheduleToStart?: Dur;
  readonly scheduleToClose?: Dur;
  readonly startToClose?: Dur;
  readonly heartbeat?: Dur;
}

export interface OracleConfig {
  readonly startAt: number;
  readonly taskList: string;
  readonly taskStartToCloseTimeout: Dur;
  readonly executionStartToCloseTimeout: Dur;
  readonly childPolicy: string;
  readonly workflowType: { name: string; version: string };
  /** Registered activity types by name (version "1"), with the defaults each was registered with. */
  readonly activityTypes: Readonly<Record<string, ActivityDefaults>>;
}

interface Activity {
  readonly activityId: string;
  readonly activityType: { name: string; version: string };
  readonly scheduledEventId: number;
  readonly scheduledAt: number;
  readonly taskList: string;
  readonly timeouts: Required<ActivityDefaults>;
  startedEventId?: number;
  startedAt?: number;
  /** Time of the latest heartbeat, and the details it carried. */
  beatAt?: number;
  beatDetails?: string | undefined;
  beaten?: boolean;
  cancelRequestedEventId?: number;
}

interface Timer {
  readonly timerId: string;
  readonly startedEventId: number;
  readonly fireAt: number;
}

type DecisionTask =
  | { readonly status: 'none' }
  | {
      readonly status: 'scheduled';
      readonly scheduledEventId: number;
      readonly scheduledAt: number;
      readonly taskList: string;
      readonly scheduleToStart?: Dur;
    }
  | {
      readonly status: 'started';
      readonly scheduledEventId: number;
      readonly startedEventId: number;
      readonly startedAt: number;
      readonly taskList: string;
    };

export type Deadline =
  | { readonly at: number; readonly rank: number; readonly kind: 'execution' }
  | { readonly at: number; readonly rank: number; readonly kind: 'timer'; readonly timerId: string }
  | {
      readonly at: number;
      readonly rank: number;
      readonly kind: 'activity';
      readonly activityId: string;
      readonly timeoutType:
        | 'SCHEDULE_TO_START'
        | 'SCHEDULE_TO_CLOSE'
        | 'START_TO_CLOSE'
        | 'HEARTBEAT';
    }
  | {
      readonly at: number;
      readonly rank: number;
      readonly kind: 'decision';
      readonly timeoutType: 'START_TO_CLOSE' | 'SCHEDULE_TO_START';
    };

/** What the decider sends back, in the oracle's terms. */
export type OracleDecision =
  | {
      readonly kind: 'schedule';
      readonly activityId: string;
      readonly typeName: string;
      readonly taskList: string;
      readonly timeouts: ActivityDefaults;
    }
  | { readonly kind: 'cancelActivity'; readonly activityId: string }
  | { readonly kind: 'startTimer'; readonly timerId: string; readonly seconds: number }
  | { readonly kind: 'cancelTimer'; readonly timerId: string };

export interface TaskRef {
  readonly scheduledEventId: number;
  readonly startedEventId: number;
}

export type Outcome<T = undefined> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly fault: 'UnknownResourceFault' };

const refused = { ok: false, fault: 'UnknownResourceFault' } as const;
const ms = (d: Dur): number | undefined => (d === 'NONE' ? undefined : Number(d) * 1000);
const ACTIVITY_TIMEOUT_ORDER = [
  'SCHEDULE_TO_START',
  'SCHEDULE_TO_CLOSE',
  'START_TO_CLOSE',
  'HEARTBEAT',
] as const;

export class TimeoutOracle {
  readonly events: OracleEvent[] = [];
  status: 'OPEN' | 'CLOSED' = 'OPEN';
  closeStatus: string | undefined;
  private readonly activities = new Map<string, Activity>();
  private readonly timers = new Map<string, Timer>();
  private decision: DecisionTask = { status: 'none' };
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
    if (this.status !== 'OPEN')
      return {
        openActivityTasks: 0,
        openDecisionTasks: 0,
        openTimers: 0,
        openChildWorkflowExecutions: 0,
        openLambdaFunctions: 0,
      };
    return {
      openActivityTasks: this.activities.size,
      openDecisionTasks: this.decision.status === 'none' ? 0 : 1,
      openTimers: this.timers.size,
      openChildWorkflowExecutions: 0,
      openLambdaFunctions: 0,
    };
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
    if (this.status !== 'OPEN') return [];
    const out: Deadline[] = [];
    const x = ms(this.config.executionStartToCloseTimeout);
    if (x !== undefined) out.push({ kind: 'execution', at: this.config.startAt + x, rank: 0 });
    for (const t of this.timers.values())
      out.push({ kind: 'timer', timerId: t.timerId, at: t.fireAt, rank: 1e6 + t.startedEventId });
    for (const a of this.activities.values()) {
      const due: Record<(typeof ACTIVITY_TIMEOUT_ORDER)[number], number | undefined> = {
        SCHEDULE_TO_START: add(
          a.startedAt === undefined ? a.scheduledAt : undefined,
          a.timeouts.scheduleToStart,
        ),
        SCHEDULE_TO_CLOSE: add(a.scheduledAt, a.timeouts.scheduleToClose),
        START_TO_CLOSE: add(a.startedAt, a.timeouts.startToClose),
        HEARTBEAT: add(
          a.startedAt === undefined ? undefined : (a.beatAt ?? a.startedAt),
          a.timeouts.heartbeat,
        ),
      };
      ACTIVITY_TIMEOUT_ORDER.forEach((timeoutType, i) => {
        const at = due[timeoutType];
        if (at !== undefined)
          out.push({
            kind: 'activity',
            activityId: a.activityId,
            timeoutType,
            at,
            rank: 2e6 + a.scheduledEventId * 10 + i,
          });
      });
    }
    const d = this.decision;
    if (d.status === 'started') {
      const at = add(d.startedAt, this.config.taskStartToCloseTimeout);
      if (at !== undefined)
        out.push({ kind: 'decision', timeoutType: 'START_TO_CLOSE', at, rank: 3e6 });
    }
    if (d.status === 'scheduled' && d.scheduleToStart !== undefined) {
      const at = add(d.scheduledAt, d.scheduleToStart);
      if (at !== undefined)
        out.push({ kind: 'decision', timeoutType: 'SCHEDULE_TO_START', at, rank: 3e6 });
    }
    return out.sort((a, b) => a.at - b.at || a.rank - b.rank);
  }

  nextDeadline(): Deadline | undefined {
    return this.deadlines()[0];
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
      const d = this.nextDeadline();
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

  private apply(x: OracleDecision, dtc: number, now: number): undefined {
    switch (x.kind) {
      case 'schedule': {
        const type = { name: x.typeName, version: '1' };
        const fail = (cause: string): undefined => {
          this.record(now, 'ScheduleActivityTaskFailed', {
            activityType: type,
            activityId: x.activityId,
            cause,
            decisionTaskCompletedEventId: dtc,
          });
          this.trigger(now);
          return undefined;
        };
        const defaults = this.config.activityTypes[x.typeName];
        if (defaults === undefined) return fail('ACTIVITY_TYPE_DOES_NOT_EXIST');
        if (this.activities.has(x.activityId)) return fail('ACTIVITY_ID_ALREADY_IN_USE');
        const s2s = x.timeouts.scheduleToStart ?? defaults.scheduleToStart;
        if (s2s === undefined) return fail('DEFAULT_SCHEDULE_TO_START_TIMEOUT_UNDEFINED');
        const s2c = x.timeouts.scheduleToClose ?? defaults.scheduleToClose;
        if (s2c === undefined) return fail('DEFAULT_SCHEDULE_TO_CLOSE_TIMEOUT_UNDEFINED');
        const stc = x.timeouts.startToClose ?? defaults.startToClose;
        if (stc === undefined) return fail('DEFAULT_START_TO_CLOSE_TIMEOUT_UNDEFINED');
        const hb = x.timeouts.heartbeat ?? defaults.heartbeat;
        if (hb === undefined) return fail('DEFAULT_HEARTBEAT_TIMEOUT_UNDEFINED');
        const scheduled = this.record(now, 'ActivityTaskScheduled', {
          activityType: type,
          activityId: x.activityId,
          scheduleToStartTimeout: s2s,
          scheduleToCloseTimeout: s2c,
          startToCloseTimeout: stc,
          taskList: { name: x.taskList },
          taskPriority: '0',
          decisionTaskCompletedEventId: dtc,
          heartbeatTimeout: hb,
        });
        this.activities.set(x.activityId, {
          activityId: x.activityId,
          activityType: type,
          scheduledEventId: scheduled.eventId,
          scheduledAt: now,
          taskList: x.taskList,
          timeouts: {
            scheduleToStart: s2s,
            scheduleToClose: s2c,
            startToClose: stc,
            heartbeat: hb,
          },
        });
        return;
      }
      case 'cancelActivity': {
        const a = this.activities.get(x.activityId);
        if (a === undefined) {
          this.record(now, 'RequestCancelActivityTaskFailed', {
            activityId: x.activityId,
            cause: 'ACTIVITY_ID_UNKNOWN',
            decisionTaskCompletedEventId: dtc,
          });
          this.trigger(now);
          return;
        }
        const requested = this.record(now, 'ActivityTaskCancelRequested', {
          activityId: x.activityId,
          decisionTaskCompletedEventId: dtc,
        });
        a.cancelRequestedEventId = requested.eventId;
        if (a.startedEventId !== undefined) return;
        this.activities.delete(x.activityId);
        this.record(now, 'ActivityTaskCanceled', {
          scheduledEventId: a.scheduledEventId,
          startedEventId: 0,
          latestCancelRequestedEventId: requested.eventId,
        });
        this.trigger(now);
        return;
      }
      case 'startTimer': {
        if (this.timers.has(x.timerId)) {
          this.record(now, 'StartTimerFailed', {
            timerId: x.timerId,
            cause: 'TIMER_ID_ALREADY_IN_USE',
            decisionTaskCompletedEventId: dtc,
          });
          this.trigger(now);
          return;
        }
        const started = this.record(now, 'TimerStarted', {
          timerId: x.timerId,
          startToFireTimeout: String(x.seconds),
          decisionTaskCompletedEventId: dtc,
        });
        this.timers.set(x.timerId, {
          timerId: x.timerId,
          startedEventId: started.eventId,
          fireAt: now + x.seconds * 1000,
        });
        return;
      }
      case 'cancelTimer': {
        const t = this.timers.get(x.timerId);
        if (t === undefined) {
          this.record(now, 'CancelTimerFailed', {
            timerId: x.timerId,
            cause: 'TIMER_ID_UNKNOWN',
            decisionTaskCompletedEventId: dtc,
          });
          this.trigger(now);
          return;
        }
        this.timers.delete(x.timerId);
        this.record(now, 'TimerCanceled', {
          timerId: x.timerId,
          startedEventId: t.startedEventId,
          decisionTaskCompletedEventId: dtc,
        });
        return;
      }
    }
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

function add(base: number | undefined, d: Dur): number | undefined {
  const x = ms(d);
  return base === undefined || x === undefined ? undefined : base + x;
}
