/**
 * Activity timeouts whose fire comes late, checked against the timeout oracle's reading of SWF: which
 * of several timeouts due is recorded, and what an execution past its own timeout still accepts.
 */
import { describe, expect, it } from 'vitest';
import { storesForFile } from '../support/stores.js';
import {
  ACTIVITY_TYPES,
  freshTimeoutDomain,
  type HistoryEvent,
  historyOf,
  MAIN_LIST,
  ONE_RUN,
  startOneRun,
  toWire,
} from '../support/timeout-domain.js';
import { type Dur, type OracleDecision, TimeoutOracle } from '../support/timeout-oracle.js';

const stores = storesForFile('timeouts-fired-late');

/** One execution with one activity scheduled with the given timeouts, and the oracle beside it. */
async function oneActivity(
  timeouts: {
    scheduleToStart?: Dur;
    scheduleToClose?: Dur;
    startToClose?: Dur;
    heartbeat?: Dur;
  },
  also: OracleDecision[] = [],
) {
  const { service, domain } = await freshTimeoutDomain(stores());
  const execution = await startOneRun(service, domain);
  const o = new TimeoutOracle({
    startAt: service.clock.ms,
    taskList: MAIN_LIST,
    taskStartToCloseTimeout: ONE_RUN.taskStartToCloseTimeout,
    executionStartToCloseTimeout: ONE_RUN.executionStartToCloseTimeout,
    childPolicy: ONE_RUN.childPolicy,
    workflowType: ONE_RUN.workflowType,
    activityTypes: ACTIVITY_TYPES,
  });
  const d = await service.must('PollForDecisionTask', {
    domain,
    taskList: { name: MAIN_LIST },
    identity: 'decider',
  });
  const dRef = o.pollForDecisionTask(MAIN_LIST, service.clock.ms, 'decider');
  const decision: OracleDecision = {
    kind: 'schedule',
    activityId: 'a0',
    typeName: 'unlimited',
    taskList: 'acts-a0',
    timeouts,
  };
  await service.must('RespondDecisionTaskCompleted', {
    taskToken: d.taskToken,
    decisions: [decision, ...also].map(toWire),
  });
  if (dRef.ok && dRef.value)
    o.respondDecisionTaskCompleted(dRef.value, service.clock.ms, [decision, ...also]);
  const history = () => historyOf(service, domain, execution);
  const startActivity = async () => {
    const task = await service.must('PollForActivityTask', {
      domain,
      taskList: { name: 'acts-a0' },
      identity: 'worker',
    });
    const ref = o.pollForActivityTask('acts-a0', service.clock.ms, 'worker');
    return { token: task.taskToken as string, ref: ref.ok ? ref.value : undefined };
  };
  return { service, o, domain, execution, history, startActivity };
}

const timedOut = (events: HistoryEvent[]) =>
  events
    .filter((e) => e.eventType === 'ActivityTaskTimedOut')
    .map((e) => e.activityTaskTimedOutEventAttributes);

describe('timeouts that fire late, several of them due', () => {
  it('a START_TO_CLOSE due before a HEARTBEAT a heartbeat pushed is the one recorded', async () => {
    // Started at 0 with start-to-close 10 s and heartbeat 6 s; a heartbeat at 5 s moves the heartbeat
    // timeout to 11 s. START_TO_CLOSE falls due first (10 s); the timer service hands the fire over at 12 s.
    const { service, history, startActivity } = await oneActivity({
      scheduleToStart: 'NONE',
      scheduleToClose: 'NONE',
      startToClose: '10',
      heartbeat: '6',
    });
    const { token } = await startActivity();
    const t0 = service.clock.ms;
    service.advanceStalled(t0 + 5_000);
    await service.must('RecordActivityTaskHeartbeat', { taskToken: token, details: 'half' });
    await service.advanceLate(t0 + 12_000);
    expect(timedOut(await history())).toEqual([
      { timeoutType: 'START_TO_CLOSE', scheduledEventId: 5, startedEventId: 6, details: 'half' },
    ]);
  });
  it('a timer due before a HEARTBEAT a heartbeat pushed fires first', async () => {
    // The activity starts at 0 with a heartbeat timeout of 6 s and a timer of 8 s runs beside it; a
    // heartbeat at 5 s moves the heartbeat timeout to 11 s. The fire comes at 12 s: the timer fell
    // due first, so TimerFired (and the decision task it schedules) comes first in the history.
    const { service, history, startActivity } = await oneActivity(
      { scheduleToStart: 'NONE', scheduleToClose: 'NONE', startToClose: 'NONE', heartbeat: '6' },
      [{ kind: 'startTimer', timerId: 't0', seconds: 8 }],
    );
    const { token } = await startActivity();
    const t0 = service.clock.ms;
    service.advanceStalled(t0 + 5_000);
    await service.must('RecordActivityTaskHeartbeat', { taskToken: token });
    await service.advanceLate(t0 + 12_000);
    const events = (await history()).map((e) => e.eventType);
    expect(events.slice(events.indexOf('ActivityTaskStarted') + 1)).toEqual([
      'TimerFired',
      'DecisionTaskScheduled',
      'ActivityTaskTimedOut',
    ]);
  });
});

describe('calls on an execution past its own timeout, the fire not come', () => {
  // "Once a workflow execution has timed out, you can't take any action on it other than visibility
  // calls" (Amazon SWF Timeout Types). The service refuses a worker's or decider's call sent after a
  // task's timeout though its fire has not come; an execution's own timeout must hold the same way.
  for (const [action, extra] of [
    ['SignalWorkflowExecution', { signalName: 's' }],
    ['RequestCancelWorkflowExecution', {}],
    ['TerminateWorkflowExecution', { reason: 'r' }],
  ] as const) {
    it(`${action} is refused and records nothing; the timeout closes the run`, async () => {
      const { service, domain, execution, history } = await oneActivity({ startToClose: '5' });
      const before = (await history()).length;
      // The run's timeout is 600 s; the timer service stalls past it.
      service.advanceStalled(service.clock.ms + 600_000 + 10);
      const answer = await service.call(action, {
        domain,
        workflowId: execution.workflowId,
        runId: execution.runId,
        ...extra,
      });
      expect(answer).toMatchObject({ ok: false, fault: 'UnknownResourceFault' });
      expect((await history()).length).toBe(before);
      await service.deliverDue();
      const events = await history();
      expect(events.at(-1)?.eventType).toBe('WorkflowExecutionTimedOut');
      expect(events.length).toBe(before + 1);
    });
  }
});
