/** What a workflow's context and operations need of the replay that runs them. */
import type {
  Decision,
  HistoryEvent,
  TaskList,
  WorkflowExecution,
  WorkflowType,
} from '@aws-sdk/client-swf';
import type { Logger } from '../logger.js';
import type { Codec } from './codec.js';
import type { SignalBox } from './signals.js';

/** An operation the replay settles from the events about its decision. */
export interface Deliverable {
  deliver(event: HistoryEvent): void;
}

/** Where the code stands relative to its history. */
export interface WorkflowInfo {
  readonly workflowExecution: WorkflowExecution;
  readonly workflowType: WorkflowType;
  readonly taskList: TaskList | undefined;
  readonly tagList: readonly string[];
  readonly parentWorkflowExecution: WorkflowExecution | undefined;
  /** The run this one continued (ContinueAsNew), if any. */
  readonly continuedExecutionRunId: string | undefined;
  readonly lambdaRole: string | undefined;
}

export type IdKind = 'activity' | 'timer' | 'child' | 'lambda';

export interface RunApi {
  readonly codec: Codec;
  readonly info: WorkflowInfo;
  readonly signals: SignalBox;
  readonly logger: Logger;
  readonly isReplaying: boolean;
  readonly cancelRequested: boolean;
  /** Throws once the decision task's replay is over: workflow code only awaits its own operations. */
  assertRunning(): void;
  now(): Date;
  random(): number;
  uuid(): string;
  nextId(kind: IdKind): number;
  /**
   * Asks for a decision. Replaying, it is matched with the recorded event, `op` is told of the events
   * about it, and the event is returned; a mismatch stops the replay (undefined). Live, it is sent.
   */
  emit(decision: Decision, op?: Deliverable): HistoryEvent | undefined;
  /** The recorded event the next decision will be matched with, while replaying (patch markers skipped). */
  peekRecorded(): HistoryEvent | undefined;
  patched(patchId: string): boolean;
  onCancelRequested(listener: () => void): void;
}
