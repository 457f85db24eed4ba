/**
 * The registry's quotas against DynamoDB Local: 10,000 types of each kind per domain,
 * deprecated ones included, and 100 domains per account. The store takes the quota as an argument, so
 * these tests use small ones; the operations pass SWF's (registryLimits, checked below).
 */
import { describe, expect, it } from 'vitest';
import { keys } from '../../lib/adapters/dynamodb/keys.js';
import { DynamoRegistryStore } from '../../lib/adapters/dynamodb/registry-store.js';
import {
  type DomainRecord,
  registryLimits,
  type TypeKind,
  type TypeRecord,
} from '../../lib/core/registry.js';
import { freshTable } from '../support/local.js';

async function store() {
  const { tableName, doc } = await freshTable('limits');
  return new DynamoRegistryStore({ tableName, doc });
}

const domain = (name: string): DomainRecord => ({
  name,
  status: 'REGISTERED',
  retentionPeriodInDays: '1',
  tags: [],
  creationDate: 1,
});

const type = (kind: TypeKind, domainName: string, name: string): TypeRecord =>
  kind === 'workflow'
    ? {
        kind,
        domain: domainName,
        name,
        version: '1',
        status: 'REGISTERED',
        creationDate: 1,
        configuration: {},
      }
    : {
        kind,
        domain: domainName,
        name,
        version: '1',
        status: 'REGISTERED',
        creationDate: 1,
        configuration: {},
      };

describe('registry quotas', () => {
  it('are SWF’s documented numbers', () => {
    expect(registryLimits).toStrictEqual({
      domainsPerAccount: 100,
      typesPerDomain: 10_000,
      tagsPerDomain: 50,
    });
  });

  it.each(['workflow', 'activity'] as const)(
    'count %s types per domain, deprecated ones included; a deleted one frees its place',
    async (kind) => {
      const registry = await store();
      await registry.createDomain(domain('d'), 10);
      for (const name of ['a', 'b', 'c']) {
        expect(await registry.createType(type(kind, 'd', name), 3)).toBe('created');
      }
      await registry.setTypeStatus({ kind, domain: 'd', name: 'a', version: '1' }, 'DEPRECATED', 2);

      expect(await registry.createType(type(kind, 'd', 'd'), 3)).toBe('limit-exceeded');
      expect(await registry.createType(type(kind, 'd', 'a'), 3)).toBe('exists');
      // The other kind has its own count.
      const other = kind === 'workflow' ? 'activity' : 'workflow';
      expect(await registry.createType(type(other, 'd', 'x'), 3)).toBe('created');
      expect(
        await registry.getType({ kind, domain: 'd', name: 'd', version: '1' }),
      ).toBeUndefined();

      expect(await registry.deleteType({ kind, domain: 'd', name: 'a', version: '1' })).toBe(
        'deleted',
      );
      expect(await registry.createType(type(kind, 'd', 'd'), 3)).toBe('created');
      expect(await registry.createType(type(kind, 'd', 'e'), 3)).toBe('limit-exceeded');
    },
  );

  it('count types per domain, not per account', async () => {
    const registry = await store();
    await registry.createDomain(domain('one'), 10);
    await registry.createDomain(domain('two'), 10);
    expect(await registry.createType(type('workflow', 'one', 'a'), 1)).toBe('created');
    expect(await registry.createType(type('workflow', 'two', 'a'), 1)).toBe('created');
    expect(await registry.createType(type('workflow', 'one', 'b'), 1)).toBe('limit-exceeded');
  });

  it('tells a missing or deprecated domain apart from the quota', async () => {
    const registry = await store();
    expect(await registry.createType(type('activity', 'ghost', 'a'), 5)).toBe('domain-missing');
    await registry.createDomain(domain('old'), 10);
    await registry.setDomainStatus('old', 'DEPRECATED', 2);
    expect(await registry.createType(type('activity', 'old', 'a'), 5)).toBe('domain-deprecated');
  });

  it('count domains per account, deprecated ones included', async () => {
    const registry = await store();
    expect(await registry.createDomain(domain('a'), 2)).toBe('created');
    expect(await registry.createDomain(domain('b'), 2)).toBe('created');
    await registry.setDomainStatus('a', 'DEPRECATED', 2);
    expect(await registry.createDomain(domain('c'), 2)).toBe('limit-exceeded');
    expect(await registry.createDomain(domain('a'), 2)).toBe('exists');
    expect(await registry.getDomain('c')).toBeUndefined();
  });
});

describe('the versions of a type name', () => {
  it('are every version registered, deleted ones too, and those registered before they were recorded', async () => {
    const registry = await store();
    expect(await registry.createDomain(domain('versions'), 100)).toBe('created');
    const version = (name: string, v: string): TypeRecord => ({
      ...type('workflow', 'versions', name),
      version: v,
    });
    for (const v of ['1', '2', '3'])
      expect(await registry.createType(version('ship', v), 100)).toBe('created');
    expect(await registry.createType(version('other', '9'), 100)).toBe('created');
    const id = { kind: 'workflow' as const, domain: 'versions', name: 'ship', version: '2' };
    expect(await registry.setTypeStatus(id, 'DEPRECATED', 2)).toBe('changed');
    expect(await registry.deleteType(id)).toBe('deleted');
    expect(await registry.typeVersions('workflow', 'versions', 'ship')).toEqual(['1', '2', '3']);
    expect(await registry.typeVersions('activity', 'versions', 'ship')).toEqual([]);
    expect(await registry.typeVersions('workflow', 'versions', 'none')).toEqual([]);
    // A type registered before versions were recorded (no record of it): found through the listing.
    const { tableName, doc } = await freshTable('legacy');
    const legacy = new DynamoRegistryStore({ tableName, doc });
    expect(await legacy.createDomain(domain('versions'), 100)).toBe('created');
    expect(await legacy.createType(version('ship', '7'), 100)).toBe('created');
    await doc.delete({
      TableName: tableName,
      Key: keys.typeVersions('workflow', 'versions', 'ship'),
    });
    expect(await legacy.typeVersions('workflow', 'versions', 'ship')).toEqual(['7']);
  });
});
