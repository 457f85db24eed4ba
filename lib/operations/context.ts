import type { ExecutionState } from '../core/execution-state.js';
import type { PolicySet } from '../core/principals.js';
import type { Clock } from '../ports/clock.js';
import type { DeadLetterStore } from '../ports/dead-letter-store.js';
import type { HeartbeatStore } from '../ports/heartbeat-store.js';
import type { LambdaInvoker, LambdaTaskRunner } from '../ports/lambda-invoker.js';
import type { LambdaTaskClaims } from '../ports/lambda-task-claims.js';
import type { MetricsSink } from '../ports/metrics.js';
import type { RegistryStore } from '../ports/registry-store.js';
import type { RunStore } from '../ports/run-store.js';
import type { TaskNotifier } from '../ports/task-notifier.js';
import type { TaskPush } from '../ports/task-push.js';
import type { TaskQueueStore } from '../ports/task-queue-store.js';
import type { TaskWakes } from '../ports/task-wakes.js';
import type { VisibilityStore } from '../ports/visibility-store.js';
import type { Caller } from './access.js';
import type { PageTokens } from './page-token.js';
import type { PollerLeasing } from './poller-admission.js';
import type { TaskTokens } from './task-token.js';

/** Where this service runs: domain ARNs are built from it. */
export interface ServiceIdentity {
  readonly region: string;
  readonly accountId: string;
}

/** The stores the operations keep their data in. */
export interface OperationStores {
  readonly registry: RegistryStore;
  /** Runs and their histories. */
  readonly runs: RunStore;
  readonly taskQueues: TaskQueueStore;
  readonly heartbeats: HeartbeatStore;
  readonly lambdaTaskClaims: LambdaTaskClaims;
  readonly deadLetters: DeadLetterStore;
  readonly visibility: VisibilityStore;
}

/** Everything an operation needs, built once per process by the composition root (lib/composition). */
export interface OperationDeps extends OperationStores {
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly pageTokens: PageTokens;
  readonly taskTokens: TaskTokens;
  readonly notifier: TaskNotifier;
  /** Wakes polls waiting in other processes, where they do (Lambda containers). */
  readonly wakes?: TaskWakes;
  readonly polling: PollingConfig;
  /** Leases of waiting polls across processes (deployed); unset, the process counts its own. */
  readonly pollerLeasing?: PollerLeasing;
  readonly identity: ServiceIdentity;
  readonly lambda: LambdaInvoker;
  /** Where the outbox hands started Lambda tasks, to be invoked and reported away from the stream. */
  readonly lambdaTasks: LambdaTaskRunner;
  /** Task lists served by functions instead of pollers, and how a started task reaches its function. */
  readonly push: TaskPush;
  /**
   * Who may do what (SWF's IAM policies by principal); unset: no policies configured, everything is
   * allowed (lib/operations/access.ts).
   */
  readonly access?: PolicySet;
  /**
   * Told of every committed change of a run's state. The local server arms new deadlines here at once
   * (the stream consumer arms them too, later; arming twice is harmless). Unset on AWS.
   */
  readonly onCommitted?: (before: ExecutionState | undefined, after: ExecutionState) => void;
  /** Where SWF's metrics of each commit (lib/core/swf-metrics.ts) and of throttled calls go. */
  readonly metrics?: MetricsSink;
}

export interface IdSource {
  /** A new, unique, opaque runId (at most 64 characters). */
  runId(): string;
}

/** How long polls wait. SWF holds a poll 60 s; in Lambda it must end before API Gateway's timeout. */
export interface PollingConfig {
  readonly maxWaitMs: number;
  /** How often a waiting poll re-reads the queue when no notification comes (other processes). */
  readonly recheckMs: number;
}

/** Per-request context: the caller may go away (client disconnect, Lambda deadline). */
export interface RequestContext {
  readonly requestId: string;
  /** Ends waits: the caller is gone, the server is stopping, or the Lambda's time is nearly up. */
  readonly signal: AbortSignal;
  /** Fires only when the caller is known to be gone (see HttpRequest.callerGone). */
  readonly callerGone?: AbortSignal;
  /** When the edge took the request (`performance.now()`): see HttpRequest.receivedAt. */
  readonly receivedAt?: number;
  /**
   * Who is calling, as the edge tells. The dispatcher always sets it; unset only for the service's
   * own calls (tests, the outbox), which no policy judges.
   */
  readonly caller?: Caller;
  /** What the audit log line of the call says; the authorization fills in the domain. */
  readonly audit?: { domain?: string };
}

export type Operation = (
  input: Record<string, unknown>,
  deps: OperationDeps,
  request: RequestContext,
) => Promise<object | undefined>;

/**
 * Adapts a typed operation to the dispatcher. The cast is the one place the validated body meets its
 * type: validateInput has already checked it against the same service-model shape the type describes.
 */
export const operation =
  <I>(
    run: (input: I, deps: OperationDeps, request: RequestContext) => Promise<object | undefined>,
  ): Operation =>
  (input, deps, request) =>
    run(input as I, deps, request);
