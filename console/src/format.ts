/** How the console writes times, durations, payloads and events. Pure. */
import { attributesOf, type Epoch, type HistoryEvent } from './swf.js';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A timestamp in the viewer's local time, to the millisecond: `2026-11-14 09:05:03.120`. */
export function formatTime(epoch: Epoch | undefined): string {
  if (epoch === undefined) return '';
  const d = new Date(epoch * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** A duration in the largest unit that reads well: `850 ms`, `12.4 s`, `3 min 5 s`, `2 h 10 min`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(ms)} ms`;
  if (abs < 60_000)
    return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(abs < 10_000 ? 2 : 1)} s`;
  const s = Math.round(ms / 1000);
  const two = (big: number, bigUnit: string, small: number, smallUnit: string) =>
    small === 0 ? `${big} ${bigUnit}` : `${big} ${bigUnit} ${small} ${smallUnit}`;
  if (abs < 3_600_000) return two(Math.floor(s / 60), 'min', s % 60, 's');
  if (abs < 86_400_000) return two(Math.floor(s / 3600), 'h', Math.floor((s % 3600) / 60), 'min');
  return two(Math.floor(s / 86_400), 'd', Math.floor((s % 86_400) / 3600), 'h');
}

/** A timeout as SWF gives it (seconds as text, or NONE). */
export function formatTimeout(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '—';
  if (value === 'NONE') return 'none';
  const seconds = Number(value);
  if (!Number.isFinite(seconds)) return value;
  const text = formatDuration(seconds * 1000);
  return text === `${value} s` ? text : `${text} (${value} s)`;
}

/** Text that is JSON (an object or array) pretty-printed; anything else as it is. */
export function prettyPayload(text: string): { text: string; json: boolean } {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return { text: JSON.stringify(JSON.parse(trimmed), null, 2), json: true };
    } catch {
      // Looked like JSON, is not: shown as sent.
    }
  }
  return { text, json: false };
}

/** One line of text, cut to `max` characters. */
export function clip(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

const typeText = (value: unknown) => {
  const t = value as { name?: string; version?: string } | undefined;
  return t?.name === undefined ? '' : `${t.name} v${t.version ?? ''}`;
};
const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The members worth a glance, per event type; the rest are in the expanded row. */
const SUMMARIES: Record<string, (a: Record<string, unknown>) => string[]> = {
  WorkflowExecutionStarted: (a) => [typeText(a.workflowType), `input ${text(a.input)}`],
  ActivityTaskScheduled: (a) => [
    typeText(a.activityType),
    `id ${text(a.activityId)}`,
    `input ${text(a.input)}`,
  ],
  ActivityTaskStarted: (a) => [`by ${text(a.identity)}`],
  ActivityTaskCompleted: (a) => [`result ${text(a.result)}`],
  ActivityTaskFailed: (a) => [`reason ${text(a.reason)}`, `details ${text(a.details)}`],
  ActivityTaskTimedOut: (a) => [text(a.timeoutType), `details ${text(a.details)}`],
  ActivityTaskCanceled: (a) => [`details ${text(a.details)}`],
  ActivityTaskCancelRequested: (a) => [`id ${text(a.activityId)}`],
  WorkflowExecutionSignaled: (a) => [text(a.signalName), `input ${text(a.input)}`],
  MarkerRecorded: (a) => [text(a.markerName), `details ${text(a.details)}`],
  TimerStarted: (a) => [`timer ${text(a.timerId)}`, `${text(a.startToFireTimeout)} s`],
  TimerFired: (a) => [`timer ${text(a.timerId)}`],
  TimerCanceled: (a) => [`timer ${text(a.timerId)}`],
  StartChildWorkflowExecutionInitiated: (a) => [
    typeText(a.workflowType),
    `id ${text(a.workflowId)}`,
  ],
  LambdaFunctionScheduled: (a) => [text(a.name), `id ${text(a.id)}`, `input ${text(a.input)}`],
  WorkflowExecutionCompleted: (a) => [`result ${text(a.result)}`],
  WorkflowExecutionFailed: (a) => [`reason ${text(a.reason)}`, `details ${text(a.details)}`],
  WorkflowExecutionTerminated: (a) => [text(a.cause), `reason ${text(a.reason)}`],
  WorkflowExecutionCanceled: (a) => [`details ${text(a.details)}`],
  DecisionTaskScheduled: (a) => [
    `list ${text((a.taskList as { name?: string } | undefined)?.name)}`,
  ],
  DecisionTaskStarted: (a) => [`by ${text(a.identity)}`],
};

/** A line about an event: its main members, the empty ones left out. */
export function eventSummary(event: HistoryEvent): string {
  const a = attributesOf(event);
  const pick = SUMMARIES[event.eventType];
  const parts = pick === undefined ? genericParts(a) : pick(a);
  return clip(
    parts
      .filter((part) => part !== '' && !/^(input|result|details|reason|by|id|list) $/.test(part))
      .join(' · '),
    160,
  );
}

function genericParts(a: Record<string, unknown>): string[] {
  return Object.entries(a)
    .filter(([name, value]) => typeof value === 'string' && !name.endsWith('EventId'))
    .map(([name, value]) => `${name} ${String(value)}`);
}

/** How an event's type reads as a state: for its colour in the history table. */
export function eventTone(eventType: string): 'good' | 'bad' | 'warn' | 'muted' | 'info' {
  if (/Failed$/.test(eventType)) return 'bad';
  if (/TimedOut$/.test(eventType)) return 'warn';
  if (/(Canceled|CancelRequested|Terminated)$/.test(eventType)) return 'muted';
  if (/(Completed|Fired)$/.test(eventType)) return 'good';
  return 'info';
}
