import type {
  ContinueAsNewWorkflowExecutionDecisionAttributes,
  Decision,
  RequestCancelExternalWorkflowExecutionDecisionAttributes,
  ScheduleActivityTaskDecisionAttributes,
  ScheduleLambdaFunctionDecisionAttributes,
  SignalExternalWorkflowExecutionDecisionAttributes,
  StartChildWorkflowExecutionDecisionAttributes,
} from '@aws-sdk/client-swf';

/**
 * A duration in seconds, as a number or as SWF's string (`'NONE'` for no limit where allowed). SWF
 * counts whole seconds: a fraction rounds up, so no timer fires and no timeout ends before its time.
 */
export type Seconds = number | string;

/** Replaces the string timeouts of an SWF attribute type by `Seconds`. */
type WithSeconds<T, K extends keyof T> = Omit<T, K> & { [P in K]?: Seconds | undefined };

export type ScheduleActivityTaskInput = WithSeconds<
  ScheduleActivityTaskDecisionAttributes,
  'scheduleToCloseTimeout' | 'scheduleToStartTimeout' | 'startToCloseTimeout' | 'heartbeatTimeout'
>;
export type StartChildWorkflowExecutionInput = WithSeconds<
  StartChildWorkflowExecutionDecisionAttributes,
  'executionStartToCloseTimeout' | 'taskStartToCloseTimeout'
>;
export type ContinueAsNewWorkflowExecutionInput = WithSeconds<
  ContinueAsNewWorkflowExecutionDecisionAttributes,
  'executionStartToCloseTimeout' | 'taskStartToCloseTimeout'
>;
export type ScheduleLambdaFunctionInput = WithSeconds<
  ScheduleLambdaFunctionDecisionAttributes,
  'startToCloseTimeout'
>;

/** Turns `Seconds` members into SWF's strings; other members pass through. */
function seconds<T extends object>(
  attributes: T,
): { [K in keyof T]: number extends T[K] ? string : Exclude<T[K], undefined> };
function seconds(attributes: object): object {
  return Object.fromEntries(
    Object.entries(attributes)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [key, typeof value === 'number' ? String(Math.ceil(value)) : value]),
  );
}

const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

export function scheduleActivityTask(attributes: ScheduleActivityTaskInput): Decision {
  return {
    decisionType: 'ScheduleActivityTask',
    scheduleActivityTaskDecisionAttributes: seconds(attributes),
  };
}

export function requestCancelActivityTask(activityId: string): Decision {
  return {
    decisionType: 'RequestCancelActivityTask',
    requestCancelActivityTaskDecisionAttributes: { activityId },
  };
}

export function completeWorkflowExecution(result?: string): Decision {
  return {
    decisionType: 'CompleteWorkflowExecution',
    completeWorkflowExecutionDecisionAttributes: defined({ result }),
  };
}

export function failWorkflowExecution(reason?: string, details?: string): Decision {
  return {
    decisionType: 'FailWorkflowExecution',
    failWorkflowExecutionDecisionAttributes: defined({ reason, details }),
  };
}

export function cancelWorkflowExecution(details?: string): Decision {
  return {
    decisionType: 'CancelWorkflowExecution',
    cancelWorkflowExecutionDecisionAttributes: defined({ details }),
  };
}

export function continueAsNewWorkflowExecution(
  attributes: ContinueAsNewWorkflowExecutionInput = {},
): Decision {
  return {
    decisionType: 'ContinueAsNewWorkflowExecution',
    continueAsNewWorkflowExecutionDecisionAttributes: seconds(attributes),
  };
}

export function recordMarker(markerName: string, details?: string): Decision {
  return {
    decisionType: 'RecordMarker',
    recordMarkerDecisionAttributes: defined({ markerName, details }),
  };
}

export function startTimer(timerId: string, startToFire: Seconds, control?: string): Decision {
  return {
    decisionType: 'StartTimer',
    startTimerDecisionAttributes: seconds({ timerId, startToFireTimeout: startToFire, control }),
  };
}

export function cancelTimer(timerId: string): Decision {
  return { decisionType: 'CancelTimer', cancelTimerDecisionAttributes: { timerId } };
}

export function signalExternalWorkflowExecution(
  attributes: SignalExternalWorkflowExecutionDecisionAttributes,
): Decision {
  return {
    decisionType: 'SignalExternalWorkflowExecution',
    signalExternalWorkflowExecutionDecisionAttributes: defined(attributes),
  };
}

export function requestCancelExternalWorkflowExecution(
  attributes: RequestCancelExternalWorkflowExecutionDecisionAttributes,
): Decision {
  return {
    decisionType: 'RequestCancelExternalWorkflowExecution',
    requestCancelExternalWorkflowExecutionDecisionAttributes: defined(attributes),
  };
}

export function startChildWorkflowExecution(
  attributes: StartChildWorkflowExecutionInput,
): Decision {
  return {
    decisionType: 'StartChildWorkflowExecution',
    startChildWorkflowExecutionDecisionAttributes: seconds(attributes),
  };
}

export function scheduleLambdaFunction(attributes: ScheduleLambdaFunctionInput): Decision {
  return {
    decisionType: 'ScheduleLambdaFunction',
    scheduleLambdaFunctionDecisionAttributes: seconds(attributes),
  };
}

/** Every decision builder under one name: `decide.startTimer('t', 60)`. */
export const decide = {
  scheduleActivityTask,
  requestCancelActivityTask,
  completeWorkflowExecution,
  failWorkflowExecution,
  cancelWorkflowExecution,
  continueAsNewWorkflowExecution,
  recordMarker,
  startTimer,
  cancelTimer,
  signalExternalWorkflowExecution,
  requestCancelExternalWorkflowExecution,
  startChildWorkflowExecution,
  scheduleLambdaFunction,
} as const;
