/**
 * What every PollerLeaseStore does, run against the DynamoDB adapter
 * (test/integration/poller-leases.test.ts) and the in-memory fake (test/unit/fakes/poller-leases.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { LeaseSpace, PollerLeaseStore } from '../../../lib/ports/poller-leases.js';

const list: LeaseSpace = { scope: 'list', kind: 'activity', domain: 'd', taskList: 'tl' };
const otherKind: LeaseSpace = { scope: 'list', kind: 'decision', domain: 'd', taskList: 'tl' };
const otherList: LeaseSpace = { scope: 'list', kind: 'activity', domain: 'd', taskList: 'other' };
const service: LeaseSpace = { scope: 'service' };
const NOW = 1_000_000;
const strong = { strong: true };

export function pollerLeasesContract(newStore: () => Promise<PollerLeaseStore>): void {
  describe('poller slots', () => {
    it('gives a free slot to one holder at a time, until its lease ends', async () => {
      const store = await newStore();
      expect(await store.takeSlot(list, 7, { holder: 'a', until: NOW + 100 }, NOW)).toBe(true);
      expect(await store.takeSlot(list, 7, { holder: 'b', until: NOW + 100 }, NOW)).toBe(false);
      expect(await store.takeSlot(list, 7, { holder: 'b', until: NOW + 200 }, NOW + 99)).toBe(
        false,
      );
      // At the lease's end the slot is free: a killed holder's slot comes back by itself.
      expect(await store.takeSlot(list, 7, { holder: 'b', until: NOW + 300 }, NOW + 100)).toBe(
        true,
      );
      expect(await store.liveSlots(list, NOW + 150)).toEqual([7]);
    });

    it('lets the holder renew its own slot', async () => {
      const store = await newStore();
      await store.takeSlot(list, 3, { holder: 'a', until: NOW + 100 }, NOW);
      expect(await store.takeSlot(list, 3, { holder: 'a', until: NOW + 500 }, NOW + 50)).toBe(true);
      expect(await store.liveSlots(list, NOW + 400)).toEqual([3]);
    });

    it('counts only live slots, and each space apart', async () => {
      const store = await newStore();
      await store.takeSlot(list, 1, { holder: 'a', until: NOW + 100 }, NOW);
      await store.takeSlot(list, 2, { holder: 'b', until: NOW + 300 }, NOW);
      await store.takeSlot(otherKind, 1, { holder: 'c', until: NOW + 300 }, NOW);
      await store.takeSlot(service, 999, { holder: 'a', until: NOW + 300 }, NOW);
      expect((await store.liveSlots(list, NOW)).sort()).toEqual([1, 2]);
      expect(await store.liveSlots(list, NOW + 100)).toEqual([2]);
      expect(await store.liveSlots(otherKind, NOW + 100)).toEqual([1]);
      expect(await store.liveSlots(service, NOW)).toEqual([999]);
      expect(await store.liveSlots(otherList, NOW)).toEqual([]);
    });

    it('frees a slot only for its holder', async () => {
      const store = await newStore();
      await store.takeSlot(list, 5, { holder: 'a', until: NOW + 100 }, NOW);
      await store.freeSlot(list, 5, 'b');
      expect(await store.liveSlots(list, NOW)).toEqual([5]);
      await store.freeSlot(list, 5, 'a');
      expect(await store.liveSlots(list, NOW)).toEqual([]);
      expect(await store.takeSlot(list, 5, { holder: 'b', until: NOW + 100 }, NOW)).toBe(true);
      // Freeing a slot nobody holds, or twice, is no error.
      await store.freeSlot(list, 6, 'a');
      await store.freeSlot(list, 5, 'a');
      expect(await store.liveSlots(list, NOW)).toEqual([5]);
    });

    it('tells whether a holder other than the one asking waits in a space', async () => {
      const store = await newStore();
      expect(await store.othersWaiting(list, NOW, strong)).toBe(false);
      await store.takeSlot(list, 4, { holder: 'a', until: NOW + 100 }, NOW);
      await store.takeSlot(otherList, 4, { holder: 'b', until: NOW + 300 }, NOW);
      expect(await store.othersWaiting(list, NOW, strong)).toBe(true);
      expect(await store.othersWaiting(list, NOW, { strong: true, except: 'b' })).toBe(true);
      // Its own lease is no other poll's; an ended lease is nobody's; each space apart.
      expect(await store.othersWaiting(list, NOW, { strong: true, except: 'a' })).toBe(false);
      expect(await store.othersWaiting(list, NOW + 100, strong)).toBe(false);
      expect(await store.othersWaiting(otherKind, NOW, strong)).toBe(false);
      await store.takeSlot(list, 9, { holder: 'c', until: NOW + 300 }, NOW);
      expect(await store.othersWaiting(list, NOW + 100, { strong: true, except: 'a' })).toBe(true);
      await store.freeSlot(list, 9, 'c');
      expect(await store.othersWaiting(list, NOW + 100, { strong: true, except: 'a' })).toBe(false);
    });

    it('lists a full space of 1,000 slots', async () => {
      const store = await newStore();
      const slots = Array.from({ length: 1_000 }, (_, slot) => slot);
      for (let i = 0; i < slots.length; i += 50)
        await Promise.all(
          slots
            .slice(i, i + 50)
            .map((slot) =>
              store.takeSlot(list, slot, { holder: `h${slot}`, until: NOW + 100 }, NOW),
            ),
        );
      expect((await store.liveSlots(list, NOW)).sort((a, b) => a - b)).toEqual(slots);
    }, 60_000);
  });
}
