/** Activities and timers as operations. */
import type { ActivityType, Decision, HistoryEvent } from '@aws-sdk/client-swf';
import { cancelTimer, requestCancelActivityTask, startTimer } from '../decider/decisions.js';
import { type Codec, decodePayload } from './codec.js';
import {
  ActivityCanceledError,
  ActivityFailedError,
  ActivityScheduleFailedError,
  ActivityTimedOutError,
  CanceledError,
  TimerFailedError,
} from './errors.js';
import { Op } from './operation.js';
import type { RunApi } from './run-api.js';
import type { Scope } from './scope.js';

/** One attempt of an activity: ScheduleActivityTask, settled by the activity's close. */
export class ActivityOp<O> extends Op<O> {
  readonly #activityId: string;
  readonly #activityType: ActivityType;

  constructor(
    run: RunApi,
    scope: Scope,
    private readonly decision: Decision,
    private readonly codec: Codec,
  ) {
    const a = decision.scheduleActivityTaskDecisionAttributes;
    const activityId = a?.activityId ?? '';
    const activityType = a?.activityType ?? { name: '', version: '' };
    super(run, scope, `activity ${activityType.name} (activityId ${activityId})`);
    this.#activityId = activityId;
    this.#activityType = activityType;
  }

  protected begin(): void {
    this.run.emit(this.decision, this);
  }

  /** RequestCancelActivityTask: the promise settles with what the activity does about it. */
  protected override onCancel(): void {
    this.run.emit(requestCancelActivityTask(this.#activityId));
  }

  override deliver(e: HistoryEvent): void {
    if (e.eventType === 'ActivityTaskCompleted') {
      const result = e.activityTaskCompletedEventAttributes?.result;
      this.settleWith(() => decodePayload(this.codec, result, `the result of ${this.what}`) as O);
      return;
    }
    const failure = this.#failureOf(e);
    if (failure !== undefined) this.reject(failure);
  }

  #failureOf(e: HistoryEvent): Error | undefined {
    const [activityId, type, id] = [this.#activityId, this.#activityType, e.eventId ?? 0];
    switch (e.eventType) {
      case 'ActivityTaskFailed': {
        const a = e.activityTaskFailedEventAttributes;
        return new ActivityFailedError(activityId, type, id, a?.reason, a?.details);
      }
      case 'ActivityTaskTimedOut': {
        const a = e.activityTaskTimedOutEventAttributes;
        return new ActivityTimedOutError(activityId, type, id, a?.timeoutType, a?.details);
      }
      case 'ActivityTaskCanceled': {
        const details = e.activityTaskCanceledEventAttributes?.details;
        return new ActivityCanceledError(activityId, type, id, details);
      }
      case 'ScheduleActivityTaskFailed': {
        const cause = e.scheduleActivityTaskFailedEventAttributes?.cause;
        return new ActivityScheduleFailedError(activityId, type, id, cause);
      }
      default:
        return undefined;
    }
  }
}

/** A durable timer: StartTimer, settled by TimerFired; cancelling it sends CancelTimer. */
export class TimerOp extends Op<void> {
  constructor(
    run: RunApi,
    scope: Scope,
    private readonly timerId: string,
    private readonly seconds: number,
  ) {
    super(run, scope, `timer ${timerId}`);
  }

  protected begin(): void {
    this.run.emit(startTimer(this.timerId, this.seconds), this);
  }

  protected override onCancel(): void {
    this.run.emit(cancelTimer(this.timerId));
    this.reject(new CanceledError(this.what));
  }

  override deliver(e: HistoryEvent): void {
    if (e.eventType === 'TimerFired') this.resolve();
    else if (e.eventType === 'StartTimerFailed') {
      const cause = e.startTimerFailedEventAttributes?.cause;
      this.reject(new TimerFailedError(this.timerId, e.eventId ?? 0, cause));
    }
  }
}
