import { randomBytes } from 'node:crypto';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ThrottlingException } from '../../core/faults.js';
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
  RegistryStore,
  StatusChangeOutcome,
  TagOutcome,
} from '../../ports/registry-store.js';
import { queryPage, queryPages, type TableRef } from './client.js';
import { isDynamoError } from './doc-client.js';
import { keys, SEPARATOR } from './keys.js';
import { mapLimited } from './parallel.js';
import { domainItem, mergeTags, toDomain, toType, typeItem } from './registry-items.js';
import { backoff, isLockConflict, transactWrite } from './transact.js';

const typeCounter = (kind: TypeKind) =>
  kind === 'workflow' ? 'workflowTypeCount' : 'activityTypeCount';
const DEPRECATE_CONCURRENCY = 16;
/** Domain items ListDomains reads at once. */
const DOMAIN_READS = 16;
/**
 * Attempts at a tag change while other tag changes of the domain win. Each round lands one of the
 * callers racing for the item, so n callers at once need up to n rounds: 20 let the last of 30
 * concurrent TagResource calls be throttled once the store was slow.
 */
const MAX_TAG_RETRIES = 60;
/** Attempts at a status change while transactions keep holding its item. */
const MAX_STATUS_ATTEMPTS = 20;
/** The mark of the request that last changed a domain's or type's status (see changeStatus). */
const STATUS_MARK = 'statusMark';

/** Domains, types and tags in the single table (see keys.ts for the layout). */
export class DynamoRegistryStore implements RegistryStore {
  constructor(private readonly table: TableRef) {}

  async createDomain(domain: DomainRecord, maxDomains: number) {
    const outcome = await transactWrite(this.table.doc, [
      {
        Put: {
          TableName: this.table.tableName,
          Item: domainItem(domain),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Update: {
          TableName: this.table.tableName,
          Key: keys.account(),
          // The names too: what ListDomains reads consistently (see listDomains).
          UpdateExpression:
            'SET domainCount = if_not_exists(domainCount, :zero) + :one ADD domainNames :name',
          ConditionExpression: 'attribute_not_exists(domainCount) OR domainCount < :max',
          ExpressionAttributeValues: {
            ':zero': 0,
            ':one': 1,
            ':max': maxDomains,
            ':name': new Set([domain.name]),
          },
        },
      },
    ]);
    if (outcome.ok) return 'created';
    return outcome.failed.includes(0) ? 'exists' : 'limit-exceeded';
  }

  async getDomain(name: string): Promise<DomainRecord | undefined> {
    const item = await this.get(keys.domain(name));
    return item === undefined ? undefined : toDomain(item);
  }

  /**
   * The account's domains of one status, by name. Read from the account's item, which names every
   * domain registered (a domain is never deleted), and the domains' own items, consistently: an index
   * lags its table on DynamoDB, and a domain registered a moment ago would be missing. A table whose
   * account item does not name every domain it counts (domains registered by an earlier release) is
   * listed from the index of domains by status, as that release did.
   */
  async listDomains(status: RegistrationStatus, page: PageRequest): Promise<Page<DomainRecord>> {
    const account = await this.get(keys.account());
    const names = account?.domainNames instanceof Set ? [...account.domainNames].map(String) : [];
    const count = typeof account?.domainCount === 'number' ? account.domainCount : 0;
    if (names.length < count) return this.listDomainsIndexed(status, page);
    // Key order (UTF-8 bytes), as the index kept them; a page token is the last domain's name.
    const order = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    const sorted = names.sort(page.reverse ? (a, b) => order(b, a) : order);
    const after = page.after;
    const from =
      after === undefined
        ? sorted
        : sorted.filter((n) => (page.reverse ? order(n, after) < 0 : order(n, after) > 0));
    const shown: DomainRecord[] = [];
    // Read in slices, stopping once a page and one more are in hand (most accounts hold a few).
    for (let i = 0; i < from.length && shown.length <= page.limit; i += DOMAIN_READS) {
      const items = await mapLimited(from.slice(i, i + DOMAIN_READS), DOMAIN_READS, (name) =>
        this.get(keys.domain(name)),
      );
      for (const item of items)
        if (item !== undefined && item.status === status) shown.push(toDomain(item));
    }
    const last = shown[page.limit - 1];
    return shown.length > page.limit && last !== undefined
      ? { items: shown.slice(0, page.limit), next: last.name }
      : { items: shown };
  }

  private async listDomainsIndexed(
    status: RegistrationStatus,
    page: PageRequest,
  ): Promise<Page<DomainRecord>> {
    const { gsi1pk } = keys.domainList(status);
    const startKey = (after: string) => ({ gsi1pk, gsi1sk: after, ...keys.domain(after) });
    const input: QueryCommandInput = {
      TableName: this.table.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': gsi1pk },
    };
    return queryPage(this.table, input, page, startKey, toDomain, (d) => d.name);
  }

  async setDomainStatus(
    name: string,
    to: RegistrationStatus,
    now: number,
  ): Promise<StatusChangeOutcome> {
    const outcome = await this.changeStatus(
      keys.domain(name),
      to,
      keys.domainList(to).gsi1pk,
      undefined,
    );
    if (outcome === 'changed' && to === 'DEPRECATED') await this.deprecateTypesOf(name, now);
    return outcome;
  }

  async updateDomainTags(
    name: string,
    change: { readonly upsert: readonly ResourceTag[]; readonly removeKeys: readonly string[] },
    maxTags: number,
  ): Promise<TagOutcome> {
    // Read-modify-write guarded by a version: tags merge by key, which no update expression can do.
    for (let attempt = 0; attempt < MAX_TAG_RETRIES; attempt++) {
      const item = await this.get(keys.domain(name));
      if (item === undefined) return 'missing';
      const merged = mergeTags(toDomain(item).tags, change);
      if (merged.length > maxTags) return 'too-many';
      const version = typeof item.tagVersion === 'number' ? item.tagVersion : 0;
      try {
        await this.table.doc.update({
          TableName: this.table.tableName,
          Key: keys.domain(name),
          UpdateExpression: 'SET tags = :tags, tagVersion = :next',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(tagVersion) OR tagVersion = :v)',
          ExpressionAttributeValues: { ':tags': merged, ':next': version + 1, ':v': version },
        });
        return 'tagged';
      } catch (error) {
        // Another tag change won, or a transaction in flight holds the domain's item (a type's
        // registration or deletion counting it): DynamoDB refuses the update at once with
        // TransactionConflictException. Either way: read again and merge again.
        if (!isDynamoError(error, 'ConditionalCheckFailedException') && !isLockConflict(error))
          throw error;
      }
      await backoff(Math.min(attempt, 6));
    }
    // Other tag changes of the domain kept winning: as a request over SWF's rate (400, retried by
    // clients after a pause), not a failure.
    throw new ThrottlingException(
      `The tags of domain ${name} kept changing through ${MAX_TAG_RETRIES} attempts; try again`,
    );
  }

