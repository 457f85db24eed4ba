/**
 * Polls waiting in containers of their own are admitted by leases in the store: SWF's 1,000 pollers
 * a task list and the service's cap on waiting polls hold across any number of them, a killed
 * container's lease runs out by itself, and a store that fails for a moment never turns a poll into
 * a fault.
 */
import { describe, expect, it } from 'vitest';
import { NoTaskNotifier } from '../../../lib/adapters/in-process/task-notifier.js';
import { LimitExceededFault, ThrottlingException } from '../../../lib/core/faults.js';
import type { OperationDeps } from '../../../lib/operations/context.js';
import {
  admitPoll,
  LEASE_MARGIN_MS,
  MAX_POLLERS,
  pollAdmission,
  pollsWaitOn,
} from '../../../lib/operations/poller-admission.js';
import type { PollerLeaseStore } from '../../../lib/ports/poller-leases.js';
import { TransientServiceError } from '../../../lib/ports/transient-failure.js';
import { failingLeases, InMemoryPollerLeases } from '../../support/fakes/poller-leases.js';

const list = { kind: 'activity', domain: 'd', taskList: 'tl' } as const;
const POLL_MS = 20_000;

function depsWith(store: PollerLeaseStore, maxWaitingPolls?: number) {
  const clock = { at: 1_000_000, now: () => clock.at };
  const deps = {
    clock,
    notifier: new NoTaskNotifier(),
    pollerLeasing: maxWaitingPolls === undefined ? { store } : { store, maxWaitingPolls },
  } as unknown as OperationDeps;
  return { deps, clock };
}

/** `count` polls admitted at once, each as a container of its own would: what each got. */
const admitMany = (deps: OperationDeps, count: number, deadline: number) =>
  Promise.allSettled(Array.from({ length: count }, () => admitPoll(deps, list, deadline)));

describe('admitPoll with leases', () => {
  it('turns the 1,001st poller of a list away with LimitExceededFault, as SWF', async () => {
    const store = new InMemoryPollerLeases();
    const { deps, clock } = depsWith(store);
    const answers = await admitMany(deps, MAX_POLLERS + 20, clock.at + POLL_MS);
    const refused = answers.filter((a) => a.status === 'rejected');
    expect(answers.length - refused.length).toBe(MAX_POLLERS);
    expect(refused).toHaveLength(20);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(LimitExceededFault);
      expect((r.reason as LimitExceededFault).toWire()).toEqual({
        __type: 'com.amazonaws.swf.base.model#LimitExceededFault',
        message: 'More than 1000 pollers are waiting on task list tl',
      });
    }
    // Another list, and the same list's decision tasks, have room of their own.
    await admitPoll(deps, { ...list, taskList: 'other' }, clock.at + POLL_MS);
    await admitPoll(deps, { ...list, kind: 'decision' }, clock.at + POLL_MS);
  });

  it('lets the next poller in once one ends', async () => {
    const { deps, clock } = depsWith(new InMemoryPollerLeases());
    const held = await admitMany(deps, MAX_POLLERS, clock.at + POLL_MS);
    await expect(admitPoll(deps, list, clock.at + POLL_MS)).rejects.toThrow(LimitExceededFault);
    const first = held[0];
    if (first?.status !== 'fulfilled') throw new Error('the first poll was not admitted');
    await first.value();
    await admitPoll(deps, list, clock.at + POLL_MS);
  });

  it("frees a killed container's lease shortly after its poll's deadline", async () => {
    const { deps, clock } = depsWith(new InMemoryPollerLeases());
    const deadline = clock.at + POLL_MS;
    // A thousand containers killed while they waited: none freed its slot.
    await admitMany(deps, MAX_POLLERS, deadline);
    clock.at = deadline + LEASE_MARGIN_MS - 1;
    await expect(admitPoll(deps, list, clock.at + POLL_MS)).rejects.toThrow(LimitExceededFault);
    clock.at = deadline + LEASE_MARGIN_MS;
    await admitPoll(deps, list, clock.at + POLL_MS);
  });

  it('holds the service to its cap on waiting polls across lists', async () => {
    const store = new InMemoryPollerLeases();
    const { deps, clock } = depsWith(store, 5);
    const lists = ['a', 'b', 'c', 'd', 'e'].map((taskList) => ({ ...list, taskList }));
    const releases = await Promise.all(lists.map((l) => admitPoll(deps, l, clock.at + POLL_MS)));
    const refusal = admitPoll(deps, { ...list, taskList: 'f' }, clock.at + POLL_MS);
    await expect(refusal).rejects.toThrow(ThrottlingException);
    // The refused poll holds nothing: its list's slot went back.
    expect(await store.liveSlots({ scope: 'list', ...list, taskList: 'f' }, clock.at)).toEqual([]);
    await releases[0]?.();
    await admitPoll(deps, { ...list, taskList: 'f' }, clock.at + POLL_MS);
  });

  it('admits a poll when the lease store is throttled, rather than fail it', async () => {
    const throttled = async () => {
      throw new TransientServiceError(true, new Error('ProvisionedThroughputExceededException'));
    };
    const store = failingLeases(throttled);
    const { deps, clock } = depsWith(store, 5);
    const release = await admitPoll(deps, list, clock.at + POLL_MS);
    await release();
    // Not knowing whether polls wait, a commit wakes them and a poll leaves young tasks.
    expect(await pollsWaitOn(deps, list)).toBe(true);
    const admission = await pollAdmission(deps, list, clock.at + POLL_MS);
    expect(await admission.othersWaiting()).toBe(true);
  });

  it('fails a poll whose lease store fails for no passing reason', async () => {
    const broken = async () => {
      throw new Error('ValidationException: bad key');
    };
    const store = failingLeases(broken);
    const { deps, clock } = depsWith(store);
    await expect(admitPoll(deps, list, clock.at + POLL_MS)).rejects.toThrow('bad key');
  });
});

