import { itemSize } from '../../lib/adapters/dynamodb/item-size.js';
import { queryReadUnits, ReadMode, readModeOf, readUnits, writeUnits } from './capacity.js';

/** The key attributes of a table and its global secondary indexes (projection ALL assumed). */
export interface TableKeys {
  readonly partitionKey: string;
  readonly sortKey?: string;
  readonly globalIndexes?: readonly {
    readonly indexName: string;
    readonly partitionKey: string;
    readonly sortKey?: string;
  }[];
}

/** What one request was charged. `estimated` when the rules needed a size the meter could not see. */
export interface RequestCharge {
  readonly operation: string;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly estimated: boolean;
  /** What the store reported (ReturnConsumedCapacity), when it did. */
  readonly reported: number | undefined;
}

export interface OperationTotals {
  requests: number;
  readUnits: number;
  writeUnits: number;
  /** Items written (stream records emitted) by successful writes. */
  itemWrites: number;
  /** Bytes of the items a successful PutItem wrote or a GetItem found (by the size rules). */
  itemBytes: number;
  /** Items counted in itemBytes. */
  sizedItems: number;
  estimated: number;
  failed: number;
  /** Requests the store reported a capacity for, and the units it reported vs what the meter charged. */
  reportedRequests: number;
  reportedUnits: number;
  meteredUnitsOfReported: number;
}

export interface MeterTotals {
  readonly byOperation: Readonly<Record<string, OperationTotals>>;
  readonly requests: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly itemWrites: number;
}

type Wire = Readonly<Record<string, unknown>>;

interface Shadow {
  readonly size: number;
  /** Per index, the item's index key (undefined when it is not in the index). */
  readonly indexKeys: readonly (string | undefined)[];
  /** What kind of item it is (its `entity` attribute, else its partition key's prefix). */
  readonly kind: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const records = (value: unknown): Wire[] => (Array.isArray(value) ? value.filter(isRecord) : []);

/**
 * Counts DynamoDB requests and charges them read and write request units by AWS's published rules.
 * Pure bookkeeping: fed the wire-form input and output of each request, it keeps the last size it saw
 * of every item (a write is charged on the larger of the old and new item; a delete on the old one)
 * and each item's GSI keys (a write that puts, moves or removes an index entry costs index writes).
 */
export class DynamoMeter {
  private readonly shadows = new Map<string, Shadow>();
  private totals: Record<string, OperationTotals> = {};
  private writesByKind: Record<string, { items: number; writeUnits: number }> = {};

  constructor(private readonly keys: TableKeys) {}

  /** Counts a request without charging it: for runs measured for their rate, not their cost. */
  count(operation: string): void {
    const t = this.totals[operation] ?? emptyTotals();
    this.totals[operation] = t;
    t.requests += 1;
  }

  /** Charges one request. `output` is undefined when it failed (a failed conditional write still costs). */
  record(operation: string, input: Wire, output: Wire | undefined): RequestCharge {
    const charge = this.charge(operation, input, output);
    const t = this.totals[operation] ?? emptyTotals();
    this.totals[operation] = t;
    t.requests += 1;
    t.readUnits += charge.readUnits;
    t.writeUnits += charge.writeUnits;
    t.itemWrites += output === undefined ? 0 : charge.itemWrites;
    for (const item of output === undefined ? [] : sizedItems(operation, input, output)) {
      t.itemBytes += itemSize(item);
      t.sizedItems += 1;
    }
    if (charge.estimated) t.estimated += 1;
    if (output === undefined) t.failed += 1;
    const reported = output === undefined ? undefined : reportedUnits(output.ConsumedCapacity);
    if (reported !== undefined) {
      t.reportedRequests += 1;
      t.reportedUnits += reported;
      t.meteredUnitsOfReported += charge.readUnits + charge.writeUnits;
    }
    return {
      operation,
      readUnits: charge.readUnits,
      writeUnits: charge.writeUnits,
      estimated: charge.estimated,
      reported,
    };
  }

  snapshot(): MeterTotals {
    const byOperation: Record<string, OperationTotals> = {};
    for (const [op, t] of Object.entries(this.totals)) byOperation[op] = { ...t };
    const all = Object.values(byOperation);
    const sum = (f: (t: OperationTotals) => number) => all.reduce((n, t) => n + f(t), 0);
    return {
      byOperation,
      requests: sum((t) => t.requests),
      readUnits: sum((t) => t.readUnits),
      writeUnits: sum((t) => t.writeUnits),
      itemWrites: sum((t) => t.itemWrites),
    };
  }

