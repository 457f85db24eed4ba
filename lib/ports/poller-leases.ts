import type { TaskKind } from '../core/task-queue.js';

/**
 * A space of poller slots: one task list's (SWF's 1,000 pollers) or the whole service's (its cap on
 * polls waiting at once, below the API function's reserved concurrency).
 */
export type LeaseSpace =
  | {
      readonly scope: 'list';
      readonly kind: TaskKind;
      readonly domain: string;
      readonly taskList: string;
    }
  | { readonly scope: 'service' };

/** Who holds a slot, and until when (epoch ms): past it, the slot is free again. */
export interface SlotLease {
  readonly holder: string;
  readonly until: number;
}

/**
 * Leases of long polls waiting in processes of their own (Lambda containers), so that limits on
 * waiting polls hold across any number of them. A poll takes a slot of its space before it waits and
 * frees it when it ends; a lease runs out a little after its poll's deadline, so a killed container's
 * slot comes back by itself.
 */
export interface PollerLeaseStore {
  /**
   * Takes slot `slot` of `space` for `lease` in one conditional write: true if it was free, its lease
   * had ended by `now` (epoch ms), or `lease.holder` held it; false if another holder's lease is live.
   */
  takeSlot(space: LeaseSpace, slot: number, lease: SlotLease, now: number): Promise<boolean>;
  /** Frees a slot if `holder` still holds it (a slot taken over after its lease ended is left alone). */
  freeSlot(space: LeaseSpace, slot: number, holder: string): Promise<void>;
  /** The slots of `space` whose leases are live at `now`, read strongly (one query). */
  liveSlots(space: LeaseSpace, now: number): Promise<number[]>;
  /**
   * Whether a holder other than `read.except` has a live lease in `space` at `now`, in one cheap
   * read: it may answer true where it cannot tell (a space crowded with ended leases). Read
   * strongly, it never answers false where a lease taken before it is live; else it may miss one
   * taken in the last second.
   */
  othersWaiting(
    space: LeaseSpace,
    now: number,
    read: { readonly strong: boolean; readonly except?: string },
  ): Promise<boolean>;
}
