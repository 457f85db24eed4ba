/**
 * How a decision the code asks for is matched with the event its earlier answer recorded, and how
 * either is described when they do not match.
 */
import type { Decision, HistoryEvent } from '@aws-sdk/client-swf';

/** The marker names the SDK records for itself. */
export const SIDE_EFFECT_MARKER = 'sdk:SideEffect';
export const PATCH_MARKER = 'sdk:Patch';

type Key = { readonly what: string; readonly id: string; readonly type?: string };

/** What a decision asks for, in the terms its recorded event uses. */
function decisionKey(d: Decision): Key {
  switch (d.decisionType) {
    case 'ScheduleActivityTask': {
      const a = d.scheduleActivityTaskDecisionAttributes;
      return { what: 'activity', id: a?.activityId ?? '', type: typeText(a?.activityType) };
    }
    case 'RequestCancelActivityTask':
      return {
        what: 'activity cancel',
        id: d.requestCancelActivityTaskDecisionAttributes?.activityId ?? '',
      };
    case 'StartTimer':
      return { what: 'timer', id: d.startTimerDecisionAttributes?.timerId ?? '' };
    case 'CancelTimer':
      return { what: 'timer cancel', id: d.cancelTimerDecisionAttributes?.timerId ?? '' };
    case 'RecordMarker': {
      const a = d.recordMarkerDecisionAttributes;
      return markerKey(a?.markerName, a?.details);
    }
    case 'StartChildWorkflowExecution': {
      const a = d.startChildWorkflowExecutionDecisionAttributes;
      return { what: 'child workflow', id: a?.workflowId ?? '', type: typeText(a?.workflowType) };
    }
    case 'SignalExternalWorkflowExecution': {
      const a = d.signalExternalWorkflowExecutionDecisionAttributes;
      return { what: 'signal', id: a?.workflowId ?? '', type: a?.signalName ?? '' };
    }
    case 'RequestCancelExternalWorkflowExecution':
      return {
        what: 'external cancel',
        id: d.requestCancelExternalWorkflowExecutionDecisionAttributes?.workflowId ?? '',
      };
    case 'ScheduleLambdaFunction': {
      const a = d.scheduleLambdaFunctionDecisionAttributes;
      return { what: 'Lambda function', id: a?.id ?? '', type: a?.name ?? '' };
    }
    default:
      return { what: closeWhat(d.decisionType ?? ''), id: '' };
  }
}

/** What a recorded event says was asked for; undefined for events that record no decision. */
function eventKey(e: HistoryEvent): Key | undefined {
  switch (e.eventType) {
    case 'ActivityTaskScheduled': {
      const a = e.activityTaskScheduledEventAttributes;
      return { what: 'activity', id: a?.activityId ?? '', type: typeText(a?.activityType) };
    }
    case 'ScheduleActivityTaskFailed': {
      const a = e.scheduleActivityTaskFailedEventAttributes;
      return { what: 'activity', id: a?.activityId ?? '', type: typeText(a?.activityType) };
    }
    case 'ActivityTaskCancelRequested':
      return {
        what: 'activity cancel',
        id: e.activityTaskCancelRequestedEventAttributes?.activityId ?? '',
      };
    case 'RequestCancelActivityTaskFailed':
      return {
        what: 'activity cancel',
        id: e.requestCancelActivityTaskFailedEventAttributes?.activityId ?? '',
      };
    case 'TimerStarted':
      return { what: 'timer', id: e.timerStartedEventAttributes?.timerId ?? '' };
    case 'StartTimerFailed':
      return { what: 'timer', id: e.startTimerFailedEventAttributes?.timerId ?? '' };
    case 'TimerCanceled':
      return { what: 'timer cancel', id: e.timerCanceledEventAttributes?.timerId ?? '' };
    case 'CancelTimerFailed':
      return { what: 'timer cancel', id: e.cancelTimerFailedEventAttributes?.timerId ?? '' };
    case 'MarkerRecorded': {
      const a = e.markerRecordedEventAttributes;
      return markerKey(a?.markerName, a?.details);
    }
    case 'RecordMarkerFailed':
      return markerKey(e.recordMarkerFailedEventAttributes?.markerName, undefined);
    default:
      return eventKeyOfOthers(e);
  }
}

