/**
 * Deciding a decision task with a workflow definition: replay, then answer with the new decisions,
 * or (the replay does not match the history) report it and, as the workflow chose, answer nothing or
 * fail the execution.
 */
import type { Decision } from '@aws-sdk/client-swf';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { failure } from './close.js';
import type { WorkflowDefinition } from './definitions.js';
import { type ReplayTask, replayWorkflow } from './replayer.js';

/** What the workers report of each workflow task they decide (for metrics and alerts). */
export type WorkflowObservation =
  | {
      readonly kind: 'decided';
      readonly workflowType: string;
      readonly workflowId: string;
      readonly runId: string;
      /** The history's events, and the decision tasks replayed (this one included). */
      readonly events: number;
      readonly steps: number;
      readonly decisions: number;
      /** Time spent replaying and deciding, in ms. */
      readonly replayMs: number;
    }
  | {
      readonly kind: 'nonDeterminism';
      readonly workflowType: string;
      readonly workflowId: string;
      readonly runId: string;
      /** The recorded event that does not match. */
      readonly eventId: number;
      /** What the history has there, and what the code asked for. */
      readonly expected: string;
      readonly actual: string;
      /** What was done about it: nothing answered (the task times out), or the execution failed. */
      readonly action: 'leaveTask' | 'failExecution';
    };

export interface WorkflowDecideOptions {
  readonly logger: Logger;
  readonly observe?: ((observation: WorkflowObservation) => void) | undefined;
}

/** The reason an execution fails with when its replay does not match and it asked to fail. */
export const NON_DETERMINISM_REASON = 'NonDeterminism';

/** The decisions to answer the task with, or undefined to answer nothing (it will time out). */
export async function decideWorkflowTask(
  definition: WorkflowDefinition,
  task: ReplayTask,
  o: WorkflowDecideOptions,
): Promise<readonly Decision[] | undefined> {
  const began = performance.now();
  const outcome = await replayWorkflow(definition, task, o.logger);
  const execution = task.workflowExecution;
  const who = {
    workflowType: task.workflowType?.name ?? definition.name,
    workflowId: execution?.workflowId ?? '',
    runId: execution?.runId ?? '',
  };
  if (outcome.kind === 'decided') {
    const replayMs = Math.round((performance.now() - began) * 100) / 100;
    const { steps, decisions } = outcome;
    const events = task.events.length;
    tell(o, { kind: 'decided', ...who, events, steps, decisions: decisions.length, replayMs });
    return decisions;
  }
  const { error } = outcome;
  const action = definition.options.onNonDeterminism ?? 'leaveTask';
  o.logger.error(
    `the workflow's replay does not match its history (its code changed while the execution was open): ${action === 'leaveTask' ? 'no decisions sent; the decision task will time out and be retried' : 'failing the execution'}`,
    { ...who, eventId: error.eventId, expected: error.expected, actual: error.actual },
  );
  const { eventId, expected, actual } = error;
  tell(o, { kind: 'nonDeterminism', ...who, eventId, expected, actual, action });
  return action === 'failExecution' ? [failure(NON_DETERMINISM_REASON, error.message)] : undefined;
}

function tell(o: WorkflowDecideOptions, observation: WorkflowObservation): void {
  try {
    o.observe?.(observation);
  } catch (error) {
    // The caller's own hook: its failure must not cost the decision task.
    o.logger.error('observe threw', { error: describeError(error) });
  }
}
