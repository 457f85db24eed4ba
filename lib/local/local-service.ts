import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDocumentClient } from '../adapters/dynamodb/client.js';
import type { DynamoIntercept } from '../adapters/dynamodb/doc-client.js';
import { DynamoExecutionStore } from '../adapters/dynamodb/execution-store.js';
import {
  dynamoStreamRecords,
  isOutboxRecord,
  type StreamRecordLike,
} from '../adapters/dynamodb/stream-records.js';
import { BackgroundLambdaTasks } from '../adapters/in-process/background-lambda-tasks.js';
import { LocalLambdaFunctions } from '../adapters/in-process/local-lambda.js';
import { LocalDeadlineScheduler } from '../adapters/in-process/local-scheduler.js';
import { LocalTaskPush } from '../adapters/in-process/local-task-push.js';
import { NoTaskNotifier } from '../adapters/in-process/task-notifier.js';
import { createOperationDeps } from '../composition/operation-deps.js';
import { tablePollerLeasing } from '../composition/poller-leasing.js';
import { earliestDeadline } from '../core/deadlines.js';
import type { ExecutionState } from '../core/execution-state.js';
import type { PolicySet } from '../core/principals.js';
import { auditLine, createDispatcher, type HttpRequest } from '../http/dispatch.js';
import { operationsByAction } from '../http/operations-by-action.js';
import type { PollingConfig, ServiceIdentity } from '../operations/context.js';
import { armDeadlines, fireRunDeadline, type OutboxDeps } from '../operations/outbox.js';
import { handleStreamRecords, type StreamHandlingOptions } from '../operations/stream-records.js';
import type { Clock } from '../ports/clock.js';
import type { TaskWakes } from '../ports/task-wakes.js';
import { isTransientFailure } from '../ports/transient-failure.js';
import {
  type SupervisedDynamo,
  servedWhileStoreServes,
  superviseDynamoDbLocal,
} from './dynamo-supervisor.js';
import { localCredentials } from './dynamodb-local.js';
import { PrometheusMetrics } from './prometheus-metrics.js';
import { type RouteHook, type RunningServer, startServer } from './server.js';

/** The name the local server answers Lambda's Invoke for, as the deployed API function. */
export const LOCAL_API_FUNCTION = 'swf-local-api';

import { type StreamPoller, startStreamPoller } from './stream-poller.js';
import { ensureTable } from './table.js';

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_IDENTITY: ServiceIdentity = { region: LOCAL_REGION, accountId: '000000000000' };
export const DEFAULT_TABLE = 'swf-local';

export interface LocalServiceOptions {
  /** Port of the SWF endpoint; 0 picks a free one. */
  readonly port?: number;
  /** Keep DynamoDB Local's data in this directory across restarts (in memory otherwise). */
  readonly dataDir?: string;
  /**
   * DynamoDB Local outlives a SIGINT to the process group (a terminal's Ctrl-C) until `close` stops it,
   * so calls in progress are answered first: what `npm start` does.
   */
  readonly dynamoOutlivesInterrupt?: boolean;
  readonly tableName?: string;
  /** Use a DynamoDB Local that is already running instead of starting one. */
  readonly dynamoEndpoint?: string;
  readonly clock?: Clock;
  /** Long-poll settings (tests shorten the 60 s wait). */
  readonly polling?: Partial<PollingConfig>;
  /** Around every request of the service's DynamoDB client (the bench's meter). */
  readonly dynamoIntercept?: DynamoIntercept;
  /**
   * Serve requests as separate Lambda containers do: no poller is woken or handed a task by another
   * request; polls re-read their queue instead (NoTaskNotifier). For the bench's cost figures.
   */
  readonly requestsApart?: boolean;
  /**
   * Waiting polls take leases in the table, as in the deployed API function, whose polls wait in
   * containers of their own (with its cap on polls waiting at once): for the bench's cost figures.
   */
  readonly tableLeases?: { readonly maxWaitingPolls?: number };
  /**
   * A wake channel between requests kept apart, as deployed (the bench's cost figures: an SQS
   * channel on a local SQS-compatible server, its requests counted).
   */
  readonly wakes?: TaskWakes;
  /**
   * Around every SWF call the server answers, with the request it answers (the bench's meter keeps
   * each call's waits apart; a test environment skipping time knows which calls are in progress).
   */
  readonly aroundCall?: <T>(call: () => Promise<T>, request: HttpRequest) => Promise<T>;
  /** Told of every committed change of a run's state, after the service's own handling of it. */
  readonly observeCommits?: (before: ExecutionState | undefined, after: ExecutionState) => void;
  /** Routes the endpoint answers besides SWF's, for requests other than POSTs (the console's pages). */
  readonly routes?: RouteHook;
  /**
   * SWF's access policies by access key id (`--access-policies`); unset: every call is allowed. The
   * caller is the access key id of the request's SigV4 signature, which is not verified.
   */
  readonly access?: PolicySet;
  /** Prints the audit log's line for each call (as the deployed API function logs it). */
  readonly auditLog?: (line: string) => void;
  /** Told as each part starts (DynamoDB Local, the table, the outbox): what `npm start` prints. */
  readonly progress?: (line: string) => void;
  /** Where the service says what befalls its DynamoDB Local (died, restarting, back); stderr by default. */
  readonly log?: (line: string) => void;
  /**
   * The DynamoDB Local this service started is gone for good (it held its data in memory, or would
   * not start again). By default the service says so and closes; `npm start` exits non-zero.
   */
  readonly onStoreLost?: (message: string) => void;
}

