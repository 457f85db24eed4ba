import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  latencyRows,
  outcomeRows,
  parseExposition,
  quantile,
} from '../../../console/src/metrics-model.js';

const fixture = readFileSync(new URL('./metrics-fixture.prom', import.meta.url), 'utf8');
const samples = parseExposition(fixture);

describe('the metrics charts read the Prometheus text of GET /metrics', () => {
  it('reads every sample: labels unescaped, +Inf bounds, timestamps left aside', () => {
    expect(samples).toHaveLength(27);
    expect(
      samples.find((s) => s.name === 'swf_activity_tasks_failed_total')?.labels.ActivityTypeName,
    ).toBe('Charge "Card"');
    expect(samples.find((s) => s.name === 'swf_pending_tasks')).toEqual({
      name: 'swf_pending_tasks',
      labels: { domain: 'orders', task_list_name: 'a' },
      value: 3,
    });
    expect(parseExposition('a{le="+Inf"} +Inf\nb NaN\nc{x="a\\\\b\\nc"} -1e3')).toEqual([
      { name: 'a', labels: { le: '+Inf' }, value: Number.POSITIVE_INFINITY },
      { name: 'b', labels: {}, value: Number.NaN },
      { name: 'c', labels: { x: 'a\\b\nc' }, value: -1000 },
    ]);
  });

  it('refuses a line that is no sample, saying which', () => {
    expect(() => parseExposition('# ok\nswf_x{domain="a" 1')).toThrow(
      /metrics line 2 is not a sample/,
    );
    expect(() => parseExposition('swf_x{domain="a"} one')).toThrow(/line 1/);
  });

  it('counts workflow outcomes per type and domain', () => {
    expect(outcomeRows(samples, 'workflow')).toEqual([
      {
        domain: 'orders',
        type: 'OrderWorkflow v1',
        counts: { completed: 7, failed: 2, canceled: 1 },
        total: 10,
      },
      { domain: 'billing', type: 'Invoice v3', counts: { completed: 2 }, total: 2 },
    ]);
    expect(outcomeRows(samples, 'workflow', 'billing').map((r) => r.type)).toEqual(['Invoice v3']);
  });

  it('counts activity outcomes per type, over task lists, the four timeouts as timed out, either label spelling', () => {
    expect(outcomeRows(samples, 'activity')).toEqual([
      {
        domain: 'orders',
        type: 'ShipOrder v1',
        counts: { completed: 8, canceled: 1, timed_out: 3 },
        total: 12,
      },
      { domain: 'orders', type: 'Charge "Card" v1', counts: { failed: 4 }, total: 4 },
    ]);
  });

  it('estimates schedule-to-start percentiles per type from the summed buckets, as histogram_quantile does', () => {
    const [ship] = latencyRows(samples, 'swf_activity_task_schedule_to_start_time_ms', 'activity');
    // Summed over the two task lists: ≤10: 2, ≤100: 6, ≤1000: 9, +Inf: 10.
    expect(ship).toMatchObject({ type: 'ShipOrder v1', count: 10, meanMs: 1064 });
    expect(ship?.p50Ms).toBeCloseTo(10 + (90 * (5 - 2)) / 4);
    expect(ship?.p90Ms).toBeCloseTo(1000);
    expect(ship?.p99Ms).toBe(1000);
    const [decisions] = latencyRows(
      samples,
      'swf_decision_task_schedule_to_start_time_ms',
      'workflow',
    );
    expect(decisions).toMatchObject({
      type: 'OrderWorkflow v1',
      count: 10,
      meanMs: 2.1,
      p50Ms: 2.5,
    });
  });

  it('quantile: linear within the bucket, the last finite bound in +Inf, NaN when empty', () => {
    expect(
      quantile(0.5, [
        [1, 0],
        [2, 10],
      ]),
    ).toBe(1.5);
    expect(
      quantile(0.99, [
        [1, 5],
        [Number.POSITIVE_INFINITY, 10],
      ]),
    ).toBe(1);
    expect(quantile(0.5, [[1, 0]])).toBeNaN();
  });
});
