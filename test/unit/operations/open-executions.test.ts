import { describe, expect, it } from 'vitest';
import {
  MAX_OPEN_EXECUTIONS,
  OpenExecutionGauge,
} from '../../../lib/operations/open-executions.js';
import type { VisibilityStore } from '../../../lib/ports/visibility-store.js';

/** A visibility store whose counts are answered by `answer`, one call at a time. */
function countingStore(answer: () => Promise<number>) {
  const queries: string[] = [];
  const store: VisibilityStore = {
    apply: async () => {},
    list: async () => ({ infos: [] }),
    expireRun: async () => {},
    count: async (query) => {
      queries.push(`${query.domain}:${query.list}:${query.filter.kind}`);
      return { count: await answer(), truncated: false };
    },
  };
  return { store, queries };
}

describe('OpenExecutionGauge', () => {
  it('counts a domain once for requests that ask at the same time', async () => {
    let release: (n: number) => void = () => {};
    const { store, queries } = countingStore(() => new Promise((r) => (release = r)));
    const gauge = new OpenExecutionGauge(store, () => 0);
    const both = Promise.all([gauge.room('d'), gauge.room('d')]);
    await Promise.resolve();
    release(MAX_OPEN_EXECUTIONS - 3);
    expect(await both).toEqual([3, 3]);
    expect(queries).toEqual(['d:open:all']);
  });

  it('lets a start through when the count fails, counts again next time, and after 10 s', async () => {
    let now = 0;
    let fail = true;
    const { store, queries } = countingStore(async () => {
      if (fail) throw new Error('throttled');
      return 7;
    });
    const gauge = new OpenExecutionGauge(store, () => now);
    expect(await gauge.room('d')).toBe(MAX_OPEN_EXECUTIONS);
    fail = false;
    expect(await gauge.room('d')).toBe(MAX_OPEN_EXECUTIONS - 7);
    gauge.opened('d', 3);
    now = 9_999;
    expect(await gauge.room('d')).toBe(MAX_OPEN_EXECUTIONS - 10);
    now = 10_000;
    expect(await gauge.room('d')).toBe(MAX_OPEN_EXECUTIONS - 7);
    expect(queries).toHaveLength(3);
  });

  it('counts again after its clock is stepped back (an age it cannot know)', async () => {
    let now = 1_000_000;
    const { store, queries } = countingStore(async () => 7);
    const gauge = new OpenExecutionGauge(store, () => now);
    await gauge.room('d');
    now -= 60_000;
    await gauge.room('d');
    expect(queries).toHaveLength(2);
  });
});