export interface LocalService {
  readonly endpoint: string;
  readonly dynamoEndpoint: string;
  readonly tableName: string;
  /** DynamoDB Local, when this service started it (and restarts it when it dies). */
  readonly dynamo: SupervisedDynamo | undefined;
  readonly server: RunningServer;
  /** The dependencies the outbox runs with (tests drive the stream handler with them). */
  readonly outbox: OutboxDeps;
  /** Register Lambda functions that ScheduleLambdaFunction decisions may run locally. */
  readonly lambda: LocalLambdaFunctions;
  /** Register functions that serve push task lists (see lib/ports/task-push.ts) in this process. */
  readonly push: LocalTaskPush;
  readonly scheduler: LocalDeadlineScheduler;
  /** SWF's metrics, served at `GET /metrics`. */
  readonly metrics: PrometheusMetrics;
  /** Resolves once the outbox has handled every record of the table's stream written before. */
  streamCaughtUp(): Promise<void>;
  close(): Promise<void>;
}

/**
 * What the local stream poller does with the records it reads: the outbox's records handled as the
 * stream function does. A transient failure (contention, throttling) fails the read, which is tried
 * again from the same records; only a record's own fault is dead-lettered.
 */
export const localStreamHandler =
  (deps: OutboxDeps, options: Omit<StreamHandlingOptions<StreamRecordLike>, 'isTransient'> = {}) =>
  (records: readonly StreamRecordLike[]) =>
    handleStreamRecords(deps, records.filter(isOutboxRecord), dynamoStreamRecords(deps.runs), {
      ...options,
      isTransient: isTransientFailure,
    });

