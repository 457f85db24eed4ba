/**
 * The registry cache answers reads that allow an age from what it read within it, never keeps a
 * record it did not find, and forgets everything on a change made through it.
 */
import { describe, expect, it } from 'vitest';
import { RegistryCache } from '../../../lib/adapters/in-process/registry-cache.js';
import type { DomainRecord, TypeRecord } from '../../../lib/core/registry.js';
import type { RegistryStore } from '../../../lib/ports/registry-store.js';

const domain = (status: 'REGISTERED' | 'DEPRECATED'): DomainRecord => ({
  name: 'd',
  status,
  retentionPeriodInDays: '1',
  tags: [],
  creationDate: 0,
});
const typeId = { kind: 'activity' as const, domain: 'd', name: 'a', version: '1' };

/** A store whose answers the test sets, counting reads; a change can be held open. */
function fakeStore() {
  const state = {
    domain: domain('REGISTERED') as DomainRecord | undefined,
    type: undefined as TypeRecord | undefined,
    reads: 0,
    release: undefined as (() => void) | undefined,
  };
  const store = {
    getDomain: async () => {
      state.reads++;
      return state.domain;
    },
    getType: async () => {
      state.reads++;
      return state.type;
    },
    setDomainStatus: async () => {
      await new Promise<void>((resolve) => {
        state.release = resolve;
      });
      state.domain = domain('DEPRECATED');
      return 'changed' as const;
    },
  };
  return { state, store: store as unknown as RegistryStore };
}

describe('RegistryCache', () => {
  it('answers a read allowing an age from a record read within it, and reads again after', async () => {
    let now = 1_000;
    const { state, store } = fakeStore();
    const cache = new RegistryCache(store, () => now);
    const recent = { maxAgeMs: 10_000 };
    expect((await cache.getDomain('d', recent))?.status).toBe('REGISTERED');
    now += 10_000;
    await cache.getDomain('d', recent);
    expect(state.reads).toBe(1);
    // elsewhere, the domain is deprecated: seen once the age allowed has passed
    state.domain = domain('DEPRECATED');
    expect((await cache.getDomain('d', recent))?.status).toBe('REGISTERED');
    now += 1;
    expect((await cache.getDomain('d', recent))?.status).toBe('DEPRECATED');
    expect(state.reads).toBe(2);
  });

  it('reads again after its clock is stepped back (an age it cannot know)', async () => {
    let now = 1_000_000;
    const { state, store } = fakeStore();
    const cache = new RegistryCache(store, () => now);
    const recent = { maxAgeMs: 10_000 };
    await cache.getDomain('d', recent);
    // NTP steps the host back a minute; elsewhere the domain is deprecated meanwhile
    now -= 60_000;
    state.domain = domain('DEPRECATED');
    expect((await cache.getDomain('d', recent))?.status).toBe('DEPRECATED');
    expect(state.reads).toBe(2);
  });

  it('always reads when no age is allowed (the registry actions)', async () => {
    const { state, store } = fakeStore();
    const cache = new RegistryCache(store, () => 0);
    await cache.getDomain('d', { maxAgeMs: 10_000 });
    await cache.getDomain('d');
    await cache.getDomain('d');
    expect(state.reads).toBe(3);
  });

  it('never keeps a record it did not find', async () => {
    const { state, store } = fakeStore();
    const cache = new RegistryCache(store, () => 0);
    const recent = { maxAgeMs: 10_000 };
    expect(await cache.getType(typeId, recent)).toBeUndefined();
    state.type = { ...typeId, status: 'REGISTERED', creationDate: 0, configuration: {} };
    expect((await cache.getType(typeId, recent))?.status).toBe('REGISTERED');
    expect(state.reads).toBe(2);
  });

  it('forgets what it read when a change goes through it, even a read the change overlapped', async () => {
    const { state, store } = fakeStore();
    const cache = new RegistryCache(store, () => 0);
    const recent = { maxAgeMs: 10_000 };
    await cache.getDomain('d', recent);
    const change = cache.setDomainStatus('d', 'DEPRECATED', 0);
    // A read while the change is under way gets the old record, and must not keep it.
    expect((await cache.getDomain('d', recent))?.status).toBe('REGISTERED');
    state.release?.();
    await change;
    expect((await cache.getDomain('d', recent))?.status).toBe('DEPRECATED');
    expect(state.reads).toBe(3);
  });
});
