/**
 * The outbox's visibility and retention effects (lib/core/outbox.ts): listing rows follow what a run
 * shows, and a closed run's items are marked to expire after its domain's retention.
 */
import type { ExecutionState } from '../core/execution-state.js';
import { expiryOf, retentionSeconds, visibilityWrites } from '../core/visibility.js';
import { epochSeconds } from '../ports/clock.js';
import type { OperationDeps } from './context.js';

const retentions = new WeakMap<object, Map<string, number>>();

/**
 * The retention of a run's domain in seconds. A domain is never deleted and its retention never
 * changes, so each registry's answers are kept for the life of the process.
 */
export async function domainRetention(deps: OperationDeps, domain: string): Promise<number> {
  let known = retentions.get(deps.registry);
  if (known === undefined) {
    known = new Map();
    retentions.set(deps.registry, known);
  }
  const cached = known.get(domain);
  if (cached !== undefined) return cached;
  const record = await deps.registry.getDomain(domain);
  if (record === undefined) return 0;
  const seconds = retentionSeconds(record.retentionPeriodInDays);
  known.set(domain, seconds);
  return seconds;
}

/**
 * Writes the rows of a change `before → after`, re-checked against the run as it is now, so a replayed
 * or late record leaves newer rows alone (see visibilityWrites).
 */
export async function syncVisibility(
  deps: OperationDeps,
  before: ExecutionState | undefined,
  after: ExecutionState,
): Promise<void> {
  const loaded = await deps.runs.loadRun(after.execution.runId);
  const needsRetention = after.status === 'CLOSED' || loaded?.state.status === 'CLOSED';
  const retention = needsRetention ? await domainRetention(deps, after.domain) : 0;
  const now = epochSeconds(deps.clock);
  const currentExpiry = loaded === undefined ? undefined : expiryOf(loaded.state, retention);
  const current =
    loaded === undefined || (currentExpiry !== undefined && currentExpiry <= now)
      ? undefined
      : loaded.state;
  const changes = visibilityWrites(before, after, current);
  if (changes.put.length === 0 && changes.remove.length === 0) return;
  await deps.visibility.apply(changes, expiryOf(after, retention));
}

/** Marks every item of a closed run to expire when its retention ends (idempotent). */
export async function expireClosedRun(deps: OperationDeps, run: ExecutionState): Promise<void> {
  const expiresAt = expiryOf(run, await domainRetention(deps, run.domain));
  if (expiresAt !== undefined) await deps.visibility.expireRun(run.execution.runId, expiresAt);
}
