/**
 * The way back from a lost fire. Each open run keeps one fire armed, at its alarm (see withAlarm): a
 * fire that never comes (its message dead-lettered, its schedule undelivered, the stream record that
 * armed it given up) would leave the run stuck for good. A reconciler pass reads every open run, found
 * through the open-execution rows the visibility listings already keep (Queries, never a Scan: closed
 * runs cost it nothing), and arms again each alarm past due by more than a fire is ever late; the fire
 * then does what the lost one would have. Arming twice is harmless: a fire re-reads the run, and a
 * stale one records nothing. What a pass costs is in docs/operations.md.
 */
import { pendingFire } from '../core/deadlines.js';
import { type DomainRecord, RegistrationStatus } from '../core/registry.js';
import { PendingTaskTally } from '../core/swf-metrics.js';
import { retentionSeconds } from '../core/visibility.js';
import { epochSeconds } from '../ports/clock.js';
import type { DeadlineFire } from '../ports/deadline-scheduler.js';
import type { OperationDeps } from './context.js';
import type { OutboxDeps } from './outbox.js';

/** How late a fire may come before it is taken as lost (fires come within seconds). */
export const DEFAULT_GRACE_SECONDS = 5 * 60;
/** What the reconciler function logs for each fire it arms again (the stack alarms on the line). */
export const LOST_FIRE_LINE = 'lost fire armed again';
/** Runs read at once. */
const CONCURRENCY = 16;
/** Rows and domains read per Query. */
const PAGE = 1_000;

export interface ReconcileOptions {
  readonly graceSeconds?: number;
  /** Report what would be armed, arm nothing. */
  readonly dryRun?: boolean;
}

export interface ReconcileReport {
  /** Open runs read. */
  readonly examined: number;
  /** Fires armed again (or, in a dry run, that would be). */
  readonly rearmed: readonly DeadlineFire[];
}

/**
 * One pass: every open run whose fire is overdue gets it armed again. From the same reads, SWF's
 * PendingTasks of every task list with tasks waiting goes to the metrics (deployed, the pass is
 * what measures the backlog of lists no process watches).
 */
export async function reconcileDeadlines(
  deps: OutboxDeps,
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const cutoff = epochSeconds(deps.clock) - (options.graceSeconds ?? DEFAULT_GRACE_SECONDS);
  const rearmed: DeadlineFire[] = [];
  const pending = new PendingTaskTally();
  let examined = 0;
  const runIds = openRunIds(deps);
  const worker = async () => {
    for (let next = await runIds.next(); next.done !== true; next = await runIds.next()) {
      const state = (await deps.runs.loadRun(next.value))?.state;
      if (state === undefined) continue;
      examined++;
      pending.add(state);
      const fire = pendingFire(state);
      if (fire === undefined || fire.at > cutoff) continue;
      if (options.dryRun !== true) await deps.scheduler.arm(fire);
      rearmed.push(fire);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  deps.metrics?.record(pending.samples());
  return { examined, rearmed };
}

/** Arms a run's pending fire again, due or not (the admin CLI's `run rearm`). */
export async function rearmRun(
  deps: OutboxDeps,
  runId: string,
  options: { readonly dryRun?: boolean } = {},
): Promise<DeadlineFire | undefined> {
  const fire = await dueFire(deps, runId);
  if (fire !== undefined && options.dryRun !== true) await deps.scheduler.arm(fire);
  return fire;
}

async function dueFire(deps: OperationDeps, runId: string): Promise<DeadlineFire | undefined> {
  const state = (await deps.runs.loadRun(runId))?.state;
  return state === undefined ? undefined : pendingFire(state);
}

/**
 * The runIds of every open run: the open rows of each domain, registered or deprecated. One iterator
 * shared by the pass's workers (an async generator runs one `next` at a time).
 */
async function* openRunIds(deps: OperationDeps): AsyncGenerator<string> {
  for await (const domain of everyDomain(deps)) {
    let after: string | undefined;
    do {
      const page = await deps.visibility.list(
        {
          domain: domain.name,
          list: 'open',
          filter: { kind: 'all' },
          range: { oldest: 0 },
          retention: retentionSeconds(domain.retentionPeriodInDays),
        },
        { limit: PAGE, reverse: true, ...(after === undefined ? {} : { after }) },
      );
      for (const info of page.infos) yield info.execution.runId;
      after = page.next;
    } while (after !== undefined);
  }
}

async function* everyDomain(deps: OperationDeps): AsyncGenerator<DomainRecord> {
  for (const status of Object.values(RegistrationStatus)) {
    let after: string | undefined;
    do {
      const page = await deps.registry.listDomains(status, {
        limit: PAGE,
        reverse: false,
        ...(after === undefined ? {} : { after }),
      });
      yield* page.items;
      after = page.next;
    } while (after !== undefined);
  }
}
