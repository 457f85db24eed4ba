import { describe, expect, it } from 'vitest';
import { mapLimited } from '../../../lib/adapters/dynamodb/parallel.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('mapLimited', () => {
  it('answers in the items order with at most `limit` calls out at once', async () => {
    let out = 0;
    let most = 0;
    const results = await mapLimited([5, 1, 4, 2, 3, 0, 6], 3, async (n, i) => {
      most = Math.max(most, ++out);
      for (let k = 0; k < n; k++) await tick();
      out--;
      return `${i}:${n}`;
    });
    expect(results).toEqual(['0:5', '1:1', '2:4', '3:2', '4:3', '5:0', '6:6']);
    expect(most).toBe(3);
  });

  it('answers nothing for no items, and rejects with the first failure, starting nothing after it', async () => {
    expect(await mapLimited([], 4, async () => 1)).toEqual([]);
    const started: number[] = [];
    await expect(
      mapLimited([1, 2, 3, 4, 5, 6], 2, async (n) => {
        started.push(n);
        await tick();
        if (n === 2) throw new Error('two');
        return n;
      }),
    ).rejects.toThrow('two');
    await tick();
    await tick();
    // 1 and 2 out at once, 3 started when 1 ended; nothing after 2 failed.
    expect(started).toEqual([1, 2, 3]);
  });

  it('runs one lane for a limit of 0 or NaN, and every item for Infinity', async () => {
    for (const limit of [0, Number.NaN, -3, 0.5])
      expect(await mapLimited([1, 2, 3], limit, async (n) => n * 2)).toEqual([2, 4, 6]);
    let out = 0;
    let most = 0;
    await mapLimited([1, 2, 3, 4], Number.POSITIVE_INFINITY, async () => {
      most = Math.max(most, ++out);
      await tick();
      out--;
    });
    expect(most).toBe(4);
  });
});