  async createType(type: TypeRecord, maxTypes: number): Promise<CreateOutcome> {
    // A type registered already is refused without the transaction, which counts a new type in its
    // domain's item and so contends with every other registration in the domain: a fleet of workers
    // registering its types as each starts would meet conflicts, and some throttling. (A type's item
    // lives in its domain's partition: the domain is there too, and a domain is never deleted.)
    if ((await this.get(keys.type(type.kind, type.domain, type.name, type.version))) !== undefined)
      return 'exists';
    const counter = typeCounter(type.kind);
    const outcome = await transactWrite(this.table.doc, [
      {
        Put: {
          TableName: this.table.tableName,
          Item: typeItem(type),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Update: {
          TableName: this.table.tableName,
          Key: keys.domain(type.domain),
          UpdateExpression: 'SET #count = if_not_exists(#count, :zero) + :one',
          ConditionExpression:
            'attribute_exists(pk) AND #status = :registered AND (attribute_not_exists(#count) OR #count < :max)',
          ExpressionAttributeNames: { '#count': counter, '#status': 'status' },
          ExpressionAttributeValues: {
            ':zero': 0,
            ':one': 1,
            ':max': maxTypes,
            ':registered': 'REGISTERED',
          },
        },
      },
      {
        // Its own item, not a member of one set of the name's versions: a name registered in a new
        // version by every deploy would take that item past DynamoDB's 400 KB, and every later
        // registration of the name would fail.
        Put: {
          TableName: this.table.tableName,
          Item: {
            ...keys.typeVersion(type.kind, type.domain, type.name, type.version),
            entity: 'TypeVersion',
            version: type.version,
          },
        },
      },
    ]);
    if (outcome.ok) return 'created';
    const domain = await this.get(keys.domain(type.domain));
    if (domain === undefined) return 'domain-missing';
    if (outcome.failed.includes(0)) return 'exists';
    return domain.status === 'DEPRECATED' ? 'domain-deprecated' : 'limit-exceeded';
  }

  /**
   * Every version of a type name registered since versions were recorded at registration (deleted
   * ones too: one item each, and the one set an earlier release kept them in), and those registered
   * or deprecated now (types registered before then): the name's types are read from the domain's
   * own partition, consistently, whatever their status.
   */
  async typeVersions(kind: TypeKind, domain: string, name: string): Promise<readonly string[]> {
    const recorded = await this.get(keys.typeVersions(kind, domain, name));
    const versions = new Set<string>(
      recorded?.versions instanceof Set ? [...recorded.versions].map(String) : [],
    );
    const pages = queryPages(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': keys.domain(domain).pk,
        ':prefix': keys.typeVersionPrefix(kind, name),
      },
      ProjectionExpression: 'version',
      ConsistentRead: true,
    });
    for await (const page of pages)
      for (const item of page.Items ?? [])
        if (typeof item.version === 'string') versions.add(item.version);
    for await (const types of this.typesIn(domain, keys.type(kind, domain, name, '').sk))
      for (const type of types) versions.add(type.version);
    return [...versions].sort();
  }

  /**
   * The types in a domain whose sort key starts with `prefix` (a kind, or a kind and name), a page at
   * a time, read from the domain's own partition with consistent reads; only REGISTERED ones if asked.
   */
  private async *typesIn(
    domain: string,
    prefix: string,
    onlyRegistered = false,
  ): AsyncGenerator<TypeRecord[]> {
    const pages = queryPages(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ...(onlyRegistered
        ? {
            FilterExpression: '#status = :registered',
            ExpressionAttributeNames: { '#status': 'status' },
          }
        : {}),
      ExpressionAttributeValues: {
        ':pk': keys.domain(domain).pk,
        ':prefix': prefix,
        ...(onlyRegistered ? { ':registered': 'REGISTERED' } : {}),
      },
      ConsistentRead: true,
    });
    for await (const page of pages) yield (page.Items ?? []).map(toType);
  }

  async getType(id: TypeId): Promise<TypeRecord | undefined> {
    const item = await this.get(keys.type(id.kind, id.domain, id.name, id.version));
    return item === undefined ? undefined : toType(item);
  }

  async listTypes(
    kind: TypeKind,
    domain: string,
    status: RegistrationStatus,
    name: string | undefined,
    page: PageRequest,
  ): Promise<Page<TypeRecord>> {
    // Read from the domain's own partition, consistently (an index lags its table on DynamoDB: a
    // type registered a moment ago would be missing), passing over types of the other status. A page
    // token is the last type's name and version, as it was when this read an index of types by status.
    const prefix = keys.typePrefix(kind) + (name === undefined ? '' : keys.typeNamePrefix(name));
    const startKey = (after: string) => {
      const [typeName = '', version = ''] = after.split(SEPARATOR);
      return { ...keys.type(kind, domain, typeName, version) };
    };
    const input: QueryCommandInput = {
      TableName: this.table.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      FilterExpression: '#status = :status',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':pk': keys.domain(domain).pk,
        ':prefix': prefix,
        ':status': status,
      },
      ConsistentRead: true,
    };
    return queryPage(this.table, input, page, startKey, toType, (t) =>
      keys.typeSortValue(t.name, t.version),
    );
  }

  async setTypeStatus(
    id: TypeId,
    to: RegistrationStatus,
    now: number,
  ): Promise<StatusChangeOutcome> {
    const key = keys.type(id.kind, id.domain, id.name, id.version);
    const gsi1pk = keys.typeList(id.kind, id.domain, to).gsi1pk;
    return this.changeStatus(key, to, gsi1pk, to === 'DEPRECATED' ? now : undefined);
  }

  async deleteType(id: TypeId): Promise<DeleteOutcome> {
    const key = keys.type(id.kind, id.domain, id.name, id.version);
    const outcome = await transactWrite(this.table.doc, [
      {
        Delete: {
          TableName: this.table.tableName,
          Key: key,
          ConditionExpression: 'attribute_exists(pk) AND #status = :deprecated',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':deprecated': 'DEPRECATED' },
        },
      },
      {
        Update: {
          TableName: this.table.tableName,
          Key: keys.domain(id.domain),
          UpdateExpression: 'ADD #count :minusOne',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#count': typeCounter(id.kind) },
          ExpressionAttributeValues: { ':minusOne': -1 },
        },
      },
    ]);
    if (outcome.ok) return 'deleted';
    const item = await this.get(key);
    return item === undefined ? 'missing' : 'not-deprecated';
  }

  private async get(key: { pk: string; sk: string }): Promise<Record<string, unknown> | undefined> {
    const result = await this.table.doc.get({
      TableName: this.table.tableName,
      Key: key,
      ConsistentRead: true,
    });
    return result.Item;
  }

  /**
   * Sets `status` (and the listing key) unless it already has that value. `deprecationDate` is set when
   * given and removed otherwise: an undeprecated type has none.
   */
  private async changeStatus(
    key: { pk: string; sk: string },
    to: RegistrationStatus,
    gsi1pk: string,
    deprecationDate: number | undefined,
  ): Promise<StatusChangeOutcome> {
    const dateClause =
      deprecationDate === undefined ? ' REMOVE deprecationDate' : ', deprecationDate = :date';
    // Tells this request's own landed update from a status that was so already (or another
    // request's change), when a retry fails its condition.
    const mark = randomBytes(6).toString('base64url');
    for (let attempt = 0; attempt < MAX_STATUS_ATTEMPTS; attempt++) {
      try {
        await this.table.doc.update({
          TableName: this.table.tableName,
          Key: key,
          UpdateExpression: `SET #status = :to, gsi1pk = :gsi1pk, #mark = :mark${dateClause}`,
          ConditionExpression: 'attribute_exists(pk) AND #status <> :to',
          ExpressionAttributeNames: { '#status': 'status', '#mark': STATUS_MARK },
          ExpressionAttributeValues: {
            ':to': to,
            ':gsi1pk': gsi1pk,
            ':mark': mark,
            ...(deprecationDate === undefined ? {} : { ':date': deprecationDate }),
          },
        });
        return 'changed';
      } catch (error) {
        if (isDynamoError(error, 'ConditionalCheckFailedException')) {
          const item = await this.get(key);
          if (item === undefined) return 'missing';
          // The client's retry of an update whose first try landed (its answer lost: a 500, a
          // timeout) fails its condition on what that try wrote: the change is this request's. A
          // retry whose first try did not land (throttled) meets a status set before, or by
          // another request: not this one's (its mark is not there).
          return error.attempts > 1 && item.status === to && item[STATUS_MARK] === mark
            ? 'changed'
            : 'already';
        }
        // A transaction in flight holds the item (a type's registration or deletion counting it in
        // its domain's item): DynamoDB refuses the update at once with TransactionConflictException
        // (DynamoDB Local waits for the lock instead). Tried again once it has passed.
        if (!isLockConflict(error)) throw error;
        await backoff(Math.min(attempt, 6));
      }
    }
    throw new ThrottlingException(
      `The record ${key.pk} ${key.sk} kept being changed by other requests through ${MAX_STATUS_ATTEMPTS} attempts; try again`,
    );
  }

  /**
   * Deprecating a domain deprecates its types. The types are read from the domain's own
   * partition with consistent reads, so a type registered just before the domain flipped is not missed;
   * none can be registered after, since registration is conditional on the domain being REGISTERED.
   */
  private async deprecateTypesOf(domain: string, now: number): Promise<void> {
    for (const kind of ['workflow', 'activity'] as const) {
      for await (const types of this.typesIn(domain, keys.typePrefix(kind), true)) {
        await mapLimited(types, DEPRECATE_CONCURRENCY, (t) =>
          this.setTypeStatus(t, 'DEPRECATED', now),
        );
      }
    }
  }

  /** Ensures the table's signing-key item exists (first writer wins) and returns it. */
  async signingKey(generate: () => Buffer): Promise<Buffer> {
    const existing = await this.get(keys.signingKey());
    if (existing !== undefined && typeof existing.key === 'string')
      return Buffer.from(existing.key, 'base64');
    try {
      await this.table.doc.put({
        TableName: this.table.tableName,
        Item: { ...keys.signingKey(), entity: 'SigningKey', key: generate().toString('base64') },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
    } catch (error) {
      if (!isDynamoError(error, 'ConditionalCheckFailedException')) throw error;
    }
    const stored = await this.get(keys.signingKey());
    if (stored === undefined || typeof stored.key !== 'string')
      throw new Error('signing key missing');
    return Buffer.from(stored.key, 'base64');
  }
}
