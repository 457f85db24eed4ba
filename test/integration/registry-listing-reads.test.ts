/**
 * ListActivityTypes / ListWorkflowTypes read the domain's own partition and pass over the types of the
 * other status with a filter. DynamoDB counts a Query's Limit before the filter, so a page whose Limit
 * is only what the page still lacks reads a handful of items per request: a small page of REGISTERED
 * types behind thousands of DEPRECATED ones (a domain holds up to 10,000 types) took a request per
 * one or two types passed over.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TableRef } from '../../lib/adapters/dynamodb/client.js';
import type { DocClient } from '../../lib/adapters/dynamodb/doc-client.js';
import { keys } from '../../lib/adapters/dynamodb/keys.js';
import { DynamoRegistryStore } from '../../lib/adapters/dynamodb/registry-store.js';
import type { DomainRecord } from '../../lib/core/registry.js';
import { tableForFile } from '../support/local.js';

const fresh = tableForFile('listing-reads');
let table: TableRef;
beforeAll(() => {
  table = fresh();
});

const domain = (name: string): DomainRecord => ({
  name,
  status: 'REGISTERED',
  retentionPeriodInDays: '1',
  tags: [],
  creationDate: 1,
});

/** The table's client, counting the Queries sent through it. */
function counting(): { table: TableRef; queries: () => number } {
  let queries = 0;
  const inner = table.doc;
  const doc = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property === 'query' && typeof value === 'function')
        return (input: unknown) => {
          queries++;
          return (value as (i: unknown) => Promise<unknown>).call(target, input);
        };
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as DocClient;
  return { table: { doc, tableName: table.tableName }, queries: () => queries };
}

/** Activity types as createType writes them, put in batches (a quicker way to fill a domain). */
async function putTypes(domainName: string, names: string[], status: 'REGISTERED' | 'DEPRECATED') {
  for (let i = 0; i < names.length; i += 25) {
    await table.doc.batchWrite({
      RequestItems: {
        [table.tableName]: names.slice(i, i + 25).map((name) => ({
          PutRequest: {
            Item: {
              ...keys.type('activity', domainName, name, '1'),
              ...keys.typeList('activity', domainName, status),
              gsi1sk: keys.typeSortValue(name, '1'),
              entity: 'ActivityType',
              kind: 'activity',
              domain: domainName,
              name,
              version: '1',
              status,
              creationDate: 1,
              configuration: {},
            },
          },
        })),
      },
    });
  }
}

describe('a small page of types behind many of the other status', () => {
  it('is read in a few requests, not one per type or two passed over', async () => {
    const name = `d-${randomBytes(6).toString('hex')}`;
    await new DynamoRegistryStore(table).createDomain(domain(name), 100);
    const deprecated = Array.from({ length: 600 }, (_, i) => `a-${String(i).padStart(4, '0')}`);
    await putTypes(name, deprecated, 'DEPRECATED');
    await putTypes(name, ['b-1', 'b-2'], 'REGISTERED');
    const probe = counting();
    const store = new DynamoRegistryStore(probe.table);
    const page = await store.listTypes('activity', name, 'REGISTERED', undefined, {
      limit: 1,
      reverse: false,
    });
    expect(page.items.map((t) => t.name)).toEqual(['b-1']);
    expect(page.next).toBeDefined();
    // 600 types passed over by a filter: one Query of 1 MB holds them all.
    expect(probe.queries()).toBeLessThanOrEqual(12);
    const rest = await store.listTypes('activity', name, 'REGISTERED', undefined, {
      limit: 1,
      reverse: false,
      ...(page.next === undefined ? {} : { after: page.next }),
    });
    expect(rest.items.map((t) => t.name)).toEqual(['b-2']);
    expect(rest.next).toBeUndefined();
  }, 60_000);
});
