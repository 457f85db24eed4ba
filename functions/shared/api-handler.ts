import type { Context } from 'aws-lambda';
import type { DocClient } from '../../lib/adapters/dynamodb/doc-client.js';
import { createOperationDeps } from '../../lib/composition/operation-deps.js';
import { createDispatcher, type Dispatcher } from '../../lib/http/dispatch.js';
import { operationsByAction } from '../../lib/http/operations-by-action.js';
import type { PollingConfig } from '../../lib/operations/context.js';
import type { LambdaInvoker } from '../../lib/ports/lambda-invoker.js';
import type { TaskPush } from '../../lib/ports/task-push.js';
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
}

/**
 * The api function's handler over one table. functions/api.ts builds it from the environment; tests
 * build it over DynamoDB Local with the same operations and the same dispatcher as the local server.
 */
export function createApiHandler(settings: ApiSettings, options?: HttpApiOptions) {
  return httpApiHandler(apiDispatcher(settings), options);
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
        doc: settings.doc,
        tableName: settings.tableName,
        identity: {
          region: settings.region,
          accountId: settings.accountId ?? accountIdFromArn(context.invokedFunctionArn),
        },
        ...(settings.polling === undefined ? {} : { polling: settings.polling }),
        ...(settings.lambda === undefined ? {} : { lambda: settings.lambda }),
        ...(settings.push === undefined ? {} : { push: settings.push }),
      }),
    );
    return dispatch;
  };
}
