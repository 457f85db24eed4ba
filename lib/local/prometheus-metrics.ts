/**
 * SWF's metrics in Prometheus' text format, for the local server's `GET /metrics`: each metric named
 * `swf_` plus SWF's name in snake case (counts as counters ending `_total`, times as histograms in ms
 * ending `_ms`), SWF's dimensions as snake-case labels.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  type MetricSample,
  metricDimensions,
  SWF_METRICS,
  type SwfMetricName,
} from '../core/swf-metrics.js';
import type { TaskKind } from '../core/task-queue.js';
import type { MetricsSink } from '../ports/metrics.js';

/** Bucket bounds of every time histogram, ms: dispatch in milliseconds to workflows of a day. */
export const TIME_BUCKETS_MS = [
  5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 300_000, 900_000,
  3_600_000, 14_400_000, 86_400_000,
];

/** `DecisionTaskScheduleToStartTime` → `decision_task_schedule_to_start_time`; `APIName` → `api_name`. */
export const snakeCase = (name: string) =>
  name
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();

/** The exposition's name of an SWF metric. */
export function prometheusName(name: SwfMetricName): string {
  const base = `swf_${snakeCase(name)}`;
  if (name === 'PendingTasks') return base;
  return SWF_METRICS[name] === 'Milliseconds' ? `${base}_ms` : `${base}_total`;
}

/** Counts the tasks waiting on a list (the same count CountPending*Tasks answers). */
export type PendingCounter = (kind: TaskKind, domain: string, taskList: string) => Promise<number>;

/**
 * The local metrics: a MetricsSink fed by every commit and throttled call, and the exposition.
 * `PendingTasks` is counted at each scrape for every task list a task was queued on since start.
 */
export class PrometheusMetrics implements MetricsSink {
  readonly registry = new Registry();
  private readonly counters = new Map<SwfMetricName, Counter | Histogram>();
  private readonly lists = new Map<string, { kind: TaskKind; domain: string; taskList: string }>();

  constructor(countPending?: PendingCounter) {
    for (const name of Object.keys(SWF_METRICS) as SwfMetricName[]) {
      if (name === 'PendingTasks') continue;
      const common = {
        name: prometheusName(name),
        help: `${name} (Amazon SWF's CloudWatch metric)`,
        labelNames: metricDimensions(name).map(snakeCase),
        registers: [this.registry],
      };
      this.counters.set(
        name,
        SWF_METRICS[name] === 'Milliseconds'
          ? new Histogram({ ...common, buckets: TIME_BUCKETS_MS })
          : new Counter(common),
      );
    }
    if (countPending !== undefined) this.pendingGauge(countPending);
  }

  record(samples: readonly MetricSample[]): void {
    for (const sample of samples) {
      const metric = this.counters.get(sample.name);
      const labels = Object.fromEntries(
        Object.entries(sample.dimensions).map(([key, value]) => [snakeCase(key), value]),
      );
      if (metric instanceof Histogram) metric.observe(labels, sample.value);
      else metric?.inc(labels, sample.value);
    }
  }

  /** A task list a task was queued on: its backlog is counted at every scrape from now on. */
  noteTaskList(kind: TaskKind, domain: string, taskList: string): void {
    this.lists.set(`${kind}\u0000${domain}\u0000${taskList}`, { kind, domain, taskList });
  }

  /** The exposition (text format 0.0.4). */
  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  /** `GET /metrics` (a route of the local server); anything else is left to other routes. */
  route(): (req: IncomingMessage, res: ServerResponse) => boolean {
    return (req, res) => {
      if (new URL(req.url ?? '/', 'http://metrics.invalid').pathname !== '/metrics') return false;
      req.resume();
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end();
        return true;
      }
      this.exposition().then(
        (text) => {
          res.writeHead(200, { 'content-type': this.registry.contentType });
          res.end(req.method === 'HEAD' ? undefined : text);
        },
        (error: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${error}`);
        },
      );
      return true;
    };
  }

  private pendingGauge(countPending: PendingCounter): void {
    const lists = this.lists;
    new Gauge({
      name: prometheusName('PendingTasks'),
      help: "PendingTasks (Amazon SWF's CloudWatch metric): tasks waiting on the list now",
      labelNames: metricDimensions('PendingTasks').map(snakeCase),
      registers: [this.registry],
      async collect() {
        this.reset();
        const counted = await Promise.all(
          [...lists.values()].map(async (list) => ({
            list,
            count: await countPending(list.kind, list.domain, list.taskList),
          })),
        );
        for (const { list, count } of counted)
          this.set(
            {
              domain: list.domain,
              task_list_name: list.taskList,
              task_list_classification: list.kind === 'decision' ? 'D' : 'A',
            },
            count,
          );
      },
    });
  }
}
