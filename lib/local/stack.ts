import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDispatcher } from '../http/dispatch.js';
import { operations } from '../operations/index.js';
import type { PollingConfig, ServiceIdentity } from '../operations/context.js';
import type { Clock } from '../ports/clock.js';
import { createDeps } from '../wiring.js';
import { type DynamoDbLocal, localCredentials, startDynamoDbLocal } from './dynamodb-local.js';
import { type RunningServer, startServer } from './server.js';
import { ensureTable } from './table.js';

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_IDENTITY: ServiceIdentity = { region: LOCAL_REGION, accountId: '000000000000' };
export const DEFAULT_TABLE = 'swf-local';

export interface LocalStackOptions {
  /** Port of the SWF endpoint; 0 picks a free one. */
  readonly port?: number;
  /** Keep DynamoDB Local's data in this directory across restarts (in memory otherwise). */
  readonly dataDir?: string;
  readonly tableName?: string;
  /** Use a DynamoDB Local that is already running instead of starting one. */
  readonly dynamoEndpoint?: string;
  readonly clock?: Clock;
  /** Long-poll settings (tests shorten the 60 s wait). */
  readonly polling?: Partial<PollingConfig>;
}

export interface LocalStack {
  readonly endpoint: string;
  readonly dynamoEndpoint: string;
  readonly tableName: string;
  /** DynamoDB Local's process, when this stack started it. */
  readonly dynamo: DynamoDbLocal | undefined;
  readonly server: RunningServer;
  close(): Promise<void>;
}

/** DynamoDB Local, the table and the SWF endpoint: what `npm start` runs, as a function for tests. */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const dynamo =
    options.dynamoEndpoint === undefined
      ? await startDynamoDbLocal(options.dataDir === undefined ? {} : { dataDir: options.dataDir })
      : undefined;
  const dynamoEndpoint = options.dynamoEndpoint ?? dynamo?.endpoint ?? '';
  const tableName = options.tableName ?? DEFAULT_TABLE;
  const client = new DynamoDBClient({ endpoint: dynamoEndpoint, region: LOCAL_REGION, credentials: localCredentials });
  try {
    await ensureTable(client, tableName);
    const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    const deps = createDeps({
      doc,
      tableName,
      identity: LOCAL_IDENTITY,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.polling === undefined ? {} : { polling: options.polling }),
    });
    const server = await startServer(createDispatcher(operations, deps), { port: options.port ?? 0 });
    return {
      endpoint: server.url,
      dynamoEndpoint,
      tableName,
      dynamo,
      server,
      close: async () => {
        await server.close();
        client.destroy();
        await dynamo?.stop();
      },
    };
  } catch (error) {
    client.destroy();
    await dynamo?.stop();
    throw error;
  }
}
