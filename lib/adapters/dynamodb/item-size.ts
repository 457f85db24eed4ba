/**
 * DynamoDB item sizes, by the rules AWS publishes for capacity and the 400 KB limit
 * ("Item sizes and formats", DynamoDB Developer Guide): an item is the sum of its attribute names'
 * UTF-8 lengths and their values' sizes.
 *
 * - String: its UTF-8 bytes. Binary: its raw bytes.
 * - Number: one byte per two significant digits, plus one byte (leading/trailing zeros trimmed).
 * - Null and Boolean: one byte.
 * - List and Map: three bytes of overhead, plus one byte per element, plus the elements.
 * - Sets: the sum of their elements.
 *
 * Values are in the wire (AttributeValue) form: `{ S: 'x' }`, `{ N: '12' }`, `{ M: {...} }` …
 */
export type AttributeValueLike = Readonly<Record<string, unknown>>;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** Bytes a DynamoDB Number takes: ceil(significant digits / 2) + 1. */
export function numberSize(text: string): number {
  const mantissa = (text.trim().replace(/^[+-]/, '').split(/e/i)[0] ?? '').replace('.', '');
  const significant = mantissa.replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(significant.length, 1) / 2) + 1;
}

function binarySize(value: unknown): number {
  if (value instanceof Uint8Array) return value.byteLength;
  // The JSON wire form carries binaries as base64 text.
  if (typeof value === 'string') return Buffer.from(value, 'base64').byteLength;
  return 0;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Size of one attribute value (without its name). */
export function attributeValueSize(value: AttributeValueLike): number {
  if (typeof value.S === 'string') return utf8(value.S);
  if (typeof value.N === 'string') return numberSize(value.N);
  if (value.B !== undefined) return binarySize(value.B);
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (Array.isArray(value.SS))
    return value.SS.reduce((n: number, s: unknown) => n + utf8(String(s)), 0);
  if (Array.isArray(value.NS))
    return value.NS.reduce((n: number, s: unknown) => n + numberSize(String(s)), 0);
  if (Array.isArray(value.BS))
    return value.BS.reduce((n: number, b: unknown) => n + binarySize(b), 0);
  if (Array.isArray(value.L))
    return value.L.reduce(
      (n: number, element: unknown) =>
        n + 1 + (isRecord(element) ? attributeValueSize(element) : 0),
      3,
    );
  if (isRecord(value.M))
    return Object.entries(value.M).reduce(
      (n, [name, element]) =>
        n + 1 + utf8(name) + (isRecord(element) ? attributeValueSize(element) : 0),
      3,
    );
  return 0;
}

/** Size of an item in AttributeValue form: names plus values. */
export function itemSize(item: Readonly<Record<string, unknown>>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    size += utf8(name) + (isRecord(value) ? attributeValueSize(value) : 0);
  }
  return size;
}

/** True when every attribute of `item` is an AttributeValue (one known type tag), i.e. wire form. */
export function isWireItem(item: Readonly<Record<string, unknown>>): boolean {
  return Object.values(item).every(
    (value) =>
      isRecord(value) &&
      Object.keys(value).length === 1 &&
      WIRE_TAGS.has(Object.keys(value)[0] ?? ''),
  );
}

const WIRE_TAGS = new Set(['S', 'N', 'B', 'BOOL', 'NULL', 'SS', 'NS', 'BS', 'L', 'M']);
