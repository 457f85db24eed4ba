import { createHash } from 'node:crypto';
import { ValidationException } from '../core/faults.js';
import type { SigningKeySource } from '../ports/secrets.js';
import { signToken, verifyToken } from './token-mac.js';

/** SWF's documented token lifetime. */
export const PAGE_TOKEN_LIFETIME_SECONDS = 24 * 60 * 60;

/** What a page token is bound to: the action and the arguments that must be resent unchanged. */
export interface PageScope {
  readonly action: string;
  readonly args: unknown;
}

interface TokenBody {
  /** Cursor: where the next page starts, as the store understands it. */
  readonly c: string;
  /** Action and argument fingerprint. */
  readonly s: string;
  /** Expiry, epoch seconds. */
  readonly e: number;
}

const fingerprint = (scope: PageScope) =>
  createHash('sha256')
    .update(scope.action)
    .update('\n')
    .update(JSON.stringify(scope.args))
    .digest('base64url')
    .slice(0, 22);

/**
 * Opaque, tamper-proof page tokens: a JSON body and its HMAC, both base64url. A token only opens the
 * listing it came from, with the same arguments, for 24 hours.
 */
export class PageTokens {
  constructor(
    private readonly keys: SigningKeySource,
    private readonly nowSeconds: () => number,
  ) {}

  async encode(scope: PageScope, cursor: string): Promise<string> {
    const body: TokenBody = {
      c: cursor,
      s: fingerprint(scope),
      e: Math.floor(this.nowSeconds()) + PAGE_TOKEN_LIFETIME_SECONDS,
    };
    const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
    return `${payload}.${await signToken(this.keys, 'page-token', payload)}`;
  }

  /** Returns the cursor, or throws the ValidationException the live service gives for a bad token. */
  async decode(scope: PageScope, token: string): Promise<string> {
    const [payload, mac, ...rest] = token.split('.');
    if (payload === undefined || mac === undefined || rest.length > 0) throw invalidToken();
    if (!(await verifyToken(this.keys, 'page-token', payload, mac))) throw invalidToken();
    const body = parseBody(payload);
    if (body.e < this.nowSeconds()) {
      throw new ValidationException('Specified token has exceeded its maximum lifetime');
    }
    if (body.s !== fingerprint(scope)) {
      throw new ValidationException(
        'The nextPageToken was issued for a different request: resend the same arguments with it',
      );
    }
    return body.c;
  }
}

const invalidToken = () =>
  new ValidationException('Invalid nextPageToken: it was altered or not issued by this service');

function parseBody(payload: string): TokenBody {
  try {
    const body: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (
      typeof body === 'object' &&
      body !== null &&
      'c' in body &&
      typeof body.c === 'string' &&
      's' in body &&
      typeof body.s === 'string' &&
      'e' in body &&
      typeof body.e === 'number'
    ) {
      return { c: body.c, s: body.s, e: body.e };
    }
  } catch {
    // fall through: a signed token that does not parse was not made by this code
  }
  throw invalidToken();
}
