/**
 * The TypeScript SDK for SWF deciders and activity workers. It talks to any SWF endpoint through
 * `@aws-sdk/client-swf`: the local server, a deployed stack, or Amazon SWF itself.
 *
 * - `createSwfClient`: a client with long-poll-safe timeouts and the right SigV4 signing.
 * - `DeciderWorker` + `workflowState` + `decide.*`: deciders as plain `(state) => decisions` functions.
 * - `defineWorkflow` + `defineActivity`: workflows as async code, replayed from the history on each
 *   decision task; the same `DeciderWorker` (its `workflows`) runs them.
 * - `ActivityWorker`: slots, automatic heartbeats, `ctx.signal` cancellation, graceful shutdown.
 * - `activityTaskHandler` / `decisionTaskHandler`: the same workers as Lambda functions of push task
 *   lists, invoked by the service with each task instead of polling.
 */
export type { Decision, HistoryEvent, SWFClient } from '@aws-sdk/client-swf';
export {
  type Activity,
  ActivityCancelledError,
  type ActivityContext,
  ActivityFailure,
  CancelReason,
} from './activity/context.js';
export {
  RESULT_NOT_SERIALIZABLE,
  RESULT_TOO_LONG,
  type TaskEnd,
  WORKER_SHUTDOWN,
} from './activity/run-task.js';
export {
  ActivityWorker,
  type ActivityWorkerOptions,
  DEFAULT_CANCEL_GRACE_MS,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_SHUTDOWN_GRACE_MS,
} from './activity/worker.js';
export type { ApiFunction } from './api-function.js';
export {
  createSwfClient,
  DEFAULT_LOCAL_ENDPOINT,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type SwfClientOptions,
} from './client.js';
export * from './decider/decisions.js';
export { type DecisionTaskInput, workflowState } from './decider/replay.js';
export * from './decider/state.js';
export {
  type Decider,
  type DeciderResult,
  type Deciders,
  DeciderWorker,
  type DeciderWorkerOptions,
} from './decider/worker.js';
export { describeError, isRetryable, isUnknownResource } from './errors.js';
export {
  type ActivityTaskHandlerOptions,
  activityTaskHandler,
  type DecisionTaskHandlerOptions,
  decisionTaskHandler,
  type LambdaContext,
  type PushedTaskEvent,
  type PushedTaskHandler,
} from './lambda.js';
export type { SwfCall } from './lean-transport.js';
export { consoleLogger, type Logger, silentLogger } from './logger.js';
export { sleep } from './util.js';
export * from './workflow/index.js';
