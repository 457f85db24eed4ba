/**
 * Domains through the official SDK: RegisterDomain, DescribeDomain, DeprecateDomain and
 * UndeprecateDomain — success shapes, faults with their messages, and input validation that leaves
 * nothing stored.
 */
import {
  DeprecateDomainCommand,
  DescribeWorkflowTypeCommand,
  DomainAlreadyExistsFault,
  DomainDeprecatedFault,
  RegisterWorkflowTypeCommand,
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
import { arnOf, domainCalls } from '../support/domain-calls.js';
import { serverForFile } from '../support/local.js';

const server = serverForFile();
const { register, describeDomain, snapshot, expectRefusedWithoutChange } = domainCalls(server);

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
