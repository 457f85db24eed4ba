/**
 * A commit that queued tasks wakes polls waiting elsewhere only on the lists where the leases show a
 * poll waiting: where none waits, the next poll finds the task by reading its queue, and the wake's
 * SQS requests are spared. Without leases (one process), or when the leases cannot be read, every
 * wake is sent.
 */
import { describe, expect, it } from 'vitest';
import { NoTaskNotifier } from '../../../lib/adapters/in-process/task-notifier.js';
import type { QueuedTaskRef } from '../../../lib/core/task-queue.js';
import type { OperationDeps } from '../../../lib/operations/context.js';
import { wakeQueued } from '../../../lib/operations/run-mutation.js';
import type { PollerLeaseStore } from '../../../lib/ports/poller-leases.js';
import type { RunWrite } from '../../../lib/ports/run-store.js';
import type { TaskWakes } from '../../../lib/ports/task-wakes.js';
import { TransientServiceError } from '../../../lib/ports/transient-failure.js';
import { failingLeases, InMemoryPollerLeases } from '../../support/fakes/poller-leases.js';

const task = (taskList: string, scheduledEventId: number): QueuedTaskRef => ({
  kind: 'activity',
  domain: 'd',
  runId: 'r',
  taskList,
  taskPriority: '0',
  scheduledAt: 0,
  scheduledEventId,
});

const writeQueuing = (...tasks: QueuedTaskRef[]) =>
  ({ queue: { add: tasks, remove: [] } }) as unknown as RunWrite;

function setup(store: PollerLeaseStore | undefined) {
  const sent: QueuedTaskRef[][] = [];
  const wakes: TaskWakes = {
    listen: async () => ({ next: async () => undefined }),
    wake: async (tasks) => {
      sent.push([...tasks]);
    },
  };
  const deps = {
    clock: { now: () => 1_000 },
    notifier: new NoTaskNotifier(),
    wakes,
    ...(store === undefined ? {} : { pollerLeasing: { store } }),
  } as unknown as OperationDeps;
  return { deps, sent };
}

describe('the wakes of a commit', () => {
  it('go only to the lists where a poll waits', async () => {
    const leases = new InMemoryPollerLeases();
    const space = { scope: 'list', kind: 'activity', domain: 'd', taskList: 'busy' } as const;
    await leases.takeSlot(space, 1, { holder: 'p', until: 60_000 }, 1_000);
    const { deps, sent } = setup(leases);
    const queued = [task('busy', 5), task('quiet', 6), task('busy', 7)];
    await wakeQueued(deps, [writeQueuing(...queued)]);
    expect(sent).toEqual([[task('busy', 5), task('busy', 7)]]);
    // Its poll gone, the list's next tasks wake nobody.
    await leases.freeSlot(space, 1, 'p');
    await wakeQueued(deps, [writeQueuing(task('busy', 8))]);
    expect(sent).toHaveLength(1);
  });

  it('all go where nobody can tell who waits: one process, or leases that cannot be read', async () => {
    const queued = [task('a', 1), task('b', 2)];
    const unleased = setup(undefined);
    await wakeQueued(unleased.deps, [writeQueuing(...queued)]);
    expect(unleased.sent).toEqual([queued]);
    const throttled = async () => {
      throw new TransientServiceError(true, new Error('ThrottlingException'));
    };
    const store = failingLeases(throttled);
    const failing = setup(store);
    await wakeQueued(failing.deps, [writeQueuing(...queued)]);
    expect(failing.sent).toEqual([queued]);
    // Nor does a store that fails for no passing reason fail the commit's request, which has landed.
    const broken = setup(
      failingLeases(async () => {
        throw new Error('AccessDeniedException: not allowed');
      }),
    );
    await wakeQueued(broken.deps, [writeQueuing(...queued)]);
    expect(broken.sent).toEqual([queued]);
  });
});
