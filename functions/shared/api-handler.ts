import type { Context } from 'aws-lambda';
import type { DocClient } from '../../lib/adapters/dynamodb/doc-client.js';
import { createOperationDeps } from '../../lib/composition/operation-deps.js';
import { tablePollerLeasing } from '../../lib/composition/poller-leasing.js';
import type { PolicySet } from '../../lib/core/principals.js';
import { type AuditEntry, createDispatcher, type Dispatcher } from '../../lib/http/dispatch.js';
import { operationsByAction } from '../../lib/http/operations-by-action.js';
import type { PollingConfig } from '../../lib/operations/context.js';
import type { LambdaInvoker } from '../../lib/ports/lambda-invoker.js';
import type { MetricsSink } from '../../lib/ports/metrics.js';
import type { SigningKeySource } from '../../lib/ports/secrets.js';
import type { TaskPush } from '../../lib/ports/task-push.js';
import type { TaskWakes } from '../../lib/ports/task-wakes.js';
import { accountIdFromArn } from './config.js';
import { type HttpApiOptions, httpApiHandler } from './http-api.js';

export interface ApiSettings {
  readonly doc: DocClient;
  readonly tableName: string;
  readonly region: string;
  /** When unset, read from the invoked function's ARN on the first invocation. */
  readonly accountId?: string | undefined;
  readonly polling?: Partial<PollingConfig> | undefined;
  /** Whether ScheduleLambdaFunction is offered: the AWS invoker in Lambda (tests may pass a local one). */
  readonly lambda?: LambdaInvoker | undefined;
  /** Push task lists: their tasks are never queued (the committing function pushes them). @default none */
  readonly push?: TaskPush | undefined;
  /**
   * Who the function's callers are: `front-door` (API Gateway or the function URL: the event's IAM
   * authorizer context names the caller) or `direct-invoke` (push-task-list workers: no caller, only
   * what a task token authorizes). @default 'front-door'
   */
  readonly callers?: 'front-door' | 'direct-invoke';
  /** SWF's access policies by principal ARN; unset: every call is allowed. */
  readonly access?: PolicySet | undefined;
  /** Writes the audit line of each call (functions/api.ts: to the function's log). @default none */
  readonly audit?: ((entry: AuditEntry) => void) | undefined;
  /** The token-signing keys (the stack's secret); by default a key kept in the table. */
  readonly signingKeys?: SigningKeySource | undefined;
  /** Where SWF's metrics of each commit and throttled call go (functions/api.ts: EMF). */
  readonly metrics?: MetricsSink | undefined;
  /**
   * The most long polls that wait at once across the function's containers (each poll takes a lease
   * in the table, as it does of its task list's 1,000). @default no cap
   */
  readonly maxWaitingPolls?: number | undefined;
  /** Wakes polls waiting in other containers (functions/api.ts: SQS); by default none. */
  readonly wakes?: TaskWakes | undefined;
}

/**
 * The api function's handler over one table. functions/api.ts builds it from the environment; tests
 * build it over DynamoDB Local with the same operations and the same dispatcher as the local server.
 */
export function createApiHandler(settings: ApiSettings, options?: HttpApiOptions) {
  return httpApiHandler(apiDispatcher(settings), options, settings.callers ?? 'front-door');
}

/**
 * The dispatcher is built on the first invocation, when the account id (part of every domain ARN) can
 * be read from the context, then reused by every warm invocation of the container.
 */
export function apiDispatcher(settings: ApiSettings): (context: Context) => Dispatcher {
  let dispatch: Dispatcher | undefined;
  return (context) => {
    dispatch ??= createDispatcher(
      operationsByAction,
      createOperationDeps({
        ...(settings.access === undefined ? {} : { access: settings.access }),
        ...(settings.signingKeys === undefined ? {} : { signingKeys: settings.signingKeys }),
        doc: settings.doc,
        tableName: settings.tableName,
        identity: {
          region: settings.region,
          accountId: settings.accountId ?? accountIdFromArn(context.invokedFunctionArn),
        },
        ...(settings.polling === undefined ? {} : { polling: settings.polling }),
        ...(settings.lambda === undefined ? {} : { lambda: settings.lambda }),
        ...(settings.push === undefined ? {} : { push: settings.push }),
        ...(settings.metrics === undefined ? {} : { metrics: settings.metrics }),
        // Each container serves one request at a time, so a poll's limits are kept in the table.
        pollerLeasing: tablePollerLeasing(
          settings.doc,
          settings.tableName,
          settings.maxWaitingPolls,
        ),
        ...(settings.wakes === undefined ? {} : { wakes: settings.wakes }),
      }),
      undefined,
      settings.audit,
    );
    return dispatch;
  };
}
