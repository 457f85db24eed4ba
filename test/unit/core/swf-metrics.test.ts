import { describe, expect, it } from 'vitest';
import { fireDue } from '../../../lib/core/deadlines.js';
import type { ExecutionState } from '../../../lib/core/execution-state.js';
import type { HistoryEvent } from '../../../lib/core/history-event.js';
import {
  commitMetrics,
  type MetricSample,
  PendingTaskTally,
  throttledEvent,
} from '../../../lib/core/swf-metrics.js';
import {
  cancelActivity,
  cancelWorkflow,
  completeWorkflow,
  continueAsNew,
  DOMAIN,
  failWorkflow,
  RunDriver,
  scheduleActivity,
  T0,
} from '../../support/core-builders.js';

/**
 * A driven run whose every commit is metered as the service meters it: the metrics of the events
 * the commit appended, over the state before and after it. The driver's clock moves 1 s per call.
 */
class MeteredRun {
  readonly run = new RunDriver();
  readonly samples: MetricSample[] = [];

  commit(act: (run: RunDriver) => readonly HistoryEvent[] | { events: HistoryEvent[] }) {
    const before = this.run.state;
    const result = act(this.run);
    const events = 'events' in result ? result.events : result;
    this.samples.push(...commitMetrics(before, this.run.state, events));
  }

  /** The run's deadlines due at `at` fire, as the timer function fires them. */
  fireAt(at: number) {
    this.commit((run) => {
      const fired = fireDue(run.state, at, new Map());
      run.state = fired.state;
      run.history.push(...fired.events);
      return fired.events;
    });
  }

  values(name: MetricSample['name']): number[] {
    return this.samples.filter((s) => s.name === name).map((s) => s.value);
  }

  count(name: MetricSample['name']): number {
    return this.values(name).reduce((a, b) => a + b, 0);
  }
}

const workflow = { Domain: DOMAIN, WorkflowTypeName: 'main', WorkflowTypeVersion: '1' };
const activity = { Domain: DOMAIN, ActivityTypeName: 'full', ActivityTypeVersion: '1' };

