/**
 * The timeout oracle's terms (test/support/timeout-oracle.ts): what it is configured with, records and
 * is told, its ledger of open tasks and timers, and when each of their timeouts falls due.
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

/** An open activity in the oracle's ledger. */
export interface Activity {
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

export interface Timer {
  readonly timerId: string;
  readonly startedEventId: number;
  readonly fireAt: number;
}

export type DecisionTask =
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

export const refused = { ok: false, fault: 'UnknownResourceFault' } as const;
export const ms = (d: Dur): number | undefined => (d === 'NONE' ? undefined : Number(d) * 1000);
const ACTIVITY_TIMEOUT_ORDER = [
  'SCHEDULE_TO_START',
  'SCHEDULE_TO_CLOSE',
  'START_TO_CLOSE',
  'HEARTBEAT',
] as const;

/** The ledger the deadlines are read from. */
export interface Ledger {
  readonly config: OracleConfig;
  readonly timers: ReadonlyMap<string, Timer>;
  readonly activities: ReadonlyMap<string, Activity>;
  readonly decision: DecisionTask;
}

/** DescribeWorkflowExecution's open counts of the ledger's execution (all 0 once it is closed). */
export function openCountsOf({ activities, timers, decision }: Ledger, open: boolean) {
  return {
    openActivityTasks: open ? activities.size : 0,
    openDecisionTasks: open && decision.status !== 'none' ? 1 : 0,
    openTimers: open ? timers.size : 0,
    openChildWorkflowExecutions: 0,
    openLambdaFunctions: 0,
  };
}

/** Every pending deadline of an open execution, in the order SWF fires them. */
export function pendingDeadlines({ config, timers, activities, decision }: Ledger): Deadline[] {
  const out: Deadline[] = [];
  const x = ms(config.executionStartToCloseTimeout);
  if (x !== undefined) out.push({ kind: 'execution', at: config.startAt + x, rank: 0 });
  for (const t of timers.values())
    out.push({ kind: 'timer', timerId: t.timerId, at: t.fireAt, rank: 1e6 + t.startedEventId });
  for (const a of activities.values()) out.push(...activityDeadlines(a));
  const d = decision;
  if (d.status === 'started') {
    const at = add(d.startedAt, config.taskStartToCloseTimeout);
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

function activityDeadlines(a: Activity): Deadline[] {
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
  return ACTIVITY_TIMEOUT_ORDER.flatMap((timeoutType, i) => {
    const at = due[timeoutType];
    return at === undefined
      ? []
      : [
          {
            kind: 'activity' as const,
            activityId: a.activityId,
            timeoutType,
            at,
            rank: 2e6 + a.scheduledEventId * 10 + i,
          },
        ];
  });
}

/**
 * An activity's timeouts, each given in its decision or else its type's default; the cause of
 * ScheduleActivityTaskFailed when one is neither.
 */
export function activityTimeouts(
  given: ActivityDefaults,
  defaults: ActivityDefaults,
): Required<ActivityDefaults> | { readonly cause: string } {
  const scheduleToStart = given.scheduleToStart ?? defaults.scheduleToStart;
  if (scheduleToStart === undefined)
    return { cause: 'DEFAULT_SCHEDULE_TO_START_TIMEOUT_UNDEFINED' };
  const scheduleToClose = given.scheduleToClose ?? defaults.scheduleToClose;
  if (scheduleToClose === undefined)
    return { cause: 'DEFAULT_SCHEDULE_TO_CLOSE_TIMEOUT_UNDEFINED' };
  const startToClose = given.startToClose ?? defaults.startToClose;
  if (startToClose === undefined) return { cause: 'DEFAULT_START_TO_CLOSE_TIMEOUT_UNDEFINED' };
  const heartbeat = given.heartbeat ?? defaults.heartbeat;
  if (heartbeat === undefined) return { cause: 'DEFAULT_HEARTBEAT_TIMEOUT_UNDEFINED' };
  return { scheduleToStart, scheduleToClose, startToClose, heartbeat };
}

function add(base: number | undefined, d: Dur): number | undefined {
  const x = ms(d);
  return base === undefined || x === undefined ? undefined : base + x;
}
