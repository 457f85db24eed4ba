/**
 * Workflows as code: an async function replayed from the execution's history on every decision task,
 * answering with the decisions its new progress needs. See docs/workflows-as-code.md.
 */
export { registerTypes, startWorkflow } from './client.js';
export { CloseAsCanceled, ContinueAsNew } from './close.js';
export { type Codec, jsonCodec, PayloadError, textCodec } from './codec.js';
export type { ChildOperation, Signal, WorkflowContext } from './context.js';
export { NON_DETERMINISM_REASON, type WorkflowObservation } from './decide.js';
export {
  type ActivityDefinition,
  type ActivityDefinitionOptions,
  type ActivityImplementation,
  type ActivityOptions,
  activityFunctions,
  defineActivity,
  defineLambda,
  defineWorkflow,
  implementActivity,
  type LambdaDefinition,
  type WorkflowDefinition,
  type WorkflowDefinitionOptions,
  type WorkflowOptions,
  type WorkflowReference,
  workflowReference,
} from './definitions.js';
export { type Duration, durationSeconds, type Timeout } from './duration.js';
export * from './errors.js';
export type { Operation } from './operation.js';
export type { RaceOptions } from './race.js';
export { type ReplayOutcome, type ReplayTask, replayWorkflow } from './replayer.js';
export type { ActivityCallOptions, ChildOptions, ContinueAsNewOptions } from './requests.js';
export { DEFAULT_RETRY_ATTEMPTS, type RetryPolicy } from './retry.js';
export type { WorkflowInfo } from './run-api.js';
