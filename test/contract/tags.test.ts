/**
 * Domain tags through the official SDK: TagResource, UntagResource,
 * ListTagsForResource on domain ARNs, tags given at RegisterDomain, the 50-tag quota
 * (TooManyTagsFault) and the key/value rules. Refused calls leave the tags as they were.
 */
import {
  DeprecateDomainCommand,
  DescribeDomainCommand,
  ListTagsForResourceCommand,
  RegisterDomainCommand,
  type ResourceTag,
  TagResourceCommand,
  TooManyTagsFault,
  UnknownResourceFault,
  UntagResourceCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import {
  expectFault,
  expectServiceError,
  expectWireError,
  oneViolation,
  rawCall,
  unique,
  wireType,
} from '../support/contract.js';
import { serverForFile } from '../support/local.js';

const server = serverForFile();

/** Registers a domain and returns its ARN as DescribeDomain reports it. */
async function newDomain(tags?: ResourceTag[]): Promise<{ name: string; arn: string }> {
  const name = unique('tagged');
  await server.swf.send(
    new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1', tags }),
  );
  const { domainInfo } = await server.swf.send(new DescribeDomainCommand({ name }));
  return { name, arn: domainInfo?.arn ?? '' };
}

const tagsOf = async (resourceArn: string) =>
  (await server.swf.send(new ListTagsForResourceCommand({ resourceArn }))).tags;

const manyTags = (count: number, prefix = 'k') =>
  Array.from({ length: count }, (_, i) => ({ key: `${prefix}${i}`, value: `v${i}` }));

describe('ListTagsForResource', () => {
  it('lists the tags given at RegisterDomain, a tag without value without one', async () => {
    const { arn } = await newDomain([{ key: 'team', value: 'orders' }, { key: 'flag' }]);

    expect(arn).toMatch(/^arn:aws:swf:us-east-1:\d{12}:\/domain\/tagged-/);
    expect(await tagsOf(arn)).toStrictEqual([{ key: 'team', value: 'orders' }, { key: 'flag' }]);
  });

  it('lists an empty list for a domain without tags', async () => {
    const { arn } = await newDomain();
    expect(await tagsOf(arn)).toStrictEqual([]);
  });

  it.each([
    ['an unknown domain', (name: string) => `arn:aws:swf:us-east-1:000000000000:/domain/${name}-x`],
    ['another region', (name: string) => `arn:aws:swf:eu-west-1:000000000000:/domain/${name}`],
    ['another account', (name: string) => `arn:aws:swf:us-east-1:111111111111:/domain/${name}`],
    ['another service', (name: string) => `arn:aws:sqs:us-east-1:000000000000:/domain/${name}`],
    ['something that is no ARN', (name: string) => name],
    [
      'a name no domain can have (1,557 CJK characters, 4.7 KB of UTF-8)',
      () => `arn:aws:swf:us-east-1:000000000000:/domain/${'中'.repeat(1557)}`,
    ],
  ])('refuses %s with UnknownResourceFault, for every tag action', async (_, arnFor) => {
    const { name, arn } = await newDomain([{ key: 'keep', value: 'me' }]);
    const resourceArn = arnFor(name);

    await expectFault(
      server.swf.send(new ListTagsForResourceCommand({ resourceArn })),
      UnknownResourceFault,
      `Unknown resource: ${resourceArn}`,
    );
    await expectFault(
      server.swf.send(new TagResourceCommand({ resourceArn, tags: [{ key: 'a', value: 'b' }] })),
      UnknownResourceFault,
    );
    await expectFault(
      server.swf.send(new UntagResourceCommand({ resourceArn, tagKeys: ['keep'] })),
      UnknownResourceFault,
    );
    expect(await tagsOf(arn)).toStrictEqual([{ key: 'keep', value: 'me' }]);
  });
});

describe('TagResource', () => {
  it('adds tags and replaces the value of an existing key', async () => {
    const { arn } = await newDomain([
      { key: 'env', value: 'dev' },
      { key: 'owner', value: 'ann' },
    ]);

    await server.swf.send(
      new TagResourceCommand({
        resourceArn: arn,
        tags: [
          { key: 'env', value: 'prod' },
          { key: 'cost-centre', value: '42' },
        ],
      }),
    );

    expect(await tagsOf(arn)).toStrictEqual([
      { key: 'env', value: 'prod' },
      { key: 'owner', value: 'ann' },
      { key: 'cost-centre', value: '42' },
    ]);
  });

  it('keeps the last of several tags with one key in a single call', async () => {
    const { arn } = await newDomain();

    await server.swf.send(
      new TagResourceCommand({
        resourceArn: arn,
        tags: [
          { key: 'dup', value: 'first' },
          { key: 'dup', value: 'second' },
        ],
      }),
    );

    expect(await tagsOf(arn)).toStrictEqual([{ key: 'dup', value: 'second' }]);
  });

  it('tags a deprecated domain too', async () => {
    const { name, arn } = await newDomain();
    await server.swf.send(new DeprecateDomainCommand({ name }));

    await server.swf.send(
      new TagResourceCommand({ resourceArn: arn, tags: [{ key: 'old', value: 'y' }] }),
    );

    expect(await tagsOf(arn)).toStrictEqual([{ key: 'old', value: 'y' }]);
  });

  it('allows 50 tags and refuses a 51st with TooManyTagsFault, changing nothing', async () => {
    const { arn } = await newDomain(manyTags(49));
    await server.swf.send(
      new TagResourceCommand({ resourceArn: arn, tags: [{ key: 'fiftieth' }] }),
    );
    // Replacing an existing key does not count as another tag.
    await server.swf.send(
      new TagResourceCommand({ resourceArn: arn, tags: [{ key: 'k0', value: 'new' }] }),
    );
    const before = await tagsOf(arn);
    expect(before).toHaveLength(50);

    await expectFault(
      server.swf.send(
        new TagResourceCommand({ resourceArn: arn, tags: [{ key: 'one-too-many' }] }),
      ),
      TooManyTagsFault,
    );

    expect(await tagsOf(arn)).toStrictEqual(before);
  });

  it('refuses concurrent calls that together pass 50 tags, keeping at most 50', async () => {
    const { arn } = await newDomain(manyTags(45));

    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        server.swf.send(new TagResourceCommand({ resourceArn: arn, tags: [{ key: `racer${i}` }] })),
      ),
    );

    const refused = outcomes.filter(
      (o) => o.status === 'rejected' && o.reason instanceof TooManyTagsFault,
    );
    expect(refused).toHaveLength(5);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
    expect(await tagsOf(arn)).toHaveLength(50);
  });

  it('takes 30 calls at once on one domain, each adding its own tag', async () => {
    const { arn } = await newDomain([]);

    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        server.swf.send(
          new TagResourceCommand({ resourceArn: arn, tags: [{ key: `at-once${i}` }] }),
        ),
      ),
    );

    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    expect(await tagsOf(arn)).toHaveLength(30);
  });

  it('refuses RegisterDomain with 51 tags with TooManyTagsFault, registering nothing', async () => {
    const name = unique('overtagged');

    await expectFault(
      server.swf.send(
        new RegisterDomainCommand({
          name,
          workflowExecutionRetentionPeriodInDays: '1',
          tags: manyTags(51),
        }),
      ),
      TooManyTagsFault,
    );

    await expectFault(server.swf.send(new DescribeDomainCommand({ name })), UnknownResourceFault);
  });

  it.each([
    ['an empty key', { key: '' }, 'tags.1.member.key', /length greater than or equal to 1/],
    ['a key over 128 characters', { key: 'k'.repeat(129) }, 'tags.1.member.key', /128/],
    [
      'a value over 256 characters',
      { key: 'k', value: 'v'.repeat(257) },
      'tags.1.member.value',
      /256/,
    ],
    ['a key with a forbidden character', { key: 'a#b' }, 'tags.1.member.key', /letters, digits/],
    [
      'a value with a forbidden character',
      { key: 'a', value: 'x;y' },
      'tags.1.member.value',
      /letters, digits/,
    ],
  ])('refuses %s with ValidationException, changing nothing', async (_, tag, path, message) => {
    const { arn } = await newDomain([{ key: 'keep', value: 'me' }]);

    const error = await expectServiceError(
      server.swf.send(new TagResourceCommand({ resourceArn: arn, tags: [tag] })),
      'ValidationException',
      message,
    );

    expect(error.message).toContain(`at '${path}'`);
    expect(await tagsOf(arn)).toStrictEqual([{ key: 'keep', value: 'me' }]);
  });

  it('accepts the characters the rules allow: letters, digits, spaces and _ . : / = + - @', async () => {
    const { arn } = await newDomain();
    const tag = { key: 'Ünïcode key_1.2:3/4=5+6-7@8', value: 'ça va 9' };

    await server.swf.send(new TagResourceCommand({ resourceArn: arn, tags: [tag] }));

    expect(await tagsOf(arn)).toStrictEqual([tag]);
  });

  it('refuses a request without tags or resourceArn with the Coral message', async () => {
    const { arn } = await newDomain();
    const response = await rawCall(server.endpoint, 'TagResource', { resourceArn: arn });
    expectWireError(
      response,
      wireType.validation,
      oneViolation(null, 'tags', 'Member must not be null'),
    );
    const noArn = await rawCall(server.endpoint, 'ListTagsForResource', {});
    expectWireError(
      noArn,
      wireType.validation,
      oneViolation(null, 'resourceArn', 'Member must not be null'),
    );
  });
});

