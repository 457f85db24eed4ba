/**
 * Decisions judged against the policies of the caller of RespondDecisionTaskCompleted, as SWF judges
 * them: each decision is an action of its own (`swf:ScheduleActivityTask`, …) on the run's domain,
 * with the condition keys SWF documents for it. A decision the policies refuse becomes its `*Failed`
 * event with cause OPERATION_NOT_PERMITTED; the other decisions of the response still apply.
 */
import { assertNever } from './assert-never.js';
import type { Decision, DecisionType } from './decision.js';
import type { TypeLookup } from './decision-tasks.js';
import type { NewEvent, TypeRef } from './history-event.js';
import { decisionKeys } from './swf-access.js';
import type { Transition } from './transition.js';

/** What the caller's policies allow; the operation builds it (the domain and the caller are its). */
export interface DecisionAccess {
  /** Whether the decision, as the action `swf:<decisionType>` with these keys, is allowed. */
  allowsDecision(
    decisionType: DecisionType,
    keys: Readonly<Record<string, string | readonly string[] | undefined>>,
  ): boolean;
  /** Whether the caller may pass this role to an execution (`iam:PassRole`). */
  allowsPassRole(role: string): boolean;
}

/**
 * Whether the decision is allowed. ScheduleLambdaFunction is not judged: SWF documents no IAM action
 * for it and its failure has no OPERATION_NOT_PERMITTED cause (the execution's lambdaRole, passed when
 * it was named, is what governs Lambda).
 */
export function decisionPermitted(
  decision: Decision,
  access: DecisionAccess,
  types: TypeLookup,
  currentType: TypeRef,
): boolean {
  if (decision.decisionType === 'ScheduleLambdaFunction') return true;
  const keys = decisionKeys(decision, typeDefaults(decision, types, currentType));
  if (!access.allowsDecision(decision.decisionType, keys)) return false;
  const role = namedLambdaRole(decision);
  return role === undefined || access.allowsPassRole(role);
}

/** The lambdaRole a decision names itself (a type's default was passed when it was registered). */
function namedLambdaRole(decision: Decision): string | undefined {
  if (decision.decisionType === 'StartChildWorkflowExecution')
    return decision.attributes.lambdaRole;
  if (decision.decisionType === 'ContinueAsNewWorkflowExecution')
    return decision.attributes.lambdaRole;
  return undefined;
}

function typeDefaults(decision: Decision, types: TypeLookup, currentType: TypeRef) {
  switch (decision.decisionType) {
    case 'ScheduleActivityTask':
      return {
        activityTaskList: types.activityType(decision.attributes.activityType)?.configuration
          .defaultTaskList,
      };
    case 'StartChildWorkflowExecution':
      return {
        workflowTaskList: types.workflowType(decision.attributes.workflowType)?.configuration
          .defaultTaskList,
      };
    case 'ContinueAsNewWorkflowExecution': {
      const version = decision.attributes.workflowTypeVersion ?? currentType.version;
      const type = types.workflowType({ name: currentType.name, version });
      return { workflowTaskList: type?.configuration.defaultTaskList, workflowVersion: version };
    }
    default:
      return {};
  }
}

/**
 * Records the refusal of a decision the caller's policies do not allow, as its `*Failed` event;
 * whether it did (the decision is then not applied).
 */
export function recordRefusal(
  decision: Decision,
  access: DecisionAccess,
  types: TypeLookup,
  t: Transition,
  dtc: number,
): boolean {
  if (decisionPermitted(decision, access, types, t.state.workflowType)) return false;
  const refused = notPermittedEvent(decision, dtc);
  if (refused !== undefined) t.record(refused);
  return refused !== undefined;
}

/** The `*Failed` event of a refused decision (no Initiated event comes first, as for any refusal). */
export function notPermittedEvent(decision: Decision, dtc: number): NewEvent | undefined {
  const cause = 'OPERATION_NOT_PERMITTED';
  const base = { cause, decisionTaskCompletedEventId: dtc };
  const control = (c: string | undefined) => (c === undefined ? {} : { control: c });
  switch (decision.decisionType) {
    case 'ScheduleActivityTask': {
      const { activityType, activityId } = decision.attributes;
      return {
        eventType: 'ScheduleActivityTaskFailed',
        attributes: { ...base, activityType, activityId },
      };
    }
    case 'RequestCancelActivityTask':
      return {
        eventType: 'RequestCancelActivityTaskFailed',
        attributes: { ...base, activityId: decision.attributes.activityId },
      };
    case 'CompleteWorkflowExecution':
      return { eventType: 'CompleteWorkflowExecutionFailed', attributes: base };
    case 'FailWorkflowExecution':
      return { eventType: 'FailWorkflowExecutionFailed', attributes: base };
    case 'CancelWorkflowExecution':
      return { eventType: 'CancelWorkflowExecutionFailed', attributes: base };
    case 'ContinueAsNewWorkflowExecution':
      return { eventType: 'ContinueAsNewWorkflowExecutionFailed', attributes: base };
    case 'RecordMarker':
      return {
        eventType: 'RecordMarkerFailed',
        attributes: { ...base, markerName: decision.attributes.markerName },
      };
    case 'StartTimer':
      return {
        eventType: 'StartTimerFailed',
        attributes: { ...base, timerId: decision.attributes.timerId },
      };
    case 'CancelTimer':
      return {
        eventType: 'CancelTimerFailed',
        attributes: { ...base, timerId: decision.attributes.timerId },
      };
    case 'SignalExternalWorkflowExecution':
    case 'RequestCancelExternalWorkflowExecution': {
      const a = decision.attributes;
      const attributes = {
        ...base,
        workflowId: a.workflowId,
        ...(a.runId === undefined ? {} : { runId: a.runId }),
        initiatedEventId: 0,
        ...control(a.control),
      };
      return decision.decisionType === 'SignalExternalWorkflowExecution'
        ? { eventType: 'SignalExternalWorkflowExecutionFailed', attributes }
        : { eventType: 'RequestCancelExternalWorkflowExecutionFailed', attributes };
    }
    case 'StartChildWorkflowExecution': {
      const a = decision.attributes;
      return {
        eventType: 'StartChildWorkflowExecutionFailed',
        attributes: {
          ...base,
          workflowType: a.workflowType,
          workflowId: a.workflowId,
          initiatedEventId: 0,
          ...control(a.control),
        },
      };
    }
    case 'ScheduleLambdaFunction':
      return undefined;
    default:
      return assertNever(decision);
  }
}
