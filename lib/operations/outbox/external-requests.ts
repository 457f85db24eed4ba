import {
  externalRequestArrival,
  externalRequestOutcome,
  externalRequestToSelf,
} from '../../core/cross-execution.js';
import { executionTimedOutBy } from '../../core/deadlines.js';
import { stampAfter } from '../../core/transition.js';
import { epochSeconds } from '../../ports/clock.js';
import type { OutboxDeps } from '../outbox.js';
import { continuedAsNew, MAX_CONTINUED_HOPS } from '../run-mutation.js';
import { commitPair } from './commit-pair.js';

/** A signal or cancel request to another execution: both histories change in one transaction, or neither. */
export async function deliverExternal(
  deps: OutboxDeps,
  sourceRunId: string,
  initiatedEventId: number,
): Promise<void> {
  const source = await deps.runs.loadRun(sourceRunId);
  const request = source?.state.externalRequests[String(initiatedEventId)];
  if (source === undefined || request === undefined) return;
  const now = epochSeconds(deps.clock);
  // A request by workflowId whose run continues as new meanwhile is carried to the new run (a few
  // runs at most), as it would have been a moment later.
  for (let hop = 0; hop < MAX_CONTINUED_HOPS; hop++) {
    const targetRunId =
      request.runId ?? (await deps.runs.findOpenRun(source.state.domain, request.workflowId));
    let retarget = false;
    await commitPair(deps, [sourceRunId, targetRunId ?? sourceRunId], (src, tgt) => {
      const target = targetRunId === undefined ? undefined : tgt?.state;
      // A target past its own timeout, its fire not come, has timed out: it takes no request, as
      // the API's signals and cancel requests are refused then (see executionTimedOutBy).
      const reachable =
        target !== undefined &&
        target.status === 'OPEN' &&
        target.domain === src.state.domain &&
        target.execution.workflowId === request.workflowId &&
        (target.execution.runId === src.state.execution.runId ||
          !executionTimedOutBy(target, stampAfter(src.state, now)));
      if (!reachable) {
        if (
          request.runId === undefined &&
          target !== undefined &&
          continuedAsNew(target) &&
          hop + 1 < MAX_CONTINUED_HOPS
        ) {
          retarget = true;
          return undefined;
        }
        const failed = externalRequestOutcome(src.state, initiatedEventId, undefined, now);
        return failed === undefined ? undefined : { a: failed };
      }
      if (target.execution.runId === src.state.execution.runId) {
        const self = externalRequestToSelf(src.state, initiatedEventId, now);
        return self === undefined ? undefined : { a: self };
      }
      const arrival = externalRequestArrival(
        target,
        src.state,
        initiatedEventId,
        stampAfter(src.state, now),
      );
      // The sender learns of the arrival no earlier than the target recorded it (its history may be
      // ahead of this clock reading).
      const heard = arrival?.now ?? now;
      const outcome = externalRequestOutcome(src.state, initiatedEventId, target.execution, heard);
      return arrival === undefined || outcome === undefined
        ? undefined
        : { a: outcome, b: arrival };
    });
    if (!retarget) return;
  }
}
