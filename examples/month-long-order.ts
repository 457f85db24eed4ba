/**
 * `npm run example -- month-long-order`: an order that takes five weeks (a 30-day return window, a
 * week's wait for a confirmation that never comes, a card charge retried for hours while the bank is
 * down) runs in a time-skipping test environment in a few seconds. It starts its own service
 * in-process (no `npm start` needed) and prints the history's virtual times, then the virtual and the
 * wall-clock duration.
 */
import type { HistoryEvent } from '@aws-sdk/client-swf';
import { TestEnvironment } from '../lib/testing/index.js';
import {
  CHARGE_CARD,
  MONTH_LONG_ORDER,
  monthLongOrderActivities,
  monthLongOrderDecider,
} from './month-long-order-workflow.js';
import { check, type ExampleOptions } from './support.js';

export async function main(options: Partial<ExampleOptions> = {}): Promise<void> {
  const print = options.print ?? console.log;
  const env = await TestEnvironment.create({
    timeSkipping: true,
    ...(options.dynamoEndpoint === undefined ? {} : { dynamoEndpoint: options.dynamoEndpoint }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  try {
    await env.registerWorkflowType(MONTH_LONG_ORDER);
    await env.registerActivityType(CHARGE_CARD);
    const charges: string[] = [];
    env.startDecider({ taskList: 'orders', decider: monthLongOrderDecider('charges') });
    env.startActivityWorker({ taskList: 'charges', activities: monthLongOrderActivities(charges) });
    const wallStart = performance.now();
    const run = await env.startWorkflow({
      workflowType: MONTH_LONG_ORDER,
      workflowId: 'order-1001',
      taskList: { name: 'orders' },
    });
    const closed = await env.awaitClose(run);
    const wallMs = performance.now() - wallStart;
    print(`${run.workflowId}: ${closed.closeStatus}, result "${closed.result}"`);
    for (const line of timeline(closed.events)) print(`  ${line}`);
    for (const line of charges) print(`  ChargeCard ${line}`);
    const virtualMs = closed.closedAt.getTime() - startOf(closed.events);
    print(`virtual time: ${describeDuration(virtualMs)}`);
    print(`wall-clock time: ${(wallMs / 1000).toFixed(1)} s`);
    check(closed.closeStatus === 'COMPLETED', `the order closed ${closed.closeStatus}`);
    check(virtualMs > 37 * 86_400_000, 'the order took more than 37 days of virtual time');
  } finally {
    await env.close();
  }
}

const startOf = (events: readonly HistoryEvent[]) => events[0]?.eventTimestamp?.getTime() ?? 0;

/** The events that mark the workflow's progress, each with its virtual time since the start. */
function timeline(events: readonly HistoryEvent[]): string[] {
  const start = startOf(events);
  const shown = new Set([
    'WorkflowExecutionStarted',
    'TimerStarted',
    'TimerFired',
    'ActivityTaskScheduled',
    'ActivityTaskFailed',
    'ActivityTaskCompleted',
    'WorkflowExecutionCompleted',
  ]);
  return events
    .filter((e) => shown.has(e.eventType ?? ''))
    .map((e) => {
      const at = `+${describeDuration((e.eventTimestamp?.getTime() ?? start) - start)}`;
      const what = e.timerStartedEventAttributes?.timerId ?? e.timerFiredEventAttributes?.timerId;
      return `${at.padEnd(20)} ${e.eventType}${what === undefined ? '' : ` ${what}`}`;
    });
}

/** `37 d 19 h 0 min 1 s`, leaving out the leading units that are 0. */
export function describeDuration(ms: number): string {
  const total = Math.floor(ms / 1000);
  const parts: [number, string][] = [
    [Math.floor(total / 86_400), 'd'],
    [Math.floor((total % 86_400) / 3_600), 'h'],
    [Math.floor((total % 3_600) / 60), 'min'],
    [total % 60, 's'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  return parts
    .slice(first === -1 ? 3 : first)
    .map(([n, unit]) => `${n} ${unit}`)
    .join(' ');
}
