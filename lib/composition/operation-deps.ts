import { randomBytes } from 'node:crypto';
import type { DocClient } from '../adapters/dynamodb/doc-client.js';
import { DynamoExecutionStore } from '../adapters/dynamodb/execution-store.js';
import { DynamoRegistryStore } from '../adapters/dynamodb/registry-store.js';
import { DynamoVisibilityStore } from '../adapters/dynamodb/visibility-store.js';
import { BackgroundLambdaTasks } from '../adapters/in-process/background-lambda-tasks.js';
import { LocalLambdaFunctions } from '../adapters/in-process/local-lambda.js';
import { RegistryCache } from '../adapters/in-process/registry-cache.js';
import { InProcessTaskNotifier } from '../adapters/in-process/task-notifier.js';
import { translatingFailures } from '../adapters/transient-failures.js';
import type { PolicySet } from '../core/principals.js';
import type {
  OperationDeps,
  OperationStores,
  PollingConfig,
  ServiceIdentity,
} from '../operations/context.js';
import { PageTokens } from '../operations/page-token.js';
import type { PollerLeasing } from '../operations/poller-admission.js';
import { TaskTokens } from '../operations/task-token.js';
import { type Clock, epochSeconds, systemClock } from '../ports/clock.js';
import type { LambdaInvoker, LambdaTaskRunner } from '../ports/lambda-invoker.js';
import type { MetricsSink } from '../ports/metrics.js';
import type { SigningKeySource } from '../ports/secrets.js';
import type { TaskNotifier } from '../ports/task-notifier.js';
import { noTaskPush, type TaskPush } from '../ports/task-push.js';
import type { TaskWakes } from '../ports/task-wakes.js';

/** What the operations' dependencies are built with, whatever the stores. */
export interface AssemblyOptions {
  readonly identity: ServiceIdentity;
  readonly clock?: Clock;
  readonly polling?: Partial<PollingConfig>;
  /** Runs ScheduleLambdaFunction tasks; by default none are available (the local server). */
  readonly lambda?: LambdaInvoker;
  /** Where started Lambda tasks run; by default in the background of this process (the local server). */
  readonly lambdaTasks?: LambdaTaskRunner;
  /** Task lists pushed to functions (see lib/ports/task-push.ts); by default none. */
  readonly push?: TaskPush;
  readonly onCommitted?: OperationDeps['onCommitted'];
  /** Where SWF's metrics go; by default nowhere. */
  readonly metrics?: MetricsSink;
  /** Wakes and hands tasks to pollers of this process; by default an InProcessTaskNotifier. */
  readonly notifier?: TaskNotifier;
  /** Wakes polls waiting in other processes (Lambda containers); by default none. */
  readonly wakes?: TaskWakes;
  /** SWF's access policies by principal; by default none, and every call is allowed. */
  readonly access?: PolicySet;
  /** Leases of polls waiting in processes of their own (Lambda containers); by default none. */
  readonly pollerLeasing?: PollerLeasing;
}

export interface OperationDepsOptions extends AssemblyOptions {
  readonly doc: DocClient;
  readonly tableName: string;
  /** A fixed signing key (base64); by default one is created in the table on first use and shared. */
  readonly signingKey?: string;
  readonly queueShards?: number;
  readonly visibilityShards?: number;
  /**
   * Where the token-signing keys come from (AWS Secrets Manager on AWS); by default `signingKey`, or
   * a key created in the table on first use and shared.
   */
  readonly signingKeys?: SigningKeySource;
}

/** SWF holds a long poll for 60 s. */
export const DEFAULT_POLLING: PollingConfig = { maxWaitMs: 60_000, recheckMs: 1_000 };

/** runIds: 32 random bytes, base64url (43 characters, within SWF's 64). */
const newRunId = () => randomBytes(32).toString('base64url');

/** Builds the operations' dependencies over one table: the same for the Lambda functions and the local server. */
export function createOperationDeps(options: OperationDepsOptions): OperationDeps {
  const table = { doc: options.doc, tableName: options.tableName };
  const clock = options.clock ?? systemClock;
  const nowSeconds = () => epochSeconds(clock);
  // The stores throw a TransientServiceError for their clients' transient errors: the operations
  // know no client's error names.
  const registry = translatingFailures(new DynamoRegistryStore(table));
  // One adapter over the table serves the runs, their queues and their side items.
  const executions = translatingFailures(
    new DynamoExecutionStore(table, {
      nowSeconds,
      ...(options.queueShards === undefined ? {} : { queueShards: options.queueShards }),
    }),
  );
  const visibility = translatingFailures(
    new DynamoVisibilityStore(table, {
      nowSeconds,
      ...(options.visibilityShards === undefined ? {} : { shards: options.visibilityShards }),
    }),
  );
  const keys =
    options.signingKeys ??
    cachedKeySource(() =>
      options.signingKey === undefined
        ? registry.signingKey(() => randomBytes(32))
        : Promise.resolve(Buffer.from(options.signingKey, 'base64')),
    );
  const stores = {
    registry,
    runs: executions,
    taskQueues: executions,
    heartbeats: executions,
    lambdaTaskClaims: executions,
    deadLetters: executions,
    visibility,
  };
  return assembleOperationDeps(stores, keys, { ...options, clock });
}

/** The operations' dependencies over `stores`, signing tokens with `keys`. */
export function assembleOperationDeps(
  stores: OperationStores,
  keys: SigningKeySource,
  options: AssemblyOptions,
): OperationDeps {
  const clock = options.clock ?? systemClock;
  return {
    ...stores,
    registry: new RegistryCache(stores.registry, () => clock.now()),
    clock,
    ids: { runId: newRunId },
    identity: options.identity,
    pageTokens: new PageTokens(keys, () => epochSeconds(clock)),
    taskTokens: new TaskTokens(keys),
    notifier: options.notifier ?? new InProcessTaskNotifier(),
    polling: { ...DEFAULT_POLLING, ...options.polling },
    lambda: options.lambda ?? new LocalLambdaFunctions(),
    lambdaTasks: options.lambdaTasks ?? new BackgroundLambdaTasks(),
    push: options.push ?? noTaskPush,
    ...(options.onCommitted === undefined ? {} : { onCommitted: options.onCommitted }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.wakes === undefined ? {} : { wakes: options.wakes }),
    ...(options.access === undefined ? {} : { access: options.access }),
    ...(options.pollerLeasing === undefined ? {} : { pollerLeasing: options.pollerLeasing }),
  };
}

/** A key that never changes (the table's, locally), read once and kept; a failed read is retried. */
function cachedKeySource(load: () => Promise<Buffer>): SigningKeySource {
  let keys: Promise<{ current: Buffer }> | undefined;
  return {
    signingKeys: () => {
      keys ??= load()
        .then((current) => ({ current }))
        .catch((error: unknown) => {
          keys = undefined; // a failed load is retried by the next request
          throw error;
        });
      return keys;
    },
  };
}
