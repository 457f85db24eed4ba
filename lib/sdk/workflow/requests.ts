/** The decisions a workflow's calls ask for, built from definitions and call options. */
import type { Decision, ScheduleActivityTaskDecisionAttributes } from '@aws-sdk/client-swf';
import {
  continueAsNewWorkflowExecution,
  scheduleLambdaFunction,
  startChildWorkflowExecution,
} from '../decider/decisions.js';
import { type Codec, encodePayload } from './codec.js';
import type {
  ActivityDefinition,
  ActivityOptions,
  LambdaDefinition,
  WorkflowOptions,
  WorkflowReference,
} from './definitions.js';
import { type Duration, durationSeconds, type Timeout, timeoutText } from './duration.js';

/** Options of one activity call: the definition's, overridden. */
export interface ActivityCallOptions extends ActivityOptions {
  /** The activityId (default: the call's number in the run, "1", "2" …). */
  readonly activityId?: string;
  readonly control?: string;
}

/** Options of one child workflow start: the definition's, overridden. */
export interface ChildOptions extends WorkflowOptions {
  /** The child's workflowId (default: the parent's workflowId, run and the call's number). */
  readonly workflowId?: string;
  readonly control?: string;
}

/** Options of ContinueAsNew: what the new run changes (by default the type's registered defaults). */
export interface ContinueAsNewOptions extends WorkflowOptions {
  readonly workflowTypeVersion?: string;
}

export const optional = (value: Timeout | undefined, what: string) =>
  value === undefined ? undefined : timeoutText(value, what);
export const taskListOf = (name: string | undefined) => (name === undefined ? undefined : { name });
export const priorityOf = (priority: number | undefined) =>
  priority === undefined ? undefined : String(priority);

/**
 * ScheduleActivityTask. What does not change from call to call (type, list, timeouts) is worked out
 * once per definition: a replay asks for every activity the history holds again.
 */
export function activityDecision(
  definition: ActivityDefinition<unknown, unknown>,
  input: unknown,
  callOptions: ActivityCallOptions,
  activityId: string,
): Decision {
  const { name, codec } = definition;
  const fixed =
    Object.keys(callOptions).length === 0
      ? fixedOfDefinition(definition)
      : activitySettings(definition, { ...definition.options, ...callOptions });
  const encoded = encodePayload(codec, input, `the input of activity ${name}`);
  const attributes: ScheduleActivityTaskDecisionAttributes = { ...fixed, activityId };
  if (encoded !== undefined) attributes.input = encoded;
  if (callOptions.control !== undefined) attributes.control = callOptions.control;
  return {
    decisionType: 'ScheduleActivityTask',
    scheduleActivityTaskDecisionAttributes: attributes,
  };
}

type ActivitySettings = Omit<ScheduleActivityTaskDecisionAttributes, 'activityId'>;

const settingsOfDefinition = new WeakMap<object, ActivitySettings>();

function fixedOfDefinition(definition: ActivityDefinition<unknown, unknown>): ActivitySettings {
  let settings = settingsOfDefinition.get(definition);
  if (settings === undefined) {
    settings = activitySettings(definition, definition.options);
    settingsOfDefinition.set(definition, settings);
  }
  return settings;
}

function activitySettings(
  definition: ActivityDefinition<unknown, unknown>,
  o: ActivityOptions,
): ActivitySettings {
  return withoutUndefined({
    activityType: { name: definition.name, version: definition.version },
    taskList: taskListOf(o.taskList),
    taskPriority: priorityOf(o.taskPriority),
    scheduleToStartTimeout: optional(o.scheduleToStartTimeout, 'scheduleToStartTimeout'),
    startToCloseTimeout: optional(o.startToCloseTimeout, 'startToCloseTimeout'),
    scheduleToCloseTimeout: optional(o.scheduleToCloseTimeout, 'scheduleToCloseTimeout'),
    heartbeatTimeout: optional(o.heartbeatTimeout, 'heartbeatTimeout'),
  });
}

function withoutUndefined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[])
    if (value[key] === undefined) delete value[key];
  return value;
}

/** The run settings an execution is started with (a child, a new run, a start). */
export function runSettings(o: WorkflowOptions) {
  return {
    taskList: taskListOf(o.taskList),
    taskPriority: priorityOf(o.taskPriority),
    executionStartToCloseTimeout: optional(
      o.executionStartToCloseTimeout,
      'executionStartToCloseTimeout',
    ),
    taskStartToCloseTimeout: optional(o.taskStartToCloseTimeout, 'taskStartToCloseTimeout'),
    childPolicy: o.childPolicy,
    lambdaRole: o.lambdaRole,
    tagList: o.tagList === undefined ? undefined : [...o.tagList],
  };
}

export function childDecision(
  type: WorkflowReference<unknown, unknown>,
  input: unknown,
  o: ChildOptions,
  workflowId: string,
): Decision {
  const { name, version, codec } = type;
  return startChildWorkflowExecution({
    workflowType: { name, version },
    workflowId,
    input: encodePayload(codec, input, `the input of child workflow ${name}`),
    control: o.control,
    ...runSettings(o),
  });
}

export function continueAsNewDecision(
  codec: Codec,
  input: unknown,
  o: ContinueAsNewOptions,
): Decision {
  return continueAsNewWorkflowExecution({
    input: encodePayload(codec, input, 'the input of the new run'),
    workflowTypeVersion: o.workflowTypeVersion,
    ...runSettings(o),
  });
}

export function lambdaDecision(
  definition: LambdaDefinition<unknown, unknown>,
  input: unknown,
  id: string,
  o: { readonly startToCloseTimeout?: Duration; readonly control?: string },
): Decision {
  const timeout = o.startToCloseTimeout ?? definition.startToCloseTimeout;
  return scheduleLambdaFunction({
    id,
    name: definition.name,
    input: encodePayload(
      definition.codec,
      input,
      `the input of Lambda function ${definition.name}`,
    ),
    control: o.control,
    startToCloseTimeout:
      timeout === undefined ? undefined : durationSeconds(timeout, 'startToCloseTimeout'),
  });
}

/** A child's default workflowId: unique to the parent run, the same on every replay. */
export function childWorkflowId(parentWorkflowId: string, runId: string, number: number): string {
  const tail = `:${runId.slice(0, 12)}:${number}`;
  return `${parentWorkflowId.slice(0, 256 - tail.length)}${tail}`;
}
