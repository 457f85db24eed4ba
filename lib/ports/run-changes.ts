import type { ExecutionState } from '../core/execution-state.js';

/** A committed change of a run's state: the state before (none for a start) and after. */
export interface RunChange {
  readonly before?: ExecutionState;
  readonly after: ExecutionState;
}

/**
 * How the outbox reads the records of the store's change stream, `R` being a record as the stream
 * delivers it: which run each record changes, and the change it carries.
 */
export interface RunChangeRecords<R> {
  /** The run a record belongs to: a run's records are carried out in stream order. */
  runOf(record: R): string;
  /** The record's id in the stream, which its dead letter is filed under. */
  idOf(record: R): string;
  /** The change of a run's state the record carries, or undefined for a record of another item. */
  changeOf(record: R): Promise<RunChange | undefined>;
}
