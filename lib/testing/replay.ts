/**
 * Replaying a workflow's code over a history written by hand or recorded, as a DeciderWorker replays
 * it for a decision task: to test what the code decides next, and whether changed code still matches
 * the runs it recorded (the check to make before deploying it while they are open).
 */
import type { Decision, HistoryEvent } from '@aws-sdk/client-swf';
import {
  type Logger,
  replayWorkflow,
  silentLogger,
  type WorkflowDefinition,
} from '../sdk/index.js';
import { History } from './history-builder.js';

export interface ReplayOptions {
  /**
   * The decision task to decide (its DecisionTaskStarted event). By default the one a decider would
   * get next (`history.nextDecisionTask()`), so every task the history answered is replayed.
   */
  readonly startedEventId?: number;
  /** Where the workflow's `ctx.log` writes while it decides (default: nowhere). */
  readonly logger?: Logger;
}

/**
 * Replays `history` with `workflow`'s code: each decision task the history answered before the one
 * decided must ask for what its answer recorded, as a DeciderWorker requires. Answers the decisions
 * of the task decided, or throws the NonDeterminismError naming the first event the code no longer
 * matches.
 */
export async function replayHistory(
  workflow: WorkflowDefinition,
  history: History | readonly HistoryEvent[],
  options: ReplayOptions = {},
): Promise<Decision[]> {
  const run = history instanceof History ? history : History.recorded(history);
  const task =
    options.startedEventId === undefined
      ? run.nextDecisionTask()
      : run.decisionTask(options.startedEventId);
  const outcome = await replayWorkflow(workflow, task, options.logger ?? silentLogger);
  if (outcome.kind === 'nonDeterminism') throw outcome.error;
  return outcome.decisions;
}
