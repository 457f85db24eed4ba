/**
 * ListDomains through the official SDK: registered and deprecated domains apart, paging by name in
 * both orders, page tokens, and the faults of bad page sizes and statuses with their messages.
 */
import {
  DeprecateDomainCommand,
  ListDomainsCommand,
  type RegistrationStatus,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import {
  expectServiceError,
  expectWireError,
  oneViolation,
  rawCall,
  unique,
  wireType,
} from '../support/contract.js';
import { arnOf, domainCalls, namesOf } from '../support/domain-calls.js';
import { serverForFile } from '../support/local.js';

const server = serverForFile();
const { register, listAll } = domainCalls(server);

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
