import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { RegisterDomainCommand, SWFClient } from '@aws-sdk/client-swf';
import { afterAll, beforeAll, inject } from 'vitest';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { LOCAL_REGION, type LocalStack, startLocalStack } from '../../lib/local/stack.js';
import { ensureTable } from '../../lib/local/table.js';
import { SwfKit } from './decider.js';

/** A table name no other test file uses. */
export const uniqueTableName = (prefix = 'test') => `${prefix}-${randomUUID()}`;

export const dynamoEndpoint = () => inject('dynamoEndpoint');

/** A raw DynamoDB client on the run's DynamoDB Local. */
export function dynamoClient(): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: dynamoEndpoint(),
    region: LOCAL_REGION,
    credentials: localCredentials,
  });
}

/** A fresh table on the run's DynamoDB Local, with a document client for it. */
export async function freshTable(prefix?: string) {
  const tableName = uniqueTableName(prefix);
  const client = dynamoClient();
  await ensureTable(client, tableName);
  const doc = createDocumentClient({
    endpoint: dynamoEndpoint(),
    region: LOCAL_REGION,
    credentials: localCredentials,
  });
  return { tableName, doc, client };
}

export type FreshTable = Awaited<ReturnType<typeof freshTable>>;

/** A fresh table for the calling test file: made before its tests, its clients closed after them. */
export function tableForFile(prefix: string): () => FreshTable {
  let table: FreshTable | undefined;
  beforeAll(async () => {
    table = await freshTable(prefix);
  });
  afterAll(() => {
    table?.doc.destroy();
    table?.client.destroy();
  });
  return () => {
    if (table === undefined) throw new Error('the table is made before the tests');
    return table;
  };
}

/** The local SWF server on a free port over a fresh table, and an official SDK client pointed at it. */
export async function startTestServer(
  options: Parameters<typeof startLocalStack>[0] = {},
): Promise<{
  stack: LocalStack;
  swf: SWFClient;
  close: () => Promise<void>;
}> {
  const stack = await startLocalStack({
    dynamoEndpoint: dynamoEndpoint(),
    tableName: uniqueTableName('swf'),
    ...options,
  });
  const swf = swfClient(stack.endpoint);
  return {
    stack,
    swf,
    close: async () => {
      swf.destroy();
      await stack.close();
      // The run's DynamoDB Local is shared by every file: drop this file's table (and its stream)
      // so the store does not slow down as files pile up.
      if (options.dynamoEndpoint === undefined) {
        const client = dynamoClient();
        await client
          .send(new DeleteTableCommand({ TableName: stack.tableName }))
          .catch(() => {})
          .finally(() => client.destroy());
      }
    },
  };
}

/**
 * A test server with `domain` registered (retention 1 day), and a SwfKit for that domain: what most
 * contract files start from.
 */
export async function serveDomain(
  domain: string,
  options: Parameters<typeof startTestServer>[0] = {},
): Promise<Awaited<ReturnType<typeof startTestServer>> & { kit: SwfKit }> {
  const server = await startTestServer(options);
  await server.swf.send(
    new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }),
  );
  return { ...server, kit: new SwfKit(server.swf, domain) };
}

export function swfClient(endpoint: string): SWFClient {
  return new SWFClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
}
