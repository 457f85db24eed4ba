import { describe, expect, it } from 'vitest';
import type { ExecutionState } from '../../../lib/core/execution-state.js';
import { outboxEffects } from '../../../lib/core/outbox.js';
import {
  cancelActivity,
  cancelTimer,
  eventTypes,
  onlyEvent,
  RunDriver,
  scheduleActivity,
  scheduleLambda,
  startTimer,
} from '../../support/core-builders.js';

/** Ids a client may choose that are also names every JavaScript object inherits. */
const inherited = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];

describe.each(inherited)('an id named %s', (id) => {
  it('is unknown until used: cancelling it fails, starting a timer or activity with it works', () => {
    const run = new RunDriver();
    const events = run.decide([cancelActivity(id), cancelTimer(id), startTimer(id)]);
    expect(onlyEvent(events, 'RequestCancelActivityTaskFailed').attributes).toMatchObject({
      activityId: id,
      cause: 'ACTIVITY_ID_UNKNOWN',
    });
    expect(onlyEvent(events, 'CancelTimerFailed').attributes).toMatchObject({
      timerId: id,
      cause: 'TIMER_ID_UNKNOWN',
    });
    expect(onlyEvent(events, 'TimerStarted').attributes.timerId).toBe(id);

    run.signal();
    const scheduled = run.decide([scheduleActivity(id), cancelTimer(id)]);
    const activity = onlyEvent(scheduled, 'ActivityTaskScheduled');
    const canceledTimer = onlyEvent(scheduled, 'TimerCanceled');
    expect(activity.attributes.activityId).toBe(id);
    expect(canceledTimer.attributes).toMatchObject({ timerId: id, startedEventId: 7 });

    // The state survives being stored (JSON) with such keys, and the activity is found by its id.
    run.state = JSON.parse(JSON.stringify(run.state)) as ExecutionState;
    run.signal();
    const cancelled = run.decide([cancelActivity(id)]);
    expect(eventTypes(cancelled).slice(2, 4)).toEqual([
      'ActivityTaskCancelRequested',
      'ActivityTaskCanceled',
    ]);
    expect(onlyEvent(cancelled, 'ActivityTaskCanceled').attributes.scheduledEventId).toBe(
      activity.eventId,
    );
    expect(run.state.activities).toEqual({});
  });

  it('names a Lambda task the outbox hands over', () => {
    const run = new RunDriver();
    const before = run.state;
    const events = run.decide([scheduleLambda(id)]);
    expect(onlyEvent(events, 'LambdaFunctionScheduled').attributes.id).toBe(id);
    expect(outboxEffects(before, run.state)).toContainEqual(
      expect.objectContaining({ kind: 'invoke-lambda' }),
    );
  });
});
