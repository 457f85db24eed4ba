/**
 * Workflow types and activity types through the official SDK: deprecate, undeprecate, delete and list
 * (name filter, paging both ways, tamper-proof tokens), each with its faults and their messages, for
 * both kinds alike, and the two kinds as separate namespaces. Refused calls change nothing.
 */
import {
  ListWorkflowTypesCommand,
  TypeAlreadyExistsFault,
  TypeDeprecatedFault,
  TypeNotDeprecatedFault,
  UnknownResourceFault,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import {
  expectFault,
  expectRecent,
  expectServiceError,
  oneViolation,
  payload,
} from '../support/contract.js';
import { serverForFile } from '../support/local.js';
import {
  listAll,
  refText,
  snapshot,
  type TypeRef,
  typeKinds,
  unknownText,
} from '../support/type-kinds.js';

const server = serverForFile();
const { newDomain, workflowKind, activityKind, kinds } = typeKinds(server);

describe.each(kinds)('%s', (_label, kind) => {
  describe('Deprecate and Undeprecate', () => {
    it('deprecates with a deprecationDate, refuses a second time, and restores', async () => {
      const domain = await newDomain();
      const ref = { name: 'aging', version: '1' };
      await kind.register(domain, ref);
      const since = Date.now();

      await kind.deprecate(domain, ref);
      const deprecated = await kind.describe(domain, ref);
      expect(deprecated.typeInfo.status).toBe('DEPRECATED');
      expectRecent(deprecated.typeInfo.deprecationDate, since);
      await expectFault(kind.deprecate(domain, ref), TypeDeprecatedFault, refText(kind, ref));

      await kind.undeprecate(domain, ref);
      const restored = await kind.describe(domain, ref);
      expect(restored.typeInfo.status).toBe('REGISTERED');
      expect(restored.typeInfo).not.toHaveProperty('deprecationDate');
      await expectFault(kind.undeprecate(domain, ref), TypeAlreadyExistsFault, refText(kind, ref));
    });

    it('moves a type between the REGISTERED and DEPRECATED listings', async () => {
      const domain = await newDomain();
      const ref = { name: 'mover', version: '1' };
      await kind.register(domain, ref);
      await kind.register(domain, { name: 'stayer', version: '1' });

      await kind.deprecate(domain, ref);

      expect(
        (await listAll(kind, { domain, registrationStatus: 'REGISTERED' })).refs,
      ).toStrictEqual([{ name: 'stayer', version: '1' }]);
      const deprecated = await kind.list({ domain, registrationStatus: 'DEPRECATED' });
      expect(deprecated.infos).toStrictEqual([
        {
          ref,
          status: 'DEPRECATED',
          creationDate: expect.any(Date),
          deprecationDate: expect.any(Date),
        },
      ]);
    });
  });

  describe('Delete', () => {
    it('refuses a registered type with TypeNotDeprecatedFault and keeps it', async () => {
      const domain = await newDomain();
      const ref = { name: 'keeper', version: '1' };
      await kind.register(domain, ref);

      await expectFault(
        kind.remove(domain, ref),
        TypeNotDeprecatedFault,
        'The type is currently registered and cannot be deleted in its current state',
      );
      expect((await kind.describe(domain, ref)).typeInfo.status).toBe('REGISTERED');
    });

    it('deletes a deprecated type: gone from Describe and both listings', async () => {
      const domain = await newDomain();
      const ref = { name: 'doomed', version: '1' };
      await kind.register(domain, ref);
      await kind.deprecate(domain, ref);

      await kind.remove(domain, ref);

      await expectFault(kind.describe(domain, ref), UnknownResourceFault, unknownText(kind, ref));
      expect(await snapshot(kind, domain)).toStrictEqual({ registered: [], deprecated: [] });
      await expectFault(kind.remove(domain, ref), UnknownResourceFault, unknownText(kind, ref));
      await expectFault(
        kind.undeprecate(domain, ref),
        UnknownResourceFault,
        unknownText(kind, ref),
      );
    });
  });

  describe('List', () => {
    async function populated(): Promise<{ domain: string; all: TypeRef[] }> {
      const domain = await newDomain('listing');
      const all: TypeRef[] = [];
      for (const name of ['delta', 'alpha', 'charlie', 'bravo']) {
        for (const version of ['2', '1']) {
          await kind.register(domain, { name, version });
          all.push({ name, version });
        }
      }
      all.sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
      return { domain, all };
    }

    it('lists by name, then version, ascending; reverseOrder flips it', async () => {
      const { domain, all } = await populated();

      const forward = await listAll(kind, { domain, registrationStatus: 'REGISTERED' });
      const backward = await listAll(
        kind,
        { domain, registrationStatus: 'REGISTERED' },
        { reverseOrder: true },
      );

      expect(forward).toStrictEqual({ refs: all, pages: 1 });
      expect(backward).toStrictEqual({ refs: [...all].reverse(), pages: 1 });
    });

    it.each([1, 3, 8])(
      'pages through in both orders with maximumPageSize %i, the last page without a token',
      async (maximumPageSize) => {
        const { domain, all } = await populated();

        const forward = await listAll(
          kind,
          { domain, registrationStatus: 'REGISTERED' },
          { maximumPageSize },
        );
        const backward = await listAll(
          kind,
          { domain, registrationStatus: 'REGISTERED' },
          { maximumPageSize, reverseOrder: true },
        );

        expect(forward.refs).toStrictEqual(all);
        expect(backward.refs).toStrictEqual([...all].reverse());
        expect(forward.pages).toBe(Math.ceil(all.length / maximumPageSize));
      },
    );

    it('filters by exact name, also across pages', async () => {
      const { domain } = await populated();

      const charlie = await listAll(
        kind,
        { domain, registrationStatus: 'REGISTERED', name: 'charlie' },
        { maximumPageSize: 1 },
      );
      const partial = await listAll(kind, {
        domain,
        registrationStatus: 'REGISTERED',
        name: 'char',
      });

      expect(charlie.refs).toStrictEqual([
        { name: 'charlie', version: '1' },
        { name: 'charlie', version: '2' },
      ]);
      expect(partial.refs).toStrictEqual([]);
    });

    it('does not list the types of another domain', async () => {
      const { domain } = await populated();
      const other = await newDomain('other');
      await kind.register(other, { name: 'alpha', version: '9' });

      const refs = (await listAll(kind, { domain, registrationStatus: 'REGISTERED' })).refs;

      expect(refs).not.toContainEqual({ name: 'alpha', version: '9' });
      expect(refs).toHaveLength(8);
    });

    it('refuses tampered tokens and tokens issued for other arguments with ValidationException', async () => {
      const { domain } = await populated();
      const first = await kind.list({
        domain,
        registrationStatus: 'REGISTERED',
        maximumPageSize: 2,
      });
      const token = first.nextPageToken ?? '';
      expect(token).not.toBe('');
      const flipped = `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`;
      const other = await newDomain('other');
      await kind.register(other, { name: 'x', version: '1' });

      const refused = [
        { domain, registrationStatus: 'REGISTERED' as const, nextPageToken: flipped },
        { domain, registrationStatus: 'DEPRECATED' as const, nextPageToken: token },
        {
          domain,
          registrationStatus: 'REGISTERED' as const,
          nextPageToken: token,
          reverseOrder: true,
        },
        { domain, registrationStatus: 'REGISTERED' as const, nextPageToken: token, name: 'alpha' },
        { domain: other, registrationStatus: 'REGISTERED' as const, nextPageToken: token },
      ];
      for (const input of refused) {
        await expectServiceError(kind.list(input), 'ValidationException');
      }
      const next = await kind.list({
        domain,
        registrationStatus: 'REGISTERED',
        nextPageToken: token,
      });
      expect(next.infos.length).toBe(6);
    });

    it('refuses a token of the other kind of type', async () => {
      const { domain } = await populated();
      const otherKind = kind === workflowKind ? activityKind : workflowKind;
      await otherKind.register(domain, { name: 'a', version: '1' });
      await otherKind.register(domain, { name: 'b', version: '1' });
      const { nextPageToken } = await otherKind.list({
        domain,
        registrationStatus: 'REGISTERED',
        maximumPageSize: 1,
      });

      await expectServiceError(
        kind.list({ domain, registrationStatus: 'REGISTERED', nextPageToken }),
        'ValidationException',
      );
    });

    it('refuses maximumPageSize over 1000 with the Coral message', async () => {
      const domain = await newDomain();
      await expectServiceError(
        kind.list({ domain, registrationStatus: 'REGISTERED', maximumPageSize: 1001 }),
        'ValidationException',
        oneViolation(
          '1001',
          'maximumPageSize',
          'Member must have value less than or equal to 1000',
        ),
      );
    });
  });
});

describe('the two kinds', () => {
  it('are separate namespaces: one name and version can be both', async () => {
    const domain = await newDomain();
    const ref = { name: 'shared', version: '1' };
    await workflowKind.register(domain, ref, { description: 'workflow' });
    await activityKind.register(domain, ref, { description: 'activity' });
    await workflowKind.deprecate(domain, ref);

    expect((await workflowKind.describe(domain, ref)).typeInfo.status).toBe('DEPRECATED');
    expect((await activityKind.describe(domain, ref)).typeInfo).toMatchObject({
      status: 'REGISTERED',
      description: 'activity',
    });
  });

  it('echo payloads without $metadata-only members', async () => {
    const domain = await newDomain();
    await workflowKind.register(domain, { name: 'p', version: '1' });
    const out = await server.swf.send(
      new ListWorkflowTypesCommand({ domain, registrationStatus: 'REGISTERED' }),
    );
    expect(Object.keys(payload(out))).toStrictEqual(['typeInfos']);
  });
});
