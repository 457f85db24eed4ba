/**
 * A batch of stream records is decoded one record per turn of the event loop, so a timer due
 * meanwhile (a deadline fire) is not held up until the whole batch is decoded; a run state written
 * apart from its item is read by the name its image holds.
 */
import { describe, expect, it } from 'vitest';
import {
  dynamoStreamRecords,
  runChange,
  type StreamRecordLike,
} from '../../../lib/adapters/dynamodb/stream-records.js';
import type { OutboxDeps } from '../../../lib/operations/outbox.js';
import { handleStreamRecords } from '../../../lib/operations/stream-records.js';
import { RunDriver } from '../../support/core-builders.js';

describe('handleStreamRecords', () => {
  it('lets a timer due meanwhile run before the whole batch is decoded', async () => {
    const size = 200;
    let reads = 0;
    // Records of items other than runs (nothing to carry out), counting each read of their images.
    const records: StreamRecordLike[] = Array.from({ length: size }, (_, i) => {
      const images = {
        Keys: { pk: { S: `Q|${i}` } },
        NewImage: { entity: { S: 'QueuedTask' } },
        SequenceNumber: String(i),
      };
      return {
        eventID: `e${i}`,
        get dynamodb() {
          reads++;
          return images;
        },
      };
    });
    let readsWhenTimerRan: number | undefined;
    const timer = new Promise<void>((resolve) =>
      setTimeout(() => {
        readsWhenTimerRan = reads;
        resolve();
      }, 0),
    );
    // The timer is overdue before the batch begins (a 1 ms timer on a fast machine is not due yet
    // after dozens of quick turns): it runs at the batch's first yields, or after the whole batch.
    const overdue = performance.now() + 5;
    while (performance.now() < overdue) {
      // busy: the timer's 1 ms passes
    }
    const deps = {} as OutboxDeps;
    await handleStreamRecords(deps, records, dynamoStreamRecords(deps.runs));
    await timer;
    // Grouping by run reads each record once up front; decoding reads each once more, over many
    // turns: the timer ran when only a few had been decoded.
    expect(readsWhenTimerRan).toBeDefined();
    expect(readsWhenTimerRan ?? Number.POSITIVE_INFINITY).toBeLessThan(size + size / 4);
    // Each record decoded once, not again when its effects are carried out.
    expect(reads).toBe(2 * size);
  });
});

describe('runChange', () => {
  it('reads a state its image names instead of holding it (a state too big for its item)', async () => {
    const before = new RunDriver().state;
    const after = { ...before, nextEventId: before.nextEventId + 1 };
    const reads: string[] = [];
    const executions = {
      readStateApart: async (runId: string, ref: string) => {
        reads.push(`${runId}/${ref}`);
        return after;
      },
    };
    const record: StreamRecordLike = {
      dynamodb: {
        Keys: { pk: { S: 'RUN|r1' }, sk: { S: 'STATE' } },
        OldImage: { entity: { S: 'Run' }, state: { S: JSON.stringify(before) } },
        NewImage: { entity: { S: 'Run' }, apart: { S: 'attempt-1' }, parts: { N: '2' } },
      },
    };
    expect(await runChange(record, executions)).toEqual({ before, after });
    expect(reads).toEqual(['r1/attempt-1']);
  });
});
