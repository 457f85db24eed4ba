import { SerializationException } from '../core/faults.js';
import { type ConstraintViolation, validationFault } from '../core/validation-messages.js';
import type { ModelShape } from './model-types.js';
import { shapes } from './swf-model.js';
import { memberRules, shapeRules } from './value-rules.js';

/**
 * Checks a request body against the service model, in two passes as Coral does: first the JSON types
 * (a mismatch is a SerializationException), then every constraint, all reported in one
 * ValidationException. Unknown members are ignored and `null` counts as absent, as on the live service.
 * Returns the body with timestamps turned into epoch seconds and nulls dropped.
 */
export function validateInput(shapeName: string, body: unknown): Record<string, unknown> {
  const value = deserialize(shapeName, body ?? {}, '');
  const violations: ConstraintViolation[] = [];
  checkConstraints(shapeName, value, '', violations);
  if (violations.length > 0) throw validationFault(violations);
  return isRecord(value) ? value : {};
}

function shapeOf(name: string): ModelShape {
  const shape = shapes[name];
  if (shape === undefined) throw new Error(`service model has no shape ${name}`);
  return shape;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const at = (path: string) => (path === '' ? 'the request body' : `'${path}'`);

function typeError(path: string, expected: string, found: unknown): SerializationException {
  const kind = Array.isArray(found)
    ? 'an array'
    : found === null
      ? 'null'
      : typeof found === 'object'
        ? 'an object'
        : `a ${typeof found}`;
  return new SerializationException(`Expected ${expected} at ${at(path)} but found ${kind}`);
}

const join = (path: string, member: string) => (path === '' ? member : `${path}.${member}`);

function deserialize(shapeName: string, value: unknown, path: string): unknown {
  const shape = shapeOf(shapeName);
  switch (shape.type) {
    case 'structure': {
      if (!isRecord(value)) throw typeError(path, 'a JSON object', value);
      const out: Record<string, unknown> = {};
      for (const [member, memberShape] of Object.entries(shape.members)) {
        const v = value[member];
        if (v !== undefined && v !== null)
          out[member] = deserialize(memberShape, v, join(path, member));
      }
      return out;
    }
    case 'list':
      if (!Array.isArray(value)) throw typeError(path, 'a JSON array', value);
      return value.map((item, i) =>
        item === null ? null : deserialize(shape.member, item, `${path}.${i + 1}.member`),
      );
    case 'map': {
      if (!isRecord(value)) throw typeError(path, 'a JSON object', value);
      const entries = Object.entries(value).map(([k, v]) => [
        k,
        deserialize(shape.value, v, join(path, k)),
      ]);
      return Object.fromEntries(entries);
    }
    case 'string':
      if (typeof value !== 'string') throw typeError(path, 'a string', value);
      // Half of a surrogate pair (a \u escape) has no UTF-8 form: stored, it becomes U+FFFD, and two
      // different names become one.
      if (LONE_SURROGATE.test(value)) {
        throw new SerializationException(
          `Expected well-formed Unicode at ${at(path)} but found half of a surrogate pair`,
        );
      }
      return shapeName === 'TaskPriority' ? canonicalInteger(value) : value;
    case 'integer':
    case 'long':
      if (typeof value !== 'number' || !Number.isInteger(value))
        throw typeError(path, 'an integer', value);
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw typeError(path, 'a boolean', value);
      return value;
    case 'timestamp':
      return deserializeTimestamp(value, path);
  }
}

/**
 * Timestamps are epoch seconds, fractional allowed; the SDK may also send them as numeric strings (in
 * decimal: not hex, not padded). A date must be one a clock can show: within ±8.64e12 s of 1970.
 */
function deserializeTimestamp(value: unknown, path: string): number {
  const n = typeof value === 'string' && DECIMAL.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || Math.abs(n) > MAX_EPOCH_SECONDS) {
    throw typeError(path, 'a timestamp in epoch seconds', value);
  }
  return n;
}

