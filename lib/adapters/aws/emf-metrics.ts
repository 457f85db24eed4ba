import { createHash } from 'node:crypto';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { type MetricSample, SWF_METRICS } from '../../core/swf-metrics.js';
import type { MetricsSink } from '../../ports/metrics.js';

/** Where the stack's functions publish SWF's metrics unless told otherwise. */
export const DEFAULT_METRICS_NAMESPACE = 'SwfOnDynamo';

/**
 * SWF's metrics as CloudWatch embedded metric format, written to stdout by Powertools' Metrics:
 * CloudWatch Logs turns each line into data points, no PutMetricData call made. One line per
 * dimension set of what a commit measured, with SWF's dimensions only (Powertools' own `service`
 * dimension is dropped, so the metrics are SWF's, queryable and alarmed on as SWF's are).
 */
export class EmfMetrics implements MetricsSink {
  private readonly metrics: Metrics;

  constructor(namespace: string = DEFAULT_METRICS_NAMESPACE) {
    this.metrics = new Metrics({ namespace });
    this.metrics.clearDefaultDimensions();
  }

  record(samples: readonly MetricSample[]): void {
    const groups = new Map<string, MetricSample[]>();
    for (const sample of [...samples, ...samples.flatMap(rollUp)]) {
      const key = JSON.stringify(Object.entries(sample.dimensions).sort());
      const group = groups.get(key);
      if (group === undefined) groups.set(key, [sample]);
      else group.push(sample);
    }
    for (const group of groups.values()) this.publish(group);
  }

  /** One EMF document: the group's samples share their dimensions. */
  private publish(group: readonly MetricSample[]): void {
    const [first] = group;
    if (first === undefined) return;
    this.metrics.addDimensions(
      Object.fromEntries(
        Object.entries(first.dimensions).map(([name, value]) => [name, dimensionValue(value)]),
      ),
    );
    for (const sample of group) this.metrics.addMetric(sample.name, unitOf(sample), sample.value);
    this.metrics.publishStoredMetrics();
  }
}

/**
 * Roll-ups CloudWatch alarms need (an alarm cannot sum a metric over all values of a dimension):
 * ThrottledEvents also by ThrottlingScope alone.
 */
function rollUp(sample: MetricSample): MetricSample[] {
  if (sample.name !== 'ThrottledEvents') return [];
  const scope = sample.dimensions.ThrottlingScope;
  return scope === undefined ? [] : [{ ...sample, dimensions: { ThrottlingScope: scope } }];
}

const unitOf = (sample: MetricSample) =>
  SWF_METRICS[sample.name] === 'Milliseconds' ? MetricUnit.Milliseconds : MetricUnit.Count;

/** CloudWatch's longest dimension value. */
const MAX_DIMENSION_VALUE = 1024;

/**
 * A name as a CloudWatch dimension value, as SWF converts it: CloudWatch takes printable ASCII only,
 * so every other character becomes `?`, and a name so converted gets `_` and the first 16 hex digits
 * of its SHA-256 appended (names that differ only there stay apart), cut to fit CloudWatch's length.
 */
export function dimensionValue(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/gu, '?');
  if (ascii === name && name.length <= MAX_DIMENSION_VALUE) return name;
  const checksum = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 16);
  return `${ascii.slice(0, MAX_DIMENSION_VALUE - 17)}_${checksum}`;
}
