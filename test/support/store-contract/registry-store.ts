/**
 * What every RegistryStore does, run against each implementation: the DynamoDB adapter
 * (test/integration/registry-store.test.ts) and the in-memory fake the fast tests use
 * (test/unit/fakes/registry-store.test.ts). A fake that drifts from the adapter fails here.
 */
import { describe, expect, it } from 'vitest';
import type { DomainRecord, TypeKind, TypeRecord } from '../../../lib/core/registry.js';
import type { RegistryStore } from '../../../lib/ports/registry-store.js';

const domain = (name: string, extra: Partial<DomainRecord> = {}): DomainRecord => ({
  name,
  status: 'REGISTERED',
  retentionPeriodInDays: '1',
  tags: [],
  creationDate: 1_000,
  ...extra,
});

function type(domainName: string, name: string, version: string, kind: TypeKind = 'workflow') {
  const base = {
    domain: domainName,
    name,
    version,
    status: 'REGISTERED',
    creationDate: 1_000,
  } as const;
  return kind === 'workflow'
    ? ({ ...base, kind, configuration: { defaultTaskList: { name: 'tl' } } } satisfies TypeRecord)
    : ({ ...base, kind, configuration: {} } satisfies TypeRecord);
}

const PAGE = { limit: 100, reverse: false } as const;

/** Every item of a listing, a page of `limit` at a time, checking that only the last page has no cursor. */
async function everyPage<T>(
  read: (after: string | undefined) => Promise<{ items: readonly T[]; next?: string }>,
): Promise<T[]> {
  const all: T[] = [];
  for (let after: string | undefined, pages = 0; pages < 100; pages++) {
    const page = await read(after);
    all.push(...page.items);
    if (page.next === undefined) return all;
    expect(page.items.length).toBeGreaterThan(0);
    after = page.next;
  }
  throw new Error('the listing never ended');
}

