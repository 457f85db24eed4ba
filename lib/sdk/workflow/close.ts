/**
 * How a workflow closes: its function's return completes it, a throw fails it (with the reason and
 * details a WorkflowFailure chooses, else the error's message and stack), and two requests end it
 * otherwise: continue as new, or close as canceled.
 */
import type { Decision, HistoryEvent } from '@aws-sdk/client-swf';
import {
  cancelWorkflowExecution,
  completeWorkflowExecution,
  failWorkflowExecution,
} from '../decider/decisions.js';
import { cutText } from '../util.js';
import { type Codec, encodePayload, messageOf, PAYLOAD_MAX, PayloadError } from './codec.js';
import { WorkflowFailure } from './errors.js';

const REASON_MAX = 256;

/** Thrown by `ctx.continueAsNew(…)`: the execution closes and a new run starts (let it through). */
export class ContinueAsNew extends Error {
  override readonly name = 'ContinueAsNew';
  constructor(readonly decision: Decision) {
    super('the workflow continues as a new run');
  }
}

/** Thrown by `ctx.closeAsCanceled(…)`: the execution closes as canceled (let it through). */
export class CloseAsCanceled extends Error {
  override readonly name = 'CloseAsCanceled';
  constructor(readonly details: string | undefined) {
    super('the workflow closes as canceled');
  }
}

export type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** The close decision for how the workflow's function settled. */
export function closeDecision(settled: Settled, codec: Codec): Decision {
  if (settled.ok) return completion(settled.value, codec);
  const { error } = settled;
  if (error instanceof ContinueAsNew) return error.decision;
  if (error instanceof CloseAsCanceled) return cancelWorkflowExecution(error.details);
  if (error instanceof WorkflowFailure)
    return failure(error.reason, detailsText(error.details, codec));
  if (error instanceof Error) return failure(error.message || error.name, error.stack);
  return failure(
    `The workflow threw a value that is not an Error: ${messageOf(error)}`,
    detailsText(error, codec),
  );
}

function completion(value: unknown, codec: Codec): Decision {
  let result: string | undefined;
  try {
    result = encodePayload(codec, value, "the workflow's result");
  } catch (error) {
    return failure(messageOf(error), undefined);
  }
  return completeWorkflowExecution(result);
}

/** FailWorkflowExecution, its reason and details cut to SWF's limits. */
export function failure(reason: string, details: string | undefined): Decision {
  const cutDetails = details === undefined ? undefined : cutText(details, PAYLOAD_MAX);
  return failWorkflowExecution(cutText(reason, REASON_MAX), cutDetails);
}

/** The close for input the workflow's codec cannot read: the function never runs. */
export function invalidInput(error: unknown, input: string | undefined): Decision {
  const why = error instanceof PayloadError ? error.message : messageOf(error);
  return failure(why, input);
}

/** Details as text: a string as it is, another value through the codec (or its message). */
export function detailsText(details: unknown, codec: Codec): string | undefined {
  if (details === undefined || typeof details === 'string') return details;
  try {
    return codec.encode(details);
  } catch {
    return messageOf(details);
  }
}

/** The cause of a refused close decision's event (…Failed), or undefined when the close happened. */
export function closeRefusal(e: HistoryEvent): string | undefined {
  switch (e.eventType) {
    case 'CompleteWorkflowExecutionFailed':
      return e.completeWorkflowExecutionFailedEventAttributes?.cause ?? '';
    case 'FailWorkflowExecutionFailed':
      return e.failWorkflowExecutionFailedEventAttributes?.cause ?? '';
    case 'CancelWorkflowExecutionFailed':
      return e.cancelWorkflowExecutionFailedEventAttributes?.cause ?? '';
    case 'ContinueAsNewWorkflowExecutionFailed':
      return e.continueAsNewWorkflowExecutionFailedEventAttributes?.cause ?? '';
    default:
      return undefined;
  }
}
