import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SigningKeySource } from '../ports/secrets.js';

/** A token's MAC: HMAC-SHA256 of its purpose and payload under the current signing key, base64url. */
export async function signToken(
  keys: SigningKeySource,
  purpose: string,
  payload: string,
): Promise<string> {
  return mac((await keys.signingKeys()).current, purpose, payload);
}

/**
 * Whether `given` is the MAC of the payload under the current key or the one before it; keys are read
 * again once when neither matches (a rotation another instance saw first).
 */
export async function verifyToken(
  keys: SigningKeySource,
  purpose: string,
  payload: string,
  given: string,
): Promise<boolean> {
  if (matchesAny(await keys.signingKeys(), purpose, payload, given)) return true;
  if (keys.refresh === undefined) return false;
  return matchesAny(await keys.refresh(), purpose, payload, given);
}

function matchesAny(
  keys: { current: Buffer; previous?: Buffer },
  purpose: string,
  payload: string,
  given: string,
): boolean {
  const candidates = keys.previous === undefined ? [keys.current] : [keys.current, keys.previous];
  const actual = Buffer.from(given);
  return candidates.some((key) => {
    const expected = Buffer.from(mac(key, purpose, payload));
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  });
}

const mac = (key: Buffer, purpose: string, payload: string) =>
  createHmac('sha256', key).update(`${purpose}\n`).update(payload).digest('base64url');
