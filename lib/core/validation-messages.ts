import { ValidationException } from './faults.js';
import { cutText } from './limits.js';

/** One failed constraint, worded as Coral words it: `Value 'x' at 'path' failed to satisfy constraint: ...`. */
export interface ConstraintViolation {
  readonly path: string;
  readonly value: unknown;
  readonly constraint: string;
}

const MAX_SHOWN = 200;

/** Renders a value the way Coral's messages show it (Java toString style), shortened when long. */
export function showValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  const text = render(value);
  const shown = text.length > MAX_SHOWN ? `${cutText(text, MAX_SHOWN)}...` : text;
  return `'${shown}'`;
}

function render(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(render).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).map(([k, v]) => `${k}=${render(v)}`);
    return `{${entries.join(', ')}}`;
  }
  return String(value);
}

export function describeViolation(v: ConstraintViolation): string {
  return `Value ${showValue(v.value)} at '${v.path}' failed to satisfy constraint: ${v.constraint}`;
}

export function validationMessage(violations: readonly ConstraintViolation[]): string {
  const count = violations.length;
  const head =
    count === 1 ? '1 validation error detected: ' : `${count} validation errors detected: `;
  return head + violations.map(describeViolation).join('; ');
}

export function validationFault(violations: readonly ConstraintViolation[]): ValidationException {
  return new ValidationException(validationMessage(violations));
}

/** Throws a ValidationException for one member, in the same wording the model checks use. */
export function rejectMember(path: string, value: unknown, constraint: string): never {
  throw validationFault([{ path, value, constraint }]);
}
