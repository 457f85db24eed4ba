/**
 * What the stores of runs, task queues and side items do, run against each implementation: the
 * DynamoDB adapter (test/integration/execution-stores.test.ts) and the in-memory fakes the fast tests
 * use (test/unit/fakes/execution-stores.test.ts). A fake that drifts from the adapter fails here.
 */
import { describe, expect, it } from 'vitest';
import type { HistoryEvent } from '../../../lib/core/history-event.js';
import { queueChanges } from '../../../lib/core/task-queue.js';
import type { DeadLetterStore } from '../../../lib/ports/dead-letter-store.js';
import type { HeartbeatStore } from '../../../lib/ports/heartbeat-store.js';
import type { LambdaTaskClaims } from '../../../lib/ports/lambda-task-claims.js';
import type {
  LoadedRun,
  OpenPointerChange,
  RunStore,
  RunWrite,
} from '../../../lib/ports/run-store.js';
import type { TaskQueueStore } from '../../../lib/ports/task-queue-store.js';
import { RunDriver, recordMarker, scheduleActivity, T0 } from '../core-builders.js';

export interface ExecutionStores {
  readonly runs: RunStore;
  readonly taskQueues: TaskQueueStore;
  readonly heartbeats: HeartbeatStore;
  readonly lambdaTaskClaims: LambdaTaskClaims;
  readonly deadLetters: DeadLetterStore;
}

