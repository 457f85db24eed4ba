import { afterEach, describe, expect, it, vi } from 'vitest';
import { dimensionValue, EmfMetrics } from '../../../lib/adapters/aws/emf-metrics.js';
import { type MetricSample, throttledEvent } from '../../../lib/core/swf-metrics.js';

const workflow = { Domain: 'orders', WorkflowTypeName: 'Order', WorkflowTypeVersion: '1' };
const activity = { Domain: 'orders', ActivityTypeName: 'Ship', ActivityTypeVersion: '2' };

/** The EMF documents written to stdout while `record` runs. */
function published(
  samples: readonly MetricSample[],
  namespace?: string,
): Record<string, unknown>[] {
  const lines: string[] = [];
  const write = vi
    .spyOn(process.stdout, 'write')
    .mockImplementation((chunk: string | Uint8Array) => lines.push(String(chunk)) > 0);
  try {
    new EmfMetrics(namespace).record(samples);
  } finally {
    write.mockRestore();
  }
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

afterEach(() => vi.restoreAllMocks());

describe('SWF metrics as CloudWatch embedded metric format', () => {
  it("writes one document per dimension set, with SWF's dimensions, names and units only", () => {
    const docs = published(
      [
        { name: 'WorkflowsCompleted', dimensions: workflow, value: 1 },
        { name: 'WorkflowStartToCloseTime', dimensions: workflow, value: 1234 },
        { name: 'ActivityTasksCompleted', dimensions: activity, value: 1 },
      ],
      'MySwf',
    );
    expect(docs).toHaveLength(2);
    expect(docs[0]).toMatchObject({
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: 'MySwf',
            Dimensions: [['Domain', 'WorkflowTypeName', 'WorkflowTypeVersion']],
            Metrics: [
              { Name: 'WorkflowsCompleted', Unit: 'Count' },
              { Name: 'WorkflowStartToCloseTime', Unit: 'Milliseconds' },
            ],
          },
        ],
      },
      ...workflow,
      WorkflowsCompleted: 1,
      WorkflowStartToCloseTime: 1234,
    });
    expect(docs[1]).toMatchObject({ ...activity, ActivityTasksCompleted: 1 });
    for (const doc of docs) expect(doc).not.toHaveProperty('service');
  });

  it('publishes in the default namespace, and nothing for no samples', () => {
    const [doc] = published([{ name: 'WorkflowsFailed', dimensions: workflow, value: 1 }]);
    expect(JSON.stringify(doc)).toContain('"Namespace":"SwfOnDynamo"');
    expect(published([])).toEqual([]);
  });

  it('rolls ThrottledEvents up by ThrottlingScope alone, for the alarm on throttled answers', () => {
    const docs = published([throttledEvent('PollForActivityTask', 'Account')]);
    expect(docs.map((d) => d._aws)).toMatchObject([
      { CloudWatchMetrics: [{ Dimensions: [['APIName', 'ThrottlingScope']] }] },
      { CloudWatchMetrics: [{ Dimensions: [['ThrottlingScope']] }] },
    ]);
    expect(docs[1]).toMatchObject({ ThrottlingScope: 'Account', ThrottledEvents: 1 });
    expect(docs[1]).not.toHaveProperty('APIName');
  });

  it('keeps the values of a metric measured twice in one commit', () => {
    const [doc] = published([
      { name: 'ActivityTaskScheduleToStartTime', dimensions: activity, value: 3 },
      { name: 'ActivityTaskScheduleToStartTime', dimensions: activity, value: 5 },
    ]);
    expect(doc?.ActivityTaskScheduleToStartTime).toEqual([3, 5]);
  });

  it("converts a non-ASCII name as SWF does: '?' and the SHA-256's first 16 hex digits", () => {
    // SWF's Developer Guide's own examples.
    expect(dimensionValue('test àpple')).toBe('test ?pple_82cc5b8e3a771d12');
    expect(dimensionValue('àòà')).toBe('???_2fec5edbb2c05c22');
    expect(dimensionValue('àpplé')).toBe('?ppl?_f39a36df9d85a69d');
    expect(dimensionValue('âpplè')).toBe('?ppl?_da3efb4f11dd0f7f');
    expect(dimensionValue('plain-name_1')).toBe('plain-name_1');
    expect(dimensionValue('x'.repeat(2000))).toHaveLength(1024);
    const [doc] = published([
      { name: 'WorkflowsFailed', dimensions: { ...workflow, Domain: 'àòà' }, value: 1 },
    ]);
    expect(doc?.Domain).toBe('???_2fec5edbb2c05c22');
  });
});
