import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';

export interface TableRef {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
}

/** A document client with the marshalling options every adapter relies on. */
export function createDocumentClient(config: DynamoDBClientConfig = {}): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    unmarshallOptions: { wrapNumbers: false },
  });
}

/** Every page of a query of the table, one after the other (a page may be empty). */
export async function* queryPages(
  table: TableRef,
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): AsyncGenerator<QueryCommandOutput> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.doc.send(
      new QueryCommand({ ...input, TableName: table.tableName, ExclusiveStartKey: startKey }),
    );
    yield page;
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
}