describe('UntagResource', () => {
  it('removes the keys given and ignores keys the domain lacks', async () => {
    const { arn } = await newDomain([
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
      { key: 'c', value: '3' },
    ]);

    await server.swf.send(new UntagResourceCommand({ resourceArn: arn, tagKeys: ['b', 'zzz'] }));

    expect(await tagsOf(arn)).toStrictEqual([
      { key: 'a', value: '1' },
      { key: 'c', value: '3' },
    ]);
  });

  it('frees room for new tags under the quota', async () => {
    const { arn } = await newDomain(manyTags(50));
    await server.swf.send(new UntagResourceCommand({ resourceArn: arn, tagKeys: ['k0', 'k1'] }));

    await server.swf.send(
      new TagResourceCommand({ resourceArn: arn, tags: [{ key: 'n1' }, { key: 'n2' }] }),
    );

    const keys = (await tagsOf(arn))?.map((t) => t.key);
    expect(keys).toHaveLength(50);
    expect(keys).toEqual(expect.arrayContaining(['n1', 'n2']));
    expect(keys).not.toContain('k0');
  });

  it('refuses a key over 128 characters with ValidationException', async () => {
    const { arn } = await newDomain([{ key: 'keep' }]);
    await expectServiceError(
      server.swf.send(new UntagResourceCommand({ resourceArn: arn, tagKeys: ['k'.repeat(129)] })),
      'ValidationException',
      /at 'tagKeys\.1\.member' failed to satisfy constraint: Member must have length less than or equal to 128/,
    );
    expect(await tagsOf(arn)).toStrictEqual([{ key: 'keep' }]);
  });
});
