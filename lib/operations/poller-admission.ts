import { randomInt, randomUUID } from 'node:crypto';
import { LimitExceededFault, ThrottlingException } from '../core/faults.js';
import type { TaskKind } from '../core/task-queue.js';
import type { LeaseSpace, PollerLeaseStore } from '../ports/poller-leases.js';
import { isTransientFailure } from '../ports/transient-failure.js';
import type { OperationDeps } from './context.js';

/** SWF's quota on pollers of one task list. */
export const MAX_POLLERS = 1000;
/** Random slots a poll tries before it reads which are free: a crowded space, or an unlucky poll. */
const RANDOM_TRIES = 3;
/** Free slots a poll tries after each read of a crowded space's live ones. */
const FREE_TRIES = 8;
/** Reads of a crowded space's live slots before a poll that lost every race is turned away. */
const COUNTED_ROUNDS = 10;
/**
 * How long a lease outlives its poll's deadline: the most the clocks of two containers may disagree,
 * and the time a poll takes to answer. A killed container's slot is free this long after its deadline.
 */
export const LEASE_MARGIN_MS = 5_000;
/** The most a poll's answer waits for its slots to be freed (a delete takes milliseconds). */
const RELEASE_WAIT_MS = 250;

/** Where polls that wait in processes of their own (Lambda containers) take their slots. */
export interface PollerLeasing {
  readonly store: PollerLeaseStore;
  /**
   * The most polls that wait at once across the service: below the API function's reserved
   * concurrency, so that waiting polls never take the concurrency other calls need. Unset: no cap.
   */
  readonly maxWaitingPolls?: number;
}

/** Frees what a poll's admission took, when the poll ends. */
export type AdmissionRelease = () => Promise<void>;

/**
 * Admits a poll on its list before it waits, until `deadline` (epoch ms): a slot of the list's 1,000
 * (else LimitExceededFault, as SWF) and, under a service cap, one of the service's (else a
 * ThrottlingException, which clients retry after a pause). Without leases (the local server, whose
 * one process holds every poll) the process's own count of waiting polls decides.
 */
export async function admitPoll(
  deps: OperationDeps,
  list: { kind: TaskKind; domain: string; taskList: string },
  deadline: number,
  holder: string = randomUUID(),
): Promise<AdmissionRelease> {
  const leasing = deps.pollerLeasing;
  if (leasing === undefined) {
    if (deps.notifier.waiting(list.kind, list.domain, list.taskList) >= MAX_POLLERS)
      throw listFull(list.taskList);
    return async () => {};
  }
  const lease = { holder, until: deadline + LEASE_MARGIN_MS };
  const listSpace: LeaseSpace = { scope: 'list', ...list };
  const held: { space: LeaseSpace; slot: number }[] = [];
  const release = () => freeAll(leasing.store, held, lease.holder);
  const listSlot = await takeAnySlot(deps, leasing.store, listSpace, MAX_POLLERS, lease);
  if (listSlot === 'full') throw listFull(list.taskList);
  if (listSlot !== undefined) held.push({ space: listSpace, slot: listSlot });
  if (leasing.maxWaitingPolls !== undefined) {
    const space: LeaseSpace = { scope: 'service' };
    const slot = await takeAnySlot(deps, leasing.store, space, leasing.maxWaitingPolls, lease);
    if (slot === 'full') {
      await release();
      throw new ThrottlingException(
        `The service has ${leasing.maxWaitingPolls} polls waiting, its most; try again later`,
      );
    }
    if (slot !== undefined) held.push({ space, slot });
  }
  return release;
}

/** A poll's place among the waiting: taken when it is about to wait, freed when it ends. */
export interface PollAdmission {
  /**
   * Takes the poll's slots (once; later calls wait for the first). True when this call took them:
   * the poll has just become one that commits see waiting (see pollsWaitOn).
   */
  readonly admit: () => Promise<boolean>;
  readonly release: AdmissionRelease;
  /** Whether another poll waits on the list: a wake sent for a task queued now may be its. */
  readonly othersWaiting: () => Promise<boolean>;
}

/**
 * The admission of a poll that will take its slots only if it waits: a poll that finds its task at
 * its first look never waited (SWF's quota, and the service's cap, count waiting polls), and spares
 * its slots' four writes, which in a busy fleet would be most polls' only writes. Without leases the
 * process's own count decides at once, as it costs nothing.
 */
