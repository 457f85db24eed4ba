/**
 * The decision oracle's terms (test/support/decision-oracle.ts): the events it expects, the decisions
 * it is given, the activity types and settings the sweep registers, and its ledger's open activities
 * and decision task.
 */

/** An event the model expects: its type and, unless `loose`, exactly these attributes. */
export interface ExpectedEvent {
  readonly eventType: string;
  readonly attributes: Record<string, unknown>;
  /** Only these attributes are checked (the rest is outside this sweep). */
  readonly loose?: boolean;
}

/** A decision as the sweep writes it: close to the wire form, with what the model needs to know. */
export type ModelDecision =
  | {
      readonly kind: 'schedule';
      readonly activityId: string;
      /** Which registered activity type (see ActivityTypeKind) the decision names. */
      readonly type: ActivityTypeKind;
      readonly control?: string;
      readonly input?: string;
      readonly taskPriority?: string;
    }
  | { readonly kind: 'cancelActivity'; readonly activityId: string }
  | {
      readonly kind: 'startTimer';
      readonly timerId: string;
      readonly startToFireTimeout: string;
      readonly control?: string;
    }
  | { readonly kind: 'cancelTimer'; readonly timerId: string }
  | { readonly kind: 'marker'; readonly markerName: string; readonly details?: string }
  | {
      readonly kind: 'lambda';
      readonly id: string;
      readonly input?: string;
      readonly control?: string;
    }
  | { readonly kind: 'complete'; readonly result?: string }
  | { readonly kind: 'fail'; readonly reason?: string; readonly details?: string }
  | { readonly kind: 'cancel'; readonly details?: string }
  | { readonly kind: 'continueAsNew'; readonly input?: string }
  /** ContinueAsNew to a version of the type that was never registered. */
  | { readonly kind: 'continueAsNewUnknownVersion' };

/**
 * Activity types the sweep registers: `act` has every default; `ghost` is not registered; `old` is
 * deprecated; `bare` has no defaults, and its decisions leave out the one value the suffix names
 * (`bare-full` gives them all).
 */
export type ActivityTypeKind =
  | 'act'
  | 'ghost'
  | 'old'
  | 'bare-full'
  | 'bare-no-taskList'
  | 'bare-no-scheduleToStart'
  | 'bare-no-scheduleToClose'
  | 'bare-no-startToClose'
  | 'bare-no-heartbeat';

export const closeKinds = new Set<ModelDecision['kind']>([
  'complete',
  'fail',
  'cancel',
  'continueAsNew',
  'continueAsNewUnknownVersion',
]);

/** What the sweep registered, as the model needs it. */
export interface ModelWorld {
  readonly workflowType: { readonly name: string; readonly version: string };
  readonly activityTypes: Record<
    'act' | 'old' | 'bare',
    { readonly name: string; readonly version: string }
  >;
  readonly ghostType: { readonly name: string; readonly version: string };
  /** `act`'s registered defaults. */
  readonly actDefaults: {
    readonly scheduleToStartTimeout: string;
    readonly scheduleToCloseTimeout: string;
    readonly startToCloseTimeout: string;
    readonly heartbeatTimeout: string;
    readonly taskPriority: string;
  };
  /** The values a `bare` decision gives (each but the one its kind leaves out). */
  readonly bareValues: {
    readonly scheduleToStartTimeout: string;
    readonly scheduleToCloseTimeout: string;
    readonly startToCloseTimeout: string;
    readonly heartbeatTimeout: string;
  };
  readonly lambdaName: string;
  readonly lambdaTimeout: string;
  /** ContinueAsNew's resolved settings (the type's registered defaults, the list given). */
  readonly continued: {
    readonly executionStartToCloseTimeout: string;
    readonly taskStartToCloseTimeout: string;
    readonly childPolicy: string;
  };
}

/** An activity the run holds open. */
export interface OpenActivity {
  readonly activityId: string;
  readonly scheduledEventId: number;
  readonly taskPriority: number;
  startedEventId?: number;
  latestCancelRequestedEventId?: number;
}

export type DecisionTaskStatus =
  | { readonly status: 'none' }
  | { readonly status: 'scheduled'; readonly scheduledEventId: number }
  | {
      readonly status: 'started';
      readonly scheduledEventId: number;
      readonly startedEventId: number;
    };

/** The failure event of each close decision (AWS API reference, Decision: "Decision Failure"). */
export const closeFailedEvent: Record<string, string> = {
  complete: 'CompleteWorkflowExecutionFailed',
  fail: 'FailWorkflowExecutionFailed',
  cancel: 'CancelWorkflowExecutionFailed',
  continueAsNew: 'ContinueAsNewWorkflowExecutionFailed',
  continueAsNewUnknownVersion: 'ContinueAsNewWorkflowExecutionFailed',
};