  /** Starts counting afresh (item sizes seen so far are kept: they are still what is stored). */
  reset(): void {
    this.totals = {};
    this.writesByKind = {};
  }

  /** Write units by kind of item written: where the write bill comes from. */
  writeUnitsByKind(): Readonly<Record<string, { items: number; writeUnits: number }>> {
    return structuredClone(this.writesByKind);
  }

  private charge(
    operation: string,
    input: Wire,
    output: Wire | undefined,
  ): { readUnits: number; writeUnits: number; itemWrites: number; estimated: boolean } {
    const table = String(input.TableName ?? '');
    const commit = output !== undefined;
    switch (operation) {
      case 'PutItem':
        return this.write(table, 'put', input.Item, undefined, false, commit);
      case 'DeleteItem':
        return this.write(table, 'delete', input.Key, undefined, false, commit);
      case 'UpdateItem':
        return this.write(table, 'update', input.Key, input, false, commit, output?.Attributes);
      case 'GetItem':
        return this.read([this.seenSize(table, output?.Item)], readModeOf(input.ConsistentRead));
      case 'Query':
      case 'Scan':
        return this.page(table, input, output);
      case 'TransactWriteItems':
        return this.transactWrite(input, commit);
      case 'TransactGetItems':
        return this.transactGet(input, output);
      case 'BatchGetItem':
        return this.batchGet(input, output);
      case 'BatchWriteItem':
        return this.batchWrite(input, commit);
      default:
        // Control-plane calls (CreateTable, DescribeTable …) are not charged request units.
        return { readUnits: 0, writeUnits: 0, itemWrites: 0, estimated: false };
    }
  }

  private read(sizes: readonly number[], mode: ReadMode) {
    return {
      readUnits: queryReadUnits(sizes, mode),
      writeUnits: 0,
      itemWrites: 0,
      estimated: false,
    };
  }

  private page(table: string, input: Wire, output: Wire | undefined) {
    const onIndex = typeof input.IndexName === 'string';
    const mode = onIndex ? ReadMode.eventual : readModeOf(input.ConsistentRead);
    const items = records(output?.Items);
    // Select COUNT returns no items: the meter cannot see their sizes and charges what it can prove.
    const counted = input.Select === 'COUNT' && Number(output?.Count ?? 0) > 0;
    const sizes = items.map((item) => this.seenSize(table, item));
    return { ...this.read(sizes, mode), estimated: counted };
  }

  /** The size of an item read: what came back, or more if an earlier full read or write saw more. */
  private seenSize(table: string, item: unknown): number {
    if (!isRecord(item)) return 0;
    const shown = itemSize(item);
    const key = this.keyOf(table, item);
    const known = key === undefined ? undefined : this.shadows.get(key)?.size;
    return Math.max(shown, known ?? 0);
  }

