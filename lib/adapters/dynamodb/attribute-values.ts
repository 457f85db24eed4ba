/**
 * JavaScript values ⇄ DynamoDB attribute values in the JSON the DynamoDB API speaks: strings → S,
 * numbers and bigints → N, booleans → BOOL, null → NULL, bytes → B (base64), arrays → L, plain objects
 * → M (undefined members and list elements left out), Sets of strings, numbers or bytes → SS, NS, BS. Going back, B and BS
 * come out as Buffers, N as a number (a bigint when an integer is past 2^53).
 */

export type AttributeValue =
  | { readonly S: string }
  | { readonly N: string }
  | { readonly B: string }
  | { readonly BOOL: boolean }
  | { readonly NULL: true }
  | { readonly L: readonly AttributeValue[] }
  | { readonly M: WireItem }
  | { readonly SS: readonly string[] }
  | { readonly NS: readonly string[] }
  | { readonly BS: readonly string[] };

export type WireItem = { readonly [name: string]: AttributeValue };

/** A value DynamoDB cannot store (NaN, an empty set, a class instance): the caller's mistake, said. */
export class AttributeValueError extends TypeError {
  override readonly name = 'AttributeValueError';
}

/** An item or map (`path` names it in errors when it is nested). */
export function toWireItem(item: Readonly<Record<string, unknown>>, path?: string): WireItem {
  const out: Record<string, AttributeValue> = {};
  for (const name of Object.keys(item)) {
    const value = item[name];
    if (value !== undefined)
      out[name] = toAttributeValue(value, path === undefined ? name : `${path}.${name}`);
  }
  return out;
}

export function fromWireItem(item: WireItem): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(item))
    out[name] = fromAttributeValue(item[name] as AttributeValue);
  return out;
}

export function toAttributeValue(value: unknown, path = 'value'): AttributeValue {
  switch (typeof value) {
    case 'string':
      return { S: value };
    case 'number':
    case 'bigint':
      return { N: numberText(value, path) };
    case 'boolean':
      return { BOOL: value };
    case 'object': {
      if (value === null) return { NULL: true };
      if (value instanceof Uint8Array) return { B: base64(value) };
      if (Array.isArray(value))
        return {
          L: value.flatMap((member, i) =>
            member === undefined ? [] : [toAttributeValue(member, `${path}[${i}]`)],
          ),
        };
      if (value instanceof Set) return setValue(value, path);
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null)
        throw new AttributeValueError(
          `${path}: a ${prototype?.constructor?.name} cannot be stored`,
        );
      return { M: toWireItem(value as Record<string, unknown>, path) };
    }
    default:
      throw new AttributeValueError(`${path}: a ${typeof value} cannot be stored`);
  }
}

export function fromAttributeValue(value: AttributeValue): unknown {
  if ('S' in value) return value.S;
  if ('N' in value) return numberValue(value.N);
  if ('BOOL' in value) return value.BOOL;
  if ('NULL' in value) return null;
  if ('M' in value) return fromWireItem(value.M);
  if ('L' in value) return value.L.map(fromAttributeValue);
  if ('B' in value) return Buffer.from(value.B, 'base64');
  if ('SS' in value) return new Set(value.SS);
  if ('NS' in value) return new Set(value.NS.map(numberValue));
  if ('BS' in value) return new Set(value.BS.map((b) => Buffer.from(b, 'base64')));
  throw new AttributeValueError(`unknown attribute value type: ${Object.keys(value).join(', ')}`);
}

function numberText(value: number | bigint, path: string): string {
  if (typeof value === 'bigint') return value.toString();
  if (!Number.isFinite(value)) throw new AttributeValueError(`${path}: ${value} cannot be stored`);
  if (Number.isInteger(value) && !Number.isSafeInteger(value))
    throw new AttributeValueError(
      `${path}: ${value} is past 2^53 and would lose digits; use a bigint`,
    );
  return String(value);
}

function numberValue(text: string): number | bigint {
  const value = Number(text);
  return Number.isInteger(value) && !Number.isSafeInteger(value) && /^-?\d+$/.test(text)
    ? BigInt(text)
    : value;
}

function setValue(set: ReadonlySet<unknown>, path: string): AttributeValue {
  const members = [...set];
  if (members.length === 0) throw new AttributeValueError(`${path}: an empty set cannot be stored`);
  if (members.every((m) => typeof m === 'string')) return { SS: members };
  if (members.every((m) => typeof m === 'number' || typeof m === 'bigint'))
    return { NS: members.map((m) => numberText(m, path)) };
  if (members.every((m) => m instanceof Uint8Array)) return { BS: members.map(base64) };
  throw new AttributeValueError(`${path}: a set's members must be all strings, numbers or bytes`);
}

const base64 = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
