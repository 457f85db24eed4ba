/**
 * The steps of a hand-written history (`historyOf(events.workflowStarted(), …)`). Each appends the
 * events SWF would record for it, with the ids they name filled in: an activity completed that was
 * never started is started first, a decision's event follows the DecisionTaskCompleted it came from,
 * and an event the decider must hear of schedules a decision task.
 */
import type {
  ActivityType,
  EventType,
  WorkflowExecutionStartedEventAttributes,
  WorkflowType,
} from '@aws-sdk/client-swf';
import { type Duration, durationMs } from './duration.js';
import type { HistoryRecorder, HistoryStep } from './history-builder.js';

type Attributes = Record<string, unknown>;
type TypeRef = { readonly name?: string | undefined; readonly version?: string | undefined };

/** A type given by name (version 1) or in full. */
const typeOf = (type: string | TypeRef): TypeRef =>
  typeof type === 'string' ? { name: type, version: '1' } : type;

const seconds = (duration: Duration, what: string) =>
  String(Math.ceil(durationMs(duration, what) / 1_000));

/** The attributes without the members left undefined (SWF leaves absent members out). */
const defined = (attributes: Attributes): Attributes =>
  Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== undefined));

/** Starts an activity's task unless it was started, and returns it. */
function started(h: HistoryRecorder, activityId: string) {
  const activity = h.tracked(h.activities, activityId, 'activity');
  activity.startedEventId ??= h.happen('ActivityTaskStarted', {
    scheduledEventId: activity.firstEventId,
    identity: 'worker',
  });
  return { scheduledEventId: activity.firstEventId, startedEventId: activity.startedEventId };
}

function childEvent(h: HistoryRecorder, workflowId: string, type: EventType, more: Attributes) {
  const child = h.tracked(h.children, workflowId, 'child workflow');
  const isStart = type === 'ChildWorkflowExecutionStarted';
  if (!isStart && child.startedEventId === undefined)
    childEvent(h, workflowId, 'ChildWorkflowExecutionStarted', {});
  const id = h.wake(type, {
    workflowExecution: { workflowId, runId: `${workflowId}-run` },
    workflowType: child.attributes.workflowType,
    initiatedEventId: child.firstEventId,
    ...(isStart ? {} : { startedEventId: child.startedEventId }),
    ...defined(more),
  });
  if (isStart) child.startedEventId = id;
}

function lambdaEvent(h: HistoryRecorder, id: string, type: EventType, more: Attributes) {
  const fn = h.tracked(h.lambdas, id, 'Lambda function');
  fn.startedEventId ??= h.happen('LambdaFunctionStarted', { scheduledEventId: fn.firstEventId });
  h.wake(type, {
    scheduledEventId: fn.firstEventId,
    startedEventId: fn.startedEventId,
    ...defined(more),
  });
}

