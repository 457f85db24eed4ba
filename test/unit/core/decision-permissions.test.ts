/**
 * Decisions judged by the responding caller's policies in the pure core: a refused decision is its
 * `*Failed` event with cause OPERATION_NOT_PERMITTED (no Initiated event first), the response's other
 * decisions still apply, and each decision is judged with the keys SWF documents, defaults included.
 */
import { describe, expect, it } from 'vitest';
import type { DecisionType } from '../../../lib/core/decision.js';
import type { DecisionAccess } from '../../../lib/core/decision-permissions.js';
import {
  cancelTimer,
  completeWorkflow,
  continueAsNew,
  decision,
  eventTypes,
  onlyEvent,
  RunDriver,
  recordMarker,
  scheduleActivity,
  scheduleLambda,
  startChild,
  startTimer,
} from '../../support/core-builders.js';

type Keys = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Allows what `allow` says, and records every question the core asked. */
function accessOf(
  allow: (type: DecisionType, keys: Keys) => boolean,
  passRole: (role: string) => boolean = () => false,
) {
  const asked: { type: DecisionType; keys: Keys }[] = [];
  const roles: string[] = [];
  const access: DecisionAccess = {
    allowsDecision: (type, keys) => {
      asked.push({ type, keys });
      return allow(type, keys);
    },
    allowsPassRole: (role) => {
      roles.push(role);
      return passRole(role);
    },
  };
  return { access, asked, roles };
}

