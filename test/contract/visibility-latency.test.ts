/**
 * How soon a new execution shows in the visibility listings: a latency bound, so it runs in the
 * timing project (vitest.config.ts), alone, where no other suite's load can stretch it.
 */
import type { SWFClient } from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/local.js';
import {
  eventually,
  freshDomain,
  ids,
  listOpen,
  ORDER_1,
  SINCE,
} from '../support/visibility-listing.js';

let swf: SWFClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ swf, close } = await startTestServer({ polling: { maxWaitMs: 2_000 } }));
});
afterAll(() => close());

describe('a new execution', () => {
  it('is listed as open within a second of its start, with what Describe shows', async () => {
    const driver = await freshDomain(swf);
    const { execution } = await driver.start(ORDER_1, { tagList: ['fresh'] });
    const started = Date.now();
    const out = await eventually(
      () => listOpen(driver, { startTimeFilter: SINCE }),
      (o) => ids(o).length === 1,
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    const described = await driver.describe(execution);
    expect(out.executionInfos).toEqual([
      {
        execution,
        workflowType: ORDER_1,
        startTimestamp: described.executionInfo?.startTimestamp,
        executionStatus: 'OPEN',
        tagList: ['fresh'],
        cancelRequested: false,
      },
    ]);
    expect(out.nextPageToken).toBeUndefined();
  });
});
