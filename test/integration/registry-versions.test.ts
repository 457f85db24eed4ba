/**
 * The versions a type name has had, deleted ones included (what a visibility filter by type name
 * reads), kept against DynamoDB's 400 KB item limit: a name registered in a new version by every
 * deploy reaches thousands of versions, and deleting a deprecated version frees its place in the
 * domain's quota of 10,000 types, not its place in the record of the name's versions.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TableRef } from '../../lib/adapters/dynamodb/client.js';
import { keys } from '../../lib/adapters/dynamodb/keys.js';
import { DynamoRegistryStore } from '../../lib/adapters/dynamodb/registry-store.js';
import type { DomainRecord, TypeRecord } from '../../lib/core/registry.js';
import { tableForFile } from '../support/local.js';

const fresh = tableForFile('versions');
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
const activityType = (domainName: string, name: string, version: string): TypeRecord => ({
  kind: 'activity',
  domain: domainName,
  name,
  version,
  status: 'REGISTERED',
  creationDate: 1,
  configuration: {},
});

/** A version name of SWF's longest (64 characters), as a deploy pipeline may make them. */
const longVersion = (i: number) => `${String(i).padStart(8, '0')}-${'v'.repeat(55)}`;

describe("a type name's versions", () => {
  it('are recorded past what one item holds (400 KB): registering the next version still works', async () => {
    const store = new DynamoRegistryStore(table);
    const name = `d-${randomBytes(6).toString('hex')}`;
    expect(await store.createDomain(domain(name), 1_000)).toBe('created');
    // Versions registered (and deleted since, so that the domain's quota has room) of one name,
    // recorded as createType records them, until the record is as big as DynamoDB lets one item be.
    const record = (versions: string[]) =>
      table.doc.update({
        TableName: table.tableName,
        Key: keys.typeVersions('activity', name, 'a'),
        UpdateExpression: 'ADD versions :versions',
        ExpressionAttributeValues: { ':versions': new Set(versions) },
      });
    // Filled in ever smaller steps (each write rewrites the whole item), until not one more fits.
    let count = 0;
    for (const step of [1_000, 100, 10, 1]) {
      for (;;) {
        const versions = Array.from({ length: step }, (_, i) => longVersion(count + i));
        const fits = await record(versions).then(
          () => true,
          (error: unknown) => {
            if (error instanceof Error && /size/i.test(error.message)) return false;
            throw error;
          },
        );
        if (!fits) break;
        count += step;
      }
    }
    // DynamoDB refused even one more (past 400 KB): some 6,000 versions of 64 characters.
    expect(count).toBeGreaterThan(5_000);
    const next = longVersion(count);
    await expect(store.createType(activityType(name, 'a', next), 10_000)).resolves.toBe('created');
    const versions = await store.typeVersions('activity', name, 'a');
    expect(versions).toHaveLength(count + 1);
    expect(versions).toContain(next);
  }, 120_000);
});
