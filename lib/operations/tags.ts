import { TooManyTagsFault, UnknownResourceFault } from '../core/faults.js';
import { type ResourceTag, registryLimits } from '../core/registry.js';
import { type OperationDeps, operation } from './context.js';
import { requireDomain } from './domains.js';

// Tags belong to domains, addressed by ARN: arn:aws:swf:<region>:<account>:/domain/<name>.

/** No domain has a longer name (and a longer one would not fit in the store's key). */
const DOMAIN_NAME_MAX = 256;
const DOMAIN_ARN = /^arn:aws[a-z-]*:swf:([^:]*):([^:]*):\/domain\/(.+)$/;

function domainOfArn(deps: OperationDeps, arn: string): string {
  const match = DOMAIN_ARN.exec(arn);
  const [, region, account, name] = match ?? [];
  if (
    name === undefined ||
    name.length > DOMAIN_NAME_MAX ||
    region !== deps.identity.region ||
    account !== deps.identity.accountId
  ) {
    throw new UnknownResourceFault(`Unknown resource: ${arn}`);
  }
  return name;
}

async function applyTagChange(
  deps: OperationDeps,
  arn: string,
  change: { upsert: readonly ResourceTag[]; removeKeys: readonly string[] },
): Promise<undefined> {
  const name = domainOfArn(deps, arn);
  const outcome = await deps.registry.updateDomainTags(name, change, registryLimits.tagsPerDomain);
  if (outcome === 'missing') throw new UnknownResourceFault(`Unknown resource: ${arn}`);
  if (outcome === 'too-many') {
    throw new TooManyTagsFault(`A domain can have at most ${registryLimits.tagsPerDomain} tags`);
  }
  return undefined;
}

export const tagResource = operation<{ resourceArn: string; tags: ResourceTag[] }>((input, deps) =>
  applyTagChange(deps, input.resourceArn, { upsert: input.tags, removeKeys: [] }),
);

export const untagResource = operation<{ resourceArn: string; tagKeys: string[] }>((input, deps) =>
  applyTagChange(deps, input.resourceArn, { upsert: [], removeKeys: input.tagKeys }),
);

export const listTagsForResource = operation<{ resourceArn: string }>(async (input, deps) => {
  const domain = await requireDomain(deps, domainOfArn(deps, input.resourceArn)).catch(
    (error: unknown) => {
      throw error instanceof UnknownResourceFault
        ? new UnknownResourceFault(`Unknown resource: ${input.resourceArn}`)
        : error;
    },
  );
  return { tags: domain.tags };
});
