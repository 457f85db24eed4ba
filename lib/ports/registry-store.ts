import type {
  DomainRecord,
  RegistrationStatus,
  ResourceTag,
  TypeId,
  TypeKind,
  TypeRecord,
} from '../core/registry.js';

/** A request for one page of a sorted listing; `after` is the opaque cursor of the previous page. */
export interface PageRequest {
  readonly limit: number;
  readonly reverse: boolean;
  readonly after?: string;
}

export interface Page<T> {
  readonly items: readonly T[];
  /** Present only when more items follow. */
  readonly next?: string;
}

export type CreateOutcome =
  | 'created'
  | 'exists'
  | 'limit-exceeded'
  | 'domain-missing'
  | 'domain-deprecated';
export type StatusChangeOutcome = 'changed' | 'missing' | 'already';
export type DeleteOutcome = 'deleted' | 'missing' | 'not-deprecated';
export type TagOutcome = 'tagged' | 'missing' | 'too-many';

/**
 * How fresh a read must be. SWF's registry changes are eventually consistent (DeprecateDomain and
 * Deprecate*Type say so), so an operation that only needs a domain to exist, or a type's defaults, may
 * take an answer read up to `maxAgeMs` ago; the registry's own actions read it as it is.
 */
export interface RegistryRead {
  readonly maxAgeMs?: number;
}

/** Domains, types and domain tags. The only implementation that matters is DynamoDB's. */
export interface RegistryStore {
  createDomain(
    domain: DomainRecord,
    maxDomains: number,
  ): Promise<'created' | 'exists' | 'limit-exceeded'>;
  getDomain(name: string, read?: RegistryRead): Promise<DomainRecord | undefined>;
  listDomains(status: RegistrationStatus, page: PageRequest): Promise<Page<DomainRecord>>;
  /** Moves a domain to `to`; deprecating it also deprecates every registered type in it. */
  setDomainStatus(name: string, to: RegistrationStatus, now: number): Promise<StatusChangeOutcome>;
  /** Upserts tags by key (and removes `removeKeys`), refusing a result with more than `maxTags`. */
  updateDomainTags(
    name: string,
    change: { readonly upsert: readonly ResourceTag[]; readonly removeKeys: readonly string[] },
    maxTags: number,
  ): Promise<TagOutcome>;

  createType(type: TypeRecord, maxTypes: number): Promise<CreateOutcome>;
  getType(id: TypeId, read?: RegistryRead): Promise<TypeRecord | undefined>;
  listTypes(
    kind: TypeKind,
    domain: string,
    status: RegistrationStatus,
    name: string | undefined,
    page: PageRequest,
  ): Promise<Page<TypeRecord>>;
  /** Every version of a type name that may have executions: registered, deprecated or deleted. */
  typeVersions(kind: TypeKind, domain: string, name: string): Promise<readonly string[]>;
  setTypeStatus(id: TypeId, to: RegistrationStatus, now: number): Promise<StatusChangeOutcome>;
  deleteType(id: TypeId): Promise<DeleteOutcome>;
}