export const events = {
  /** WorkflowExecutionStarted (defaults for what is not given), and the first decision task. */
  workflowStarted(
    attributes: Partial<Omit<WorkflowExecutionStartedEventAttributes, 'workflowType'>> & {
      workflowType?: WorkflowType | string;
    } = {},
  ): HistoryStep {
    return (h) =>
      h.wake('WorkflowExecutionStarted', {
        childPolicy: 'TERMINATE',
        taskList: { name: 'decisions' },
        executionStartToCloseTimeout: '3600',
        taskStartToCloseTimeout: '60',
        ...defined(attributes),
        workflowType: typeOf(attributes.workflowType ?? 'Workflow'),
      });
  },
  /** Time passes: the events after this one are that much later. */
  after(duration: Duration): HistoryStep {
    return (h) => {
      h.timeMs += durationMs(duration, 'the time that passes');
    };
  },
  /** The events after this one happen at `time`. */
  at(time: Date): HistoryStep {
    return (h) => {
      h.timeMs = time.getTime();
    };
  },
  decisionTaskScheduled(): HistoryStep {
    return (h) => void h.scheduleDecisionTask();
  },
  decisionTaskStarted(identity?: string): HistoryStep {
    return (h) => void h.startDecisionTask(identity);
  },
  /** A decider answered the open decision task (scheduled and started first as needed). */
  decisionTaskCompleted(executionContext?: string): HistoryStep {
    return (h) => void h.completeDecisionTask(defined({ executionContext }));
  },
  decisionTaskTimedOut(): HistoryStep {
    return (h) => void h.timeOutDecisionTask();
  },
  activityScheduled(
    activityId: string,
    activityType: ActivityType | string,
    attributes: Attributes = {},
  ): HistoryStep {
    return (h) => {
      const recorded = {
        activityId,
        activityType: typeOf(activityType),
        taskList: { name: 'activities' },
        scheduleToStartTimeout: 'NONE',
        scheduleToCloseTimeout: 'NONE',
        startToCloseTimeout: '600',
        heartbeatTimeout: 'NONE',
        ...defined(attributes),
      };
      const id = h.decided('ActivityTaskScheduled', recorded);
      h.activities.set(activityId, { firstEventId: id, attributes: recorded });
    };
  },
  activityStarted(activityId: string, identity = 'worker'): HistoryStep {
    return (h) => {
      const activity = h.tracked(h.activities, activityId, 'activity');
      activity.startedEventId = h.happen('ActivityTaskStarted', {
        scheduledEventId: activity.firstEventId,
        identity,
      });
    };
  },
  activityCompleted(activityId: string, result?: string): HistoryStep {
    return (h) =>
      void h.wake('ActivityTaskCompleted', { ...started(h, activityId), ...defined({ result }) });
  },
  activityFailed(activityId: string, reason?: string, details?: string): HistoryStep {
    return (h) =>
      void h.wake('ActivityTaskFailed', {
        ...started(h, activityId),
        ...defined({ reason, details }),
      });
  },
  /** The activity timed out: SCHEDULE_TO_START before it started, the others after (it is started). */
  activityTimedOut(
    activityId: string,
    timeoutType: 'SCHEDULE_TO_START' | 'SCHEDULE_TO_CLOSE' | 'START_TO_CLOSE' | 'HEARTBEAT',
    details?: string,
  ): HistoryStep {
    return (h) => {
      const activity = h.tracked(h.activities, activityId, 'activity');
      const ids =
        timeoutType === 'SCHEDULE_TO_START'
          ? { scheduledEventId: activity.firstEventId, startedEventId: 0 }
          : started(h, activityId);
      h.wake('ActivityTaskTimedOut', { timeoutType, ...ids, ...defined({ details }) });
    };
  },
  activityCancelRequested(activityId: string): HistoryStep {
    return (h) => {
      h.tracked(h.activities, activityId, 'activity');
      h.decided('ActivityTaskCancelRequested', { activityId });
    };
  },
  activityCanceled(activityId: string, details?: string): HistoryStep {
    return (h) => {
      const ids = started(h, activityId);
      const request = [...h.events]
        .reverse()
        .find(
          (e) =>
            e.eventType === 'ActivityTaskCancelRequested' &&
            e.activityTaskCancelRequestedEventAttributes?.activityId === activityId,
        );
      h.wake('ActivityTaskCanceled', {
        ...ids,
        ...defined({ details, latestCancelRequestedEventId: request?.eventId }),
      });
    };
  },
  timerStarted(timerId: string, startToFire: Duration, control?: string): HistoryStep {
    return (h) => {
      const startToFireTimeout = seconds(startToFire, 'the timer');
      const id = h.decided('TimerStarted', {
        timerId,
        startToFireTimeout,
        ...defined({ control }),
      });
      const fireAtMs = h.timeMs + Number(startToFireTimeout) * 1_000;
      h.timers.set(timerId, { firstEventId: id, fireAtMs, attributes: {} });
    };
  },
  /** The timer fires, at its time: the history's time moves there unless it is past it. */
  timerFired(timerId: string): HistoryStep {
    return (h) => {
      const timer = h.tracked(h.timers, timerId, 'timer');
      h.timeMs = Math.max(h.timeMs, h.timers.get(timerId)?.fireAtMs ?? h.timeMs);
      h.wake('TimerFired', { timerId, startedEventId: timer.firstEventId });
    };
  },
  timerCanceled(timerId: string): HistoryStep {
    return (h) => {
      const timer = h.tracked(h.timers, timerId, 'timer');
      h.decided('TimerCanceled', { timerId, startedEventId: timer.firstEventId });
    };
  },
  signaled(signalName: string, input?: string): HistoryStep {
    return (h) => void h.wake('WorkflowExecutionSignaled', defined({ signalName, input }));
  },
  cancelRequested(cause?: 'CHILD_POLICY_APPLIED'): HistoryStep {
    return (h) => void h.wake('WorkflowExecutionCancelRequested', defined({ cause }));
  },
  markerRecorded(markerName: string, details?: string): HistoryStep {
    return (h) => void h.decided('MarkerRecorded', defined({ markerName, details }));
  },
  childInitiated(
    workflowId: string,
    workflowType: WorkflowType | string,
    attributes: Attributes = {},
  ): HistoryStep {
    return (h) => {
      const recorded = {
        workflowId,
        workflowType: typeOf(workflowType),
        taskList: { name: 'decisions' },
        childPolicy: 'TERMINATE',
        executionStartToCloseTimeout: '3600',
        taskStartToCloseTimeout: '60',
        ...defined(attributes),
      };
      const id = h.decided('StartChildWorkflowExecutionInitiated', recorded);
      h.children.set(workflowId, { firstEventId: id, attributes: recorded });
    };
  },
  childStarted(workflowId: string): HistoryStep {
    return (h) => childEvent(h, workflowId, 'ChildWorkflowExecutionStarted', {});
  },
  childCompleted(workflowId: string, result?: string): HistoryStep {
    return (h) => childEvent(h, workflowId, 'ChildWorkflowExecutionCompleted', { result });
  },
  childFailed(workflowId: string, reason?: string, details?: string): HistoryStep {
    return (h) => childEvent(h, workflowId, 'ChildWorkflowExecutionFailed', { reason, details });
  },
  lambdaScheduled(id: string, name: string, input?: string): HistoryStep {
    return (h) => {
      const recorded = { id, name, startToCloseTimeout: '300', ...defined({ input }) };
      const eventId = h.decided('LambdaFunctionScheduled', recorded);
      h.lambdas.set(id, { firstEventId: eventId, attributes: recorded });
    };
  },
  lambdaCompleted(id: string, result?: string): HistoryStep {
    return (h) => lambdaEvent(h, id, 'LambdaFunctionCompleted', { result });
  },
  lambdaFailed(id: string, reason?: string, details?: string): HistoryStep {
    return (h) => lambdaEvent(h, id, 'LambdaFunctionFailed', { reason, details });
  },
  workflowCompleted(result?: string): HistoryStep {
    return (h) => void h.decided('WorkflowExecutionCompleted', defined({ result }));
  },
  workflowFailed(reason?: string, details?: string): HistoryStep {
    return (h) => void h.decided('WorkflowExecutionFailed', defined({ reason, details }));
  },
  /** Any event, as given: its id and time are filled in, and nothing else is added. */
  event(eventType: EventType, attributes: Attributes = {}): HistoryStep {
    return (h) => void h.add(eventType, attributes);
  },
};
