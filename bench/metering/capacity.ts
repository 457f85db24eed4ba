/**
 * Request units by AWS's published rules for on-demand tables (DynamoDB Developer Guide, "Read/write
 * capacity mode"; DynamoDB pricing, "Key terms"):
 *
 * - a write takes one unit per started KB of the item (the larger of the old and new item), at least
 *   one; a transactional write takes two;
 * - a strongly consistent read takes one unit per started 4 KB, at least one; eventually consistent
 *   half of that; transactional twice;
 * - a Query or Scan is charged on the summed size of the items it read (not of what it returned
 *   after projection or filter), rounded up per 4 KB once for the whole page.
 */
export const WRITE_UNIT_BYTES = 1024;
export const READ_UNIT_BYTES = 4096;

export const ReadMode = {
  eventual: 'eventual',
  strong: 'strong',
  transactional: 'transactional',
} as const;
export type ReadMode = (typeof ReadMode)[keyof typeof ReadMode];

const READ_FACTOR: Record<ReadMode, number> = { eventual: 0.5, strong: 1, transactional: 2 };

/** Write request units for one item of `bytes` (the larger of before and after). */
export function writeUnits(bytes: number, transactional = false): number {
  const units = Math.max(1, Math.ceil(bytes / WRITE_UNIT_BYTES));
  return transactional ? units * 2 : units;
}

/** Read request units for reading one item of `bytes` (a missing item still costs the minimum). */
export function readUnits(bytes: number, mode: ReadMode): number {
  return Math.max(1, Math.ceil(bytes / READ_UNIT_BYTES)) * READ_FACTOR[mode];
}

/** Read request units of one Query or Scan page that read items of these sizes. */
export function queryReadUnits(itemBytes: readonly number[], mode: ReadMode): number {
  const total = itemBytes.reduce((sum, bytes) => sum + bytes, 0);
  return readUnits(total, mode);
}

export const readModeOf = (consistentRead: unknown): ReadMode =>
  consistentRead === true ? ReadMode.strong : ReadMode.eventual;
