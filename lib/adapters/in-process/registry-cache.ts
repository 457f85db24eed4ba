import type {
  DomainRecord,
  RegistrationStatus,
  ResourceTag,
  TypeId,
  TypeKind,
  TypeRecord,
} from '../../core/registry.js';
import type {
  CreateOutcome,
  DeleteOutcome,
  Page,
  PageRequest,
  RegistryRead,
  RegistryStore,
  StatusChangeOutcome,
  TagOutcome,
} from '../../ports/registry-store.js';

interface Entry<T> {
  readonly at: number;
  readonly value: T;
}

/**
 * A process's recent registry reads, in front of the store: a read that allows an age (RegistryRead)
 * is answered from a record read within it. Only records found are kept (a domain or type registered
 * a moment ago is never taken for missing), and any change made through this process forgets them
 * all, so a process sees its own changes at once; other processes see them within the age allowed,
 * as SWF's deprecations are eventually consistent too.
 */
export class RegistryCache implements RegistryStore {
  private readonly domains = new Map<string, Entry<DomainRecord>>();
  private readonly types = new Map<string, Entry<TypeRecord>>();
  /** Changes made so far: a read that a change overlapped keeps nothing (it may predate it). */
  private changes = 0;

  constructor(
    private readonly store: RegistryStore,
    private readonly nowMs: () => number,
  ) {}

  async getDomain(name: string, read: RegistryRead = {}): Promise<DomainRecord | undefined> {
    return this.cached(this.domains, name, read, () => this.store.getDomain(name));
  }

  async getType(id: TypeId, read: RegistryRead = {}): Promise<TypeRecord | undefined> {
    const key = JSON.stringify([id.kind, id.domain, id.name, id.version]);
    return this.cached(this.types, key, read, () => this.store.getType(id));
  }

  private async cached<T>(
    entries: Map<string, Entry<T>>,
    key: string,
    read: RegistryRead,
    load: () => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const now = this.nowMs();
    const known = entries.get(key);
    // A negative age is a clock stepped back since (NTP): the record's age is unknown, so it is read.
    const age = known === undefined ? -1 : now - known.at;
    if (known !== undefined && read.maxAgeMs !== undefined && age >= 0 && age <= read.maxAgeMs)
      return known.value;
    const changes = this.changes;
    const value = await load();
    if (value === undefined || changes !== this.changes) entries.delete(key);
    else entries.set(key, { at: now, value });
    return value;
  }

  /** A change through this process: every record read before it may be out of date. */
  private async changing<T>(change: Promise<T>): Promise<T> {
    this.forget();
    try {
      return await change;
    } finally {
      this.forget();
    }
  }

  private forget(): void {
    this.changes++;
    this.domains.clear();
    this.types.clear();
  }

  createDomain(domain: DomainRecord, maxDomains: number) {
    return this.changing(this.store.createDomain(domain, maxDomains));
  }

  listDomains(status: RegistrationStatus, page: PageRequest): Promise<Page<DomainRecord>> {
    return this.store.listDomains(status, page);
  }

  setDomainStatus(name: string, to: RegistrationStatus, now: number): Promise<StatusChangeOutcome> {
    return this.changing(this.store.setDomainStatus(name, to, now));
  }

  updateDomainTags(
    name: string,
    change: { readonly upsert: readonly ResourceTag[]; readonly removeKeys: readonly string[] },
    maxTags: number,
  ): Promise<TagOutcome> {
    return this.changing(this.store.updateDomainTags(name, change, maxTags));
  }

  createType(type: TypeRecord, maxTypes: number): Promise<CreateOutcome> {
    return this.changing(this.store.createType(type, maxTypes));
  }

  listTypes(
    kind: TypeKind,
    domain: string,
    status: RegistrationStatus,
    name: string | undefined,
    page: PageRequest,
  ): Promise<Page<TypeRecord>> {
    return this.store.listTypes(kind, domain, status, name, page);
  }

  typeVersions(kind: TypeKind, domain: string, name: string): Promise<readonly string[]> {
    return this.store.typeVersions(kind, domain, name);
  }

  setTypeStatus(id: TypeId, to: RegistrationStatus, now: number): Promise<StatusChangeOutcome> {
    return this.changing(this.store.setTypeStatus(id, to, now));
  }

  deleteType(id: TypeId): Promise<DeleteOutcome> {
    return this.changing(this.store.deleteType(id));
  }
}
