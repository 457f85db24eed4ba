import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Page, PageRequest } from '../../ports/registry-store.js';
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

/**
 * One page of a listing in key order (`input`, its key condition and filter). Asks for one item more
 * than the page holds, so that a cursor is returned only when another item really follows: SWF omits
 * nextPageToken on the last page. `cursor` names an item as `startKey` reads it back.
 */
export async function queryPage<T>(
  table: TableRef,
  input: QueryCommandInput,
  page: PageRequest,
  startKey: (after: string) => Record<string, unknown>,
  map: (item: Record<string, unknown>) => T,
  cursor: (item: T) => string,
): Promise<Page<T>> {
  const items: Record<string, unknown>[] = [];
  let lastKey: Record<string, unknown> | undefined =
    page.after === undefined ? undefined : startKey(page.after);
  let limit = 0;
  do {
    // A filter passes over items after the limit is counted: another read may be needed. Each one
    // reads at least twice as many as the last, so that a small page behind many items the filter
    // passes over takes a few reads, not one per item or two (what follows the page is read past
    // and left: the cursor names the page's last item).
    limit = Math.max(page.limit + 1 - items.length, 2 * limit);
    const result = await table.doc.query({
      ...input,
      ScanIndexForward: !page.reverse,
      Limit: limit,
      ExclusiveStartKey: lastKey,
    });
    items.push(...(result.Items ?? []));
    lastKey = result.LastEvaluatedKey;
  } while (lastKey !== undefined && items.length <= page.limit);
  const shown = items.slice(0, page.limit).map(map);
  const last = shown[shown.length - 1];
  const next = items.length > page.limit && last !== undefined ? cursor(last) : undefined;
  return next === undefined ? { items: shown } : { items: shown, next };
}