  private write(
    table: string,
    kind: 'put' | 'delete' | 'update',
    itemOrKey: unknown,
    update: Wire | undefined,
    transactional: boolean,
    commit: boolean,
    returned?: unknown,
  ): { readUnits: number; writeUnits: number; itemWrites: number; estimated: boolean } {
    if (!isRecord(itemOrKey))
      return {
        readUnits: 0,
        writeUnits: writeUnits(0, transactional),
        itemWrites: 0,
        estimated: true,
      };
    const key = this.keyOf(table, itemOrKey);
    const old = key === undefined ? undefined : this.shadows.get(key);
    let next: Shadow | undefined;
    let estimated = false;
    if (kind === 'put')
      next = {
        size: itemSize(itemOrKey),
        indexKeys: this.indexKeysOf(itemOrKey),
        kind: kindOf(itemOrKey),
      };
    if (kind === 'update') {
      if (isRecord(returned) && update?.ReturnValues === 'ALL_NEW') {
        next = {
          size: itemSize(returned),
          indexKeys: this.indexKeysOf(returned),
          kind: kindOf(returned),
        };
      } else {
        // Without the new image: the old item grown by every value the update carries (an upper bound).
        const values = isRecord(update?.ExpressionAttributeValues)
          ? update.ExpressionAttributeValues
          : {};
        const added = itemSize(values);
        next = {
          size: (old?.size ?? itemSize(itemOrKey)) + added,
          indexKeys: old?.indexKeys ?? [],
          kind: old?.kind ?? kindOf(itemOrKey),
        };
        estimated = true;
      }
    }
    const oldSize = old?.size ?? 0;
    const newSize = next?.size ?? 0;
    let units = writeUnits(Math.max(oldSize, newSize), transactional);
    // Index entries cost writes too; inside a transaction they are doubled as well (as DynamoDB Local
    // reports: a 1.5 KB transactional put that lands in one GSI is 4 + 4 WRU).
    (this.keys.globalIndexes ?? []).forEach((_, i) => {
      const before = old?.indexKeys[i];
      const after = next?.indexKeys[i];
      if (before !== undefined && after !== undefined) {
        units +=
          before === after
            ? writeUnits(Math.max(oldSize, newSize), transactional)
            : writeUnits(oldSize, transactional) + writeUnits(newSize, transactional);
      } else if (before !== undefined) units += writeUnits(oldSize, transactional);
      else if (after !== undefined) units += writeUnits(newSize, transactional);
    });
    const itemKind = next?.kind ?? old?.kind ?? kindOf(itemOrKey);
    const byKind = this.writesByKind[itemKind] ?? { items: 0, writeUnits: 0 };
    byKind.items += 1;
    byKind.writeUnits += units;
    this.writesByKind[itemKind] = byKind;
    if (commit && key !== undefined) {
      if (next === undefined) this.shadows.delete(key);
      else this.shadows.set(key, next);
    }
    return { readUnits: 0, writeUnits: units, itemWrites: 1, estimated };
  }

  private transactWrite(input: Wire, commit: boolean) {
    const sum = { readUnits: 0, writeUnits: 0, itemWrites: 0, estimated: false };
    // Cancelled transactions are charged in full; their writes do not land.
    for (const item of records(input.TransactItems)) {
      const part = this.transactPart(item, commit);
      sum.writeUnits += part.writeUnits;
      sum.itemWrites += part.itemWrites;
      sum.estimated ||= part.estimated;
    }
    return sum;
  }

  private transactPart(item: Wire, commit: boolean) {
    if (isRecord(item.Put))
      return this.write(
        String(item.Put.TableName ?? ''),
        'put',
        item.Put.Item,
        undefined,
        true,
        commit,
      );
    if (isRecord(item.Delete))
      return this.write(
        String(item.Delete.TableName ?? ''),
        'delete',
        item.Delete.Key,
        undefined,
        true,
        commit,
      );
    if (isRecord(item.Update))
      return this.write(
        String(item.Update.TableName ?? ''),
        'update',
        item.Update.Key,
        item.Update,
        true,
        commit,
      );
    if (isRecord(item.ConditionCheck)) {
      // Every item of a TransactWriteItems is prepared and committed: a check is charged as a write.
      const table = String(item.ConditionCheck.TableName ?? '');
      const key = this.keyOf(
        table,
        isRecord(item.ConditionCheck.Key) ? item.ConditionCheck.Key : {},
      );
      const size = key === undefined ? 0 : (this.shadows.get(key)?.size ?? 0);
      return { readUnits: 0, writeUnits: writeUnits(size, true), itemWrites: 0, estimated: false };
    }
    return { readUnits: 0, writeUnits: 0, itemWrites: 0, estimated: true };
  }

  private transactGet(input: Wire, output: Wire | undefined) {
    let units = 0;
    const responses = records(output?.Responses);
    records(input.TransactItems).forEach((item, i) => {
      const table = isRecord(item.Get) ? String(item.Get.TableName ?? '') : '';
      units += readUnits(this.seenSize(table, responses[i]?.Item), ReadMode.transactional);
    });
    return { readUnits: units, writeUnits: 0, itemWrites: 0, estimated: false };
  }

  private batchGet(input: Wire, output: Wire | undefined) {
    let units = 0;
    const requested = isRecord(input.RequestItems) ? input.RequestItems : {};
    const responses = isRecord(output?.Responses) ? output.Responses : {};
    for (const [table, request] of Object.entries(requested)) {
      const mode = readModeOf(isRecord(request) ? request.ConsistentRead : undefined);
      for (const item of records(responses[table]))
        units += readUnits(this.seenSize(table, item), mode);
    }
    return { readUnits: units, writeUnits: 0, itemWrites: 0, estimated: false };
  }