/** DynamoDB Local, the table and the SWF endpoint: what `npm start` runs, as a function for tests. */
export async function startLocalService(options: LocalServiceOptions = {}): Promise<LocalService> {
  const progress = options.progress ?? (() => {});
  const log = options.log ?? ((line: string) => console.error(line));
  let lost: (message: string) => void = log;
  const dynamo =
    options.dynamoEndpoint === undefined
      ? await superviseDynamoDbLocal({
          ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
          outliveInterrupt: options.dynamoOutlivesInterrupt === true,
          progress,
          log,
          onLost: (message) => lost(message),
        })
      : undefined;
  const dynamoEndpoint = options.dynamoEndpoint ?? dynamo?.endpoint ?? '';
  const tableName = options.tableName ?? DEFAULT_TABLE;
  const client = new DynamoDBClient({
    endpoint: dynamoEndpoint,
    region: LOCAL_REGION,
    credentials: localCredentials,
  });
  try {
    await ensureTable(client, tableName);
    progress(`Table ${tableName} ready`);
    const doc = createDocumentClient({
      endpoint: dynamoEndpoint,
      region: LOCAL_REGION,
      credentials: localCredentials,
      ...(options.dynamoIntercept === undefined ? {} : { intercept: options.dynamoIntercept }),
    });
    const lambda = new LocalLambdaFunctions();
    const lambdaTasks = new BackgroundLambdaTasks();
    const push = new LocalTaskPush();
    let outbox: OutboxDeps | undefined;
    let poller: StreamPoller | undefined;
    const metrics = new PrometheusMetrics((kind, domain, list) =>
      deps.taskQueues.countQueue(kind, domain, list),
    );
    const deps = createOperationDeps({
      doc,
      tableName,
      identity: LOCAL_IDENTITY,
      lambda,
      lambdaTasks,
      push,
      ...(options.requestsApart === true ? { notifier: new NoTaskNotifier() } : {}),
      ...(options.tableLeases === undefined
        ? {}
        : {
            pollerLeasing: tablePollerLeasing(doc, tableName, options.tableLeases.maxWaitingPolls),
          }),
      ...(options.wakes === undefined ? {} : { wakes: options.wakes }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...localPolling(options),
      ...(options.access === undefined ? {} : { access: options.access }),
      metrics,
      // A new deadline is armed the moment its change commits, not when the stream gets to it.
      onCommitted: (before, after) => {
        if (outbox !== undefined) armDeadlines(outbox, before, after).catch(() => {});
        poller?.wake();
        options.observeCommits?.(before, after);
        noteQueuedLists(metrics, after);
      },
    });
    // Timers and timeouts: an in-process heap whose fires run the same handler as functions/timer.ts.
    const scheduler: LocalDeadlineScheduler = new LocalDeadlineScheduler(
      deps.clock,
      (fire) => (outbox === undefined ? Promise.resolve() : fireRunDeadline(outbox, fire)),
      // A fire that fails while DynamoDB Local restarts is tried again each second: the outage's
      // own line says it all.
      (error) => {
        if (dynamo?.outage() === undefined) console.error('deadline fire failed', error);
      },
    );
    outbox = { ...deps, scheduler };
    const ready = outbox;
    poller = await startStreamPoller({
      endpoint: dynamoEndpoint,
      region: LOCAL_REGION,
      tableName,
      dynamo: client,
      // What the stream function's event source delivers on AWS: the records with work for the
      // outbox (the others' images are never decoded).
      handle: localStreamHandler(ready),
      log,
    });
    const armed = await rearmDeadlines(deps.runs, scheduler);
    progress(`Outbox reading the table's stream; ${armed} open run(s) with deadlines re-armed`);
    const audit = options.auditLog;
    const dispatch = servedWhileStoreServes(
      dynamo,
      createDispatcher(
        operationsByAction,
        deps,
        undefined,
        audit === undefined ? undefined : (entry) => audit(auditLine(entry)),
      ),
    );
    const around = options.aroundCall;
    const server = await startServer(
      around === undefined ? dispatch : (request) => around(() => dispatch(request), request),
      {
        port: options.port ?? 0,
        apiFunction: LOCAL_API_FUNCTION,
        routes: withMetricsRoute(metrics, options.routes),
      },
    );
    // Pushed tasks name the server's API function, whose Invoke it serves, as a deployment names its own.
    push.useApi({ functionName: LOCAL_API_FUNCTION, endpoint: server.url });
    const service: LocalService = {
      endpoint: server.url,
      dynamoEndpoint,
      tableName,
      dynamo,
      server,
      outbox: ready,
      lambda,
      push,
      scheduler,
      metrics,
      streamCaughtUp: () => poller?.caughtUp() ?? Promise.resolve(),
      close: async () => {
        await server.close();
        lambdaTasks.stop();
        await poller.stop();
        await scheduler.stop();
        client.destroy();
        doc.destroy();
        await dynamo?.stop();
      },
    };
    lost =
      options.onStoreLost ??
      ((message) => {
        log(message);
        void service.close();
      });
    return service;
  } catch (error) {
    client.destroy();
    await dynamo?.stop();
    throw error;
  }
}

/**
 * How often a waiting poll reads its queue on its own. In one process every task queued wakes its
 * list's pollers at once, so this is only a safety net, and one look per list stands for all its
 * pollers (TaskNotifier.lookDue): a thousand idle polls cost a few reads a second, not a thousand.
 * Requests kept apart (as deployed) have no wake and keep the deployed interval.
 */
const LOCAL_RECHECK_MS = 20_000;

function localPolling(options: LocalServiceOptions): { polling?: Partial<PollingConfig> } {
  if (options.requestsApart === true)
    return options.polling === undefined ? {} : { polling: options.polling };
  return { polling: { recheckMs: LOCAL_RECHECK_MS, ...options.polling } };
}

/** The caller's routes (the console's pages) first, then `GET /metrics`: a caller may serve its own. */
function withMetricsRoute(metrics: PrometheusMetrics, routes: RouteHook | undefined): RouteHook {
  const own = metrics.route();
  return (req, res) => routes?.(req, res) === true || own(req, res);
}

/** The lists a run's tasks wait on: their backlog is part of `GET /metrics` from then on. */
function noteQueuedLists(metrics: PrometheusMetrics, state: ExecutionState): void {
  if (state.decisionTask.status === 'scheduled')
    metrics.noteTaskList('decision', state.domain, state.decisionTask.taskList);
  for (const activity of Object.values(state.activities))
    if (activity.startedEventId === undefined)
      metrics.noteTaskList('activity', state.domain, activity.taskList);
}

/** Deadlines live in memory locally: on start, arm every open run's alarm again from the table. */
async function rearmDeadlines(store: unknown, scheduler: LocalDeadlineScheduler): Promise<number> {
  if (!(store instanceof DynamoExecutionStore)) return 0;
  let armed = 0;
  for (const state of await store.scanOpenRuns()) {
    const alarm = state.alarm ?? earliestDeadline(state);
    if (alarm === undefined) continue;
    await scheduler.arm({ runId: state.execution.runId, key: alarm.key, at: alarm.at });
    armed++;
  }
  return armed;
}
