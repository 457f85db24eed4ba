/**
 * The workflow the replay scenario decides, and the history SWF records for it, built event by
 * event as the service records a run of it (test/contract/workflow-bench-history.test.ts holds the
 * two to the same shape): a loop of activities, one in five with a side effect's marker before it,
 * one in seven steps a timer. Each step is its own decision task: the most steps for the events.
 */
import type { HistoryEvent } from '@aws-sdk/client-swf';
import { defineActivity, defineWorkflow } from '../lib/sdk/index.js';

export const REPLAY_ACTIVITIES = 'replay-bench-activities';

export const Double = defineActivity<number, number>('ReplayBenchDouble', '1', {
  taskList: REPLAY_ACTIVITIES,
  scheduleToStartTimeout: '1m',
  startToCloseTimeout: '1m',
  scheduleToCloseTimeout: '2m',
  heartbeatTimeout: 'NONE',
});

/** What step `i` (from 1) of the loop does. */
const stepKind = (i: number) => (i % 7 === 0 ? 'timer' : i % 5 === 0 ? 'marked' : 'activity');

export const replayBenchWorkflow = defineWorkflow(
  'ReplayBench',
  '1',
  async (ctx, steps: number) => {
    let total = 0;
    for (let i = 1; i <= steps; i++) {
      if (stepKind(i) === 'timer') await ctx.sleep(1);
      else {
        const n = stepKind(i) === 'marked' ? ctx.sideEffect(() => i) : i;
        total += await ctx.activity(Double, n);
      }
    }
    return total;
  },
  {
    taskList: 'replay-bench-decisions',
    executionStartToCloseTimeout: '1h',
    taskStartToCloseTimeout: '1m',
    childPolicy: 'TERMINATE',
  },
);

export interface BuiltHistory {
  readonly events: HistoryEvent[];
  readonly workflowExecution: { workflowId: string; runId: string };
  readonly workflowType: { name: string; version: string };
  /** The DecisionTaskStarted of the task to decide (the last event). */
  readonly startedEventId: number;
  /** Loop steps the history has completed. */
  readonly steps: number;
}

/**
 * The history of a run of `replayBenchWorkflow` with at most `maxEvents` events, ending with the
 * DecisionTaskStarted of the task that decides the next step; the run's input asks for more steps.
 */
export function replayBenchHistory(maxEvents: number): BuiltHistory {
  const b = new HistoryBuilder();
  b.add('WorkflowExecutionStarted', {
    input: JSON.stringify(1_000_000),
    workflowType: { name: replayBenchWorkflow.name, version: replayBenchWorkflow.version },
    taskList: { name: 'replay-bench-decisions' },
    executionStartToCloseTimeout: '3600',
    taskStartToCloseTimeout: '60',
    childPolicy: 'TERMINATE',
  });
  let started = b.decisionTask();
  let steps = 0;
  const counts = { activity: 0, timer: 0 };
  // A step's events: DecisionTaskCompleted, what it asked for and what came of it, a decision task.
  const eventsOf = (i: number) => ({ timer: 5, marked: 7, activity: 6 })[stepKind(i)];
  while (b.events.length + eventsOf(steps + 1) <= maxEvents) {
    steps++;
    const completed = b.add('DecisionTaskCompleted', started);
    const decided = { decisionTaskCompletedEventId: completed };
    if (stepKind(steps) === 'timer') {
      const timerId = String(++counts.timer);
      const timer = b.add('TimerStarted', { timerId, startToFireTimeout: '1', ...decided });
      b.add('TimerFired', { timerId, startedEventId: timer });
    } else {
      if (stepKind(steps) === 'marked')
        b.add('MarkerRecorded', {
          markerName: 'sdk:SideEffect',
          details: String(steps),
          ...decided,
        });
      b.activity(String(++counts.activity), steps, decided);
    }
    started = b.decisionTask();
  }
  return {
    events: b.events,
    workflowExecution: { workflowId: 'replay-bench', runId: 'replay-bench-run' },
    workflowType: { name: replayBenchWorkflow.name, version: replayBenchWorkflow.version },
    startedEventId: started.startedEventId,
    steps,
  };
}

class HistoryBuilder {
  readonly events: HistoryEvent[] = [];
  #time = Date.UTC(2025, 0, 1);

  add(eventType: string, attributes: Record<string, unknown>): number {
    const eventId = this.events.length + 1;
    this.#time += 7;
    const key = `${eventType.charAt(0).toLowerCase()}${eventType.slice(1)}EventAttributes`;
    this.events.push({
      eventId,
      eventType,
      eventTimestamp: new Date(this.#time),
      [key]: attributes,
    } as HistoryEvent);
    return eventId;
  }

  /** DecisionTaskScheduled and DecisionTaskStarted: what DecisionTaskCompleted names. */
  decisionTask(): { scheduledEventId: number; startedEventId: number } {
    const scheduledEventId = this.add('DecisionTaskScheduled', {
      taskList: { name: 'replay-bench-decisions' },
      startToCloseTimeout: '60',
    });
    const startedEventId = this.add('DecisionTaskStarted', { scheduledEventId, identity: 'bench' });
    return { scheduledEventId, startedEventId };
  }

  activity(activityId: string, n: number, decided: { decisionTaskCompletedEventId: number }): void {
    const scheduledEventId = this.add('ActivityTaskScheduled', {
      activityType: { name: Double.name, version: Double.version },
      activityId,
      input: JSON.stringify(n),
      taskList: { name: REPLAY_ACTIVITIES },
      scheduleToStartTimeout: '60',
      scheduleToCloseTimeout: '120',
      startToCloseTimeout: '60',
      heartbeatTimeout: 'NONE',
      taskPriority: '0',
      ...decided,
    });
    const startedEventId = this.add('ActivityTaskStarted', { scheduledEventId, identity: 'bench' });
    this.add('ActivityTaskCompleted', {
      scheduledEventId,
      startedEventId,
      result: JSON.stringify(n * 2),
    });
  }
}