let runs = 0;
/** A runId and workflowId no other test of the run uses (the DynamoDB suite shares a table). */
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++runs}`;

/** A run driven by the pure core, each step committed as one write. */
class Run {
  readonly driver: RunDriver;
  loaded: LoadedRun | undefined;
  private committed = 0;

  constructor(
    private readonly stores: ExecutionStores,
    options: { workflowId?: string; startAt?: number; domain?: string } = {},
  ) {
    this.driver = new RunDriver(options.startAt === undefined ? {} : { startAt: options.startAt });
    const execution = {
      workflowId: options.workflowId ?? unique('wf'),
      runId: unique('run'),
    };
    this.driver.state = {
      ...this.driver.state,
      domain: options.domain ?? this.driver.state.domain,
      execution,
    };
  }

  get runId() {
    return this.driver.state.execution.runId;
  }

  get pointer(): OpenPointerChange {
    const { domain, execution, startTimestamp } = this.driver.state;
    return {
      kind: 'acquire',
      domain,
      workflowId: execution.workflowId,
      runId: execution.runId,
      startedAt: startTimestamp,
    };
  }

  /** The write of what the driver did since the last commit (`step`), not committed. */
  write(step: (driver: RunDriver) => unknown = () => undefined): RunWrite {
    const before = this.loaded?.state;
    step(this.driver);
    return {
      state: this.driver.state,
      events: this.driver.history.slice(this.committed),
      queue: queueChanges(before, this.driver.state),
      ...(this.loaded === undefined ? {} : { base: this.loaded }),
    };
  }

  /** Commits the write of `step`; the outcome, and the run as loaded after it. */
  async commit(
    step?: (driver: RunDriver) => unknown,
    pointers: readonly OpenPointerChange[] = [],
  ): Promise<string> {
    const outcome = await this.stores.runs.commit([this.write(step)], pointers);
    if (outcome === 'committed') {
      this.committed = this.driver.history.length;
      this.loaded = await this.stores.runs.loadRun(this.runId);
    }
    return outcome;
  }

  /** Starts the run: its state and its workflowId's pointer. */
  start(): Promise<string> {
    return this.commit(undefined, [this.pointer]);
  }
}

async function everyEvent(
  store: RunStore,
  runId: string,
  limit: number,
  reverse: boolean,
): Promise<number[]> {
  const ids: number[] = [];
  for (let after: number | undefined, pages = 0; pages < 1_000; pages++) {
    const page = await store.readHistory(runId, {
      limit,
      reverse,
      ...(after === undefined ? {} : { after }),
    });
    ids.push(...page.events.map((e: HistoryEvent) => e.eventId));
    if (page.next === undefined) return ids;
    after = page.next;
  }
  throw new Error('the history never ended');
}

export function executionStoresContract(newStores: () => Promise<ExecutionStores>): void {
  describe('a commit', () => {
    it("lands a run's state and events, guarded by the version it was loaded at", async () => {
      const stores = await newStores();
      const run = new Run(stores);
      expect(await run.start()).toBe('committed');
      expect(run.loaded?.state).toEqual(run.driver.state);
      const loadedBefore = run.loaded;
      expect(await run.commit((d) => d.signal('first'))).toBe('committed');
      // A writer holding the older version loses, and nothing of its write lands.
      const late = { ...run.write((d) => d.signal('late')), base: loadedBefore as LoadedRun };
      expect(await stores.runs.commit([late], [])).toBe('conflict');
      const stored = await stores.runs.loadRun(run.runId);
      expect(stored?.state.nextEventId).toBe(run.loaded?.state.nextEventId);
      expect(stored?.version).toBe(run.loaded?.version);
      // A run is created once only.
      const { base: _, ...again } = run.write();
      expect(await stores.runs.commit([{ ...again, events: [] }], [])).toBe('conflict');
      expect(await stores.runs.loadRun(unique('missing'))).toBeUndefined();
    });

    it('of several runs lands all of them or none', async () => {
      const stores = await newStores();
      const a = new Run(stores);
      const b = new Run(stores);
      await a.start();
      await b.start();
      const stale = b.loaded;
      await b.commit((d) => d.signal('moved on'));
      const outcome = await stores.runs.commit(
        [
          a.write((d) => d.signal('to a')),
          { ...b.write((d) => d.signal('to b')), base: stale as LoadedRun },
        ],
        [],
      );
      expect(outcome).toBe('conflict');
      expect((await stores.runs.loadRun(a.runId))?.version).toBe(a.loaded?.version);
    });

    it('is gone once past the expiry it gave the state', async () => {
      const stores = await newStores();
      const run = new Run(stores);
      await run.start();
      const write = run.write((d) => d.signal('last'));
      const past = { ...write, expiresAt: { state: Math.floor(Date.now() / 1000) - 10 } };
      expect(await stores.runs.commit([past], [])).toBe('committed');
      expect(await stores.runs.loadRun(run.runId)).toBeUndefined();
    });
  });

  describe("a run's history", () => {
    it('holds every event once, in order, read in pages either way from any event', async () => {
      const stores = await newStores();
      const run = new Run(stores);
      await run.start();
      for (let i = 0; i < 12; i++)
        await run.commit((d) => {
          d.signal(`s${i}`);
          d.decide([recordMarker(`m${i}`), recordMarker(`n${i}`)]);
        });
      const all = run.driver.history.map((e) => e.eventId);
      expect(all.length).toBeGreaterThan(30);
      expect(await everyEvent(stores.runs, run.runId, 1_000, false)).toEqual(all);
      expect(await everyEvent(stores.runs, run.runId, 7, false)).toEqual(all);
      expect(await everyEvent(stores.runs, run.runId, 5, true)).toEqual([...all].reverse());
      const from = await stores.runs.readHistory(run.runId, {
        after: 10,
        limit: 3,
        reverse: false,
      });
      expect(from.events.map((e) => e.eventId)).toEqual([10, 11, 12]);
      expect(from.next).toBe(13);
      const back = await stores.runs.readHistory(run.runId, { after: 10, limit: 3, reverse: true });
      expect(back.events.map((e) => e.eventId)).toEqual([10, 9, 8]);
      const last = await stores.runs.readHistory(run.runId, {
        after: all.length - 1,
        limit: 5,
        reverse: false,
      });
      expect(last).toEqual({ events: run.driver.history.slice(-2) });
    });
  });

  describe("a workflowId's open-run pointer", () => {
    it('names the run a start acquired it for, and refuses a second start while that run is open', async () => {
      const stores = await newStores();
      const first = new Run(stores);
      expect(await first.start()).toBe('committed');
      const { domain, execution } = first.driver.state;
      expect(await stores.runs.findOpenRun(domain, execution.workflowId)).toBe(first.runId);
      const second = new Run(stores, { workflowId: execution.workflowId });
      expect(await second.start()).toBe('already-open');
      expect(await stores.runs.loadRun(second.runId)).toBeUndefined();
      expect(await stores.runs.findOpenRun(domain, execution.workflowId)).toBe(first.runId);
      // The same workflowId in another domain is another pointer.
      const elsewhere = new Run(stores, {
        workflowId: execution.workflowId,
        domain: 'other-domain',
      });
      expect(await elsewhere.start()).toBe('committed');
    });

    it('is taken over by a start after the close of the run it names, not one dated before', async () => {
      const stores = await newStores();
      const first = new Run(stores, { startAt: T0 });
      await first.start();
      await first.commit((d) => {
        d.now = T0 + 99;
        d.terminate();
      });
      expect(first.driver.state.closeTimestamp).toBe(T0 + 100);
      const workflowId = first.driver.state.execution.workflowId;
      const early = new Run(stores, { workflowId, startAt: T0 + 50 });
      expect(await early.start()).toBe('already-open');
      const next = new Run(stores, { workflowId, startAt: T0 + 100 });
      expect(await next.start()).toBe('committed');
      expect(await stores.runs.findOpenRun(first.driver.state.domain, workflowId)).toBe(next.runId);
    });

    it('is moved by a continue-as-new from the run that holds it, and only from that one', async () => {
      const stores = await newStores();
      const first = new Run(stores);
      await first.start();
      const { domain, execution } = first.driver.state;
      const next = new Run(stores, { workflowId: execution.workflowId });
      const move = (from: string): OpenPointerChange => ({
        kind: 'move',
        domain,
        workflowId: execution.workflowId,
        from,
        to: next.runId,
      });
      const created = next.write();
      expect(await stores.runs.commit([created], [move(unique('not-the-holder'))])).toBe(
        'conflict',
      );
      expect(await stores.runs.loadRun(next.runId)).toBeUndefined();
      expect(await stores.runs.commit([created], [move(first.runId)])).toBe('committed');
      expect(await stores.runs.findOpenRun(domain, execution.workflowId)).toBe(next.runId);
    });
  });

  describe("a task list's queue", () => {
    it('holds what commits schedule, best priority then oldest first, until a commit starts it', async () => {
      const stores = await newStores();
      const list = unique('tl');
      const schedule = (id: string, priority: string) =>
        scheduleActivity(id, { taskList: { name: list }, taskPriority: priority });
      const a = new Run(stores, { startAt: T0 });
      const b = new Run(stores, { startAt: T0 + 1 });
      await a.start();
      await b.start();
      await b.commit((d) => d.decide([schedule('b-low', '0'), schedule('b-high', '5')]));
      await a.commit((d) => d.decide([schedule('a-low', '0')]));
      const peek = async (limit = 10) =>
        (await stores.taskQueues.peekQueue('activity', a.driver.state.domain, list, limit)).map(
          (e) => (e.runId === a.runId ? 'a' : 'b'),
        );
      expect(await peek()).toEqual(['b', 'a', 'b']);
      const [high] = await stores.taskQueues.peekQueue('activity', a.driver.state.domain, list, 1);
      expect(high).toMatchObject({ runId: b.runId, taskPriority: '5', kind: 'activity' });
      expect(await stores.taskQueues.countQueue('activity', a.driver.state.domain, list)).toBe(3);
      expect(await peek(2)).toEqual(['b', 'a']);
      // A commit that starts a task takes its entry away.
      await a.commit((d) => d.startActivity('a-low'));
      expect(await peek()).toEqual(['b', 'b']);
      // Entries a poller found stale are dropped.
      const rest = await stores.taskQueues.peekQueue('activity', b.driver.state.domain, list, 10);
      await stores.taskQueues.dropQueueEntries(rest.slice(0, 1));
      expect(await stores.taskQueues.countQueue('activity', b.driver.state.domain, list)).toBe(1);
    });

    it('keeps nothing of a commit that did not land', async () => {
      const stores = await newStores();
      const list = unique('tl');
      const run = new Run(stores);
      await run.start();
      const stale = run.loaded as LoadedRun;
      await run.commit((d) => d.signal('moved on'));
      const lost = {
        ...run.write((d) => d.decide([scheduleActivity('lost', { taskList: { name: list } })])),
        base: stale,
      };
      expect(await stores.runs.commit([lost], [])).toBe('conflict');
      expect(await stores.taskQueues.countQueue('activity', run.driver.state.domain, list)).toBe(0);
    });
  });

  describe('side items', () => {
    it("keep an activity's latest heartbeat", async () => {
      const { heartbeats } = await newStores();
      const runId = unique('run');
      expect(await heartbeats.getHeartbeat(runId, 5)).toBeUndefined();
      await heartbeats.putHeartbeat(runId, 5, { at: T0, details: 'half' });
      await heartbeats.putHeartbeat(runId, 5, { at: T0 + 1 });
      await heartbeats.putHeartbeat(runId, 6, { at: T0 + 2, details: 'other' });
      expect(await heartbeats.getHeartbeat(runId, 5)).toEqual({ at: T0 + 1 });
      expect(await heartbeats.getHeartbeat(runId, 6)).toEqual({ at: T0 + 2, details: 'other' });
    });

    it('claim a Lambda task once', async () => {
      const { lambdaTaskClaims } = await newStores();
      const runId = unique('run');
      expect(await lambdaTaskClaims.claimLambdaTask(runId, 7, T0 + 86_400)).toBe(true);
      expect(await lambdaTaskClaims.claimLambdaTask(runId, 7, T0 + 86_400)).toBe(false);
      expect(await lambdaTaskClaims.claimLambdaTask(runId, 8, T0 + 86_400)).toBe(true);
    });

    it('keep dead letters, the start of a long record, oldest first', async () => {
      const { deadLetters } = await newStores();
      const before = (await deadLetters.listDeadLetters()).length;
      const id = unique('record');
      await deadLetters.putDeadLetter(id, 'x'.repeat(100_000), 'Error: poison');
      await deadLetters.putDeadLetter(`${id}-2`, '{}', 'Error: again');
      const letters = (await deadLetters.listDeadLetters()).slice(before);
      expect(letters.map((l) => l.id)).toEqual([id, `${id}-2`]);
      expect(letters[0]?.record.length).toBeLessThan(70_000);
      expect(letters[0]?.record).toMatch(/^x+\.\.\. \(100000 characters\)$/);
      expect(letters[0]).toMatchObject({ error: 'Error: poison', at: expect.any(Number) });
    });
  });
}
