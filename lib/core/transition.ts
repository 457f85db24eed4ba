import type { ExecutionState } from './execution-state.js';
import type { HistoryEvent, NewEvent } from './history-event.js';
import { applyEvent } from './replay.js';

/**
 * A clock reading held at or after a run's latest event. What one run's event causes in another run (a
 * continued run, a child, a signalled target, a parent hearing of its child) is stamped no earlier than
 * its cause, though the process carrying it out may read a clock behind the one that wrote the cause.
 */
export const stampAfter = (cause: ExecutionState, now: number): number =>
  Math.max(now, cause.latestEventTimestamp ?? now);

/**
 * Appends events to an execution, one at a time, through the reducer: ids are contiguous, every event
 * carries the same timestamp (one transition happens at one instant), and `state` is always the replay
 * of the history plus these events.
 */
export class Transition {
  readonly events: HistoryEvent[] = [];
  /**
   * Epoch seconds the events are stamped with: the caller's clock, or the run's latest event when that
   * is later. A history's timestamps never go back (SWF lists them ascending by eventId and
   * eventTimestamp), though a writer may read its clock before another writer's commit lands (a retry
   * after losing the run to it) and the processes' clocks may differ.
   */
  readonly now: number;

  constructor(
    public state: ExecutionState,
    now: number,
  ) {
    this.now = stampAfter(state, now);
  }

  record(event: NewEvent): HistoryEvent {
    // Spreading a union loses the link between eventType and attributes that `event` already has.
    const full = {
      ...event,
      eventId: this.state.nextEventId,
      eventTimestamp: this.now,
    } as HistoryEvent;
    this.state = applyEvent(this.state, full);
    this.events.push(full);
    return full;
  }

  /**
   * Schedules the decision task an event has made owed, unless one is already scheduled or started
   * (then the owed task follows when that one completes or times out).
   */
  scheduleDecisionTaskIfOwed(): void {
    const s = this.state;
    if (s.status !== 'OPEN' || !s.decisionTaskOwed || s.decisionTask.status !== 'none') return;
    this.record({
      eventType: 'DecisionTaskScheduled',
      attributes: {
        taskList: s.decisionTaskList,
        taskPriority: s.config.taskPriority,
        startToCloseTimeout: s.config.taskStartToCloseTimeout,
        scheduleToStartTimeout: s.decisionTaskListTimeout ?? 'NONE',
      },
    });
  }
}
