import { ErrorBox, Loading } from '../components.js';
import { formatDuration } from '../format.js';
import { useAsync, useInterval } from '../hooks.js';
import { loadMetrics } from '../metrics.js';
import {
  ACTIVITY_OUTCOMES,
  type LatencyRow,
  latencyRows,
  type OutcomeRow,
  outcomeRows,
  type Sample,
  WORKFLOW_OUTCOMES,
} from '../metrics-model.js';

const REFRESH_MS = 10_000;

/** Charts of the endpoint's /metrics: outcomes and schedule-to-start times per type. */
export function MetricsView(props: { domain?: string }) {
  const metrics = useAsync((signal) => loadMetrics(signal), []);
  useInterval(metrics.reload, REFRESH_MS, metrics.value !== undefined);
  const title = props.domain === undefined ? 'Metrics' : `Metrics of ${props.domain}`;
  if (metrics.error !== undefined)
    return (
      <section>
        <h1>{title}</h1>
        <ErrorBox error={metrics.error} onRetry={metrics.reload} />
      </section>
    );
  if (metrics.loading && metrics.value === undefined) return <Loading what="metrics" />;
  if (metrics.value === undefined)
    return (
      <section>
        <h1>{title}</h1>
        <p class="empty">
          This endpoint has no metrics (GET /metrics answers 404). The local server (npm start) has
          them.
        </p>
      </section>
    );
  return (
    <Charts
      samples={metrics.value}
      title={title}
      {...(props.domain === undefined ? {} : { domain: props.domain })}
    />
  );
}

function Charts(props: { samples: readonly Sample[]; title: string; domain?: string }) {
  const { samples, domain } = props;
  return (
    <section class="metrics">
      <h1>{props.title}</h1>
      <p class="muted">
        From the endpoint’s GET /metrics, since it started; refreshed every 10 seconds.
      </p>
      <OutcomeChart
        title="Workflow outcomes by workflow type"
        outcomes={WORKFLOW_OUTCOMES}
        rows={outcomeRows(samples, 'workflow', domain)}
      />
      <OutcomeChart
        title="Activity task outcomes by activity type"
        outcomes={ACTIVITY_OUTCOMES}
        rows={outcomeRows(samples, 'activity', domain)}
      />
      <LatencyChart
        title="Activity task schedule-to-start time by activity type"
        rows={latencyRows(
          samples,
          'swf_activity_task_schedule_to_start_time_ms',
          'activity',
          domain,
        )}
      />
      <LatencyChart
        title="Decision task schedule-to-start time by workflow type"
        rows={latencyRows(
          samples,
          'swf_decision_task_schedule_to_start_time_ms',
          'workflow',
          domain,
        )}
      />
    </section>
  );
}

const words = (outcome: string) => outcome.replaceAll('_', ' ');

function OutcomeChart(props: {
  title: string;
  outcomes: readonly string[];
  rows: readonly OutcomeRow[];
}) {
  const max = Math.max(1, ...props.rows.map((row) => row.total));
  return (
    <figure class="chart" aria-label={props.title}>
      <figcaption>{props.title}</figcaption>
      {props.rows.length === 0 ? (
        <p class="empty">Nothing closed yet.</p>
      ) : (
        <>
          <ul class="legend">
            {props.outcomes.map((outcome) => (
              <li key={outcome}>
                <span class={`swatch metric-${outcome}`} aria-hidden="true" /> {words(outcome)}
              </li>
            ))}
          </ul>
          <table class="chart-rows">
            <tbody>
              {props.rows.map((row) => (
                <tr key={`${row.domain}/${row.type}`}>
                  <th scope="row">
                    {row.type} <span class="muted">{row.domain}</span>
                  </th>
                  <td class="chart-bar-cell">
                    <div class="stack" style={{ width: `${(row.total / max) * 100}%` }}>
                      {props.outcomes
                        .filter((outcome) => (row.counts[outcome] ?? 0) > 0)
                        .map((outcome) => (
                          <span
                            key={outcome}
                            class={`segment metric-${outcome}`}
                            style={{ flexGrow: row.counts[outcome] }}
                            title={`${words(outcome)}: ${row.counts[outcome]}`}
                          />
                        ))}
                    </div>
                  </td>
                  <td class="numbers">
                    {props.outcomes
                      .filter((outcome) => (row.counts[outcome] ?? 0) > 0)
                      .map((outcome) => `${row.counts[outcome]} ${words(outcome)}`)
                      .join(', ')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </figure>
  );
}

function LatencyChart(props: { title: string; rows: readonly LatencyRow[] }) {
  const max = Math.max(1, ...props.rows.map((row) => (Number.isFinite(row.p99Ms) ? row.p99Ms : 0)));
  const bar = (ms: number, kind: string) => (
    <span
      class={`latency ${kind}`}
      style={{ width: `${Number.isFinite(ms) ? Math.max((ms / max) * 100, 0.5) : 0}%` }}
      title={`${kind}: ${formatDuration(ms)}`}
    />
  );
  return (
    <figure class="chart" aria-label={props.title}>
      <figcaption>{props.title}</figcaption>
      {props.rows.length === 0 ? (
        <p class="empty">No tasks started yet.</p>
      ) : (
        <table class="chart-rows">
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">p50 / p90 / p99</th>
              <th scope="col">Figures</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row) => (
              <tr key={`${row.domain}/${row.type}`}>
                <th scope="row">
                  {row.type} <span class="muted">{row.domain}</span>
                </th>
                <td class="chart-bar-cell latencies">
                  {bar(row.p50Ms, 'p50')}
                  {bar(row.p90Ms, 'p90')}
                  {bar(row.p99Ms, 'p99')}
                </td>
                <td class="numbers">
                  p50 {formatDuration(row.p50Ms)}, p90 {formatDuration(row.p90Ms)}, p99{' '}
                  {formatDuration(row.p99Ms)}; mean {formatDuration(row.meanMs)} over {row.count}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </figure>
  );
}