  private batchWrite(input: Wire, commit: boolean) {
    const sum = { readUnits: 0, writeUnits: 0, itemWrites: 0, estimated: false };
    const requested = isRecord(input.RequestItems) ? input.RequestItems : {};
    for (const [table, requests] of Object.entries(requested)) {
      for (const request of records(requests)) {
        const put = isRecord(request.PutRequest) ? request.PutRequest.Item : undefined;
        const del = isRecord(request.DeleteRequest) ? request.DeleteRequest.Key : undefined;
        const part =
          put !== undefined
            ? this.write(table, 'put', put, undefined, false, commit)
            : this.write(table, 'delete', del, undefined, false, commit);
        sum.writeUnits += part.writeUnits;
        sum.itemWrites += part.itemWrites;
      }
    }
    return sum;
  }

  private keyOf(table: string, item: Wire): string | undefined {
    const pk = scalar(item[this.keys.partitionKey]);
    if (pk === undefined) return undefined;
    const sk = this.keys.sortKey === undefined ? '' : scalar(item[this.keys.sortKey]);
    return sk === undefined ? undefined : `${table}\u0000${pk}\u0000${sk}`;
  }

  private indexKeysOf(item: Wire): (string | undefined)[] {
    return (this.keys.globalIndexes ?? []).map((index) => {
      const pk = scalar(item[index.partitionKey]);
      const sk = index.sortKey === undefined ? '' : scalar(item[index.sortKey]);
      return pk === undefined || sk === undefined ? undefined : `${pk}\u0000${sk}`;
    });
  }
}

/** An item's kind: its `entity` attribute, else its partition key up to the first `|` or `#`. */
function kindOf(item: Wire): string {
  const entity = isRecord(item.entity) ? item.entity.S : undefined;
  if (typeof entity === 'string') return entity;
  const pk = isRecord(item.pk) ? item.pk.S : undefined;
  return typeof pk === 'string' ? (pk.split(/[|#]/)[0] ?? pk) : 'unknown';
}

/** A key attribute's value as text (`S`, `N` or base64 `B`). */
function scalar(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  if (typeof value.S === 'string') return `S${value.S}`;
  if (typeof value.N === 'string') return `N${value.N}`;
  if (value.B instanceof Uint8Array) return `B${Buffer.from(value.B).toString('base64')}`;
  if (typeof value.B === 'string') return `B${value.B}`;
  return undefined;
}

/** Total CapacityUnits of a ConsumedCapacity (one object, or one per table for transactions). */
function reportedUnits(consumed: unknown): number | undefined {
  const list = Array.isArray(consumed) ? consumed : consumed === undefined ? [] : [consumed];
  const units = list
    .filter(isRecord)
    .map((c) => c.CapacityUnits)
    .filter((u): u is number => typeof u === 'number');
  return units.length === 0 ? undefined : units.reduce((a, b) => a + b, 0);
}

const emptyTotals = (): OperationTotals => ({
  requests: 0,
  readUnits: 0,
  writeUnits: 0,
  itemWrites: 0,
  itemBytes: 0,
  sizedItems: 0,
  estimated: 0,
  failed: 0,
  reportedRequests: 0,
  reportedUnits: 0,
  meteredUnitsOfReported: 0,
});

/** The items a request put or got whole, whose sizes the totals sum: puts, gets and batched puts. */
function sizedItems(operation: string, input: Wire, output: Wire): Wire[] {
  if (operation === 'PutItem') return isRecord(input.Item) ? [input.Item] : [];
  if (operation === 'GetItem') return isRecord(output.Item) ? [output.Item] : [];
  if (operation !== 'BatchWriteItem' || !isRecord(input.RequestItems)) return [];
  return Object.values(input.RequestItems).flatMap((writes) =>
    Array.isArray(writes)
      ? writes.flatMap((w) =>
          isRecord(w) && isRecord(w.PutRequest) && isRecord(w.PutRequest.Item)
            ? [w.PutRequest.Item]
            : [],
        )
      : [],
  );
}
