/**
 * A page of history is cut where its JSON would pass a byte budget (the deployed API answers through
 * Lambda, which answers with at most 6 MB), never before its first event, with the first event left
 * out as the next page's start.
 */
import { describe, expect, it } from 'vitest';
import type { HistoryEvent } from '../../../lib/core/history-event.js';
import { historyPage } from '../../../lib/operations/paging.js';
import { RunDriver, recordMarker } from '../../support/core-builders.js';

/** A history of markers whose details are `sizes` characters long (after the run's start events). */
function markers(sizes: readonly number[]): HistoryEvent[] {
  const driver = new RunDriver();
  driver.decide(sizes.map((size, i) => recordMarker(`m${i}`, 'x'.repeat(size))));
  return driver.history.filter((e) => e.eventType === 'MarkerRecorded');
}

const bytes = (events: readonly unknown[]) => Buffer.byteLength(JSON.stringify(events));

describe('historyPage', () => {
  it('keeps a page within its budget whole, with the next page it had', () => {
    const events = markers([100, 100, 100]);
    const page = historyPage(events, 99, 10_000);
    expect(page.events).toHaveLength(3);
    expect(page.next).toBe(99);
    expect(historyPage(events, undefined, 10_000).next).toBeUndefined();
  });

  it('ends a page before the event that would take it past its budget', () => {
    const events = markers([3_000, 3_000, 3_000, 3_000]);
    const page = historyPage(events, undefined, 10_000);
    expect(page.events).toHaveLength(3);
    expect(bytes(page.events)).toBeLessThanOrEqual(10_000);
    expect(page.next).toBe(events[3]?.eventId);
    // Its events are the wire's (attributes under their member name).
    expect(page.events[0]).toHaveProperty('markerRecordedEventAttributes');
  });

  it('holds at least one event, however big', () => {
    const events = markers([50_000, 10]);
    const page = historyPage(events, undefined, 10_000);
    expect(page.events).toHaveLength(1);
    expect(page.next).toBe(events[1]?.eventId);
  });

  it('counts bytes, not characters', () => {
    const driver = new RunDriver();
    driver.decide([recordMarker('a', '\u4e00'.repeat(2_000)), recordMarker('b', 'x')]);
    const events = driver.history.filter((e) => e.eventType === 'MarkerRecorded');
    // 2,000 characters, 6,000 bytes.
    expect(historyPage(events, undefined, 5_000).events).toHaveLength(1);
  });
});
