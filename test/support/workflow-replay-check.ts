/**
 * Replays every decision task of a recorded history with a workflow's code and lists where the
 * decisions differ from what the history recorded for that task: the check that replay is
 * deterministic, for golden histories and generated programs alike.
 */
import type { Decision, HistoryEvent, WorkflowExecution, WorkflowType } from '@aws-sdk/client-swf';
import { replayWorkflow, silentLogger, type WorkflowDefinition } from '../../lib/sdk/index.js';
import { isRecordOf } from '../../lib/sdk/workflow/commands.js';
import { answerOf } from '../../lib/sdk/workflow/history.js';

export interface RecordedRun {
  readonly workflowExecution: WorkflowExecution;
  readonly workflowType: WorkflowType;
  readonly events: readonly HistoryEvent[];
}

/**
 * For each DecisionTaskCompleted of the history: the decisions a replay of the events its task saw
 * gives, side by side with the events its answer recorded; one line per difference.
 */
export async function replayDifferences(
  definition: WorkflowDefinition,
  run: RecordedRun,
): Promise<string[]> {
  const differences: string[] = [];
  for (const completed of run.events.filter((e) => e.eventType === 'DecisionTaskCompleted')) {
    const startedEventId = completed.decisionTaskCompletedEventAttributes?.startedEventId ?? 0;
    const prefix = run.events.filter((e) => (e.eventId ?? 0) <= startedEventId);
    const outcome = await replayWorkflow(
      definition,
      { ...run, events: prefix, startedEventId },
      silentLogger,
    );
    const at = `decision task ${completed.eventId}`;
    if (outcome.kind !== 'decided') {
      differences.push(`${at}: ${outcome.error.message}`);
      continue;
    }
    const recorded = run.events.filter((e) => answerOf(e) === completed.eventId);
    differences.push(...compare(at, outcome.decisions, recorded));
  }
  return differences;
}

function compare(at: string, decisions: readonly Decision[], recorded: readonly HistoryEvent[]) {
  const lines: string[] = [];
  const count = Math.max(decisions.length, recorded.length);
  for (let i = 0; i < count; i++) {
    const want = recorded[i];
    const got = decisions[i];
    // A refusal (…Failed) holds no more than what was asked for: the replay cannot know SWF's answer.
    if (want !== undefined && got !== undefined && isRefusal(want) && isRecordOf(got, want))
      continue;
    const expected = want === undefined ? undefined : JSON.stringify(eventSide(want));
    const actual = got === undefined ? undefined : JSON.stringify(decisionSide(got));
    if (expected !== actual)
      lines.push(`${at}, #${i + 1}: recorded ${expected}, replayed ${actual}`);
  }
  return lines;
}

const isRefusal = (e: HistoryEvent) =>
  e.eventType !== 'WorkflowExecutionFailed' && e.eventType?.endsWith('Failed') === true;

/**
 * A side effect's value is whatever the live run got (replays take it from the marker, which the
 * later decision tasks' replays show): compared by name only.
 */
const markerDetails = (name: unknown, details: unknown) =>
  name === 'sdk:SideEffect' ? '(the side effect’s value)' : details;

/**
 * Each decision with the event that records it, and the members compared; a decision's attributes
 * and its event's share these names.
 */
const SIDES: readonly (readonly [string, string, readonly string[]])[] = [
  [
    'ScheduleActivityTask',
    'ActivityTaskScheduled',
    ['activityId', 'activityType', 'input', 'control'],
  ],
  ['RequestCancelActivityTask', 'ActivityTaskCancelRequested', ['activityId']],
  ['StartTimer', 'TimerStarted', ['timerId', 'startToFireTimeout']],
  ['CancelTimer', 'TimerCanceled', ['timerId']],
  ['RecordMarker', 'MarkerRecorded', ['markerName', 'details']],
  [
    'StartChildWorkflowExecution',
    'StartChildWorkflowExecutionInitiated',
    ['workflowId', 'workflowType', 'input'],
  ],
  [
    'SignalExternalWorkflowExecution',
    'SignalExternalWorkflowExecutionInitiated',
    ['workflowId', 'signalName', 'input'],
  ],
  [
    'RequestCancelExternalWorkflowExecution',
    'RequestCancelExternalWorkflowExecutionInitiated',
    ['workflowId'],
  ],
  ['ScheduleLambdaFunction', 'LambdaFunctionScheduled', ['id', 'name', 'input']],
  ['CompleteWorkflowExecution', 'WorkflowExecutionCompleted', ['result']],
  ['FailWorkflowExecution', 'WorkflowExecutionFailed', ['reason', 'details']],
  ['CancelWorkflowExecution', 'WorkflowExecutionCanceled', ['details']],
  ['ContinueAsNewWorkflowExecution', 'WorkflowExecutionContinuedAsNew', ['input']],
];

const lowerFirst = (type: string) => `${type.charAt(0).toLowerCase()}${type.slice(1)}`;

/** The compared members of `holder`'s attributes under `key`, labelled by the event type. */
function side(label: string, holder: object, key: string, members: readonly string[]): unknown[] {
  const attributes: unknown = Reflect.get(holder, key);
  const read = (member: string): unknown =>
    typeof attributes === 'object' && attributes !== null
      ? Reflect.get(attributes, member)
      : undefined;
  const values = members.map(read);
  if (label === 'MarkerRecorded') values[1] = markerDetails(values[0], values[1]);
  // A failure's details are compared by their first line (a stack's paths vary by machine).
  if (label === 'WorkflowExecutionFailed') values[1] = String(values[1]).split('\n')[0];
  return [label, ...values];
}

function decisionSide(d: Decision): unknown[] {
  const entry = SIDES.find(([decision]) => decision === d.decisionType);
  if (entry === undefined) return ['unknown decision', d.decisionType];
  const [decision, event, members] = entry;
  return side(event, d, `${lowerFirst(decision)}DecisionAttributes`, members);
}

function eventSide(e: HistoryEvent): unknown[] {
  const entry = SIDES.find(([, event]) => event === e.eventType);
  if (entry === undefined) return ['other event', e.eventType];
  const [, event, members] = entry;
  return side(event, e, `${lowerFirst(event)}EventAttributes`, members);
}
