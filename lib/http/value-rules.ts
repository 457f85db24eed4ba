/**
 * Constraints the service model cannot express but SWF documents: the identifier rule, duration strings,
 * task priorities, retention days, tag characters. Keyed by shape name (every use of the shape) or by
 * `Shape.member` (one use), and run by the request validator after the model's own checks.
 */

import { MAX_EXECUTION_SECONDS } from '../core/limits.js';

export type ValueRule = (value: string) => string | undefined;

/** `:` `/` `|` and the C0 and C1 control characters (U+0000–U+001F, U+007F–U+009F). */
const isForbiddenIdentifierChar = (code: number) =>
  code === 0x3a || code === 0x2f || code === 0x7c || code <= 0x1f || (code >= 0x7f && code <= 0x9f);
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

export const identifier: ValueRule = (value) => {
  if ([...value].some((ch) => isForbiddenIdentifierChar(ch.codePointAt(0) ?? 0))) {
    return "Member must not contain ':', '/', '|' or control characters";
  }
  if (value === 'arn') return "Member must not be the literal string 'arn'";
  return undefined;
};

/**
 * What SWF's reference says of its names and ids (domains, task lists, type names and versions,
 * workflowIds, activityIds, timerIds): the identifier rule, and no whitespace at either end.
 */
export const untrimmedIdentifier: ValueRule = (value) => identifier(value) ?? whitespaceEnds(value);

const whitespaceEnds: ValueRule = (value) =>
  value.trim() !== value ? 'Member must not start or end with whitespace' : undefined;

/**
 * The workflowId of a StartChildWorkflowExecution decision: the identifier rule, but a `:` is taken.
 * SWF documents the same rule for it, yet the AWS Flow Frameworks name every child started without an
 * explicit workflowId `<parent runId>:<n>` (Java: DefaultChildWorkflowIdHandler, and aws-sdk-java's
 * GenericWorkflowClientImpl.generateUniqueId before it; Ruby: WorkflowClient#start_internal_workflow),
 * and ran against Amazon SWF that way for years. `/`, `|` and control characters stay refused (`|`
 * also separates names in the table's keys).
 */
export const childWorkflowId: ValueRule = (value) => {
  if ([...value].some((ch) => ch !== ':' && isForbiddenIdentifierChar(ch.codePointAt(0) ?? 0)))
    return "Member must not contain '/', '|' or control characters";
  return value === 'arn' ? identifier(value) : whitespaceEnds(value);
};

const isWholeSeconds = (value: string) => /^[0-9]+$/.test(value);

export const durationOrNone: ValueRule = (value) =>
  value === 'NONE' || isWholeSeconds(value)
    ? undefined
    : "Member must be a whole number of seconds or 'NONE'";

export const duration: ValueRule = (value) =>
  isWholeSeconds(value) ? undefined : 'Member must be a whole number of seconds';

/**
 * executionStartToCloseTimeout of StartWorkflowExecution and RegisterWorkflowType: finite, at most one
 * year (SWF: "you cannot specify a value of NONE").
 */
export const executionDuration: ValueRule = (value) => {
  if (!isWholeSeconds(value))
    return 'Member must be a whole number of seconds (NONE is not allowed)';
  return Number(value) > MAX_EXECUTION_SECONDS
    ? `Member must have value less than or equal to ${MAX_EXECUTION_SECONDS}`
    : undefined;
};

/**
 * executionStartToCloseTimeout of the StartChildWorkflowExecution and ContinueAsNewWorkflowExecution
 * decisions, which SWF documents as taking NONE for no limit (the execution still ends at the one-year
 * limit): NONE, or at most one year.
 */
export const executionDurationOrNone: ValueRule = (value) =>
  value === 'NONE'
    ? undefined
    : isWholeSeconds(value)
      ? executionDuration(value)
      : "Member must be a whole number of seconds or 'NONE'";

/** ScheduleLambdaFunction startToCloseTimeout: 1 to 900 seconds. */
export const lambdaDuration: ValueRule = (value) =>
  isWholeSeconds(value) && Number(value) >= 1 && Number(value) <= 900
    ? undefined
    : 'Member must be a whole number of seconds from 1 to 900';

export const retentionDays: ValueRule = (value) => {
  if (value === 'NONE') return undefined;
  if (!isWholeSeconds(value)) return "Member must be a whole number of days or 'NONE'";
  return Number(value) > 90 ? 'Member must have value less than or equal to 90' : undefined;
};

export const taskPriority: ValueRule = (value) => {
  const ok =
    /^[+-]?[0-9]+$/.test(value) && Number(value) >= INT32_MIN && Number(value) <= INT32_MAX;
  return ok ? undefined : `Member must be an integer from ${INT32_MIN} to ${INT32_MAX}`;
};

const TAG_CHARACTERS = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;

export const resourceTagText: ValueRule = (value) =>
  TAG_CHARACTERS.test(value)
    ? undefined
    : 'Member must contain only letters, digits, whitespace and _ . : / = + - @';

export const shapeRules: Readonly<Record<string, ValueRule>> = {
  DomainName: identifier,
  DurationInSecondsOptional: durationOrNone,
  DurationInSeconds: duration,
  DurationInDays: retentionDays,
  TaskPriority: taskPriority,
  ResourceTagKey: resourceTagText,
  ResourceTagValue: resourceTagText,
};

export const memberRules: Readonly<Record<string, ValueRule>> = {
  'RegisterDomainInput.name': untrimmedIdentifier,
  'RegisterActivityTypeInput.name': untrimmedIdentifier,
  'RegisterActivityTypeInput.version': untrimmedIdentifier,
  'RegisterWorkflowTypeInput.name': untrimmedIdentifier,
  'RegisterWorkflowTypeInput.version': untrimmedIdentifier,
  'RegisterWorkflowTypeInput.defaultExecutionStartToCloseTimeout': executionDuration,
  'TaskList.name': untrimmedIdentifier,
  'StartWorkflowExecutionInput.workflowId': untrimmedIdentifier,
  'StartWorkflowExecutionInput.executionStartToCloseTimeout': executionDuration,
  'StartChildWorkflowExecutionDecisionAttributes.workflowId': childWorkflowId,
  'StartChildWorkflowExecutionDecisionAttributes.executionStartToCloseTimeout':
    executionDurationOrNone,
  'ContinueAsNewWorkflowExecutionDecisionAttributes.executionStartToCloseTimeout':
    executionDurationOrNone,
  'ContinueAsNewWorkflowExecutionDecisionAttributes.workflowTypeVersion': identifier,
  'ScheduleActivityTaskDecisionAttributes.activityId': untrimmedIdentifier,
  'StartTimerDecisionAttributes.timerId': untrimmedIdentifier,
  'ScheduleLambdaFunctionDecisionAttributes.startToCloseTimeout': lambdaDuration,
};
