/**
 * Typed definitions of activities, workflows and Lambda functions: a name, a version, options and
 * the types of their input and output. The same definition schedules the activity from a workflow,
 * registers its type, and (with `implementActivity`) runs it in an ActivityWorker.
 */
import type { ChildPolicy } from '@aws-sdk/client-swf';
import type { Activity, ActivityContext } from '../activity/context.js';
import { type Codec, decodePayload, encodePayload, jsonCodec } from './codec.js';
import type { WorkflowContext } from './context.js';
import type { Duration, Timeout } from './duration.js';
import { checkRetryPolicy, type RetryPolicy } from './retry.js';

/** Where and how long an activity runs; each also serves as its type's registered default. */
export interface ActivityOptions {
  readonly taskList?: string;
  readonly taskPriority?: number;
  readonly scheduleToStartTimeout?: Timeout;
  readonly startToCloseTimeout?: Timeout;
  readonly scheduleToCloseTimeout?: Timeout;
  readonly heartbeatTimeout?: Timeout;
  /** Tries again after a failure or timeout, waiting on durable timers (default: one attempt). */
  readonly retry?: RetryPolicy;
}

export interface ActivityDefinitionOptions extends ActivityOptions {
  /** How input and result cross SWF (default JSON). */
  readonly codec?: Codec;
  /** The type's description when registered. */
  readonly description?: string;
}

/** An activity type, typed by its input `I` and result `O`. */
export interface ActivityDefinition<I = unknown, O = unknown> {
  readonly kind: 'activity';
  readonly name: string;
  readonly version: string;
  readonly options: ActivityDefinitionOptions;
  readonly codec: Codec;
  /** Types only: never set. */
  readonly types?: { readonly input: I; readonly output: O };
}

/**
 * @example
 * const VerifyOrder = defineActivity<Order, Verdict>('VerifyOrder', '1', { startToCloseTimeout: '5m' });
 */
export function defineActivity<I = unknown, O = unknown>(
  name: string,
  version: string,
  options: ActivityDefinitionOptions = {},
): ActivityDefinition<I, O> {
  if (options.retry !== undefined) checkRetryPolicy(options.retry);
  return { kind: 'activity', name, version, options, codec: options.codec ?? jsonCodec };
}

/** An activity's code with its definition: its input decoded and its result encoded by its codec. */
export interface ActivityImplementation {
  readonly definition: ActivityDefinition<unknown, unknown>;
  readonly activity: Activity;
}

export function implementActivity<I, O>(
  definition: ActivityDefinition<I, O>,
  run: (input: I, ctx: ActivityContext) => O | Promise<O>,
): ActivityImplementation {
  const { codec, name } = definition;
  const activity: Activity = async (input, ctx) => {
    const value = decodePayload(codec, input, `the input of activity ${name}`) as I;
    return encodePayload(codec, await run(value, ctx), `the result of activity ${name}`);
  };
  return { definition, activity };
}

/** The activity functions of an ActivityWorker (or activityTaskHandler), by type name. */
export function activityFunctions(
  ...implementations: readonly ActivityImplementation[]
): Record<string, Activity> {
  const functions: Record<string, Activity> = {};
  for (const { definition, activity } of implementations) {
    if (Object.hasOwn(functions, definition.name))
      throw new Error(`activity ${definition.name} is implemented twice`);
    functions[definition.name] = activity;
  }
  return functions;
}

/** How a workflow runs; each also serves as its type's registered default. */
export interface WorkflowOptions {
  readonly taskList?: string;
  readonly taskPriority?: number;
  readonly executionStartToCloseTimeout?: Duration;
  readonly taskStartToCloseTimeout?: Timeout;
  readonly childPolicy?: ChildPolicy;
  readonly lambdaRole?: string;
  readonly tagList?: readonly string[];
}

export interface WorkflowDefinitionOptions extends WorkflowOptions {
  /** How input, result, signals and markers cross SWF (default JSON). */
  readonly codec?: Codec;
  /**
   * What a replay that does not match the history does. `leaveTask` (the default): report it and
   * answer nothing, so the decision task times out and is tried again, by fixed code once it is
   * deployed. `failExecution`: report it and fail the execution.
   */
  readonly onNonDeterminism?: 'leaveTask' | 'failExecution';
  readonly description?: string;
}

/** A workflow type, typed by its input `I` and result `O`: enough to start it or signal it. */
export interface WorkflowReference<I = unknown, O = unknown> {
  readonly kind: 'workflow';
  readonly name: string;
  readonly version: string;
  readonly options: WorkflowDefinitionOptions;
  readonly codec: Codec;
  readonly types?: { readonly input: I; readonly output: O };
}

/** A workflow type with its code: what DeciderWorker and decisionTaskHandler run. */
export interface WorkflowDefinition<I = unknown, O = unknown> extends WorkflowReference<I, O> {
  // A method, not a function property: a list of workflows of different inputs is one type.
  run(ctx: WorkflowContext, input: I): Promise<O>;
}

/**
 * @example
 * export const orderWorkflow = defineWorkflow('OrderWorkflow', '1', async (ctx, order: Order) => {
 *   const verdict = await ctx.activity(VerifyOrder, order);
 *   if (!verdict.ok) return ctx.fail('order invalid', verdict);
 *   return 'shipped';
 * });
 */
export function defineWorkflow<I = unknown, O = unknown>(
  name: string,
  version: string,
  run: (ctx: WorkflowContext, input: I) => Promise<O>,
  options: WorkflowDefinitionOptions = {},
): WorkflowDefinition<I, O> {
  return { kind: 'workflow', name, version, options, codec: options.codec ?? jsonCodec, run };
}

/** A workflow type whose code lives elsewhere: to start it as a child, or signal it. */
export function workflowReference<I = unknown, O = unknown>(
  name: string,
  version: string,
  options: WorkflowDefinitionOptions = {},
): WorkflowReference<I, O> {
  return { kind: 'workflow', name, version, options, codec: options.codec ?? jsonCodec };
}

/** A Lambda function a workflow calls (ScheduleLambdaFunction), typed by its input and result. */
export interface LambdaDefinition<I = unknown, O = unknown> {
  readonly kind: 'lambda';
  /** The function's name, ARN or alias, as ScheduleLambdaFunction takes it. */
  readonly name: string;
  readonly startToCloseTimeout?: Duration;
  readonly codec: Codec;
  readonly types?: { readonly input: I; readonly output: O };
}

export function defineLambda<I = unknown, O = unknown>(
  name: string,
  options: { readonly startToCloseTimeout?: Duration; readonly codec?: Codec } = {},
): LambdaDefinition<I, O> {
  return { kind: 'lambda', name, ...options, codec: options.codec ?? jsonCodec };
}
