/** Reading and writing the golden histories of code workflows (in code/; the state-function goldens
 * of the testing kit sit beside it), and the shape two recordings of one scenario share. */
import { readFileSync, writeFileSync } from 'node:fs';
import type { HistoryEvent } from '@aws-sdk/client-swf';
import type { RecordedRun } from '../../support/workflow-replay-check.js';

/** Where the golden history of a scenario is kept. */
export const goldenFile = (name: string) => new URL(`./code/${name}.history.json`, import.meta.url);
const path = goldenFile;

export function readGolden(name: string): RecordedRun {
  const run: RecordedRun = JSON.parse(readFileSync(path(name), 'utf8'));
  const events = run.events.map((e) => ({
    ...e,
    eventTimestamp: new Date(String(e.eventTimestamp)),
  }));
  return { ...run, events };
}

export function writeGolden(name: string, run: RecordedRun): void {
  writeFileSync(path(name), `${JSON.stringify(run, null, 2)}\n`);
}

/**
 * What two recordings of a scenario must share: each event's type and the names it carries (of
 * activities, timers, markers, signals, causes), not its ids, times or values.
 */
export function shapeOf(events: readonly HistoryEvent[]): string[] {
  return events.map((e) => {
    const names = [
      e.activityTaskScheduledEventAttributes?.activityType?.name,
      e.timerStartedEventAttributes?.timerId,
      e.markerRecordedEventAttributes?.markerName,
      e.workflowExecutionSignaledEventAttributes?.signalName,
      e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name,
      e.lambdaFunctionScheduledEventAttributes?.name,
      e.activityTaskFailedEventAttributes?.reason,
      e.workflowExecutionFailedEventAttributes?.reason,
      e.childWorkflowExecutionFailedEventAttributes?.reason,
    ].filter((n) => n !== undefined);
    return [e.eventType, ...names].join(' ');
  });
}
