import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { type DocClient, type DocClientOptions, DynamoDocClient } from './doc-client.js';

export interface TableRef {
  readonly doc: DocClient;
  readonly tableName: string;
}

/** The client every adapter reads and writes the table with. */
export function createDocumentClient(options: DocClientOptions = {}): DynamoDocClient {
  return new DynamoDocClient(options);
}

/** Every page of a query of the table, one after the other (a page may be empty). */
export async function* queryPages(
  table: TableRef,
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): AsyncGenerator<Awaited<ReturnType<DocClient['query']>>> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.doc.query({
      ...input,
      TableName: table.tableName,
      ExclusiveStartKey: startKey,
    });
    yield page;
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
}
