import { describe, expect, it } from 'vitest';
import { ValidationException } from '../../../lib/core/faults.js';
import { PAGE_TOKEN_LIFETIME_SECONDS, PageTokens } from '../../../lib/operations/page-token.js';
import { TaskTokens } from '../../../lib/operations/task-token.js';
import type { SigningKeySource, SigningKeys } from '../../../lib/ports/secrets.js';

const key = Buffer.alloc(32, 7);
const scope = { action: 'ListDomains', args: { registrationStatus: 'REGISTERED' } };

function tokensAt(now: { t: number }) {
  return new PageTokens({ signingKeys: async () => ({ current: key }) }, () => now.t);
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
    const other = new PageTokens(
      { signingKeys: async () => ({ current: Buffer.alloc(32, 8) }) },
      () => 1000,
    );
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

describe('signing-key rotation', () => {
  const oldKey = Buffer.alloc(32, 1);
  const newKey = Buffer.alloc(32, 2);
  const newerKey = Buffer.alloc(32, 3);
  const claims = { kind: 'activity' as const, runId: 'r1', scheduledEventId: 5, startedEventId: 6 };
  /** A key source as Secrets Manager's stages give it, rotated by `rotate`. */
  function rotatingSource(first: SigningKeys) {
    let stored = first;
    let refreshes = 0;
    const source: SigningKeySource & { refreshes: () => number } = {
      signingKeys: async () => first,
      refresh: async () => {
        refreshes++;
        return stored;
      },
      refreshes: () => refreshes,
    };
    return { source, rotate: (keys: SigningKeys) => (stored = keys) };
  }

  it('accepts tokens signed with the previous key and signs with the current one', async () => {
    const before = new TaskTokens({ signingKeys: async () => ({ current: oldKey }) });
    const after = new TaskTokens({
      signingKeys: async () => ({ current: newKey, previous: oldKey }),
    });
    const issuedBefore = await before.encode(claims);
    await expect(after.decode(issuedBefore, 'activity')).resolves.toEqual(claims);
    const issuedAfter = await after.encode(claims);
    expect(issuedAfter).not.toBe(issuedBefore);
    await expect(before.decode(issuedAfter, 'activity')).rejects.toThrow('Unknown task token');
    const pages = new PageTokens({ signingKeys: async () => ({ current: oldKey }) }, () => 1000);
    const rotatedPages = new PageTokens(
      { signingKeys: async () => ({ current: newKey, previous: oldKey }) },
      () => 1000,
    );
    await expect(rotatedPages.decode(scope, await pages.encode(scope, 'c'))).resolves.toBe('c');
  });

  it('refuses a token of the key before the previous one', async () => {
    const first = new TaskTokens({ signingKeys: async () => ({ current: oldKey }) });
    const twiceRotated = new TaskTokens({
      signingKeys: async () => ({ current: newerKey, previous: newKey }),
    });
    await expect(twiceRotated.decode(await first.encode(claims), 'activity')).rejects.toThrow(
      'Unknown task token',
    );
  });

  it('reads the keys again when a token matches none it holds (a rotation seen elsewhere)', async () => {
    const { source, rotate } = rotatingSource({ current: oldKey });
    const stale = new TaskTokens(source);
    const fresh = new TaskTokens({
      signingKeys: async () => ({ current: newKey, previous: oldKey }),
    });
    rotate({ current: newKey, previous: oldKey });
    await expect(stale.decode(await fresh.encode(claims), 'activity')).resolves.toEqual(claims);
    expect(source.refreshes()).toBe(1);
    // A token it holds the key of needs no second read.
    await stale.decode(
      await new TaskTokens({ signingKeys: async () => ({ current: oldKey }) }).encode(claims),
      'activity',
    );
    expect(source.refreshes()).toBe(1);
  });
});
