import { epochSeconds } from '../ports/clock.js';
import type { DeadlineFire } from '../ports/deadline-scheduler.js';
import { fireRunDeadline, type OutboxDeps } from './outbox.js';

/** Early by more than this and a fire goes back on the queue for the rest of its wait. */
const EARLY_TOLERANCE_SECONDS = 0.5;

/** Parses a fire message body; anything else is not ours and is dropped. */
export function parseFire(body: string): DeadlineFire | undefined {
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value !== 'object' || value === null) return undefined;
    const { runId, key, at } = value as Record<string, unknown>;
    if (typeof runId !== 'string' || typeof key !== 'string' || typeof at !== 'number')
      return undefined;
    return { runId, key, at };
  } catch {
    return undefined;
  }
}

/**
 * One fire from the queue (functions/timer.ts). A schedule's fire arrives a minute early by design:
 * it is re-armed for the remainder. A due fire runs the deadline handler, which re-checks the state.
 */
export async function handleFire(
  deps: OutboxDeps,
  fire: DeadlineFire,
): Promise<'fired' | 'rearmed'> {
  if (fire.at - epochSeconds(deps.clock) > EARLY_TOLERANCE_SECONDS) {
    await deps.scheduler.arm(fire);
    return 'rearmed';
  }
  await fireRunDeadline(deps, fire);
  return 'fired';
}
