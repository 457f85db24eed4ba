/**
 * The visibility store reads the clock once per request: the retention cut-off of a closed-by-close
 * query must not move between the query's pieces (a request's bounds, then each shard's Query), or a
 * range that ends near the cut-off gets a BETWEEN whose bounds are the wrong way round (500).
 */
import { describe, expect, it } from 'vitest';
import { DynamoVisibilityStore } from '../../lib/adapters/dynamodb/visibility-store.js';
import type { VisibilityQuery } from '../../lib/ports/visibility-store.js';
import { tableForFile } from '../support/local.js';

const T0 = 1_700_000_000;
const RETENTION = 100;

const table = tableForFile('vis-clock');

describe('a closed-by-close query ending near the retention cut-off', () => {
  it('is answered from one reading of a clock that moves a second per reading', async () => {
    let now = T0;
    const store = new DynamoVisibilityStore(table(), { nowSeconds: () => ++now });
    // At the first reading the cut-off (T0 + 1 - RETENTION) is before the range's end; a second
    // reading would put it after.
    const query: VisibilityQuery = {
      domain: 'clock',
      list: 'closed-by-close',
      filter: { kind: 'all' },
      range: { oldest: 0, latest: T0 - RETENTION + 1.5 },
      retention: RETENTION,
    };
    expect(await store.list(query, { limit: 10, reverse: false })).toEqual({ infos: [] });
    now = T0;
    expect(await store.count(query)).toEqual({ count: 0, truncated: false });
  });
});
