/**
 * The local server's `GET /metrics` (Prometheus' text exposition format: SWF's metric names in snake
 * case prefixed `swf_`, its dimensions as labels) read into what the charts show: outcome counts per
 * workflow and activity type, and schedule-to-start time percentiles per type. Pure.
 */

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

/**
 * The samples of an exposition (format 0.0.4): comments and blank lines skipped, label values
 * unescaped, `NaN` and `±Inf` read. A line that is not a sample throws, naming its line number.
 */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const sample = parseSample(line);
    if (sample === undefined)
      throw new Error(`metrics line ${index + 1} is not a sample: ${line.slice(0, 80)}`);
    samples.push(sample);
  });
  return samples;
}

function parseSample(line: string): Sample | undefined {
  const name = NAME.exec(line)?.[0];
  if (name === undefined) return undefined;
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    const end = parseLabels(rest, labels);
    if (end === undefined) return undefined;
    rest = rest.slice(end);
  }
  const [valueText] = rest.trim().split(/\s+/);
  const value = parseValue(valueText ?? '');
  return value === undefined ? undefined : { name, labels, value };
}

/** Reads `{a="x",b="y"}` into `labels`; the index after `}`, or undefined when malformed. */
function parseLabels(text: string, labels: Record<string, string>): number | undefined {
  let i = 1;
  for (;;) {
    while (text[i] === ' ' || text[i] === ',') i++;
    if (text[i] === '}') return i + 1;
    const name = LABEL_NAME.exec(text.slice(i))?.[0];
    if (name === undefined) return undefined;
    i += name.length;
    while (text[i] === ' ') i++;
    if (text[i] !== '=' || text[i + 1] !== '"') return undefined;
    i += 2;
    let value = '';
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') {
        const next = text[i + 1];
        value += next === 'n' ? '\n' : (next ?? '');
        i += 2;
      } else value += text[i++];
    }
    if (text[i] !== '"') return undefined;
    labels[name] = value;
    i++;
  }
}

