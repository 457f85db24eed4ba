/**
 * The registry in memory: the RegistryStore port as the DynamoDB adapter keeps it (domains never
 * deleted, types listed by name then version in the table's key order, deprecating a domain
 * deprecating its types), checked against the same contract suite (test/support/store-contract).
 */
import type {
  DomainRecord,
  RegistrationStatus,
  ResourceTag,
  TypeId,
  TypeKind,
  TypeRecord,
} from '../../../lib/core/registry.js';
import type {
  CreateOutcome,
  DeleteOutcome,
  Page,
  PageRequest,
  RegistryStore,
  StatusChangeOutcome,
  TagOutcome,
} from '../../../lib/ports/registry-store.js';

/** The order of the table's keys: UTF-8 bytes. */
export const keyOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** One page of `sorted` (in key order by `cursorOf`), after the cursor `page.after`. */
export function pageOf<T>(sorted: readonly T[], page: PageRequest, cursorOf: (t: T) => string) {
  const ordered = page.reverse ? [...sorted].reverse() : sorted;
  const after = page.after;
  const from =
    after === undefined
      ? ordered
      : ordered.filter((t) => {
          const order = keyOrder(cursorOf(t), after);
          return page.reverse ? order < 0 : order > 0;
        });
  const items = from.slice(0, page.limit);
  const last = items[items.length - 1];
  return from.length > page.limit && last !== undefined
    ? { items, next: cursorOf(last) }
    : { items };
}

const typeKey = (id: TypeId) => JSON.stringify([id.kind, id.domain, id.name, id.version]);
const typeCursor = (t: TypeRecord) => `${t.name}\u0001${t.version}`;

export class InMemoryRegistryStore implements RegistryStore {
  private readonly domains = new Map<string, DomainRecord>();
  private readonly types = new Map<string, TypeRecord>();
  /** Every version of a type name ever registered, deleted ones included. */
  private readonly versions = new Map<string, Set<string>>();

  async createDomain(domain: DomainRecord, maxDomains: number) {
    if (this.domains.has(domain.name)) return 'exists' as const;
    if (this.domains.size >= maxDomains) return 'limit-exceeded' as const;
    this.domains.set(domain.name, domain);
    return 'created' as const;
  }

  async getDomain(name: string): Promise<DomainRecord | undefined> {
    return this.domains.get(name);
  }

  async listDomains(status: RegistrationStatus, page: PageRequest): Promise<Page<DomainRecord>> {
    const sorted = [...this.domains.values()]
      .filter((d) => d.status === status)
      .sort((a, b) => keyOrder(a.name, b.name));
    return pageOf(sorted, page, (d) => d.name);
  }

  async setDomainStatus(
    name: string,
    to: RegistrationStatus,
    now: number,
  ): Promise<StatusChangeOutcome> {
    const domain = this.domains.get(name);
    if (domain === undefined) return 'missing';
    if (domain.status === to) return 'already';
    this.domains.set(name, { ...domain, status: to });
    if (to === 'DEPRECATED')
      for (const type of this.types.values())
        if (type.domain === name && type.status === 'REGISTERED')
          this.types.set(typeKey(type), { ...type, status: 'DEPRECATED', deprecationDate: now });
    return 'changed';
  }

  async updateDomainTags(
    name: string,
    change: { readonly upsert: readonly ResourceTag[]; readonly removeKeys: readonly string[] },
    maxTags: number,
  ): Promise<TagOutcome> {
    const domain = this.domains.get(name);
    if (domain === undefined) return 'missing';
    const byKey = new Map(domain.tags.map((t) => [t.key, t]));
    for (const key of change.removeKeys) byKey.delete(key);
    for (const tag of change.upsert) byKey.set(tag.key, tag);
    if (byKey.size > maxTags) return 'too-many';
    this.domains.set(name, { ...domain, tags: [...byKey.values()] });
    return 'tagged';
  }

  async createType(type: TypeRecord, maxTypes: number): Promise<CreateOutcome> {
    if (this.types.has(typeKey(type))) return 'exists';
    const domain = this.domains.get(type.domain);
    if (domain === undefined) return 'domain-missing';
    if (domain.status === 'DEPRECATED') return 'domain-deprecated';
    const counted = [...this.types.values()].filter(
      (t) => t.domain === type.domain && t.kind === type.kind,
    ).length;
    if (counted >= maxTypes) return 'limit-exceeded';
    this.types.set(typeKey(type), type);
    const name = JSON.stringify([type.kind, type.domain, type.name]);
    this.versions.set(name, (this.versions.get(name) ?? new Set()).add(type.version));
    return 'created';
  }

  async getType(id: TypeId): Promise<TypeRecord | undefined> {
    return this.types.get(typeKey(id));
  }

  async listTypes(
    kind: TypeKind,
    domain: string,
    status: RegistrationStatus,
    name: string | undefined,
    page: PageRequest,
  ): Promise<Page<TypeRecord>> {
    const sorted = [...this.types.values()]
      .filter(
        (t) =>
          t.kind === kind &&
          t.domain === domain &&
          t.status === status &&
          (name === undefined || t.name === name),
      )
      .sort((a, b) => keyOrder(typeCursor(a), typeCursor(b)));
    return pageOf(sorted, page, typeCursor);
  }

  async typeVersions(kind: TypeKind, domain: string, name: string): Promise<readonly string[]> {
    return [...(this.versions.get(JSON.stringify([kind, domain, name])) ?? [])].sort();
  }

  async setTypeStatus(
    id: TypeId,
    to: RegistrationStatus,
    now: number,
  ): Promise<StatusChangeOutcome> {
    const type = this.types.get(typeKey(id));
    if (type === undefined) return 'missing';
    if (type.status === to) return 'already';
    const { deprecationDate: _, ...rest } = type;
    this.types.set(
      typeKey(id),
      to === 'DEPRECATED' ? { ...rest, status: to, deprecationDate: now } : { ...rest, status: to },
    );
    return 'changed';
  }

  async deleteType(id: TypeId): Promise<DeleteOutcome> {
    const type = this.types.get(typeKey(id));
    if (type === undefined) return 'missing';
    if (type.status !== 'DEPRECATED') return 'not-deprecated';
    this.types.delete(typeKey(id));
    return 'deleted';
  }
}