/**
 * A task priority as the integer it names ("+007" is 7): SWF reads it as a Java int, so leading zeros
 * and a plus sign carry nothing, and a priority of a million zeros would not fit where it is stored.
 * Anything else is left for the constraint check to refuse.
 */
function canonicalInteger(value: string): string {
  const match = /^([+-]?)0*([0-9]+)$/.exec(value);
  if (match === null) return value;
  const [, sign, digits = '0'] = match;
  return sign === '-' && digits !== '0' ? `-${digits}` : digits;
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const DECIMAL = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;
/** The latest date a JavaScript Date (and Java's) can hold, in seconds. */
const MAX_EPOCH_SECONDS = 8.64e12;

function checkConstraints(
  shapeName: string,
  value: unknown,
  path: string,
  out: ConstraintViolation[],
  memberKey?: string,
): void {
  const shape = shapeOf(shapeName);
  switch (shape.type) {
    case 'structure':
      checkStructure(shapeName, shape, value, path, out);
      return;
    case 'list':
      if (!Array.isArray(value)) return;
      checkLength(value.length, shape, value, path, out);
      value.forEach((item, i) => {
        const itemPath = `${path}.${i + 1}.member`;
        if (item === null)
          out.push({ path: itemPath, value: null, constraint: 'Member must not be null' });
        else checkConstraints(shape.member, item, itemPath, out);
      });
      return;
    case 'string':
      if (typeof value === 'string') checkString(shapeName, shape, value, path, out, memberKey);
      return;
    case 'integer':
    case 'long':
      if (typeof value === 'number') checkRange(shape, value, path, out);
      return;
    default:
      return;
  }
}

function checkStructure(
  shapeName: string,
  shape: Extract<ModelShape, { type: 'structure' }>,
  value: unknown,
  path: string,
  out: ConstraintViolation[],
): void {
  if (!isRecord(value)) return;
  for (const [member, memberShape] of Object.entries(shape.members)) {
    const memberPath = join(path, member);
    const v = value[member];
    if (v === undefined) {
      if (shape.required?.includes(member)) {
        out.push({ path: memberPath, value: null, constraint: 'Member must not be null' });
      }
    } else {
      checkConstraints(memberShape, v, memberPath, out, `${shapeName}.${member}`);
    }
  }
}

function checkString(
  shapeName: string,
  shape: Extract<ModelShape, { type: 'string' }>,
  value: string,
  path: string,
  out: ConstraintViolation[],
  memberKey: string | undefined,
): void {
  const before = out.length;
  if (shape.enum !== undefined && !shape.enum.includes(value)) {
    const constraint = `Member must satisfy enum value set: [${shape.enum.join(', ')}]`;
    out.push({ path, value, constraint });
  }
  checkLength(value.length, shape, value, path, out);
  if (out.length > before) return;
  const rule =
    (memberKey === undefined ? undefined : memberRules[memberKey]) ?? shapeRules[shapeName];
  const constraint = rule?.(value);
  if (constraint !== undefined) out.push({ path, value, constraint });
}

function checkLength(
  length: number,
  shape: { readonly min?: number; readonly max?: number },
  value: unknown,
  path: string,
  out: ConstraintViolation[],
): void {
  if (shape.max !== undefined && length > shape.max) {
    out.push({
      path,
      value,
      constraint: `Member must have length less than or equal to ${shape.max}`,
    });
  }
  if (shape.min !== undefined && length < shape.min) {
    out.push({
      path,
      value,
      constraint: `Member must have length greater than or equal to ${shape.min}`,
    });
  }
}

function checkRange(
  shape: { readonly min?: number; readonly max?: number },
  value: number,
  path: string,
  out: ConstraintViolation[],
): void {
  if (shape.max !== undefined && value > shape.max) {
    out.push({
      path,
      value,
      constraint: `Member must have value less than or equal to ${shape.max}`,
    });
  }
  if (shape.min !== undefined && value < shape.min) {
    out.push({
      path,
      value,
      constraint: `Member must have value greater than or equal to ${shape.min}`,
    });
  }
}