export async function pollAdmission(
  deps: OperationDeps,
  list: { kind: TaskKind; domain: string; taskList: string },
  deadline: number,
): Promise<PollAdmission> {
  const leasing = deps.pollerLeasing;
  if (leasing === undefined) {
    const release = await admitPoll(deps, list, deadline);
    // Without leases nobody can tell who waits: every wake is sent, and may have gone to another.
    return { admit: async () => false, release, othersWaiting: async () => true };
  }
  const holder = randomUUID();
  let taken: Promise<AdmissionRelease> | undefined;
  return {
    admit: async () => {
      const first = taken === undefined;
      taken ??= admitPoll(deps, list, deadline, holder);
      await taken;
      return first;
    },
    release: async () => {
      const release = await taken?.catch(() => undefined);
      await release?.();
    },
    // A guess is enough here: a poll that wrongly takes a young task only races its wake's poll.
    othersWaiting: () => othersWaitOn(deps, leasing.store, list, { strong: false, except: holder }),
  };
}

/**
 * Whether a poll may wait on the list, for a commit that queued a task on it: only then is a wake
 * worth sending. A poll takes its lease before its last look at the queue, and a commit asks after
 * it landed, so a poll that missed the task is seen. Without leases, or the store failing in any
 * way: yes.
 */
export function pollsWaitOn(
  deps: OperationDeps,
  list: { kind: TaskKind; domain: string; taskList: string },
): Promise<boolean> {
  const leasing = deps.pollerLeasing;
  if (leasing === undefined) return Promise.resolve(true);
  return othersWaitOn(deps, leasing.store, list, { strong: true });
}

async function othersWaitOn(
  deps: OperationDeps,
  store: PollerLeaseStore,
  list: { kind: TaskKind; domain: string; taskList: string },
  read: { strong: boolean; except?: string },
): Promise<boolean> {
  try {
    return await store.othersWaiting({ scope: 'list', ...list }, deps.clock.now(), read);
  } catch (error) {
    // Never a fault: a commit has landed by then, and a poll must answer. A wake too many is cheap.
    warn('could not tell whether polls wait: taken as yes', error);
    return true;
  }
}

const listFull = (taskList: string) =>
  new LimitExceededFault(`More than ${MAX_POLLERS} pollers are waiting on task list ${taskList}`);

/**
 * A free slot of `space` taken for `lease`: a random one (one write, while the space is far from
 * full), else one of those a strong read finds free; 'full' when every slot is held. A store that
 * fails for a moment admits the poll without a slot (undefined): a limit held loosely for a moment
 * beats polls turned away, or answered at once and sent back in a loop.
 */
async function takeAnySlot(
  deps: OperationDeps,
  store: PollerLeaseStore,
  space: LeaseSpace,
  size: number,
  lease: { holder: string; until: number },
): Promise<number | 'full' | undefined> {
  try {
    const now = () => deps.clock.now();
    for (let tries = 0; tries < Math.min(RANDOM_TRIES, size); tries++) {
      const slot = randomInt(size);
      if (await store.takeSlot(space, slot, lease, now())) return slot;
    }
    for (let round = 0; round < COUNTED_ROUNDS; round++) {
      const live = new Set(await store.liveSlots(space, now()));
      const free = Array.from({ length: size }, (_, slot) => slot).filter((s) => !live.has(s));
      if (free.length === 0) return 'full';
      // Different free slots, in random order: polls arriving together spread over them.
      for (let tries = 0; tries < Math.min(FREE_TRIES, free.length); tries++) {
        const pick = tries + randomInt(free.length - tries);
        const slot = free[pick] as number;
        free[pick] = free[tries] as number;
        if (await store.takeSlot(space, slot, lease, now())) return slot;
      }
    }
    // Every free slot it read went to another poll first, round after round: as good as full.
    return 'full';
  } catch (error) {
    if (!isTransientFailure(error)) throw error;
    warn('poll admitted without a lease: the lease store failed', error);
    return undefined;
  }
}

/**
 * Frees a poll's slots, waiting at most RELEASE_WAIT_MS: the poll's answer must not wait on a slow
 * store past its deadline. A slot left held (the store slow or failing) frees itself as its lease ends.
 */
async function freeAll(
  store: PollerLeaseStore,
  held: readonly { space: LeaseSpace; slot: number }[],
  holder: string,
): Promise<void> {
  if (held.length === 0) return;
  const freed = Promise.all(
    held.map(({ space, slot }) =>
      store.freeSlot(space, slot, holder).catch((error: unknown) => {
        warn('poll lease left to expire: the lease store failed', error);
      }),
    ),
  );
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, RELEASE_WAIT_MS);
  });
  await Promise.race([freed, late]);
  clearTimeout(timer);
}

export function warn(message: string, error: unknown): void {
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  console.warn(JSON.stringify({ level: 'warn', message, reason }));
}