describe('who waits on a list, as commits and polls see it', () => {
  it('takes a lease only when a poll first waits, and says so once', async () => {
    const store = new InMemoryPollerLeases();
    const { deps, clock } = depsWith(store);
    const admission = await pollAdmission(deps, list, clock.at + POLL_MS);
    expect(await store.liveSlots({ scope: 'list', ...list }, clock.at)).toEqual([]);
    expect(await admission.admit()).toBe(true);
    expect(await admission.admit()).toBe(false);
    expect(await store.liveSlots({ scope: 'list', ...list }, clock.at)).toHaveLength(1);
    await admission.release();
    expect(await store.liveSlots({ scope: 'list', ...list }, clock.at)).toEqual([]);
  });

  it('tells commits whether any poll waits, and a poll whether another does', async () => {
    const { deps, clock } = depsWith(new InMemoryPollerLeases());
    const first = await pollAdmission(deps, list, clock.at + POLL_MS);
    const second = await pollAdmission(deps, list, clock.at + POLL_MS);
    expect(await pollsWaitOn(deps, list)).toBe(false);
    await first.admit();
    expect(await pollsWaitOn(deps, list)).toBe(true);
    expect(await pollsWaitOn(deps, { ...list, taskList: 'other' })).toBe(false);
    // The first poll's own lease is no other poll's.
    expect(await first.othersWaiting()).toBe(false);
    expect(await second.othersWaiting()).toBe(true);
    await first.release();
    expect(await pollsWaitOn(deps, list)).toBe(false);
  });

  it('without leases (one process), has every wake sent and young tasks left', async () => {
    const deps = {
      clock: { now: () => 0 },
      notifier: new NoTaskNotifier(),
    } as unknown as OperationDeps;
    expect(await pollsWaitOn(deps, list)).toBe(true);
    const admission = await pollAdmission(deps, list, POLL_MS);
    expect(await admission.admit()).toBe(false);
    expect(await admission.othersWaiting()).toBe(true);
  });
});
