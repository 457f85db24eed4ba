/**
 * Workflow types and activity types through the official SDK: register,
 * describe, list (name filter, paging both ways, tamper-proof tokens), deprecate, undeprecate, delete —
 * each with its faults and their messages, for both kinds alike. Refused calls change nothing.
 */
import {
  DeleteActivityTypeCommand,
  DeleteWorkflowTypeCommand,
  DeprecateActivityTypeCommand,
  DeprecateDomainCommand,
  DeprecateWorkflowTypeCommand,
  DescribeActivityTypeCommand,
  DescribeWorkflowTypeCommand,
  DomainDeprecatedFault,
  ListActivityTypesCommand,
  ListWorkflowTypesCommand,
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  type RegistrationStatus,
  TypeAlreadyExistsFault,
  TypeDeprecatedFault,
  TypeNotDeprecatedFault,
  UndeprecateActivityTypeCommand,
  UndeprecateWorkflowTypeCommand,
  UnknownResourceFault,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import {
  expectFault,
  expectRecent,
  expectServiceError,
  expectWireError,
  oneViolation,
  payload,
  rawCall,
  unique,
  wireType,
} from '../support/contract.js';
import { serverForFile } from '../support/local.js';

const server = serverForFile();

async function newDomain(prefix = 'types'): Promise<string> {
  const name = unique(prefix);
  await server.swf.send(
    new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1' }),
  );
  return name;
}

interface TypeRef {
  name: string;
  version: string;
}

interface TypeInfoOut {
  status?: string | undefined;
  description?: string | undefined;
  creationDate?: Date | undefined;
  deprecationDate?: Date | undefined;
  ref?: TypeRef | undefined;
}

/** The six actions of one kind, behind one shape, so every test runs for both kinds. */
interface Kind {
  readonly wire: 'WorkflowType' | 'ActivityType';
  readonly member: 'workflowType' | 'activityType';
  register(domain: string, ref: TypeRef, extra?: Record<string, unknown>): Promise<unknown>;
  describe(
    domain: string,
    ref: TypeRef,
  ): Promise<{ typeInfo: TypeInfoOut; configuration: Record<string, unknown> }>;
  list(input: {
    domain: string;
    registrationStatus: RegistrationStatus;
    name?: string | undefined;
    maximumPageSize?: number | undefined;
    reverseOrder?: boolean | undefined;
    nextPageToken?: string | undefined;
  }): Promise<{ infos: TypeInfoOut[]; nextPageToken?: string }>;
  deprecate(domain: string, ref: TypeRef): Promise<unknown>;
  undeprecate(domain: string, ref: TypeRef): Promise<unknown>;
  remove(domain: string, ref: TypeRef): Promise<unknown>;
  /** Defaults that every member of the kind's configuration can hold. */
  readonly fullConfiguration: Record<string, unknown>;
}

const workflowKind: Kind = {
  wire: 'WorkflowType',
  member: 'workflowType',
  register: (domain, ref, extra = {}) =>
    server.swf.send(new RegisterWorkflowTypeCommand({ domain, ...ref, ...extra })),
  describe: async (domain, ref) => {
    const out = await server.swf.send(
      new DescribeWorkflowTypeCommand({ domain, workflowType: ref }),
    );
    const { workflowType, ...info } = out.typeInfo ?? {};
    return {
      typeInfo: { ...info, ...(workflowType === undefined ? {} : { ref: toRef(workflowType) }) },
      configuration: { ...out.configuration },
    };
  },
  list: async (input) => {
    const out = await server.swf.send(new ListWorkflowTypesCommand(input));
    return {
      infos: (out.typeInfos ?? []).map(({ workflowType, ...info }) => ({
        ...info,
        ...(workflowType === undefined ? {} : { ref: toRef(workflowType) }),
      })),
      ...(out.nextPageToken === undefined ? {} : { nextPageToken: out.nextPageToken }),
    };
  },
  deprecate: (domain, ref) =>
    server.swf.send(new DeprecateWorkflowTypeCommand({ domain, workflowType: ref })),
  undeprecate: (domain, ref) =>
    server.swf.send(new UndeprecateWorkflowTypeCommand({ domain, workflowType: ref })),
  remove: (domain, ref) =>
    server.swf.send(new DeleteWorkflowTypeCommand({ domain, workflowType: ref })),
  fullConfiguration: {
    defaultTaskStartToCloseTimeout: '30',
    defaultExecutionStartToCloseTimeout: '3600',
    defaultTaskList: { name: 'deciders' },
    defaultTaskPriority: '-7',
    defaultChildPolicy: 'REQUEST_CANCEL',
    defaultLambdaRole: 'arn:aws:iam::123456789012:role/swf-lambda',
  },
};

const activityKind: Kind = {
  wire: 'ActivityType',
  member: 'activityType',
  register: (domain, ref, extra = {}) =>
    server.swf.send(new RegisterActivityTypeCommand({ domain, ...ref, ...extra })),
  describe: async (domain, ref) => {
    const out = await server.swf.send(
      new DescribeActivityTypeCommand({ domain, activityType: ref }),
    );
    const { activityType, ...info } = out.typeInfo ?? {};
    return {
      typeInfo: { ...info, ...(activityType === undefined ? {} : { ref: toRef(activityType) }) },
      configuration: { ...out.configuration },
    };
  },
  list: async (input) => {
    const out = await server.swf.send(new ListActivityTypesCommand(input));
    return {
      infos: (out.typeInfos ?? []).map(({ activityType, ...info }) => ({
        ...info,
        ...(activityType === undefined ? {} : { ref: toRef(activityType) }),
      })),
      ...(out.nextPageToken === undefined ? {} : { nextPageToken: out.nextPageToken }),
    };
  },
  deprecate: (domain, ref) =>
    server.swf.send(new DeprecateActivityTypeCommand({ domain, activityType: ref })),
  undeprecate: (domain, ref) =>
    server.swf.send(new UndeprecateActivityTypeCommand({ domain, activityType: ref })),
  remove: (domain, ref) =>
    server.swf.send(new DeleteActivityTypeCommand({ domain, activityType: ref })),
  fullConfiguration: {
    defaultTaskStartToCloseTimeout: '300',
    defaultTaskHeartbeatTimeout: 'NONE',
    defaultTaskList: { name: 'workers' },
    defaultTaskPriority: '2147483647',
    defaultTaskScheduleToStartTimeout: '60',
    defaultTaskScheduleToCloseTimeout: '360',
  },
};

const toRef = (t: { name?: string | undefined; version?: string | undefined }): TypeRef => ({
  name: t.name ?? '',
  version: t.version ?? '',
});

const kinds = [
  ['workflow types', workflowKind],
  ['activity types', activityKind],
] as const;

const refText = (kind: Kind, ref: TypeRef) =>
  `${kind.wire}=[name=${ref.name}, version=${ref.version}]`;
const unknownText = (kind: Kind, ref: TypeRef) => `Unknown type: ${refText(kind, ref)}`;

/** Every page of a listing, checking page sizes and that only the last page lacks a token. */
async function listAll(
  kind: Kind,
  input: { domain: string; registrationStatus: RegistrationStatus; name?: string },
  options: { maximumPageSize?: number; reverseOrder?: boolean } = {},
): Promise<{ refs: TypeRef[]; pages: number }> {
  const refs: TypeRef[] = [];
  let nextPageToken: string | undefined;
  let pages = 0;
  do {
    const page = await kind.list({ ...input, ...options, nextPageToken });
    pages++;
    if (options.maximumPageSize !== undefined) {
      expect(page.infos.length).toBeLessThanOrEqual(options.maximumPageSize);
    }
    if (page.nextPageToken !== undefined) expect(page.infos.length).toBeGreaterThan(0);
    refs.push(...page.infos.map((i) => i.ref ?? { name: '', version: '' }));
    nextPageToken = page.nextPageToken;
  } while (nextPageToken !== undefined);
  return { refs, pages };
}

/** Both listings of a domain: a refused call must leave them unchanged. */
async function snapshot(kind: Kind, domain: string) {
  const registered = await kind.list({ domain, registrationStatus: 'REGISTERED' });
  const deprecated = await kind.list({ domain, registrationStatus: 'DEPRECATED' });
  return { registered: registered.infos, deprecated: deprecated.infos };
}

describe.each(kinds)('%s', (_label, kind) => {
  describe('Register and Describe', () => {
    it('describes a type with every default it was registered with, and nothing more', async () => {
      const domain = await newDomain();
      const ref = { name: 'full', version: 'v1.0' };
      const since = Date.now();
      await kind.register(domain, ref, { description: 'all defaults', ...kind.fullConfiguration });

      const out = await kind.describe(domain, ref);

      expect(out.configuration).toStrictEqual(kind.fullConfiguration);
      expect(out.typeInfo).toStrictEqual({
        ref,
        status: 'REGISTERED',
        description: 'all defaults',
        creationDate: expect.any(Date),
      });
      expectRecent(out.typeInfo.creationDate, since);
    });

    it('describes a type registered without defaults with an empty configuration', async () => {
      const domain = await newDomain();
      const ref = { name: 'bare', version: '1' };
      await kind.register(domain, ref);

      const out = await kind.describe(domain, ref);

      expect(out.configuration).toStrictEqual({});
      expect(out.typeInfo).not.toHaveProperty('description');
      expect(out.typeInfo).not.toHaveProperty('deprecationDate');
    });

    it('keeps versions of one name apart', async () => {
      const domain = await newDomain();
      await kind.register(domain, { name: 'versioned', version: '1' }, { description: 'one' });
      await kind.register(domain, { name: 'versioned', version: '2' }, { description: 'two' });

      const one = await kind.describe(domain, { name: 'versioned', version: '1' });
      const two = await kind.describe(domain, { name: 'versioned', version: '2' });

      expect([one.typeInfo.description, two.typeInfo.description]).toStrictEqual(['one', 'two']);
    });

    it('refuses a name and version that exist, registered or deprecated, with TypeAlreadyExistsFault', async () => {
      const domain = await newDomain();
      const ref = { name: 'twice', version: '1' };
      await kind.register(domain, ref, { description: 'first' });

      await expectFault(kind.register(domain, ref), TypeAlreadyExistsFault, refText(kind, ref));
      await kind.deprecate(domain, ref);
      await expectFault(kind.register(domain, ref), TypeAlreadyExistsFault, refText(kind, ref));

      expect((await kind.describe(domain, ref)).typeInfo.description).toBe('first');
    });

    it('refuses an unknown domain with "Unknown domain: <name>"', async () => {
      const domain = unique('no-such-domain');
      const ref = { name: 'orphan', version: '1' };

      await expectFault(
        kind.register(domain, ref),
        UnknownResourceFault,
        `Unknown domain: ${domain}`,
      );
      await expectFault(
        kind.describe(domain, ref),
        UnknownResourceFault,
        `Unknown domain: ${domain}`,
      );
      await expectFault(
        kind.list({ domain, registrationStatus: 'REGISTERED' }),
        UnknownResourceFault,
        `Unknown domain: ${domain}`,
      );
      await expectFault(
        kind.deprecate(domain, ref),
        UnknownResourceFault,
        `Unknown domain: ${domain}`,
      );
      await expectFault(
        kind.undeprecate(domain, ref),
        UnknownResourceFault,
        `Unknown domain: ${domain}`,
      );
      await expectFault(
        kind.remove(domain, ref),
        UnknownResourceFault,
        `Unknown domain: ${domain}`,
      );
    });

    it('refuses an unknown type with "Unknown type: <Kind>=[name=N, version=V]"', async () => {
      const domain = await newDomain();
      await kind.register(domain, { name: 'known', version: '1' });
      const ref = { name: 'known', version: '2' };

      await expectFault(kind.describe(domain, ref), UnknownResourceFault, unknownText(kind, ref));
      await expectFault(kind.deprecate(domain, ref), UnknownResourceFault, unknownText(kind, ref));
      await expectFault(
        kind.undeprecate(domain, ref),
        UnknownResourceFault,
        unknownText(kind, ref),
      );
      await expectFault(kind.remove(domain, ref), UnknownResourceFault, unknownText(kind, ref));
    });

    it('refuses a registration in a deprecated domain with DomainDeprecatedFault', async () => {
      const domain = await newDomain();
      await server.swf.send(new DeprecateDomainCommand({ name: domain }));
      const ref = { name: 'too-late', version: '1' };

      await expectFault(kind.register(domain, ref), DomainDeprecatedFault);
      await expectFault(kind.describe(domain, ref), UnknownResourceFault, unknownText(kind, ref));
    });
  });

  describe('input validation', () => {
    it.each([
      [
        'a name over 256 characters',
        { name: 'n'.repeat(257) },
        'name',
        /length less than or equal to 256/,
      ],
      [
        'a version over 64 characters',
        { version: 'v'.repeat(65) },
        'version',
        /length less than or equal to 64/,
      ],
      ['an empty version', { version: '' }, 'version', /length greater than or equal to 1/],
      ['a name with a colon', { name: 'a:b' }, 'name', /must not contain ':'/],
      ['a version with a slash', { version: '1/2' }, 'version', /must not contain ':', '\/'/],
      ['the name "arn"', { name: 'arn' }, 'name', /literal string 'arn'/],
      [
        'a description over 1024 characters',
        { description: 'd'.repeat(1025) },
        'description',
        /1024/,
      ],
      [
        'a task priority outside int32',
        { defaultTaskPriority: '2147483648' },
        'defaultTaskPriority',
        /integer from -2147483648 to 2147483647/,
      ],
      [
        'a timeout that is not whole seconds',
        { defaultTaskStartToCloseTimeout: '1.5' },
        'defaultTaskStartToCloseTimeout',
        /whole number of seconds or 'NONE'/,
      ],
      [
        'a task list with a leading space',
        { defaultTaskList: { name: ' list' } },
        'defaultTaskList.name',
        /start or end with whitespace/,
      ],
    ])(
      'refuses %s with ValidationException, registering nothing',
      async (_, extra, path, message) => {
        const domain = await newDomain();
        const body = { domain, name: 'checked', version: '1', ...extra };
        const before = await snapshot(kind, domain);

        const response = await rawCall(server.endpoint, `Register${kind.wire}`, body);

        const error = expectWireError(response, wireType.validation, message);
        expect(error.message).toContain(`at '${path}'`);
        expect(await snapshot(kind, domain)).toStrictEqual(before);
      },
    );

    it('reports missing domain, name and version together', async () => {
      const response = await rawCall(server.endpoint, `Register${kind.wire}`, {});
      const error = expectWireError(
        response,
        wireType.validation,
        /^3 validation errors detected: /,
      );
      for (const member of ['domain', 'name', 'version']) {
        expect(error.message).toContain(
          `Value null at '${member}' failed to satisfy constraint: Member must not be null`,
        );
      }
    });

    it('refuses Describe without the type, or with an empty name, with the Coral message', async () => {
      const domain = await newDomain();

      const response = await rawCall(server.endpoint, `Describe${kind.wire}`, { domain });

      expectWireError(
        response,
        wireType.validation,
        oneViolation(null, kind.member, 'Member must not be null'),
      );
      await expectServiceError(
        kind.describe(domain, { name: '', version: '1' }),
        'ValidationException',
        oneViolation(
          '',
          `${kind.member}.name`,
          'Member must have length greater than or equal to 1',
        ),
      );
    });
  });

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