describe('decisions the caller may not make', () => {
  it('fail OPERATION_NOT_PERMITTED one by one, the others applying', () => {
    const { access } = accessOf((type) => type !== 'RecordMarker' && type !== 'CancelTimer');
    const run = new RunDriver({ access });
    const events = run.decide([
      startTimer('t'),
      recordMarker('m', 'd'),
      cancelTimer('t'),
      scheduleActivity('a'),
    ]);
    expect(eventTypes(events)).toEqual([
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'TimerStarted',
      'RecordMarkerFailed',
      'CancelTimerFailed',
      'ActivityTaskScheduled',
      'DecisionTaskScheduled',
    ]);
    const dtc = onlyEvent(events, 'DecisionTaskCompleted').eventId;
    expect(onlyEvent(events, 'RecordMarkerFailed').attributes).toEqual({
      markerName: 'm',
      cause: 'OPERATION_NOT_PERMITTED',
      decisionTaskCompletedEventId: dtc,
    });
    expect(onlyEvent(events, 'CancelTimerFailed').attributes).toEqual({
      timerId: 't',
      cause: 'OPERATION_NOT_PERMITTED',
      decisionTaskCompletedEventId: dtc,
    });
    expect(run.state.timers.t).toBeDefined();
  });

  it.each([
    [
      'ScheduleActivityTask',
      scheduleActivity('a'),
      'ScheduleActivityTaskFailed',
      { activityId: 'a', activityType: { name: 'full', version: '1' } },
    ],
    [
      'RequestCancelActivityTask',
      decision('RequestCancelActivityTask', { activityId: 'a' }),
      'RequestCancelActivityTaskFailed',
      { activityId: 'a' },
    ],
    ['StartTimer', startTimer('t'), 'StartTimerFailed', { timerId: 't' }],
    ['CompleteWorkflowExecution', completeWorkflow('r'), 'CompleteWorkflowExecutionFailed', {}],
    [
      'FailWorkflowExecution',
      decision('FailWorkflowExecution', {}),
      'FailWorkflowExecutionFailed',
      {},
    ],
    [
      'CancelWorkflowExecution',
      decision('CancelWorkflowExecution', {}),
      'CancelWorkflowExecutionFailed',
      {},
    ],
    ['ContinueAsNewWorkflowExecution', continueAsNew(), 'ContinueAsNewWorkflowExecutionFailed', {}],
    [
      'SignalExternalWorkflowExecution',
      decision('SignalExternalWorkflowExecution', {
        workflowId: 'w',
        runId: 'r',
        signalName: 's',
        control: 'c',
      }),
      'SignalExternalWorkflowExecutionFailed',
      { workflowId: 'w', runId: 'r', control: 'c', initiatedEventId: 0 },
    ],
    [
      'RequestCancelExternalWorkflowExecution',
      decision('RequestCancelExternalWorkflowExecution', { workflowId: 'w' }),
      'RequestCancelExternalWorkflowExecutionFailed',
      { workflowId: 'w', initiatedEventId: 0 },
    ],
    [
      'StartChildWorkflowExecution',
      startChild('kid', { control: 'c' }),
      'StartChildWorkflowExecutionFailed',
      {
        workflowId: 'kid',
        workflowType: { name: 'child', version: '1' },
        control: 'c',
        initiatedEventId: 0,
      },
    ],
  ] as const)('%s refused: %s', (type, refused, failedType, attributes) => {
    const run = new RunDriver({ access: accessOf((t) => t !== type).access });
    const events = run.decide([refused]);
    const failed = onlyEvent(events, failedType);
    expect(failed.attributes).toEqual({
      ...attributes,
      cause: 'OPERATION_NOT_PERMITTED',
      decisionTaskCompletedEventId: onlyEvent(events, 'DecisionTaskCompleted').eventId,
    });
    // Nothing else of the decision happened; the failure schedules a decision task.
    expect(eventTypes(events).slice(-2)).toEqual([failedType, 'DecisionTaskScheduled']);
    expect(run.state.status).toBe('OPEN');
  });

  it('are judged with the keys SWF documents, a missing task list read from the type', () => {
    const { access, asked } = accessOf(() => true);
    const run = new RunDriver({ access });
    run.decide([
      scheduleActivity('with-list', { taskList: { name: 'given' } }),
      scheduleActivity('defaulted'),
      startChild('kid', { tagList: ['t0', 't1'] }),
      continueAsNew({ workflowTypeVersion: '2', tagList: ['x'] }),
    ]);
    expect(asked).toEqual([
      {
        type: 'ScheduleActivityTask',
        keys: {
          'swf:activityType.name': 'full',
          'swf:activityType.version': '1',
          'swf:taskList.name': 'given',
        },
      },
      {
        type: 'ScheduleActivityTask',
        keys: {
          'swf:activityType.name': 'full',
          'swf:activityType.version': '1',
          'swf:taskList.name': 'activity-default-list',
        },
      },
      {
        type: 'StartChildWorkflowExecution',
        keys: {
          'swf:workflowType.name': 'child',
          'swf:workflowType.version': '1',
          'swf:tagList.member.0': 't0',
          'swf:tagList.member.1': 't1',
          'swf:taskList.name': expect.any(String),
        },
      },
      {
        type: 'ContinueAsNewWorkflowExecution',
        keys: {
          'swf:tagList.member.0': 'x',
          'swf:taskList.name': 'v2-list',
          'swf:workflowType.version': '2',
        },
      },
    ]);
  });

  it('need iam:PassRole for a lambdaRole they name; ScheduleLambdaFunction is not judged', () => {
    const role = 'arn:aws:iam::123456789012:role/tasks';
    const { access, asked, roles } = accessOf(
      () => true,
      (r) => r === role,
    );
    const run = new RunDriver({ access });
    const events = run.decide([
      startChild('allowed', { lambdaRole: role }),
      startChild('refused', { lambdaRole: 'arn:aws:iam::123456789012:role/admin' }),
      scheduleLambda('l'),
    ]);
    expect(roles).toEqual([role, 'arn:aws:iam::123456789012:role/admin']);
    expect(onlyEvent(events, 'StartChildWorkflowExecutionInitiated').attributes.workflowId).toBe(
      'allowed',
    );
    expect(onlyEvent(events, 'StartChildWorkflowExecutionFailed').attributes).toMatchObject({
      workflowId: 'refused',
      cause: 'OPERATION_NOT_PERMITTED',
    });
    expect(asked.map((a) => a.type)).not.toContain('ScheduleLambdaFunction');
  });
});
