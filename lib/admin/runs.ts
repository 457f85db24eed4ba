import type { ExecutionState } from '../core/execution-state.js';
import type { HistoryEvent } from '../core/history-event.js';
import type { OutboxDeps } from '../operations/outbox.js';
import type { DeadlineFire } from '../ports/deadline-scheduler.js';
import type { RunStore } from '../ports/run-store.js';
import type { RunRef } from './args.js';

/** A run's stored state, as `run show` prints it. */
export interface StoredRun {
  readonly runId: string;
  /** The state item's attributes other than the packed state and recent events. */
  readonly item: Record<string, unknown>;
  readonly version: number;
  readonly state: ExecutionState;
  readonly recentEvents: readonly HistoryEvent[];
}

export interface RunAdminDeps {
  readonly runs: Pick<RunStore, 'loadRun' | 'findOpenRun'>;
  readonly runItem: (runId: string) => Promise<Record<string, unknown> | undefined>;
}

export type ShowOutcome =
  | { readonly outcome: 'found'; readonly run: StoredRun }
  | { readonly outcome: 'not-found'; readonly reason: string };

export async function showRun(deps: RunAdminDeps, ref: RunRef): Promise<ShowOutcome> {
  const runId =
    'runId' in ref ? ref.runId : await deps.runs.findOpenRun(ref.domain, ref.workflowId);
  const notOpen = () => `no open run of workflowId ${'workflowId' in ref ? ref.workflowId : ''}`;
  if (runId === undefined) return { outcome: 'not-found', reason: notOpen() };
  const [loaded, item] = await Promise.all([deps.runs.loadRun(runId), deps.runItem(runId)]);
  if (loaded === undefined || item === undefined)
    return { outcome: 'not-found', reason: `no run ${runId} (or past its retention)` };
  // A workflowId's pointer stays on its last run after the close: that run is not open.
  if ('workflowId' in ref && loaded.state.status !== 'OPEN')
    return { outcome: 'not-found', reason: `${notOpen()} (its last run ${runId} is closed)` };
  const run = {
    runId,
    item,
    version: loaded.version,
    state: loaded.state,
    recentEvents: loaded.recentEvents ?? [],
  };
  return { outcome: 'found', run };
}

/** Arms a run's pending fire again (its alarm), or says what it would arm on a dry run. */
export type RearmRun = (
  deps: OutboxDeps,
  runId: string,
  options?: { dryRun?: boolean },
) => Promise<DeadlineFire | undefined>;

export type RearmOutcome =
  | { readonly outcome: 'not-found' | 'closed' | 'nothing-due'; readonly runId: string }
  | {
      readonly outcome: 'would-arm' | 'armed';
      readonly runId: string;
      readonly fire: DeadlineFire;
    };

export async function rearm(
  outbox: OutboxDeps,
  rearmRun: RearmRun,
  runId: string,
  dryRun: boolean,
): Promise<RearmOutcome> {
  const loaded = await outbox.runs.loadRun(runId);
  if (loaded === undefined) return { outcome: 'not-found', runId };
  if (loaded.state.status !== 'OPEN') return { outcome: 'closed', runId };
  const fire = await rearmRun(outbox, runId, { dryRun });
  if (fire === undefined) return { outcome: 'nothing-due', runId };
  return { outcome: dryRun ? 'would-arm' : 'armed', runId, fire };
}
