/**
 * Domains through the official SDK: RegisterDomain, DescribeDomain,
 * ListDomains, DeprecateDomain, UndeprecateDomain — success shapes, faults with their messages, paging,
 * and input validation that leaves nothing stored.
 */
import {
  DeprecateDomainCommand,
  DescribeDomainCommand,
  DescribeWorkflowTypeCommand,
  DomainAlreadyExistsFault,
  DomainDeprecatedFault,
  type DomainInfo,
  ListDomainsCommand,
  RegisterDomainCommand,
  type RegisterDomainCommandInput,
  RegisterWorkflowTypeCommand,
  type RegistrationStatus,
  UndeprecateDomainCommand,
  UnknownResourceFault,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import {
  expectFault,
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

const arnOf = (name: string) => `arn:aws:swf:us-east-1:000000000000:/domain/${name}`;

const register = (name: string, extra: Partial<RegisterDomainCommandInput> = {}) =>
  server.swf.send(
    new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1', ...extra }),
  );

const describeDomain = (name: string) => server.swf.send(new DescribeDomainCommand({ name }));

/** Every page of ListDomains, concatenated, checking that only the last page lacks a token. */
async function listAll(
  registrationStatus: RegistrationStatus,
  options: { maximumPageSize?: number; reverseOrder?: boolean } = {},
): Promise<{ infos: DomainInfo[]; pages: number }> {
  const infos: DomainInfo[] = [];
  let nextPageToken: string | undefined;
  let pages = 0;
  do {
    const page = await server.swf.send(
      new ListDomainsCommand({ registrationStatus, nextPageToken, ...options }),
    );
    pages++;
    if (options.maximumPageSize !== undefined && options.maximumPageSize > 0) {
      expect(page.domainInfos?.length).toBeLessThanOrEqual(options.maximumPageSize);
    }
    if (page.nextPageToken !== undefined) expect(page.domainInfos?.length).toBeGreaterThan(0);
    infos.push(...(page.domainInfos ?? []));
    nextPageToken = page.nextPageToken;
  } while (nextPageToken !== undefined);
  return { infos, pages };
}

const namesOf = (infos: readonly DomainInfo[]) => infos.map((d) => d.name ?? '');

/** Every stored domain, both statuses: bad requests must leave this unchanged. */
async function snapshot() {
  const registered = await listAll('REGISTERED');
  const deprecated = await listAll('DEPRECATED');
  return { registered: registered.infos, deprecated: deprecated.infos };
}

/** Asserts that a request was refused and that no domain appeared or changed because of it. */
async function expectRefusedWithoutChange(
  call: () => Promise<unknown>,
  assertError: (call: Promise<unknown>) => Promise<unknown>,
) {
  const before = await snapshot();
  await assertError(call());
  expect(await snapshot()).toStrictEqual(before);
}

describe('RegisterDomain and DescribeDomain', () => {
  it('describes a registered domain with exactly the registered members and its ARN', async () => {
    const name = unique('described');
    const registered = await register(name, {
      description: 'a domain for testing',
      workflowExecutionRetentionPeriodInDays: '30',
    });
    expect(payload(registered)).toStrictEqual({});

    const described = await describeDomain(name);

    expect(payload(described)).toStrictEqual({
      domainInfo: {
        name,
        status: 'REGISTERED',
        description: 'a domain for testing',
        arn: arnOf(name),
      },
      configuration: { workflowExecutionRetentionPeriodInDays: '30' },
    });
    expect(described.$metadata.httpStatusCode).toBe(200);
    expect(described.$metadata.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('omits the description when none was registered', async () => {
    const name = unique('bare');
    await register(name);

    const { domainInfo } = await describeDomain(name);

    expect(domainInfo).toStrictEqual({ name, status: 'REGISTERED', arn: arnOf(name) });
  });

  it.each(['0', 'NONE', '90'])(
    'echoes the retention period %s as registered',
    async (retention) => {
      const name = unique('retention');
      await register(name, { workflowExecutionRetentionPeriodInDays: retention });

      const { configuration } = await describeDomain(name);

      expect(configuration).toStrictEqual({ workflowExecutionRetentionPeriodInDays: retention });
    },
  );

  it('accepts names with spaces, dots and unicode inside', async () => {
    const name = unique('name with spaces.and-ünïcode');
    await register(name);

    const { domainInfo } = await describeDomain(name);

    expect(domainInfo?.name).toBe(name);
  });

  it('refuses an existing name with DomainAlreadyExistsFault whose message is the bare name', async () => {
    const name = unique('taken');
    await register(name, { description: 'first' });

    await expectFault(register(name, { description: 'second' }), DomainAlreadyExistsFault, name);

    const { domainInfo } = await describeDomain(name);
    expect(domainInfo?.description).toBe('first');
  });

  it('refuses the name of a deprecated domain too', async () => {
    const name = unique('taken-deprecated');
    await register(name);
    await server.swf.send(new DeprecateDomainCommand({ name }));

    await expectFault(register(name), DomainAlreadyExistsFault, name);

    const { domainInfo } = await describeDomain(name);
    expect(domainInfo?.status).toBe('DEPRECATED');
  });

  it('fails DescribeDomain for an unknown domain with "Unknown domain: <name>"', async () => {
    const name = unique('nowhere');

    await expectFault(describeDomain(name), UnknownResourceFault, `Unknown domain: ${name}`);
  });
});

describe('ListDomains', () => {
  it('lists registered and deprecated domains apart, each with the DescribeDomain members', async () => {
    const active = unique('list-active');
    const retired = unique('list-retired');
    await register(active, { description: 'active one' });
    await register(retired);
    await server.swf.send(new DeprecateDomainCommand({ name: retired }));

    const registered = await server.swf.send(
      new ListDomainsCommand({ registrationStatus: 'REGISTERED' }),
    );
    const deprecated = await server.swf.send(
      new ListDomainsCommand({ registrationStatus: 'DEPRECATED' }),
    );

    expect(registered.nextPageToken).toBeUndefined();
    expect(deprecated.nextPageToken).toBeUndefined();
    expect(registered.domainInfos).toContainEqual({
      name: active,
      status: 'REGISTERED',
      description: 'active one',
      arn: arnOf(active),
    });
    expect(namesOf(registered.domainInfos ?? [])).not.toContain(retired);
    expect(deprecated.domainInfos).toContainEqual({
      name: retired,
      status: 'DEPRECATED',
      arn: arnOf(retired),
    });
    expect(namesOf(deprecated.domainInfos ?? [])).not.toContain(active);
  });

  it('pages through domains by name in both orders with maximumPageSize', async () => {
    const prefix = unique('page');
    const mine = ['d', 'a', 'c', 'e', 'b', 'f', 'g'].map((s) => `${prefix}-${s}`);
    for (const name of mine) await register(name);

    const whole = await server.swf.send(
      new ListDomainsCommand({ registrationStatus: 'REGISTERED' }),
    );
    const forward = await listAll('REGISTERED', { maximumPageSize: 3 });
    const backward = await listAll('REGISTERED', { maximumPageSize: 3, reverseOrder: true });

    const all = namesOf(whole.domainInfos ?? []);
    expect(all).toStrictEqual([...all].sort());
    expect(all.filter((n) => n.startsWith(prefix))).toStrictEqual([...mine].sort());
    expect(namesOf(forward.infos)).toStrictEqual(all);
    expect(forward.pages).toBe(Math.ceil(all.length / 3));
    expect(namesOf(backward.infos)).toStrictEqual([...all].reverse());
    expect(backward.pages).toBe(Math.ceil(all.length / 3));
  });

  it('returns pages of one, the last without a nextPageToken', async () => {
    const name = unique('page-of-one');
    await register(name);
    const all = namesOf((await listAll('REGISTERED')).infos);

    const paged = await listAll('REGISTERED', { maximumPageSize: 1 });

    expect(namesOf(paged.infos)).toStrictEqual(all);
    expect(paged.pages).toBe(all.length);
  });

  it('treats maximumPageSize 0 as the default of 1000', async () => {
    await register(unique('page-size-zero'));

    const page = await server.swf.send(
      new ListDomainsCommand({ registrationStatus: 'REGISTERED', maximumPageSize: 0 }),
    );

    expect(page.nextPageToken).toBeUndefined();
    expect(page.domainInfos).toStrictEqual((await listAll('REGISTERED')).infos);
  });

  it('refuses maximumPageSize 1001 with the Coral message', async () => {
    await expectServiceError(
      server.swf.send(
        new ListDomainsCommand({ registrationStatus: 'REGISTERED', maximumPageSize: 1001 }),
      ),
      'ValidationException',
      oneViolation('1001', 'maximumPageSize', 'Member must have value less than or equal to 1000'),
    );
  });

  it('refuses a negative maximumPageSize', async () => {
    await expectServiceError(
      server.swf.send(
        new ListDomainsCommand({ registrationStatus: 'REGISTERED', maximumPageSize: -1 }),
      ),
      'ValidationException',
      oneViolation('-1', 'maximumPageSize', 'Member must have value greater than or equal to 0'),
    );
  });

  describe('nextPageToken', () => {
    async function firstToken(registrationStatus: RegistrationStatus, reverseOrder = false) {
      await register(unique('token-a'));
      await register(unique('token-b'));
      const deprecated = unique('token-c');
      await register(deprecated);
      await server.swf.send(new DeprecateDomainCommand({ name: deprecated }));
      await register(unique('token-d'));
      const page = await server.swf.send(
        new ListDomainsCommand({ registrationStatus, maximumPageSize: 1, reverseOrder }),
      );
      expect(page.nextPageToken).toEqual(expect.any(String));
      return page.nextPageToken ?? '';
    }

    it('continues the listing when resent with the same arguments', async () => {
      const token = await firstToken('REGISTERED');

      const next = await server.swf.send(
        new ListDomainsCommand({
          registrationStatus: 'REGISTERED',
          maximumPageSize: 1,
          nextPageToken: token,
        }),
      );

      expect(next.domainInfos).toHaveLength(1);
    });

    it('refuses a tampered token', async () => {
      const token = await firstToken('REGISTERED');
      const last = token.at(-1) === 'A' ? 'B' : 'A';
      const tampered = `${token.slice(0, -1)}${last}`;

      await expectServiceError(
        server.swf.send(
          new ListDomainsCommand({ registrationStatus: 'REGISTERED', nextPageToken: tampered }),
        ),
        'ValidationException',
      );
    });

    it('refuses a token this service never issued', async () => {
      await expectServiceError(
        server.swf.send(
          new ListDomainsCommand({
            registrationStatus: 'REGISTERED',
            nextPageToken: 'not-a-token',
          }),
        ),
        'ValidationException',
      );
    });

    it('refuses a token issued for another registrationStatus', async () => {
      const token = await firstToken('REGISTERED');

      await expectServiceError(
        server.swf.send(
          new ListDomainsCommand({ registrationStatus: 'DEPRECATED', nextPageToken: token }),
        ),
        'ValidationException',
      );
    });

    it('refuses a token issued for the other order', async () => {
      const token = await firstToken('REGISTERED', true);

      await expectServiceError(
        server.swf.send(
          new ListDomainsCommand({ registrationStatus: 'REGISTERED', nextPageToken: token }),
        ),
        'ValidationException',
      );
    });

    it('refuses a token longer than 2048 characters', async () => {
      const token = 'x'.repeat(2049);

      await expectServiceError(
        server.swf.send(
          new ListDomainsCommand({ registrationStatus: 'REGISTERED', nextPageToken: token }),
        ),
        'ValidationException',
        /at 'nextPageToken' failed to satisfy constraint: Member must have length less than or equal to 2048$/,
      );
    });
  });

  it('refuses a registrationStatus outside the enum with the Coral message', async () => {
    const response = await rawCall(server.endpoint, 'ListDomains', {
      registrationStatus: 'ACTIVE',
    });

    expectWireError(
      response,
      wireType.validation,
      oneViolation(
        'ACTIVE',
        'registrationStatus',
        'Member must satisfy enum value set: [REGISTERED, DEPRECATED]',
      ),
    );
  });

  it('refuses a request without registrationStatus', async () => {
    const response = await rawCall(server.endpoint, 'ListDomains', {});

    expectWireError(
      response,
      wireType.validation,
      oneViolation(null, 'registrationStatus', 'Member must not be null'),
    );
  });
});

describe('DeprecateDomain and UndeprecateDomain', () => {
  it('deprecates a domain, then restores it', async () => {
    const name = unique('lifecycle');
    await register(name, { description: 'kept' });

    const deprecated = await server.swf.send(new DeprecateDomainCommand({ name }));
    const whileDeprecated = await describeDomain(name);
    const undeprecated = await server.swf.send(new UndeprecateDomainCommand({ name }));
    const afterwards = await describeDomain(name);

    expect(payload(deprecated)).toStrictEqual({});
    expect(payload(undeprecated)).toStrictEqual({});
    expect(payload(whileDeprecated)).toStrictEqual({
      domainInfo: { name, status: 'DEPRECATED', description: 'kept', arn: arnOf(name) },
      configuration: { workflowExecutionRetentionPeriodInDays: '1' },
    });
    expect(afterwards.domainInfo?.status).toBe('REGISTERED');
  });

  it('fails DeprecateDomain on a deprecated domain with DomainDeprecatedFault (message: the name)', async () => {
    const name = unique('twice-deprecated');
    await register(name);
    await server.swf.send(new DeprecateDomainCommand({ name }));

    await expectFault(
      server.swf.send(new DeprecateDomainCommand({ name })),
      DomainDeprecatedFault,
      name,
    );

    expect((await describeDomain(name)).domainInfo?.status).toBe('DEPRECATED');
  });

  it('fails UndeprecateDomain on a registered domain with DomainAlreadyExistsFault (message: the name)', async () => {
    const name = unique('never-deprecated');
    await register(name);

    await expectFault(
      server.swf.send(new UndeprecateDomainCommand({ name })),
      DomainAlreadyExistsFault,
      name,
    );

    expect((await describeDomain(name)).domainInfo?.status).toBe('REGISTERED');
  });

  it('fails both for an unknown domain with "Unknown domain: <name>"', async () => {
    const name = unique('missing');

    await expectFault(
      server.swf.send(new DeprecateDomainCommand({ name })),
      UnknownResourceFault,
      `Unknown domain: ${name}`,
    );
    await expectFault(
      server.swf.send(new UndeprecateDomainCommand({ name })),
      UnknownResourceFault,
      `Unknown domain: ${name}`,
    );
    await expectFault(describeDomain(name), UnknownResourceFault, `Unknown domain: ${name}`);
  });

  it('refuses registering a workflow type in a deprecated domain with DomainDeprecatedFault', async () => {
    const domain = unique('closed-for-types');
    await register(domain);
    await server.swf.send(new DeprecateDomainCommand({ name: domain }));
    const workflowType = { name: 'late', version: '1' };

    await expectFault(
      server.swf.send(new RegisterWorkflowTypeCommand({ domain, ...workflowType })),
      DomainDeprecatedFault,
    );

    await expectFault(
      server.swf.send(new DescribeWorkflowTypeCommand({ domain, workflowType })),
      UnknownResourceFault,
      'Unknown type: WorkflowType=[name=late, version=1]',
    );
    await server.swf.send(new UndeprecateDomainCommand({ name: domain }));
    await server.swf.send(new RegisterWorkflowTypeCommand({ domain, ...workflowType }));
    const { typeInfo } = await server.swf.send(
      new DescribeWorkflowTypeCommand({ domain, workflowType }),
    );
    expect(typeInfo?.status).toBe('REGISTERED');
  });
});

describe('RegisterDomain input validation', () => {
  it('reports every missing required member at once', async () => {
    const before = await snapshot();

    const response = await rawCall(server.endpoint, 'RegisterDomain', {});

    expectWireError(
      response,
      wireType.validation,
      '2 validation errors detected: ' +
        "Value null at 'name' failed to satisfy constraint: Member must not be null; " +
        "Value null at 'workflowExecutionRetentionPeriodInDays' failed to satisfy constraint: Member must not be null",
    );
    expect(await snapshot()).toStrictEqual(before);
  });

  it('refuses a missing retention period', async () => {
    const name = unique('no-retention');

    const response = await rawCall(server.endpoint, 'RegisterDomain', { name });

    expectWireError(
      response,
      wireType.validation,
      oneViolation(null, 'workflowExecutionRetentionPeriodInDays', 'Member must not be null'),
    );
    await expectFault(describeDomain(name), UnknownResourceFault, `Unknown domain: ${name}`);
  });

  it('refuses a name longer than 256 characters', async () => {
    const name = `${unique('long')}-${'n'.repeat(256)}`;

    await expectRefusedWithoutChange(
      () => register(name),
      (call) =>
        expectServiceError(
          call,
          'ValidationException',
          /^1 validation error detected: Value '.*' at 'name' failed to satisfy constraint: Member must have length less than or equal to 256$/,
        ),
    );
  });

  it('accepts a name of exactly 256 characters', async () => {
    const name = unique('max').padEnd(256, 'm');

    await register(name);

    expect((await describeDomain(name)).domainInfo?.name).toBe(name);
  });

  it('refuses an empty name', async () => {
    await expectRefusedWithoutChange(
      () => register(''),
      (call) =>
        expectServiceError(
          call,
          'ValidationException',
          oneViolation('', 'name', 'Member must have length greater than or equal to 1'),
        ),
    );
  });

  it.each([
    ['a colon', 'with:colon'],
    ['a slash', 'with/slash'],
    ['a bar', 'with|bar'],
    ['a control character', 'with\u0007bell'],
    ['a C1 control character', 'with\u0085nel'],
    ['leading whitespace', ' leading'],
    ['trailing whitespace', 'trailing '],
  ])('refuses a name with %s (identifier rule)', async (_what, suffix) => {
    const name = suffix.startsWith(' ') ? `${suffix}${unique('x')}` : `${unique('x')}${suffix}`;

    await expectRefusedWithoutChange(
      () => register(name),
      (call) =>
        expectServiceError(
          call,
          'ValidationException',
          /^1 validation error detected: Value '.*' at 'name' failed to satisfy constraint: /s,
        ),
    );
  });

  it('refuses the literal name "arn"', async () => {
    await expectRefusedWithoutChange(
      () => register('arn'),
      (call) =>
        expectServiceError(call, 'ValidationException', /at 'name' failed to satisfy constraint: /),
    );
  });

  it('refuses a description longer than 1024 characters', async () => {
    const name = unique('long-description');

    await expectRefusedWithoutChange(
      () => register(name, { description: 'd'.repeat(1025) }),
      (call) =>
        expectServiceError(
          call,
          'ValidationException',
          /at 'description' failed to satisfy constraint: Member must have length less than or equal to 1024$/,
        ),
    );
  });

  it.each(['91', '365', '-1', '1.5', 'forever', ' 7'])(
    'refuses the retention period %j (integer days 0-90 or NONE)',
    async (retention) => {
      const name = unique('bad-retention');

      await expectRefusedWithoutChange(
        () => register(name, { workflowExecutionRetentionPeriodInDays: retention }),
        (call) =>
          expectServiceError(
            call,
            'ValidationException',
            /^1 validation error detected: Value '.*' at 'workflowExecutionRetentionPeriodInDays' failed to satisfy constraint: /,
          ),
      );
    },
  );

  it('refuses an empty or over-long retention period by its length', async () => {
    await expectServiceError(
      register(unique('empty-retention'), { workflowExecutionRetentionPeriodInDays: '' }),
      'ValidationException',
      oneViolation(
        '',
        'workflowExecutionRetentionPeriodInDays',
        'Member must have length greater than or equal to 1',
      ),
    );
    await expectServiceError(
      register(unique('long-retention'), { workflowExecutionRetentionPeriodInDays: '000000001' }),
      'ValidationException',
      oneViolation(
        '000000001',
        'workflowExecutionRetentionPeriodInDays',
        'Member must have length less than or equal to 8',
      ),
    );
  });

  it('reports several violations in one message', async () => {
    const before = await snapshot();

    await expectServiceError(
      register('', { workflowExecutionRetentionPeriodInDays: '', description: 'd'.repeat(1025) }),
      'ValidationException',
      /^3 validation errors detected: Value .*; Value .*; Value .*$/s,
    );

    expect(await snapshot()).toStrictEqual(before);
  });
});
