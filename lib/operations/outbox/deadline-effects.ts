import { deadlines, fireDue, type HeartbeatInfo, isCurrentAlarm } from '../../core/deadlines.js';
import type { ExecutionState } from '../../core/execution-state.js';
import { UnknownResourceFault } from '../../core/faults.js';
import { epochSeconds } from '../../ports/clock.js';
import type { DeadlineFire } from '../../ports/deadline-scheduler.js';
import type { OutboxDeps } from '../outbox.js';
import { mutateRun } from '../run-mutation.js';
import { sleep } from '../sleep.js';

/** How early a fire may arrive and still wait for its deadline instead of re-arming. */
const MAX_EARLY_WAIT_MS = 1_000;

/**
 * Disarms an alarm the run no longer needs. One that a sooner alarm overtook is left if the run has set
 * it again since (that alarm fired and the alarm moved back to it, which its change's record armed
 * anew): a record handled late, or again, must not take away a deadline the run still has. A closed
 * run sets no alarm again.
 */
export async function disarmAlarm(
  deps: OutboxDeps,
  fire: DeadlineFire,
  closed: boolean,
): Promise<void> {
  const armedAgain = async () => {
    if (closed) return false;
    const current = (await deps.runs.loadRun(fire.runId))?.state;
    const alarm = current?.status === 'OPEN' ? current.alarm : undefined;
    return alarm !== undefined && alarm.key === fire.key && alarm.at === fire.at;
  };
  try {
    await deps.scheduler.disarm({ runId: fire.runId, key: fire.key, at: fire.at }, armedAgain);
  } catch (error) {
    // Only a saving: the fire, if it comes, finds nothing to do. The record's other effects go on.
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    console.warn(JSON.stringify({ level: 'warn', message: 'disarm failed', ...fire, reason }));
  }
}

/**
 * A run's alarm fired: every deadline of the run due by now fires (its event recorded), and the alarm
 * moves to the earliest deadline left, which the commit's outbox record arms. A fire for an earlier
 * time than the run's alarm was overtaken (a duplicate, or the alarm moved since) and does nothing.
 */
export async function fireRunDeadline(deps: OutboxDeps, fire: DeadlineFire): Promise<void> {
  let firstAt: number | undefined;
  const early = await mutateRun(deps, fire.runId, async ({ state }) => {
    if (!isCurrentAlarm(state, fire.at)) return { write: false, result: false };
    // A fire handed over a little early has read the run already; it waits out the rest here, so the
    // event is recorded the moment the deadline passes rather than a store read later.
    const wait = fire.at * 1000 - deps.clock.now();
    if (wait > 0 && wait <= MAX_EARLY_WAIT_MS) await sleep(wait);
    // A fire that lost a race (a signal committed to the run at the same moment) is recorded when it
    // was first processed, or just after what the winner recorded: the race makes it neither late nor
    // out of order.
    const now = epochSeconds(deps.clock);
    firstAt ??= now;
    const at = Math.min(now, Math.max(firstAt, state.latestEventTimestamp ?? 0));
    if (fire.at > at) return { write: false, result: true };
    const due = fireDue(state, at, await dueHeartbeats(deps, state, at));
    if (!due.changed) return { write: false, result: false };
    return { write: true, result: false, state: due.state, events: [...due.events] };
  }).catch((error: unknown) => {
    // A run that no longer exists (expired with its retention) has nothing left to fire.
    if (error instanceof UnknownResourceFault) return false;
    throw error;
  });
  // Too early to wait for here: the same fire again at its time.
  if (early) await deps.scheduler.arm(fire);
}

/**
 * The latest heartbeat of each activity with a deadline due by `now`: a HEARTBEAT deadline is pushed by
 * it, and every activity timeout carries its details.
 */
async function dueHeartbeats(
  deps: OutboxDeps,
  state: ExecutionState,
  now: number,
): Promise<Map<number, HeartbeatInfo>> {
  const ids = new Set<number>();
  for (const d of deadlines(state))
    if (d.at <= now && d.subject.kind === 'activity') ids.add(d.subject.scheduledEventId);
  const heartbeats = new Map<number, HeartbeatInfo>();
  await Promise.all(
    [...ids].map(async (id) => {
      const heartbeat = await deps.heartbeats.getHeartbeat(state.execution.runId, id);
      if (heartbeat !== undefined) heartbeats.set(id, heartbeat);
    }),
  );
  return heartbeats;
}