export function registryStoreContract(newStore: () => Promise<RegistryStore>): void {
  describe('domains', () => {
    it('are created once each, up to the account limit', async () => {
      const store = await newStore();
      expect(await store.createDomain(domain('a'), 2)).toBe('created');
      expect(await store.createDomain(domain('a', { description: 'again' }), 2)).toBe('exists');
      expect(await store.createDomain(domain('b'), 2)).toBe('created');
      expect(await store.createDomain(domain('c'), 2)).toBe('limit-exceeded');
      expect(await store.getDomain('a')).toEqual(domain('a'));
      expect(await store.getDomain('c')).toBeUndefined();
    });

    it('are listed by status in key order, a page at a time, either way round', async () => {
      const store = await newStore();
      for (const name of ['b', 'B', 'é', 'a', 'ab']) await store.createDomain(domain(name), 100);
      await store.createDomain(domain('gone', { status: 'REGISTERED' }), 100);
      expect(await store.setDomainStatus('gone', 'DEPRECATED', 2_000)).toBe('changed');
      const names = async (reverse: boolean, limit: number) =>
        (
          await everyPage((after) =>
            store.listDomains('REGISTERED', {
              limit,
              reverse,
              ...(after === undefined ? {} : { after }),
            }),
          )
        ).map((d) => d.name);
      expect(await names(false, 100)).toEqual(['B', 'a', 'ab', 'b', 'é']);
      expect(await names(false, 2)).toEqual(['B', 'a', 'ab', 'b', 'é']);
      expect(await names(true, 2)).toEqual(['é', 'b', 'ab', 'a', 'B']);
      const exact = await store.listDomains('REGISTERED', { limit: 5, reverse: false });
      expect(exact.next).toBeUndefined();
      expect((await store.listDomains('DEPRECATED', PAGE)).items.map((d) => d.name)).toEqual([
        'gone',
      ]);
    });

    it("change status once, and a deprecated domain's registered types are deprecated with it", async () => {
      const store = await newStore();
      await store.createDomain(domain('d'), 100);
      await store.createType(type('d', 'wf', '1'), 100);
      await store.createType(type('d', 'act', '1', 'activity'), 100);
      await store.createType(type('d', 'old', '1'), 100);
      await store.setTypeStatus(
        { kind: 'workflow', domain: 'd', name: 'old', version: '1' },
        'DEPRECATED',
        1_500,
      );
      expect(await store.setDomainStatus('d', 'REGISTERED', 2_000)).toBe('already');
      expect(await store.setDomainStatus('missing', 'DEPRECATED', 2_000)).toBe('missing');
      expect(await store.setDomainStatus('d', 'DEPRECATED', 2_000)).toBe('changed');
      expect(await store.setDomainStatus('d', 'DEPRECATED', 2_000)).toBe('already');
      expect((await store.getDomain('d'))?.status).toBe('DEPRECATED');
      const wf = await store.getType({ kind: 'workflow', domain: 'd', name: 'wf', version: '1' });
      expect(wf).toMatchObject({ status: 'DEPRECATED', deprecationDate: 2_000 });
      const act = await store.getType({ kind: 'activity', domain: 'd', name: 'act', version: '1' });
      expect(act).toMatchObject({ status: 'DEPRECATED', deprecationDate: 2_000 });
      const old = await store.getType({ kind: 'workflow', domain: 'd', name: 'old', version: '1' });
      expect(old).toMatchObject({ deprecationDate: 1_500 });
      // Undeprecating the domain leaves its types as they are.
      expect(await store.setDomainStatus('d', 'REGISTERED', 3_000)).toBe('changed');
      expect(
        await store.getType({ kind: 'workflow', domain: 'd', name: 'wf', version: '1' }),
      ).toMatchObject({ status: 'DEPRECATED' });
    });

    it('merge tags by key, refusing more than the limit', async () => {
      const store = await newStore();
      await store.createDomain(domain('t', { tags: [{ key: 'a', value: '1' }] }), 100);
      expect(
        await store.updateDomainTags(
          't',
          { upsert: [{ key: 'a', value: '2' }, { key: 'b' }], removeKeys: [] },
          2,
        ),
      ).toBe('tagged');
      expect((await store.getDomain('t'))?.tags).toEqual([{ key: 'a', value: '2' }, { key: 'b' }]);
      expect(await store.updateDomainTags('t', { upsert: [{ key: 'c' }], removeKeys: [] }, 2)).toBe(
        'too-many',
      );
      expect(
        await store.updateDomainTags('t', { upsert: [{ key: 'c' }], removeKeys: ['a'] }, 2),
      ).toBe('tagged');
      expect((await store.getDomain('t'))?.tags).toEqual([{ key: 'b' }, { key: 'c' }]);
      expect(await store.updateDomainTags('none', { upsert: [], removeKeys: [] }, 2)).toBe(
        'missing',
      );
    });
  });

  describe('types', () => {
    it('are created once each in a registered domain, up to its limit of each kind', async () => {
      const store = await newStore();
      expect(await store.createType(type('x', 'wf', '1'), 2)).toBe('domain-missing');
      await store.createDomain(domain('x'), 100);
      expect(await store.createType(type('x', 'wf', '1'), 2)).toBe('created');
      expect(await store.createType(type('x', 'wf', '1'), 2)).toBe('exists');
      expect(await store.createType(type('x', 'wf', '2'), 2)).toBe('created');
      expect(await store.createType(type('x', 'wf', '3'), 2)).toBe('limit-exceeded');
      expect(await store.createType(type('x', 'wf', '1', 'activity'), 2)).toBe('created');
      expect(
        await store.getType({ kind: 'workflow', domain: 'x', name: 'wf', version: '1' }),
      ).toEqual(type('x', 'wf', '1'));
      await store.createDomain(domain('y'), 100);
      await store.setDomainStatus('y', 'DEPRECATED', 2_000);
      expect(await store.createType(type('y', 'wf', '1'), 2)).toBe('domain-deprecated');
    });

    it('are listed by name then version, by status and optionally by name, a page at a time', async () => {
      const store = await newStore();
      await store.createDomain(domain('l'), 100);
      for (const [name, version] of [
        ['b', '1'],
        ['a', '2'],
        ['a', '10'],
        ['ab', '1'],
        ['c', '1'],
      ] as const)
        await store.createType(type('l', name, version), 100);
      await store.createType(type('l', 'a', '1', 'activity'), 100);
      await store.setTypeStatus(
        { kind: 'workflow', domain: 'l', name: 'c', version: '1' },
        'DEPRECATED',
        2_000,
      );
      const list = async (name: string | undefined, reverse: boolean, limit: number) =>
        (
          await everyPage((after) =>
            store.listTypes('workflow', 'l', 'REGISTERED', name, {
              limit,
              reverse,
              ...(after === undefined ? {} : { after }),
            }),
          )
        ).map((t) => `${t.name}/${t.version}`);
      expect(await list(undefined, false, 100)).toEqual(['a/10', 'a/2', 'ab/1', 'b/1']);
      expect(await list(undefined, false, 1)).toEqual(['a/10', 'a/2', 'ab/1', 'b/1']);
      expect(await list(undefined, true, 3)).toEqual(['b/1', 'ab/1', 'a/2', 'a/10']);
      expect(await list('a', false, 1)).toEqual(['a/10', 'a/2']);
      const deprecated = await store.listTypes('workflow', 'l', 'DEPRECATED', undefined, PAGE);
      expect(deprecated.items.map((t) => t.name)).toEqual(['c']);
    });

    it('change status, dated when deprecated, and are deleted once deprecated', async () => {
      const store = await newStore();
      await store.createDomain(domain('s'), 100);
      await store.createType(type('s', 'wf', '1'), 1);
      const id = { kind: 'workflow', domain: 's', name: 'wf', version: '1' } as const;
      expect(await store.setTypeStatus(id, 'REGISTERED', 2_000)).toBe('already');
      expect(await store.deleteType(id)).toBe('not-deprecated');
      expect(await store.setTypeStatus(id, 'DEPRECATED', 2_000)).toBe('changed');
      expect(await store.getType(id)).toMatchObject({
        status: 'DEPRECATED',
        deprecationDate: 2_000,
      });
      expect(await store.setTypeStatus(id, 'REGISTERED', 3_000)).toBe('changed');
      expect(await store.getType(id)).not.toHaveProperty('deprecationDate');
      await store.setTypeStatus(id, 'DEPRECATED', 4_000);
      expect(await store.deleteType(id)).toBe('deleted');
      expect(await store.deleteType(id)).toBe('missing');
      expect(await store.getType(id)).toBeUndefined();
      expect(await store.setTypeStatus(id, 'DEPRECATED', 5_000)).toBe('missing');
      // The deleted type no longer counts against the domain's limit.
      expect(await store.createType(type('s', 'wf', '2'), 1)).toBe('created');
    });

    it('keep every version a name was registered in, deleted ones too', async () => {
      const store = await newStore();
      await store.createDomain(domain('v'), 100);
      for (const version of ['2', '1', '3']) await store.createType(type('v', 'wf', version), 100);
      await store.createType(type('v', 'wf', '9', 'activity'), 100);
      await store.createType(type('v', 'other', '5'), 100);
      const id = { kind: 'workflow', domain: 'v', name: 'wf', version: '3' } as const;
      await store.setTypeStatus(id, 'DEPRECATED', 2_000);
      await store.deleteType(id);
      expect(await store.typeVersions('workflow', 'v', 'wf')).toEqual(['1', '2', '3']);
      expect(await store.typeVersions('activity', 'v', 'wf')).toEqual(['9']);
      expect(await store.typeVersions('workflow', 'v', 'none')).toEqual([]);
    });
  });
}
