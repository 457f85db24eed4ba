import type { ExecutionState } from '../../core/execution-state.js';
import { queryPages, type TableRef } from './client.js';
import { keys } from './keys.js';
import { isPacked, unpackJson } from './packed-json.js';
import { outboxRecords } from './table-schema.js';

/**
 * A run's packed state stays in its item up to this many bytes, beside at most MAX_RECENT_BYTES of
 * recent events. A bigger one (a run holding the inputs of many children or Lambda tasks it has not
 * started yet, say) is written apart, in parts of STATE_PART_BYTES, before the commit; the item names
 * them. Such a change costs its state's size in write units, as any write of that much data does.
 */
const STATE_INLINE_BYTES = 256 * 1024;
const STATE_PART_BYTES = 300_000;

/** The state item's attributes naming a state written apart: the attempt that wrote it, its parts. */
export const STATE_APART = outboxRecords.apartAttribute;
export const STATE_PARTS = outboxRecords.partsAttribute;

const parseState = (stored: string | Uint8Array): ExecutionState => unpackJson(stored);

/** A packed state's bytes in parts that each fit in one item. */
function partsOf(packed: Uint8Array): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (let at = 0; at < packed.byteLength; at += STATE_PART_BYTES)
    parts.push(packed.subarray(at, at + STATE_PART_BYTES));
  return parts;
}

/** The packed state's parts when it is too big for the state item, else undefined (kept inline). */
export function apartParts(packedState: string | Uint8Array): Uint8Array[] | undefined {
  return typeof packedState === 'string' || packedState.byteLength <= STATE_INLINE_BYTES
    ? undefined
    : partsOf(packedState);
}

/** The parts of run states too big for their state items: each its own item in the run's partition. */
export class StateParts {
  constructor(private readonly table: TableRef) {}

  /** Writes a state's parts under `ref` (the attempt that writes them), before the item naming them. */
  async put(
    runId: string,
    ref: string,
    parts: readonly Uint8Array[],
    expiresAt: number | undefined,
  ): Promise<void> {
    await Promise.all(
      parts.map((part, index) =>
        this.table.doc.put({
          TableName: this.table.tableName,
          Item: {
            ...keys.statePart(runId, ref, index),
            entity: 'StatePart',
            part,
            ...(expiresAt === undefined ? {} : { expiresAt }),
          },
        }),
      ),
    );
  }

  async read(runId: string, ref: string, count?: number): Promise<ExecutionState> {
    const parts: Uint8Array[] = [];
    const pages = queryPages(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :parts)',
      ExpressionAttributeValues: {
        ':pk': keys.runPartition(runId),
        ':parts': keys.statePartPrefix(ref),
      },
      ConsistentRead: true,
    });
    for await (const page of pages)
      for (const item of page.Items ?? [])
        if (item.part instanceof Uint8Array) parts.push(item.part);
    // Parts are written before the item that names them, and go only with the run's expiry.
    if (parts.length === 0 || (count !== undefined && parts.length !== count))
      throw new Error(
        `run ${runId}: ${parts.length} parts of its state ${ref}, not ${count ?? 'any'}`,
      );
    return unpackJson(Buffer.concat(parts));
  }

  /** The state an item of a run holds, in it or apart. */
  async stateIn(runId: string, item: Record<string, unknown>): Promise<ExecutionState | undefined> {
    if (isPacked(item.state)) return parseState(item.state);
    const ref = item[STATE_APART];
    if (typeof ref !== 'string') return undefined;
    const count = item[STATE_PARTS];
    return this.read(runId, ref, typeof count === 'number' ? count : undefined);
  }
}
