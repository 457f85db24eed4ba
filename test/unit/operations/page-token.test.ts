import { describe, expect, it } from 'vitest';
import { ValidationException } from '../../../lib/core/faults.js';
import { PAGE_TOKEN_LIFETIME_SECONDS, PageTokens } from '../../../lib/operations/page-token.js';

const key = Buffer.alloc(32, 7);
const scope = { action: 'ListDomains', args: { registrationStatus: 'REGISTERED' } };

function tokensAt(now: { t: number }) {
  return new PageTokens({ signingKey: async () => key }, () => now.t);
}

describe('PageTokens', () => {
  it('round-trips a cursor for the same action and arguments', async () => {
    const tokens = tokensAt({ t: 1000 });
    const token = await tokens.encode(scope, 'domain-42');
    await expect(tokens.decode(scope, token)).resolves.toBe('domain-42');
    expect(token.length).toBeLessThanOrEqual(2048);
  });

  it('refuses an altered token', async () => {
    const tokens = tokensAt({ t: 1000 });
    const token = await tokens.encode(scope, 'a');
    const [payload = '', mac = ''] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ c: 'z', s: 'x', e: 9e9 })).toString('base64url');
    await expect(tokens.decode(scope, `${forged}.${mac}`)).rejects.toThrow(ValidationException);
    await expect(tokens.decode(scope, `${payload}.${mac.slice(1)}x`)).rejects.toThrow(
      ValidationException,
    );
    await expect(tokens.decode(scope, 'garbage')).rejects.toThrow(ValidationException);
  });

  it('refuses a token signed with another key', async () => {
    const other = new PageTokens({ signingKey: async () => Buffer.alloc(32, 8) }, () => 1000);
    const token = await other.encode(scope, 'a');
    await expect(tokensAt({ t: 1000 }).decode(scope, token)).rejects.toThrow(
      'Invalid nextPageToken',
    );
  });

  it('refuses a token issued for another action or other arguments', async () => {
    const tokens = tokensAt({ t: 1000 });
    const token = await tokens.encode(scope, 'a');
    await expect(tokens.decode({ ...scope, action: 'ListWorkflowTypes' }, token)).rejects.toThrow(
      ValidationException,
    );
    await expect(
      tokens.decode({ ...scope, args: { registrationStatus: 'DEPRECATED' } }, token),
    ).rejects.toThrow('different request');
  });

  it('expires after 24 hours with the documented message', async () => {
    const now = { t: 1000 };
    const tokens = tokensAt(now);
    const token = await tokens.encode(scope, 'a');
    now.t += PAGE_TOKEN_LIFETIME_SECONDS - 1;
    await expect(tokens.decode(scope, token)).resolves.toBe('a');
    now.t += 2;
    await expect(tokens.decode(scope, token)).rejects.toThrow(
      'Specified token has exceeded its maximum lifetime',
    );
  });
});
