import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { createTableInput, tableSchema } from '../adapters/dynamodb/table-schema.js';

/** Creates the service table from the shared schema unless it exists, and waits until it is ACTIVE. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  if (!(await tableExists(client, tableName))) {
    try {
      await client.send(new CreateTableCommand(createTableInput(tableName)));
    } catch (error) {
      if (!(error instanceof ResourceInUseException)) throw error;
    }
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: tableSchema.timeToLiveAttribute, Enabled: true },
      }),
    );
  }
  for (let i = 0; i < 600; i++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`table ${tableName} did not become ACTIVE`);
}

async function tableExists(client: DynamoDBClient, tableName: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return true;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return false;
    throw error;
  }
}
