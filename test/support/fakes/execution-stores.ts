/**
 * Runs, their histories, task queues and side items in memory: the RunStore, TaskQueueStore,
 * HeartbeatStore, LambdaTaskClaims and DeadLetterStore ports as the DynamoDB adapter keeps them (a
 * commit lands whole or not at all, guarded by each run's version; a workflowId's pointer is taken
 * over once its run has closed; queues in priority then age order; a run gone once past its
 * expiry), checked against the same contract suite (test/support/store-contract). A commit here
 * never lands halfway, so none of the adapter's repair of a half-landed start is needed.
 */
import type { ExecutionState } from '../../../lib/core/execution-state.js';
import type { HistoryEvent } from '../../../lib/core/history-event.js';
import { cutText } from '../../../lib/core/limits.js';
import type { QueuedTaskRef, TaskKind } from '../../../lib/core/task-queue.js';
import type { DeadLetter, DeadLetterStore } from '../../../lib/ports/dead-letter-store.js';
import type { ActivityHeartbeat, HeartbeatStore } from '../../../lib/ports/heartbeat-store.js';
import type { LambdaTaskClaims } from '../../../lib/ports/lambda-task-claims.js';
import type {
  CommitOutcome,
  HistoryPage,
  LoadedRun,
  OpenPointerChange,
  RunStore,
  RunWrite,
} from '../../../lib/ports/run-store.js';
import type { QueueEntry, TaskQueueStore } from '../../../lib/ports/task-queue-store.js';

interface StoredRun {
  readonly state: ExecutionState;
  readonly version: number;
  readonly history: readonly HistoryEvent[];
  /** Epoch seconds: the run is gone from then on. */
  readonly expiresAt?: number;
}

/** A queue's order: higher taskPriority first, then older, then a stable tiebreak. */
const queueOrder = (a: QueuedTaskRef, b: QueuedTaskRef) =>
  Number(b.taskPriority) - Number(a.taskPriority) ||
  Math.round(a.scheduledAt * 1000) - Math.round(b.scheduledAt * 1000) ||
  (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0) ||
  a.scheduledEventId - b.scheduledEventId;

const entryKey = (t: QueuedTaskRef) =>
  JSON.stringify([t.kind, t.domain, t.taskList, t.runId, t.scheduledEventId, t.scheduledAt]);
const pointerKey = (domain: string, workflowId: string) => JSON.stringify([domain, workflowId]);
const sideKey = (runId: string, scheduledEventId: number) => `${runId}|${scheduledEventId}`;

/** What a dead letter keeps of its record and its error, as the adapter keeps it. */
const cut = (text: string, chars: number) =>
  text.length <= chars ? text : `${cutText(text, chars)}... (${text.length} characters)`;

/** What the stores hold: one table's runs, pointers, queues and side items. */
export class ExecutionData {
  readonly runs = new Map<string, StoredRun>();
  readonly pointers = new Map<string, string>();
  readonly queue = new Map<string, QueuedTaskRef>();
  readonly heartbeats = new Map<string, ActivityHeartbeat>();
  readonly claims = new Set<string>();
  readonly letters: DeadLetter[] = [];
}