function eventKeyOfOthers(e: HistoryEvent): Key | undefined {
  switch (e.eventType) {
    case 'StartChildWorkflowExecutionInitiated': {
      const a = e.startChildWorkflowExecutionInitiatedEventAttributes;
      return { what: 'child workflow', id: a?.workflowId ?? '', type: typeText(a?.workflowType) };
    }
    case 'StartChildWorkflowExecutionFailed': {
      const a = e.startChildWorkflowExecutionFailedEventAttributes;
      return { what: 'child workflow', id: a?.workflowId ?? '', type: typeText(a?.workflowType) };
    }
    case 'SignalExternalWorkflowExecutionInitiated': {
      const a = e.signalExternalWorkflowExecutionInitiatedEventAttributes;
      return { what: 'signal', id: a?.workflowId ?? '', type: a?.signalName ?? '' };
    }
    case 'RequestCancelExternalWorkflowExecutionInitiated':
      return {
        what: 'external cancel',
        id: e.requestCancelExternalWorkflowExecutionInitiatedEventAttributes?.workflowId ?? '',
      };
    case 'LambdaFunctionScheduled': {
      const a = e.lambdaFunctionScheduledEventAttributes;
      return { what: 'Lambda function', id: a?.id ?? '', type: a?.name ?? '' };
    }
    case 'ScheduleLambdaFunctionFailed': {
      const a = e.scheduleLambdaFunctionFailedEventAttributes;
      return { what: 'Lambda function', id: a?.id ?? '', type: a?.name ?? '' };
    }
    default:
      return closeEventKey(e.eventType ?? '');
  }
}

const CLOSE_EVENTS: Readonly<Record<string, string>> = {
  WorkflowExecutionCompleted: 'CompleteWorkflowExecution',
  CompleteWorkflowExecutionFailed: 'CompleteWorkflowExecution',
  WorkflowExecutionFailed: 'FailWorkflowExecution',
  FailWorkflowExecutionFailed: 'FailWorkflowExecution',
  WorkflowExecutionCanceled: 'CancelWorkflowExecution',
  CancelWorkflowExecutionFailed: 'CancelWorkflowExecution',
  WorkflowExecutionContinuedAsNew: 'ContinueAsNewWorkflowExecution',
  ContinueAsNewWorkflowExecutionFailed: 'ContinueAsNewWorkflowExecution',
};

function closeEventKey(eventType: string): Key | undefined {
  const decision = CLOSE_EVENTS[eventType];
  return decision === undefined ? undefined : { what: closeWhat(decision), id: '' };
}

const closeWhat = (decisionType: string) => `close (${decisionType})`;

/** A patch marker is known by its patch id (its details); other markers by their name. */
function markerKey(name: string | undefined, details: string | undefined): Key {
  return name === PATCH_MARKER
    ? { what: 'patch marker', id: details ?? '' }
    : { what: 'marker', id: name ?? '' };
}

const typeText = (t: { name?: string | undefined; version?: string | undefined } | undefined) =>
  `${t?.name ?? ''} ${t?.version ?? ''}`;

const sameKey = (a: Key, b: Key) => a.what === b.what && a.id === b.id && a.type === b.type;

/** Whether `event` is the record of `decision` (or of its refusal). */
export function isRecordOf(decision: Decision, event: HistoryEvent): boolean {
  const key = eventKey(event);
  return key !== undefined && sameKey(key, decisionKey(decision));
}

export const isPatchMarker = (e: HistoryEvent) =>
  e.eventType === 'MarkerRecorded' && e.markerRecordedEventAttributes?.markerName === PATCH_MARKER;

function describeKey(k: Key): string {
  const id = k.id === '' ? '' : ` ${k.id}`;
  return `${k.what}${id}${k.type === undefined ? '' : ` (${k.type.trim()})`}`;
}

/** "ScheduleActivityTask: activity 3 (ShipOrder 1)". */
export const describeDecision = (d: Decision) =>
  `${d.decisionType ?? 'decision'}: ${describeKey(decisionKey(d))}`;

/** "event 17 ActivityTaskScheduled: activity 3 (ChargeCreditCard 1)". */
export function describeEvent(e: HistoryEvent): string {
  const key = eventKey(e);
  return `event ${e.eventId ?? 0} ${e.eventType ?? ''}${key === undefined ? '' : `: ${describeKey(key)}`}`;
}
