import type { ExecutionState } from '../core/execution-state.js';
import type { HistoryEvent } from '../core/history-event.js';
import type { QueueChanges, QueuedTaskRef, TaskKind } from '../core/task-queue.js';

/** One execution's part of a commit: its new state, the events appended, the queue writes. */
export interface RunWrite {
  readonly state: ExecutionState;
  /** The version the state was read at; absent for a run being created. */
  readonly expectedVersion?: number;
  readonly events: readonly HistoryEvent[];
  readonly queue: QueueChanges;
  /** The queued task this commit hands out: the commit fails if another poller took it first. */
  readonly claim?: QueuedTaskRef;
  /**
   * When the items this write makes may expire (epoch seconds, DynamoDB TTL): its history chunks, and
   * the state of a run it closes. Set when known; the close's outbox marks whatever is left.
   */
  readonly expiresAt?: { readonly history?: number; readonly state?: number };
}

/** The open-run pointer of a workflowId: at most one open run per workflowId in a domain. */
export type OpenPointerChange =
  | {
      readonly kind: 'acquire';
      readonly domain: string;
      readonly workflowId: string;
      readonly runId: string;
    }
  | {
      readonly kind: 'release';
      readonly domain: string;
      readonly workflowId: string;
      readonly runId: string;
    }
  | {
      readonly kind: 'move';
      readonly domain: string;
      readonly workflowId: string;
      readonly from: string;
      readonly to: string;
    };

export type CommitOutcome = 'committed' | 'conflict' | 'claim-lost' | 'already-open';

export interface LoadedRun {
  readonly state: ExecutionState;
  readonly version: number;
}

export interface HistoryPage {
  readonly events: readonly HistoryEvent[];
  /** Id of the event the next page starts at, when there is one. */
  readonly next?: number;
}

export interface QueueEntry extends QueuedTaskRef {}

/** Executions, their histories and their task queues: every change is one conditional transaction. */
export interface ExecutionStore {
  /** Commits all writes atomically, or nothing: a stale version, a lost claim or a taken workflowId. */
  commit(
    writes: readonly RunWrite[],
    pointers: readonly OpenPointerChange[],
  ): Promise<CommitOutcome>;
  loadRun(runId: string): Promise<LoadedRun | undefined>;
  findOpenRun(domain: string, workflowId: string): Promise<string | undefined>;
  readHistory(
    runId: string,
    page: { after?: number; limit: number; reverse: boolean },
  ): Promise<HistoryPage>;

  /** The first queued tasks of a list, best priority then oldest first. */
  peekQueue(kind: TaskKind, domain: string, taskList: string, limit: number): Promise<QueueEntry[]>;
  countQueue(kind: TaskKind, domain: string, taskList: string): Promise<number>;
  /** Removes entries that no longer match their execution (best effort; claims re-check anyway). */
  dropQueueEntries(entries: readonly QueuedTaskRef[]): Promise<void>;
  /** Idempotent queue writes outside a transaction: the outbox's repair of a commit's overflow. */
  applyQueueChanges(changes: QueueChanges): Promise<void>;

  /** Keeps a stream record the outbox gave up on, with its error, for inspection. */
  putDeadLetter(id: string, record: string, error: string): Promise<void>;
  listDeadLetters(): Promise<DeadLetter[]>;

  /** `expiresAt` (epoch seconds): when the heartbeat may go, set when the run's latest expiry is known. */
  putHeartbeat(
    runId: string,
    scheduledEventId: number,
    heartbeat: ActivityHeartbeat,
    expiresAt?: number,
  ): Promise<void>;
  getHeartbeat(runId: string, scheduledEventId: number): Promise<ActivityHeartbeat | undefined>;
}

/** The latest heartbeat of a started activity: kept beside the state so heartbeats never contend with it. */
export interface ActivityHeartbeat {
  readonly details?: string;
  /** Epoch seconds. */
  readonly at: number;
}

export interface DeadLetter {
  readonly id: string;
  readonly record: string;
  readonly error: string;
  /** Epoch milliseconds. */
  readonly at: number;
}
