import {
  childAlreadyRunning,
  childClosed,
  childConfig,
  childStarted,
} from '../../core/cross-execution.js';
import { executionTimedOutBy } from '../../core/deadlines.js';
import type { ExecutionState } from '../../core/execution-state.js';
import { requestCancelExecution, startRun, terminateExecution } from '../../core/executions.js';
import { UnknownResourceFault } from '../../core/faults.js';
import { queueChanges } from '../../core/task-queue.js';
import { stampAfter } from '../../core/transition.js';
import { epochSeconds } from '../../ports/clock.js';
import type { OutboxDeps } from '../outbox.js';
import {
  continuedAsNew,
  MAX_CONTINUED_HOPS,
  mutateRun,
  startStampedAfterClose,
} from '../run-mutation.js';
import { commitPair } from './commit-pair.js';

/** Starts the child run and records ChildWorkflowExecutionStarted in the parent, in one transaction. */
export async function startChild(
  deps: OutboxDeps,
  parentRunId: string,
  initiatedEventId: number,
): Promise<void> {
  const childRunId = deps.ids.runId();
  const { result: outcome, now } = await startStampedAfterClose(
    deps,
    (now) => startChildAt(deps, parentRunId, initiatedEventId, childRunId, now),
    (tried) => (tried.result === 'already-open' ? tried : undefined),
  );
  if (outcome.result !== 'already-open') return;
  await mutateRun(deps, parentRunId, ({ state }) => {
    const t = childAlreadyRunning(state, initiatedEventId, now);
    return t === undefined
      ? { write: false, result: undefined }
      : { write: true, result: undefined, state: t.state, events: t.events };
  });
}

/** One try of startChild, its runs stamped `now`. */
async function startChildAt(
  deps: OutboxDeps,
  parentRunId: string,
  initiatedEventId: number,
  childRunId: string,
  now: number,
): Promise<{
  result: 'committed' | 'nothing' | 'already-open';
  domain: string;
  workflowId: string;
}> {
  let target = { domain: '', workflowId: '' };
  const result = await commitPair(deps, [parentRunId, parentRunId], (parent) => {
    const entry = parent.state.children[String(initiatedEventId)];
    const initiated = entry?.initiated;
    if (entry === undefined || initiated === undefined) return undefined;
    const execution = { workflowId: entry.workflowId, runId: childRunId };
    target = { domain: parent.state.domain, workflowId: entry.workflowId };
    // The child starts no earlier than its parent initiated it (the parent's clock may be ahead).
    const at = stampAfter(parent.state, now);
    const started = childStarted(parent.state, initiatedEventId, execution, at);
    if (started === undefined) return undefined;
    const child = startRun(
      {
        domain: parent.state.domain,
        execution,
        workflowType: entry.workflowType,
        config: childConfig(initiated),
        ...(initiated.input === undefined ? {} : { input: initiated.input }),
        ...(initiated.tagList === undefined ? {} : { tagList: initiated.tagList }),
        parent: { execution: parent.state.execution, initiatedEventId },
      },
      at,
    );
    return {
      a: started,
      created: {
        state: child.state,
        events: child.events,
        queue: queueChanges(undefined, child.state),
      },
    };
  });
  return { result, ...target };
}

export async function notifyParent(deps: OutboxDeps, child: ExecutionState): Promise<void> {
  const parentRunId = child.parent?.execution.runId;
  if (parentRunId === undefined) return;
  const now = epochSeconds(deps.clock);
  await mutateRun(deps, parentRunId, ({ state }) => {
    const t = childClosed(state, child, stampAfter(child, now));
    return t === undefined
      ? { write: false, result: undefined }
      : { write: true, result: undefined, state: t.state, events: t.events };
  }).catch(ignoreMissingRun);
}

/**
 * TERMINATE ends each open child (its own child policy then applies to its children); REQUEST_CANCEL
 * asks each to cancel, once. A child that continued as new is reached through its workflowId.
 */
export async function applyChildPolicy(
  deps: OutboxDeps,
  parent: ExecutionState,
  policy: 'TERMINATE' | 'REQUEST_CANCEL',
  children: readonly { readonly workflowId: string }[],
): Promise<void> {
  // What the policy does to a child is no earlier than the parent's close.
  const now = stampAfter(parent, epochSeconds(deps.clock));
  for (const child of children) {
    // A child that continues as new meanwhile is followed to its new run (a few times at most).
    for (let hop = 0; hop < MAX_CONTINUED_HOPS; hop++) {
      const runId = await deps.runs.findOpenRun(parent.domain, child.workflowId);
      if (runId === undefined) break;
      const continued = await mutateRun(deps, runId, ({ state }) => {
        const ours = state.parent?.execution.runId === parent.execution.runId;
        if (state.status !== 'OPEN' || !ours) {
          return { write: false, result: ours && continuedAsNew(state) };
        }
        if (policy === 'REQUEST_CANCEL' && state.cancelRequested)
          return { write: false, result: false };
        // Past its own timeout, its fire not come: it has timed out, and its fire records that.
        if (executionTimedOutBy(state, now)) return { write: false, result: false };
        const t =
          policy === 'TERMINATE'
            ? terminateExecution(
                state,
                { childPolicy: state.config.childPolicy, cause: 'CHILD_POLICY_APPLIED' },
                now,
              )
            : requestCancelExecution(state, { cause: 'CHILD_POLICY_APPLIED' }, now);
        return { write: true, result: false, state: t.state, events: t.events };
      }).catch((error: unknown) => ignoreMissingRun(error) ?? false);
      if (!continued) break;
    }
  }
}

const ignoreMissingRun = (error: unknown) => {
  if (error instanceof UnknownResourceFault) return;
  throw error;
};