describe("SWF's metrics of a commit", () => {
  it('measures each time between the events SWF names, in ms, by type', () => {
    const m = new MeteredRun(); // started, decision task scheduled at T0
    m.commit((run) => run.startDecisionTask()); // T0+1
    m.commit((run) => run.respond([scheduleActivity('verify')])); // T0+2
    m.commit((run) => run.startActivity('verify')); // T0+3
    m.commit((run) => run.closeActivity('verify')); // T0+4, a decision task scheduled
    m.commit((run) => run.decide([completeWorkflow('ok')])); // started T0+5, completed T0+6

    expect(m.values('DecisionTaskScheduleToStartTime')).toEqual([1000, 1000]);
    expect(m.values('DecisionTaskStartToCloseTime')).toEqual([1000, 1000]);
    expect(m.count('DecisionTasksCompleted')).toBe(2);
    expect(m.values('ActivityTaskScheduleToStartTime')).toEqual([1000]);
    expect(m.values('ActivityTaskStartToCloseTime')).toEqual([1000]);
    expect(m.values('ActivityTaskScheduleToCloseTime')).toEqual([2000]);
    expect(m.count('ActivityTasksCompleted')).toBe(1);
    expect(m.count('WorkflowsCompleted')).toBe(1);
    expect(m.values('WorkflowStartToCloseTime')).toEqual([6000]);
    for (const s of m.samples) {
      const expected = s.name.startsWith('Activity') ? activity : workflow;
      expect(s.dimensions, s.name).toEqual(expected);
    }
  });

  it('counts a failed activity and a failed workflow', () => {
    const m = new MeteredRun();
    m.commit((run) => run.decide([scheduleActivity('charge')]));
    m.commit((run) => run.startActivity('charge'));
    m.commit((run) => run.closeActivity('charge', { kind: 'failed', reason: 'declined' }));
    m.commit((run) => run.decide([failWorkflow('declined')]));
    expect(m.count('ActivityTasksFailed')).toBe(1);
    expect(m.values('ActivityTaskStartToCloseTime')).toEqual([1000]);
    expect(m.count('WorkflowsFailed')).toBe(1);
    expect(m.count('WorkflowsCompleted')).toBe(0);
  });

  it('counts a cancelled activity, started or not, and a cancelled workflow', () => {
    const m = new MeteredRun();
    m.commit((run) => run.decide([scheduleActivity('ship'), scheduleActivity('record')]));
    m.commit((run) => run.startActivity('ship'));
    m.commit((run) => run.requestCancel());
    // record never started: cancelling it closes it at once, with no start-to-close time
    m.commit((run) => run.decide([cancelActivity('ship'), cancelActivity('record')]));
    m.commit((run) => run.closeActivity('ship', { kind: 'canceled', details: 'stopped' }));
    m.commit((run) => run.decide([cancelWorkflow('cancelled')]));
    expect(m.count('ActivityTasksCanceled')).toBe(2);
    expect(m.values('ActivityTaskScheduleToCloseTime')).toHaveLength(2);
    expect(m.values('ActivityTaskStartToCloseTime')).toEqual([4000]); // started T0+3, closed T0+7
    expect(m.count('WorkflowsCanceled')).toBe(1);
  });

  it('names a termination by its cause, and a call that gives none OPERATOR_INITIATED', () => {
    const operator = new MeteredRun();
    operator.commit((run) => run.terminate({ reason: 'stop' }));
    const limit = new MeteredRun();
    limit.commit((run) => run.terminate({ cause: 'EVENT_LIMIT_EXCEEDED' }));
    const [byOperator] = operator.samples.filter((s) => s.name === 'WorkflowsTerminated');
    const [byLimit] = limit.samples.filter((s) => s.name === 'WorkflowsTerminated');
    expect(byOperator?.dimensions).toEqual({ Cause: 'OPERATOR_INITIATED', ...workflow });
    expect(byLimit?.dimensions).toEqual({ Cause: 'EVENT_LIMIT_EXCEEDED', ...workflow });
    expect(operator.values('WorkflowStartToCloseTime')).toEqual([1000]);
  });

  it('counts a run continued as new, not its successor', () => {
    const m = new MeteredRun();
    m.commit((run) => run.decide([continueAsNew()]));
    expect(m.count('WorkflowsContinuedAsNew')).toBe(1);
    expect(m.values('WorkflowStartToCloseTime')).toEqual([2000]);
  });

  it('counts each kind of activity timeout under its own metric', () => {
    const timeouts = { scheduleToStartTimeout: '5', scheduleToCloseTimeout: '100' };
    const each = {
      onStart: { ...timeouts },
      onClose: { scheduleToStartTimeout: '50', scheduleToCloseTimeout: '8' },
      started: { ...timeouts, startToCloseTimeout: '6', heartbeatTimeout: '50' },
      heartbeat: { ...timeouts, startToCloseTimeout: '60', heartbeatTimeout: '4' },
    };
    const m = new MeteredRun();
    m.commit((run) => run.decide(Object.entries(each).map(([id, t]) => scheduleActivity(id, t)))); // scheduled at T0+2
    m.commit((run) => run.startActivity('started')); // T0+3
    m.commit((run) => run.startActivity('heartbeat')); // T0+4
    for (const due of [7, 8, 9, 10]) m.fireAt(T0 + due); // each fire when its deadline falls due
    expect(m.count('ScheduledActivityTasksTimedOutOnStart')).toBe(1);
    expect(m.count('ScheduledActivityTasksTimedOutOnClose')).toBe(1);
    expect(m.count('StartedActivityTasksTimedOutOnClose')).toBe(1);
    expect(m.count('StartedActivityTasksTimedOutOnHeartbeat')).toBe(1);
    // Each closed: its schedule-to-close time; the two started ones also their start-to-close.
    expect(m.values('ActivityTaskScheduleToCloseTime').sort((a, b) => a - b)).toEqual([
      5000, 6000, 7000, 8000,
    ]);
    expect(m.values('ActivityTaskStartToCloseTime').sort((a, b) => a - b)).toEqual([4000, 6000]);
  });

  it('counts a decision task that timed out once started, with its start-to-close time', () => {
    const m = new MeteredRun(); // the run's task start-to-close timeout is 120 s
    m.commit((run) => run.startDecisionTask()); // T0+1
    m.fireAt(T0 + 121);
    expect(m.count('StartedDecisionTasksTimedOutOnClose')).toBe(1);
    expect(m.values('DecisionTaskStartToCloseTime')).toEqual([120_000]);
    expect(m.count('DecisionTasksCompleted')).toBe(0);
  });

  it('counts a workflow that timed out', () => {
    const m = new MeteredRun(); // execution start-to-close timeout: 86,400 s
    m.fireAt(T0 + 86_400);
    expect(m.count('WorkflowsTimedOut')).toBe(1);
    expect(m.values('WorkflowStartToCloseTime')).toEqual([86_400_000]);
  });

  it('measures a task scheduled and started in one commit from its own events', () => {
    const m = new MeteredRun();
    m.commit((run) => [...run.startDecisionTask(), ...run.respond([]).events]);
    // one commit: the task was scheduled before it (T0), started and completed within it
    expect(m.values('DecisionTaskScheduleToStartTime')).toEqual([1000]);
    expect(m.values('DecisionTaskStartToCloseTime')).toEqual([1000]);
  });

  it('gives events without a metric none', () => {
    const m = new MeteredRun();
    m.commit((run) => run.signal('hello'));
    expect(m.samples).toEqual([]);
  });

  it('names a throttled request by its API and scope', () => {
    expect(throttledEvent('RespondActivityTaskCompleted', 'Workflow')).toEqual({
      name: 'ThrottledEvents',
      dimensions: { APIName: 'RespondActivityTaskCompleted', ThrottlingScope: 'Workflow' },
      value: 1,
    });
  });
});

describe('PendingTasks (PendingTaskTally)', () => {
  const pendingOf = (...states: ExecutionState[]) => {
    const tally = new PendingTaskTally();
    for (const state of states) tally.add(state);
    return tally.samples().map((s) => [s.dimensions, s.value]);
  };

  it("counts a list's tasks scheduled and not started, decisions as D and activities as A", () => {
    const fresh = new RunDriver(); // its first decision task scheduled
    const busy = new RunDriver();
    busy.decide([scheduleActivity('a'), scheduleActivity('b')]);
    busy.startActivity('a');
    const decisions =
      fresh.state.decisionTask.status === 'scheduled' ? fresh.state.decisionTask : undefined;
    expect(decisions).toBeDefined();
    const activityList = busy.activity('b').taskList;
    expect(pendingOf(fresh.state, busy.state, new RunDriver().state)).toEqual([
      [{ Domain: DOMAIN, TaskListName: decisions?.taskList, TaskListClassification: 'D' }, 2],
      [{ Domain: DOMAIN, TaskListName: activityList, TaskListClassification: 'A' }, 1],
    ]);
  });

  it('leaves closed runs and lists with nothing waiting out', () => {
    const closed = new RunDriver();
    closed.terminate();
    const started = new RunDriver();
    started.startDecisionTask();
    expect(pendingOf(closed.state, started.state)).toEqual([]);
  });
});
