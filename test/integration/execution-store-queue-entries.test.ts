/**
 * The execution store's queue entries against DynamoDB Local: they exist before the commit that
 * schedules their task, go with the commit that starts it, and none outlives a commit that lost.
 */
import { describe, expect, it } from 'vitest';
import { signalExecution } from '../../lib/core/executions.js';
import { queueChanges } from '../../lib/core/task-queue.js';
import type { LoadedRun, RunWrite } from '../../lib/ports/run-store.js';
import { executionStoreTable, StoredRun } from '../support/stored-run.js';

const { storeWith } = executionStoreTable('exec-store-queue');

describe('queue entries around a commit', () => {
  it('exist once the commit that schedules their task lands, and go with the commit that starts it', async () => {
    const store = storeWith();
    const run = new StoredRun(store, 'queued');
    await run.commit();
    expect(run.driver.state.decisionTask.status).toBe('scheduled');
    const listName = run.driver.state.decisionTaskList.name;
    const queued = await store.peekQueue('decision', run.driver.state.domain, listName, 10);
    expect(queued.map((e) => e.runId)).toContain(run.runId);
    const entry = queued.find((e) => e.runId === run.runId);
    // Starting the task claims the entry: it is removed after the commit.
    const before = run.loaded?.state;
    run.driver.startDecisionTask();
    const events = run.driver.history.slice(-1);
    expect(
      await store.commit(
        [
          {
            state: run.driver.state,
            base: run.loaded as LoadedRun,
            events,
            queue: queueChanges(before, run.driver.state),
            ...(entry === undefined ? {} : { claim: entry }),
          },
        ],
        [],
      ),
    ).toBe('committed');
    const after = await store.peekQueue('decision', run.driver.state.domain, listName, 10);
    expect(after.map((e) => e.runId)).not.toContain(run.runId);
  });

  describe('of a commit that lost to another writer', () => {
    /** A run with nothing queued, and a signal to it at `at` (which schedules a decision task). */
    async function idleRun(name: string) {
      const store = storeWith();
      const run = new StoredRun(store, name);
      await run.commit();
      await run.commit((d) => d.decide([]));
      const base = run.loaded as LoadedRun;
      const signal = (at: number, signalName: string): RunWrite => {
        const t = signalExecution(base.state, { signalName }, at);
        return { state: t.state, base, events: t.events, queue: queueChanges(base.state, t.state) };
      };
      const entries = async () =>
        (
          await store.peekQueue(
            'decision',
            base.state.domain,
            base.state.decisionTaskList.name,
            1000,
          )
        )
          .filter((e) => e.runId === run.runId)
          .map((e) => e.scheduledAt);
      return { store, base, signal, entries };
    }

    it('are taken back: the task they name was scheduled at another moment by the winner', async () => {
      const { store, base, signal, entries } = await idleRun('raced-apart');
      const at = base.state.startTimestamp + 100;
      expect(await store.commit([signal(at, 'first')], [])).toBe('committed');
      expect(await store.commit([signal(at + 5, 'second')], [])).toBe('conflict');
      expect(await entries()).toEqual([at]);
    });

    it("are left when the winner committed the same task (same key): it is the winner's too", async () => {
      const { store, base, signal, entries } = await idleRun('raced-same');
      const at = base.state.startTimestamp + 100;
      expect(await store.commit([signal(at, 'first')], [])).toBe('committed');
      // The loser's entry overwrites the winner's (same key), then its commit fails.
      expect(await store.commit([signal(at, 'second')], [])).toBe('conflict');
      expect(await entries()).toEqual([at]);
    });
  });

  it('leaves none for a run that was not created', async () => {
    const store = storeWith();
    const first = new StoredRun(store, 'open-1');
    const domain = first.driver.state.domain;
    const workflowId = first.driver.state.execution.workflowId;
    const acquire = (runId: string) => ({
      kind: 'acquire' as const,
      domain,
      workflowId,
      runId,
      startedAt: first.driver.state.startTimestamp,
    });
    const list = first.driver.state.decisionTaskList.name;
    const write = (run: StoredRun): RunWrite => ({
      state: run.driver.state,
      events: run.driver.history,
      queue: queueChanges(undefined, run.driver.state),
    });
    expect(await store.commit([write(first)], [acquire(first.runId)])).toBe('committed');
    const second = new StoredRun(store, 'open-2');
    expect(await store.commit([write(second)], [acquire(second.runId)])).toBe('already-open');
    const queued = (await store.peekQueue('decision', domain, list, 100)).map((e) => e.runId);
    expect(queued).toContain(first.runId);
    expect(queued).not.toContain(second.runId);
    expect(await store.loadRun(second.runId)).toBeUndefined();
  });
});
