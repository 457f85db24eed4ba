/**
 * Workflow types and activity types through the official SDK: register and describe, and the
 * validation of their input, each with its faults and their messages, for both kinds alike. Refused
 * calls change nothing.
 */
import {
  DeprecateDomainCommand,
  DomainDeprecatedFault,
  TypeAlreadyExistsFault,
  UnknownResourceFault,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import {
  expectFault,
  expectRecent,
  expectServiceError,
  expectWireError,
  oneViolation,
  rawCall,
  unique,
  wireType,
} from '../support/contract.js';
import { serverForFile } from '../support/local.js';
import { refText, snapshot, typeKinds, unknownText } from '../support/type-kinds.js';

const server = serverForFile();
const { newDomain, kinds } = typeKinds(server);

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
});
