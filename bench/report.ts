import { availableParallelism } from 'node:os';
import type { BenchResults } from './run.js';

/** One line of the targets table (docs/performance.md): what is measured, its target, the figure, and whether it holds. */
export interface Row {
  readonly what: string;
  readonly target: string;
  readonly measured: string;
  readonly verdict: 'met' | 'MISSED' | 'n/a';
}

const verdict = (ok: boolean): Row['verdict'] => (ok ? 'met' : 'MISSED');
const msText = (n: number) => `${n} ms`;

export function buildTable(r: BenchResults): Row[] {
  const rows: Row[] = [];
  if (r.dispatch !== undefined) {
    for (const [kind, d] of [
      ['decision', r.dispatch.decision],
      ['activity', r.dispatch.activity],
    ] as const) {
      rows.push({
        what: `task dispatch with a poller waiting, local (${kind} tasks, n=${d.count})`,
        target: 'p50 ≤ 10 ms, p99 ≤ 50 ms',
        measured: `p50 ${msText(d.p50)}, p99 ${msText(d.p99)}`,
        verdict: verdict(d.p50 <= 10 && d.p99 <= 50),
      });
    }
  }
  if (r.cancellation !== undefined) {
    const c = r.cancellation.latency;
    rows.push({
      what: `cancellation reaching an in-flight activity's AbortSignal (default SDK settings, n=${c.count})`,
      target: 'p99 ≤ 2 s',
      measured: `p50 ${msText(c.p50)}, p99 ${msText(c.p99)}`,
      verdict: verdict(c.p99 <= 2_000),
    });
  }
  if (r.timers !== undefined) {
    const t = r.timers.lateness;
    rows.push({
      what: `timer lateness, local (n=${t.count})`,
      target: 'p99 ≤ 100 ms',
      measured: `p50 ${msText(t.p50)}, p99 ${msText(t.p99)}`,
      verdict: verdict(t.p99 <= 100),
    });
  }
  if (r.cost !== undefined) {
    const fronts = [
      ['API Gateway', r.cost],
      ['function URL', r.cost.functionUrl],
    ] as const;
    for (const [front, cost] of fronts) {
      rows.push({
        what: `cost per million activity round trips, Lambda push mode (push task lists), ${front}`,
        target: '≤ $8 (Amazon SWF: $25)',
        measured: `$${cost.lambdaPush.perMillion.toFixed(2)}`,
        verdict: verdict(cost.lambdaPush.perMillion <= 8),
      });
      rows.push({
        what: `cost per million activity round trips, HTTP polling, ${front}`,
        target: '≤ $15 (Amazon SWF: $25)',
        measured: `$${cost.httpPolling.perMillion.toFixed(2)}`,
        verdict: verdict(cost.httpPolling.perMillion <= 15),
      });
    }
  }
  if (r.replay !== undefined) {
    for (const size of r.replay.sizes) {
      const ceiling = size.events > 10_000;
      rows.push({
        what: `workflows as code: replay a ${size.events.toLocaleString('en')}-event history (${size.steps} decision tasks) and decide, n=${size.ms.count}${ceiling ? " (SWF's ceiling)" : ''}`,
        target: ceiling ? 'reported' : '≤ 50 ms on 2 cores',
        measured: `wall p50 ${msText(size.ms.p50)}, p99 ${msText(size.ms.p99)}; CPU p50 ${msText(size.cpuMs.p50)}, p99 ${msText(size.cpuMs.p99)}; heap ${size.heapUsedMb} MB`,
        // The target is the time a decider takes, so the verdict is on the wall time. The CPU time
        // beside it tells a busy machine's waits for a core from the replay's own work.
        verdict: ceiling ? 'n/a' : verdict(size.ms.p99 <= 50),
      });
    }
  }
  if (r.idle !== undefined) {
    const i = r.idle;
    const share = (n: number) => `${(n * 100).toFixed(1)} % of a core`;
    rows.push({
      what: `idle CPU of ${i.polls.toLocaleString('en')} waiting long polls (200 on one list, the rest alone), local, ${i.windowMs} ms`,
      target: 'service < 10 % of a core',
      measured: `service ${share(i.serviceCore)}${i.dynamoCore === undefined ? '' : `; DynamoDB Local ${share(i.dynamoCore)}`}`,
      verdict: verdict(i.serviceCore < 0.1),
    });
  }
  if (r.throughput !== undefined) {
    const t = r.throughput;
    rows.push({
      what: `throughput on ${availableParallelism()} cores with DynamoDB Local (best of ${t.levels.map((l) => l.inFlight).join('/')} executions at once: ${t.inFlight})`,
      target: '≥ 70 % of what the store allows at the minimum requests per round trip',
      measured: `${Math.round(t.shareOfStore * 100)} % (${t.roundTripsPerSecond} round trips/s, ${t.workflowsPerSecond} workflows/s; store ${t.store.requestsPerSecond} req/s (${t.store.before.requestsPerSecond} before the runs, ${t.store.after.requestsPerSecond} after) ÷ ${t.minimumRequestsPerRoundTrip} req/round trip (the fewest of ${t.levels.map((l) => l.requestsPerRoundTrip).join(' / ')}) = ${t.storeAllowsRoundTripsPerSecond}/s)`,
      // A reference below the run's own request rate is no upper bound (the loop's requests are not
      // the run's, or it was disturbed): no verdict.
      verdict: t.shareOfStore > 1 ? 'n/a' : verdict(t.shareOfStore >= 0.7),
    });
  }
  return rows;
}

export function formatTable(rows: readonly Row[]): string {
  const header: Row = { what: 'what', target: 'target', measured: 'measured', verdict: 'n/a' };
  const cells = (row: Row) => [
    row.what,
    row.target,
    row.measured,
    row === header ? 'verdict' : row.verdict,
  ];
  const all = [header, ...rows].map(cells);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...all.map((c) => (c[i] ?? '').length)));
  const line = (c: string[]) =>
    `| ${c.map((text, i) => text.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const rule = `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`;
  return [line(all[0] ?? []), rule, ...all.slice(1).map(line)].join('\n');
}
