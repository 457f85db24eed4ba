/** What `awaitClose` answers, and what it says of an execution that did not close. */
import {
  GetWorkflowExecutionHistoryCommand,
  type HistoryEvent,
  type SWFClient,
  type WorkflowExecution,
} from '@aws-sdk/client-swf';
import type { ExecutionState } from '../core/execution-state.js';
import { workInProgress } from './run-book.js';

export interface ClosedExecution {
  readonly execution: { readonly workflowId: string; readonly runId: string };
  /** COMPLETED, FAILED, CANCELED, TERMINATED, CONTINUED_AS_NEW or TIMED_OUT. */
  readonly closeStatus: string;
  /** When it closed, by the environment's clock. */
  readonly closedAt: Date;
  /** WorkflowExecutionCompleted's result. */
  readonly result: string | undefined;
  /** WorkflowExecutionFailed's reason and details; the details of a cancellation or termination. */
  readonly reason: string | undefined;
  readonly details: string | undefined;
  /** The run continue-as-new started, for CONTINUED_AS_NEW. */
  readonly newExecutionRunId: string | undefined;
  /** Every event of the history, oldest first. */
  readonly events: readonly HistoryEvent[];
}

/** How a closed run ended, from its state and its history. */
export function closedExecution(state: ExecutionState, events: HistoryEvent[]): ClosedExecution {
  const last = events.at(-1);
  const attributes = {
    ...last?.workflowExecutionCompletedEventAttributes,
    ...last?.workflowExecutionFailedEventAttributes,
    ...last?.workflowExecutionCanceledEventAttributes,
    ...last?.workflowExecutionTerminatedEventAttributes,
  } as { result?: string; reason?: string; details?: string };
  return {
    execution: { workflowId: state.execution.workflowId, runId: state.execution.runId },
    closeStatus: state.closeStatus ?? 'UNKNOWN',
    closedAt: new Date((state.closeTimestamp ?? state.startTimestamp) * 1000),
    result: attributes.result,
    reason: attributes.reason,
    details: attributes.details,
    newExecutionRunId: state.newExecutionRunId,
    events,
  };
}

/** An execution's whole history, every page, oldest first. */
export async function fullHistory(
  client: SWFClient,
  domain: string,
  execution: WorkflowExecution,
): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  let nextPageToken: string | undefined;
  do {
    const page = await client.send(
      new GetWorkflowExecutionHistoryCommand({ domain, execution, nextPageToken }),
    );
    events.push(...(page.events ?? []));
    nextPageToken = page.nextPageToken;
  } while (nextPageToken !== undefined);
  return events;
}

/** `execution <workflowId> (run <runId>)`. */
export const describeExecution = (execution: WorkflowExecution) =>
  `execution ${execution.workflowId} (run ${execution.runId})`;

/** Why an execution `awaitClose` waited for has not closed, in words a test failure can show. */
export function notClosedMessage(
  execution: WorkflowExecution,
  state: ExecutionState | undefined,
  timeoutMs: number,
): string {
  const which = describeExecution(execution);
  if (state === undefined)
    return `${which} did not close within ${timeoutMs} ms of wall-clock time: this environment never started it`;
  const work = workInProgress(state);
  const waits =
    work.length === 0
      ? 'nothing but its timers and timeouts'
      : `${work.join('; ')} (time does not skip while a task is queued or running: is a worker polling its task list?)`;
  return `${which} did not close within ${timeoutMs} ms of wall-clock time. It waits on ${waits}.`;
}
