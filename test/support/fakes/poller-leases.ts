/**
 * The poller slots in memory: the PollerLeaseStore port as the DynamoDB adapter keeps it, checked
 * against the same contract suite (test/support/store-contract/poller-leases.ts).
 */
import type { LeaseSpace, PollerLeaseStore, SlotLease } from '../../../lib/ports/poller-leases.js';

const spaceKey = (space: LeaseSpace) =>
  space.scope === 'service' ? 'service' : `${space.kind}|${space.domain}|${space.taskList}`;

export class InMemoryPollerLeases implements PollerLeaseStore {
  /** Slots held, by space. */
  readonly spaces = new Map<string, Map<number, SlotLease>>();

  async takeSlot(space: LeaseSpace, slot: number, lease: SlotLease, now: number): Promise<boolean> {
    const slots = this.#slots(space);
    const held = slots.get(slot);
    if (held !== undefined && held.until > now && held.holder !== lease.holder) return false;
    slots.set(slot, { ...lease });
    return true;
  }

  async freeSlot(space: LeaseSpace, slot: number, holder: string): Promise<void> {
    const slots = this.#slots(space);
    if (slots.get(slot)?.holder === holder) slots.delete(slot);
  }

  async liveSlots(space: LeaseSpace, now: number): Promise<number[]> {
    return [...this.#slots(space)].filter(([, lease]) => lease.until > now).map(([slot]) => slot);
  }

  async othersWaiting(
    space: LeaseSpace,
    now: number,
    read: { readonly except?: string },
  ): Promise<boolean> {
    return [...this.#slots(space).values()].some(
      (lease) => lease.until > now && lease.holder !== read.except,
    );
  }

  #slots(space: LeaseSpace): Map<number, SlotLease> {
    const key = spaceKey(space);
    const slots = this.spaces.get(key) ?? new Map<number, SlotLease>();
    this.spaces.set(key, slots);
    return slots;
  }
}

/** A lease store every call of which fails with `fail`'s error (throttled, or broken). */
export const failingLeases = (fail: () => Promise<never>): PollerLeaseStore => ({
  takeSlot: fail,
  freeSlot: fail,
  liveSlots: fail,
  othersWaiting: fail,
});