function parseValue(text: string): number | undefined {
  if (text === 'NaN') return Number.NaN;
  if (text === '+Inf' || text === 'Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  const value = Number(text);
  return text === '' || Number.isNaN(value) ? undefined : value;
}

/**
 * A label's value by its dimension, however it is spelt: `Domain`, `domain`, `WorkflowTypeName` and
 * `workflow_type_name` are the same dimension.
 */
export function dimension(labels: Readonly<Record<string, string>>, name: string): string {
  const wanted = name.toLowerCase().replaceAll('_', '');
  for (const [label, value] of Object.entries(labels))
    if (label.toLowerCase().replaceAll('_', '') === wanted) return value;
  return '';
}

export const WORKFLOW_OUTCOMES = [
  'completed',
  'failed',
  'timed_out',
  'canceled',
  'terminated',
  'continued_as_new',
] as const;
export const ACTIVITY_OUTCOMES = ['completed', 'failed', 'timed_out', 'canceled'] as const;

export interface OutcomeRow {
  readonly domain: string;
  readonly type: string;
  readonly counts: Record<string, number>;
  readonly total: number;
}

/**
 * Outcome counts per type: `swf_workflows_<outcome>_total` by workflow type, or
 * `swf_activity_tasks_<outcome>_total` and the four activity timeouts
 * (`swf_{scheduled,started}_activity_tasks_timed_out_on_*_total`) by activity type.
 */
export function outcomeRows(
  samples: readonly Sample[],
  kind: 'workflow' | 'activity',
  domain?: string,
): OutcomeRow[] {
  const family = kind === 'workflow' ? 'workflows' : 'activity_tasks';
  const own = new RegExp(`^swf_${family}_([a-z_]+?)_total$`);
  const timeouts = /^swf_(?:scheduled|started)_activity_tasks_timed_out_on_[a-z_]+_total$/;
  const rows = new Map<string, { domain: string; type: string; counts: Record<string, number> }>();
  for (const sample of samples) {
    const outcome =
      own.exec(sample.name)?.[1] ??
      (kind === 'activity' && timeouts.test(sample.name) ? 'timed_out' : undefined);
    if (outcome === undefined || !Number.isFinite(sample.value)) continue;
    const row = rowFor(rows, sample, kind, domain, (d, type) => ({
      domain: d,
      type,
      counts: {} as Record<string, number>,
    }));
    if (row !== undefined) row.counts[outcome] = (row.counts[outcome] ?? 0) + sample.value;
  }
  return [...rows.values()]
    .map((row) => ({ ...row, total: Object.values(row.counts).reduce((a, b) => a + b, 0) }))
    .sort((a, b) => b.total - a.total || a.type.localeCompare(b.type));
}

function rowFor<T extends { domain: string; type: string }>(
  rows: Map<string, T>,
  sample: Sample,
  kind: 'workflow' | 'activity',
  domain: string | undefined,
  make: (domain: string, type: string) => T,
): T | undefined {
  const sampleDomain = dimension(sample.labels, 'Domain');
  if (domain !== undefined && sampleDomain !== domain) return undefined;
  const prefix = kind === 'workflow' ? 'WorkflowType' : 'ActivityType';
  const name = dimension(sample.labels, `${prefix}Name`);
  if (name === '') return undefined;
  const version = dimension(sample.labels, `${prefix}Version`);
  const type = version === '' ? name : `${name} v${version}`;
  const key = `${sampleDomain}\u0000${type}`;
  let row = rows.get(key);
  if (row === undefined) {
    row = make(sampleDomain, type);
    rows.set(key, row);
  }
  return row;
}

export interface LatencyRow {
  readonly domain: string;
  readonly type: string;
  readonly count: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
}

interface HistogramAcc {
  domain: string;
  type: string;
  buckets: Map<number, number>;
  sum: number;
  count: number;
}

/**
 * Percentiles of a histogram (`<metric>_bucket`, `_sum`, `_count`) per type, summed over task lists:
 * `swf_activity_task_schedule_to_start_time_ms` by activity type, say, or
 * `swf_decision_task_schedule_to_start_time_ms` by workflow type.
 */
export function latencyRows(
  samples: readonly Sample[],
  metric: string,
  kind: 'workflow' | 'activity',
  domain?: string,
): LatencyRow[] {
  const rows = new Map<string, HistogramAcc>();
  const make = (d: string, type: string): HistogramAcc => ({
    domain: d,
    type,
    buckets: new Map(),
    sum: 0,
    count: 0,
  });
  for (const sample of samples) {
    const part = sample.name.startsWith(metric) ? sample.name.slice(metric.length) : undefined;
    if (part !== '_bucket' && part !== '_sum' && part !== '_count') continue;
    const row = rowFor(rows, sample, kind, domain, make);
    if (row === undefined) continue;
    if (part === '_sum') row.sum += sample.value;
    else if (part === '_count') row.count += sample.value;
    else {
      const le = parseValue(dimension(sample.labels, 'le'));
      if (le !== undefined) row.buckets.set(le, (row.buckets.get(le) ?? 0) + sample.value);
    }
  }
  return [...rows.values()]
    .filter((row) => row.count > 0)
    .map((row) => {
      const buckets = [...row.buckets.entries()].sort((a, b) => a[0] - b[0]);
      return {
        domain: row.domain,
        type: row.type,
        count: row.count,
        meanMs: row.sum / row.count,
        p50Ms: quantile(0.5, buckets),
        p90Ms: quantile(0.9, buckets),
        p99Ms: quantile(0.99, buckets),
      };
    })
    .sort((a, b) => b.p90Ms - a.p90Ms || a.type.localeCompare(b.type));
}

/**
 * The q-quantile of cumulative buckets `[upper bound, count]`, sorted by bound, interpolated
 * linearly within its bucket as Prometheus' histogram_quantile does; the highest finite bound
 * when it falls in the +Inf bucket.
 */
export function quantile(q: number, buckets: readonly (readonly [number, number])[]): number {
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total === 0) return Number.NaN;
  const rank = q * total;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const [bound, count] of buckets) {
    if (count >= rank) {
      if (bound === Number.POSITIVE_INFINITY) return lowerBound;
      if (count === lowerCount) return bound;
      return lowerBound + ((bound - lowerBound) * (rank - lowerCount)) / (count - lowerCount);
    }
    lowerBound = bound;
    lowerCount = count;
  }
  return lowerBound;
}
