import {
  DomainAlreadyExistsFault,
  DomainDeprecatedFault,
  faultText,
  LimitExceededFault,
  TooManyTagsFault,
  UnknownResourceFault,
} from '../core/faults.js';
import {
  type DomainRecord,
  type RegistrationStatus,
  type ResourceTag,
  registryLimits,
} from '../core/registry.js';
import { epochSeconds } from '../ports/clock.js';
import type { RegistryRead } from '../ports/registry-store.js';
import { type OperationDeps, operation, type ServiceIdentity } from './context.js';
import { nextPageToken, type PagingInput, pageRequest } from './paging.js';

// The five domain actions share their lookups and wording, so they live together.

export const domainArn = (identity: ServiceIdentity, name: string) =>
  `arn:aws:swf:${identity.region}:${identity.accountId}:/domain/${name}`;

/**
 * How old a registry record the task and execution actions accept (RegistryRead): a domain or type
 * deprecated elsewhere takes effect there within this, as SWF's deprecations are eventually
 * consistent. The domain and type actions themselves read the registry as it is.
 */
export const RECENT_REGISTRY: RegistryRead = { maxAgeMs: 10_000 };

/** Loads a domain or throws `Unknown domain: <name>`. */
export async function requireDomain(
  deps: OperationDeps,
  name: string,
  read: RegistryRead = {},
): Promise<DomainRecord> {
  const domain = await deps.registry.getDomain(name, read);
  if (domain === undefined) throw new UnknownResourceFault(faultText.unknownDomain(name));
  return domain;
}

interface RegisterDomainInput {
  name: string;
  description?: string;
  workflowExecutionRetentionPeriodInDays: string;
  tags?: ResourceTag[];
}

export const registerDomain = operation<RegisterDomainInput>(async (input, deps) => {
  const tags = input.tags ?? [];
  if (new Set(tags.map((t) => t.key)).size > registryLimits.tagsPerDomain) {
    throw new TooManyTagsFault(`A domain can have at most ${registryLimits.tagsPerDomain} tags`);
  }
  const record: DomainRecord = {
    name: input.name,
    status: 'REGISTERED',
    retentionPeriodInDays: input.workflowExecutionRetentionPeriodInDays,
    tags: dedupeTags(tags),
    creationDate: epochSeconds(deps.clock),
    ...(input.description === undefined ? {} : { description: input.description }),
  };
  const outcome = await deps.registry.createDomain(record, registryLimits.domainsPerAccount);
  if (outcome === 'exists') throw new DomainAlreadyExistsFault(input.name);
  if (outcome === 'limit-exceeded') {
    throw new LimitExceededFault(
      `The limit of ${registryLimits.domainsPerAccount} domains has been reached`,
    );
  }
  return undefined;
});

/** Later tags with the same key win, as TagResource's upsert does. */
function dedupeTags(tags: readonly ResourceTag[]): ResourceTag[] {
  return [...new Map(tags.map((t) => [t.key, t])).values()];
}

export const describeDomain = operation<{ name: string }>(async (input, deps) => {
  const domain = await requireDomain(deps, input.name);
  return {
    domainInfo: domainInfo(deps.identity, domain),
    configuration: { workflowExecutionRetentionPeriodInDays: domain.retentionPeriodInDays },
  };
});

function domainInfo(identity: ServiceIdentity, d: DomainRecord) {
  return {
    name: d.name,
    status: d.status,
    ...(d.description === undefined ? {} : { description: d.description }),
    arn: domainArn(identity, d.name),
  };
}

interface ListDomainsInput extends PagingInput {
  registrationStatus: RegistrationStatus;
}

export const listDomains = operation<ListDomainsInput>(async (input, deps) => {
  const args = {
    registrationStatus: input.registrationStatus,
    reverseOrder: input.reverseOrder === true,
  };
  const page = await deps.registry.listDomains(
    input.registrationStatus,
    await pageRequest(deps, 'ListDomains', args, input),
  );
  return {
    domainInfos: page.items.map((d) => domainInfo(deps.identity, d)),
    ...(await nextPageToken(deps, 'ListDomains', args, page.next)),
  };
});

export const deprecateDomain = operation<{ name: string }>(async (input, deps) => {
  const outcome = await deps.registry.setDomainStatus(
    input.name,
    'DEPRECATED',
    epochSeconds(deps.clock),
  );
  if (outcome === 'missing') throw new UnknownResourceFault(faultText.unknownDomain(input.name));
  if (outcome === 'already') throw new DomainDeprecatedFault(input.name);
  return undefined;
});

/** Types deprecated with the domain stay deprecated: SWF documents no restore. */
export const undeprecateDomain = operation<{ name: string }>(async (input, deps) => {
  const outcome = await deps.registry.setDomainStatus(
    input.name,
    'REGISTERED',
    epochSeconds(deps.clock),
  );
  if (outcome === 'missing') throw new UnknownResourceFault(faultText.unknownDomain(input.name));
  if (outcome === 'already') throw new DomainAlreadyExistsFault(input.name);
  return undefined;
});
