import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * How the execution store keeps its JSON documents (a run's state, a history chunk): small ones as
 * text, larger ones deflated into a binary attribute. DynamoDB bills writes per started KB, doubled in
 * a transaction, and a run's state is rewritten by every change of the run: deflate shrinks its JSON
 * (field names repeat, ids share prefixes) by two thirds or more.
 *
 * Readers accept both forms, so items written before packing existed still read, and so do stream
 * images, whose binary values arrive as bytes from the Streams API and as base64 in Lambda events.
 */
const PACK_FROM_CHARS = 400;

export function packJson(value: unknown): string | Uint8Array {
  const text = JSON.stringify(value);
  return text.length < PACK_FROM_CHARS ? text : deflateRawSync(text);
}

/** The document `packJson` stored: a string (JSON text), bytes, or base64 of the bytes. */
export function unpackJson<T>(stored: string | Uint8Array, base64 = false): T {
  if (typeof stored === 'string' && !base64) return JSON.parse(stored) as T;
  const bytes = typeof stored === 'string' ? Buffer.from(stored, 'base64') : stored;
  return JSON.parse(inflateRawSync(bytes).toString('utf8')) as T;
}

/** The packed document of a raw attribute value (a stream image's), if it holds one. */
export function unpackAttribute<T>(value: { S?: string; B?: Uint8Array | string } | undefined) {
  if (value?.S !== undefined) return unpackJson<T>(value.S);
  if (value?.B !== undefined) return unpackJson<T>(value.B, typeof value.B === 'string');
  return undefined;
}

/** Whether an item's attribute holds a document `packJson` stored (this code wrote the table). */
export const isPacked = (value: unknown): value is string | Uint8Array =>
  typeof value === 'string' || value instanceof Uint8Array;
