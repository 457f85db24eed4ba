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

  it('answers nothing for no items, and rejects with the first failure', async () => {
    expect(await mapLimited([], 4, async () => 1)).toEqual([]);
    await expect(
      mapLimited([1, 2, 3], 2, async (n) => {
        if (n === 2) throw new Error('two');
        return n;
      }),
    ).rejects.toThrow('two');
  });
});
