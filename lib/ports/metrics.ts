import type { MetricSample } from '../core/swf-metrics.js';

/**
 * Where SWF's metrics go: CloudWatch (embedded metric format) on AWS, the local server's
 * `GET /metrics`. Recording never fails the request that made the samples.
 */
export interface MetricsSink {
  record(samples: readonly MetricSample[]): void;
}
