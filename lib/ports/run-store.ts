import type { ExecutionState } from '../core/execution-state.js';
import type { HistoryEvent } from '../core/history-event.js';
import type { QueueChanges, QueuedTaskRef } from '../core/task-queue.js';

/** One execution's part of a commit: its new state, the events appended, the queue writes. */
export interface RunWrite {
  readonly state: ExecutionState;
  /** The run as it was loaded, whose version guards the write; absent for a run being created. */
  readonly base?: LoadedRun;
  readonly events: readonly HistoryEvent[];
  readonly queue: QueueChanges;
  /**
   * The queued entry of the task this commit starts, removed once it lands. What makes the start
   * exclusive is the run's version: of two pollers holding the same entry only one commit succeeds.
   */
  readonly claim?: QueuedTaskRef;
  /**
   * When the items this write makes may expire (epoch seconds, DynamoDB TTL): its history chunks, and
   * the state of a run it closes. Set when known; the close's outbox marks whatever is left.
   */
  readonly expiresAt?: { readonly history?: number; readonly state?: number };
}

/**
 * The open-run pointer of a workflowId: at most one open run per workflowId in a domain. A start
 * acquires it, a continue-as-new moves it to the new run; a close leaves it, naming a closed run:
 * stale, it is taken over by the next start of the workflowId, and expires (TTL) once the run it
 * names can no longer be open.
 */
export type OpenPointerChange =
  | {
      readonly kind: 'acquire';
      readonly domain: string;
      readonly workflowId: string;
      readonly runId: string;
      /**
       * The new run's start (epoch seconds). A run of the workflowId that closed after it was still
       * open then: the start is refused ('already-open'), so no run starts before its predecessor's
       * close, whatever order their writers' clocks were read in.
       */
      readonly startedAt: number;
    }
  | {
      readonly kind: 'move';
      readonly domain: string;
      readonly workflowId: string;
      readonly from: string;
      readonly to: string;
    };

export type CommitOutcome = 'committed' | 'conflict' | 'already-open';

export interface LoadedRun {
  readonly state: ExecutionState;
  readonly version: number;
  /**
   * The run's latest events, which the store keeps beside its state until they fill a history chunk
   * (see the adapter's RunCommit). Opaque outside the store: handed back with the next write.
   */
  readonly recentEvents?: readonly HistoryEvent[];
}

export interface HistoryPage {
  readonly events: readonly HistoryEvent[];
  /** Id of the event the next page starts at, when there is one. */
  readonly next?: number;
}

/**
 * Executions and their histories. Every change of runs is one conditional write of their state items
 * (their versions are the only guard); queue entries are hints written around it (TaskQueueStore).
 */
export interface RunStore {
  /**
   * Commits all writes atomically, or nothing: a stale version or a taken workflowId. The queue entries
   * of tasks the writes schedule exist before the commit lands (a poller that finds one whose task is
   * not committed yet leaves it alone: see entryStatus); the entries they withdraw or claim are removed
   * after it, best effort. A new run's workflowId pointer is written before its state and a closed
   * run's is left in place, so a pointer may be stale: see findOpenRun.
   */
  commit(
    writes: readonly RunWrite[],
    pointers: readonly OpenPointerChange[],
  ): Promise<CommitOutcome>;
  loadRun(runId: string): Promise<LoadedRun | undefined>;
  /**
   * A run state the store keeps apart from the run's item, as that item names it (`ref`): a state too
   * big for one item. A change record of such an item carries the name, not the state.
   */
  readStateApart(runId: string, ref: string): Promise<ExecutionState>;
  /**
   * The run a workflowId's open-run pointer names. It may be closed (a close leaves its pointer) or
   * not exist (its start failed or is in flight, or it expired): callers load it and treat either as
   * no open run.
   */
  findOpenRun(domain: string, workflowId: string): Promise<string | undefined>;
  /**
   * A page of a run's history. `recent`, when given, is the run's latest events as the caller holds
   * them (its LoadedRun's recentEvents and the events it committed since, in order, none missing):
   * the store reads only the events before them.
   */
  readHistory(
    runId: string,
    page: {
      after?: number;
      limit: number;
      reverse: boolean;
      recent?: readonly HistoryEvent[];
    },
  ): Promise<HistoryPage>;
}