export class InMemoryExecutionStore
  implements RunStore, TaskQueueStore, HeartbeatStore, LambdaTaskClaims, DeadLetterStore
{
  private readonly runs: Map<string, StoredRun>;
  private readonly pointers: Map<string, string>;
  private readonly queue: Map<string, QueuedTaskRef>;
  private readonly heartbeats: Map<string, ActivityHeartbeat>;
  private readonly claims: Set<string>;
  private readonly letters: DeadLetter[];

  /**
   * Stores over `data`, judging expiry by `nowSeconds`: several stores over the same data are the
   * service's processes over one table, each with its own clock.
   */
  constructor(
    private readonly nowSeconds: () => number = () => Date.now() / 1000,
    data: ExecutionData = new ExecutionData(),
  ) {
    ({
      runs: this.runs,
      pointers: this.pointers,
      queue: this.queue,
      heartbeats: this.heartbeats,
      claims: this.claims,
      letters: this.letters,
    } = data);
  }

  async commit(
    writes: readonly RunWrite[],
    pointers: readonly OpenPointerChange[],
  ): Promise<CommitOutcome> {
    if (pointers.some((p) => p.kind === 'acquire' && !this.mayAcquire(p))) return 'already-open';
    const stale = writes.some(
      (w) => this.runs.get(w.state.execution.runId)?.version !== w.base?.version,
    );
    const moved = pointers.some(
      (p) => p.kind === 'move' && this.pointers.get(pointerKey(p.domain, p.workflowId)) !== p.from,
    );
    if (stale || moved) return 'conflict';
    for (const write of writes) this.land(write);
    for (const p of pointers)
      this.pointers.set(pointerKey(p.domain, p.workflowId), p.kind === 'acquire' ? p.runId : p.to);
    return 'committed';
  }

  /** Whether a start may take the workflowId: nobody's, its own, or its run closed before the start. */
  private mayAcquire(p: Extract<OpenPointerChange, { kind: 'acquire' }>): boolean {
    const holder = this.pointers.get(pointerKey(p.domain, p.workflowId));
    if (holder === undefined || holder === p.runId) return true;
    const run = this.live(holder);
    return (
      run === undefined ||
      (run.state.status !== 'OPEN' && (run.state.closeTimestamp ?? 0) <= p.startedAt)
    );
  }

  private land(write: RunWrite): void {
    const runId = write.state.execution.runId;
    const stored = this.runs.get(runId);
    const expiresAt = write.expiresAt?.state;
    this.runs.set(runId, {
      state: write.state,
      version: (stored?.version ?? 0) + 1,
      history: [...(stored?.history ?? []), ...write.events],
      ...(expiresAt === undefined ? {} : { expiresAt }),
    });
    for (const task of write.queue.add) this.queue.set(entryKey(task), task);
    for (const task of [...write.queue.remove, ...(write.claim === undefined ? [] : [write.claim])])
      this.queue.delete(entryKey(task));
  }

  /** A run that is there and not past its expiry. */
  private live(runId: string): StoredRun | undefined {
    const run = this.runs.get(runId);
    return run === undefined || (run.expiresAt !== undefined && run.expiresAt <= this.nowSeconds())
      ? undefined
      : run;
  }

  async loadRun(runId: string): Promise<LoadedRun | undefined> {
    const run = this.live(runId);
    return run === undefined ? undefined : { state: run.state, version: run.version };
  }

  async readStateApart(runId: string, ref: string): Promise<ExecutionState> {
    throw new Error(`no state is kept apart in memory (run ${runId}, ${ref})`);
  }

  async findOpenRun(domain: string, workflowId: string): Promise<string | undefined> {
    return this.pointers.get(pointerKey(domain, workflowId));
  }

  async readHistory(
    runId: string,
    page: { after?: number; limit: number; reverse: boolean },
  ): Promise<HistoryPage> {
    const from = page.after ?? (page.reverse ? Number.MAX_SAFE_INTEGER : 1);
    const history = this.runs.get(runId)?.history ?? [];
    const events = (page.reverse ? [...history].reverse() : history).filter((e) =>
      page.reverse ? e.eventId <= from : e.eventId >= from,
    );
    const next = events[page.limit]?.eventId;
    const shown = events.slice(0, page.limit);
    return next === undefined ? { events: shown } : { events: shown, next };
  }

  /** Marks a run's items to go at `expiresAt` (what the visibility store's expireRun does). */
  expireRun(runId: string, expiresAt: number): void {
    const run = this.runs.get(runId);
    if (run !== undefined && (run.expiresAt === undefined || run.expiresAt > expiresAt))
      this.runs.set(runId, { ...run, expiresAt });
  }

  /** The open runs (the local server re-arms their deadlines when it starts). */
  async scanOpenRuns(): Promise<ExecutionState[]> {
    return [...this.runs.values()].map((r) => r.state).filter((s) => s.status === 'OPEN');
  }

  async peekQueue(
    kind: TaskKind,
    domain: string,
    taskList: string,
    limit: number,
  ): Promise<QueueEntry[]> {
    return this.entries(kind, domain, taskList).sort(queueOrder).slice(0, limit);
  }

  async countQueue(kind: TaskKind, domain: string, taskList: string): Promise<number> {
    return this.entries(kind, domain, taskList).length;
  }

  async dropQueueEntries(entries: readonly QueuedTaskRef[]): Promise<void> {
    for (const entry of entries) this.queue.delete(entryKey(entry));
  }

  private entries(kind: TaskKind, domain: string, taskList: string): QueuedTaskRef[] {
    return [...this.queue.values()].filter(
      (t) => t.kind === kind && t.domain === domain && t.taskList === taskList,
    );
  }

  async putDeadLetter(id: string, record: string, error: string): Promise<void> {
    this.letters.push({
      id,
      record: cut(record, 64 * 1024),
      error: cut(error, 4 * 1024),
      at: Date.now(),
    });
  }

  async listDeadLetters(): Promise<DeadLetter[]> {
    return [...this.letters].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
  }

  async claimLambdaTask(runId: string, scheduledEventId: number): Promise<boolean> {
    const key = sideKey(runId, scheduledEventId);
    if (this.claims.has(key)) return false;
    this.claims.add(key);
    return true;
  }

  async putHeartbeat(
    runId: string,
    scheduledEventId: number,
    heartbeat: ActivityHeartbeat,
  ): Promise<void> {
    this.heartbeats.set(sideKey(runId, scheduledEventId), heartbeat);
  }

  async getHeartbeat(
    runId: string,
    scheduledEventId: number,
  ): Promise<ActivityHeartbeat | undefined> {
    return this.heartbeats.get(sideKey(runId, scheduledEventId));
  }
}
