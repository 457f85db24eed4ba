/**
 * SWF's limit on a history: a change that would take it past 25,000 events,
 * counting the starts of tasks it schedules, terminates the run instead (EVENT_LIMIT_EXCEEDED).
 */
import { describe, expect, it } from 'vitest';
import { passesEventLimit, terminateForEventLimit } from '../../../lib/core/executions.js';
import { RunDriver, T0 } from '../../support/core-builders.js';

describe('the history limit', () => {
  const withEvents = (count: number) => {
    const state = new RunDriver().state;
    return { ...state, nextEventId: count + 1 };
  };

  it('lets a history reach 25,000 events, and no further', () => {
    expect(passesEventLimit(withEvents(25_000))).toBe(false);
    expect(passesEventLimit(withEvents(25_001))).toBe(true);
  });

  it('counts the task starts a change may add in its commit', () => {
    expect(passesEventLimit(withEvents(24_999), 1)).toBe(false);
    expect(passesEventLimit(withEvents(24_999), 2)).toBe(true);
  });

  it('terminates the run as it was, with the cause and its child policy', () => {
    const before = withEvents(24_990);
    const t = terminateForEventLimit(before, T0 + 5);
    expect(t.events).toHaveLength(1);
    expect(t.events[0]).toMatchObject({
      eventId: 24_991,
      eventType: 'WorkflowExecutionTerminated',
      attributes: { cause: 'EVENT_LIMIT_EXCEEDED', childPolicy: before.config.childPolicy },
    });
    expect(t.state).toMatchObject({ status: 'CLOSED', closeStatus: 'TERMINATED' });
  });
});
