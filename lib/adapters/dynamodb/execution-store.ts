import type { ExecutionState } from '../../core/execution-state.js';
import type { QueuedTaskRef, TaskKind } from '../../core/task-queue.js';
import type { DeadLetter, DeadLetterStore } from '../../ports/dead-letter-store.js';
import type { ActivityHeartbeat, HeartbeatStore } from '../../ports/heartbeat-store.js';
import type { LambdaTaskClaims } from '../../ports/lambda-task-claims.js';
import type {
  CommitOutcome,
  HistoryPage,
  LoadedRun,
  OpenPointerChange,
  RunStore,
  RunWrite,
} from '../../ports/run-store.js';
import type { QueueEntry, TaskQueueStore } from '../../ports/task-queue-store.js';
import type { TableRef } from './client.js';
import { HistoryChunks, type HistoryPageRequest } from './history-chunks.js';
import { OpenRunPointers } from './open-run-pointers.js';
import { RunCommit } from './run-commit.js';
import { RunCommitItems, STATE_ITEM_BUDGET } from './run-commit-items.js';
import { RunStateItems } from './run-state-items.js';
import { DeadLetterItems, HeartbeatItems, LambdaClaimItems, scanOpenRuns } from './side-items.js';
import { StateParts } from './state-parts.js';
import { QUEUE_SHARDS, TaskQueueItems } from './task-queue-items.js';

export interface ExecutionStoreOptions {
  /**
   * Partitions per task list (see keys.queuePartition). @default QUEUE_SHARDS. Polls read partitions
   * 0 … count-1 and remove an entry from where they found it, so a count may grow (from 1, the count
   * before QUEUE_SHARDS): entries written under the smaller one are still handed out, and removed by
   * the poll that takes them or finds them stale. One whose task is withdrawn otherwise (its run
   * closed, the task cancelled or timed out) is looked for in its new partition, so it is counted by
   * CountPending* until a poll on its list finds it stale. A count that shrinks strands the entries of
   * the partitions no longer read.
   */
  readonly queueShards?: number;
  /**
   * The clock (epoch seconds) retention is judged by: a run whose `expiresAt` has passed is gone, even
   * before DynamoDB's TTL (which is lazy) deletes it.
   */
  readonly nowSeconds?: () => number;
  /** Bytes a state item may reach while it still holds recent events (tests make it small or large). */
  readonly stateItemBudget?: number;
}

/**
 * The runs, their task queues and their side items in one table: one object serving every port
 * over them, each delegated to the part that keeps those items (run-commit.ts, state-parts.ts,
 * history-chunks.ts, task-queue-items.ts, side-items.ts, open-run-pointers.ts).
 */
export class DynamoExecutionStore
  implements RunStore, TaskQueueStore, HeartbeatStore, LambdaTaskClaims, DeadLetterStore
{
  private readonly parts: StateParts;
  private readonly history: HistoryChunks;
  private readonly queue: TaskQueueItems;
  private readonly runs: RunStateItems;
  private readonly pointers: OpenRunPointers;
  private readonly commits: RunCommit;
  private readonly deadLetters: DeadLetterItems;
  private readonly heartbeats: HeartbeatItems;
  private readonly lambdaClaims: LambdaClaimItems;

  constructor(
    private readonly table: TableRef,
    options: ExecutionStoreOptions = {},
  ) {
    const nowSeconds = options.nowSeconds ?? (() => Date.now() / 1000);
    this.parts = new StateParts(table);
    this.history = new HistoryChunks(table);
    this.queue = new TaskQueueItems(table, options.queueShards ?? QUEUE_SHARDS);
    this.runs = new RunStateItems(table, this.parts, nowSeconds);
    this.pointers = new OpenRunPointers(table, nowSeconds, async (runId) => {
      const stored = await this.runs.read(runId);
      return stored === 'expired' ? stored : stored?.state;
    });
    const budget = options.stateItemBudget ?? STATE_ITEM_BUDGET;
    this.commits = new RunCommit({
      table,
      items: new RunCommitItems(table, this.parts, this.history, this.queue, budget),
      queue: this.queue,
      pointers: this.pointers,
      loadRun: (runId) => this.runs.load(runId),
      readHistory: (runId, page) => this.history.readHistory(runId, page),
    });
    this.deadLetters = new DeadLetterItems(table);
    this.heartbeats = new HeartbeatItems(table);
    this.lambdaClaims = new LambdaClaimItems(table);
  }

  commit(
    writes: readonly RunWrite[],
    pointers: readonly OpenPointerChange[],
  ): Promise<CommitOutcome> {
    return this.commits.commit(writes, pointers);
  }

  loadRun(runId: string): Promise<LoadedRun | undefined> {
    return this.runs.load(runId);
  }

  readStateApart(runId: string, ref: string, count?: number): Promise<ExecutionState> {
    return this.parts.read(runId, ref, count);
  }

  findOpenRun(domain: string, workflowId: string): Promise<string | undefined> {
    return this.pointers.holder(domain, workflowId);
  }

  readHistory(runId: string, page: HistoryPageRequest): Promise<HistoryPage> {
    return this.history.readHistory(runId, page);
  }

  peekQueue(
    kind: TaskKind,
    domain: string,
    taskList: string,
    limit: number,
  ): Promise<QueueEntry[]> {
    return this.queue.peekQueue(kind, domain, taskList, limit);
  }

  countQueue(kind: TaskKind, domain: string, taskList: string): Promise<number> {
    return this.queue.countQueue(kind, domain, taskList);
  }

  dropQueueEntries(entries: readonly QueuedTaskRef[]): Promise<void> {
    return this.queue.dropQueueEntries(entries);
  }

  putDeadLetter(id: string, record: string, error: string): Promise<void> {
    return this.deadLetters.putDeadLetter(id, record, error);
  }

  listDeadLetters(): Promise<DeadLetter[]> {
    return this.deadLetters.listDeadLetters();
  }

  /** Open runs, for the local server to re-arm their deadlines at start-up (see scanOpenRuns). */
  scanOpenRuns(): Promise<ExecutionState[]> {
    return scanOpenRuns(this.table, this.parts);
  }

  claimLambdaTask(runId: string, scheduledEventId: number, expiresAt: number): Promise<boolean> {
    return this.lambdaClaims.claimLambdaTask(runId, scheduledEventId, expiresAt);
  }

  putHeartbeat(
    runId: string,
    scheduledEventId: number,
    heartbeat: ActivityHeartbeat,
    expiresAt?: number,
  ): Promise<void> {
    return this.heartbeats.putHeartbeat(runId, scheduledEventId, heartbeat, expiresAt);
  }

  getHeartbeat(runId: string, scheduledEventId: number): Promise<ActivityHeartbeat | undefined> {
    return this.heartbeats.getHeartbeat(runId, scheduledEventId);
  }
}
