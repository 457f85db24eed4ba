/**
 * Waiting helpers for contract tests of timers and timeouts: polls that keep polling until a task
 * arrives (the test server's long poll is kept short), and lateness of an event against a deadline.
 */
import {
  CountPendingActivityTasksCommand,
  CountPendingDecisionTasksCommand,
  type HistoryEvent,
} from '@aws-sdk/client-swf';
import { at, type StartedDecisionTask, type SwfDriver, sleep } from './decider.js';

/** Polls for a decision task until one comes, for at most `withinMs`. */
export function awaitDecision(
  driver: SwfDriver,
  taskList: string,
  withinMs = 6_000,
): Promise<StartedDecisionTask> {
  return driver.pollDecision(taskList, {}, withinMs);
}

/** Reads the history until `done` holds, for at most `withinMs`. */
export async function awaitHistory(
  driver: SwfDriver,
  execution: { workflowId: string; runId: string },
  done: (events: HistoryEvent[]) => boolean,
  withinMs = 6_000,
): Promise<HistoryEvent[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const events = await driver.history(execution);
    if (done(events)) return events;
    if (Date.now() > deadline) {
      const types = events.map((e) => e.eventType).join(', ');
      throw new Error(`history not as awaited within ${withinMs} ms: ${types}`);
    }
    await sleep(50);
  }
}

/** Milliseconds between `event` and `reference` + `seconds`: how late an event came after its deadline. */
export const latenessMs = (
  event: HistoryEvent | undefined,
  reference: HistoryEvent | undefined,
  seconds: number,
) => at(event) - at(reference) - seconds * 1000;

export async function pendingActivities(driver: SwfDriver, taskList: string): Promise<number> {
  const out = await driver.swf.send(
    new CountPendingActivityTasksCommand({ domain: driver.domain, taskList: { name: taskList } }),
  );
  return out.count ?? -1;
}

export async function pendingDecisions(driver: SwfDriver, taskList: string): Promise<number> {
  const out = await driver.swf.send(
    new CountPendingDecisionTasksCommand({ domain: driver.domain, taskList: { name: taskList } }),
  );
  return out.count ?? -1;
}

/** The p-th percentile (0–100) of some numbers, nearest-rank. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? Number.NaN;
}
