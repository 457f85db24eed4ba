import { availableParallelism } from 'node:os';
import type { BenchResults } from './run.js';
import type { DeployedResult } from './scenarios/deployed.js';
import { computeText } from './scenarios/deployed-compute.js';
import type { Distribution } from './stats.js';

/** One line of the targets table (docs/performance.md): what is measured, its target, the figure, and whether it holds. */
export interface Row {
  readonly what: string;
  readonly target: string;
  readonly measured: string;
  readonly verdict: 'met' | 'MISSED' | 'n/a';
}

const verdict = (ok: boolean): Row['verdict'] => (ok ? 'met' : 'MISSED');
const msText = (n: number) => `${n} ms`;

/** The cost scenario's polling figures before the stack had its wake channel (full run). */
const POLLING_BEFORE_WAKE_CHANNEL = { 'API Gateway': 19.08, 'function URL': 14.06 } as const;

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
      const wakes = r.cost.perRoundTrip.wakeRequests;
      if (wakes > 0) {
        const before = POLLING_BEFORE_WAKE_CHANNEL[front];
        const sqs = cost.httpPolling.lines.find((l) => l.item === 'SQS wake channel requests');
        rows.push({
          what: `cost per million activity round trips, HTTP polling, ${front}, with the wake channel (${wakes} SQS requests per round trip)`,
          target: `no worse than before it: ≤ $${before.toFixed(2)}`,
          measured: `$${cost.httpPolling.perMillion.toFixed(2)} (wake channel SQS $${(sqs?.perMillion ?? 0).toFixed(2)})`,
          verdict: verdict(cost.httpPolling.perMillion <= before),
        });
      }
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
  if (r.deployed !== undefined) rows.push(...deployedRows(r.deployed));
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

/** The deployed path's rows: each call in a Lambda container of its own, nothing woken in-process. */
function deployedRows(d: DeployedResult): Row[] {
  const how = `${d.wakes ? 'wake channel' : 'queue re-read each second'}; ${computeText(d.compute)}`;
  const dispatch = (pollers: string, x: Distribution): Row => ({
    what: `task dispatch with ${pollers} waiting, deployed (${how}, n=${x.count})`,
    target: 'p50 ≤ 50 ms, p99 ≤ 250 ms',
    measured: `p50 ${msText(x.p50)}, p99 ${msText(x.p99)}`,
    verdict: verdict(x.p50 <= 50 && x.p99 <= 250),
  });
  const fresh = d.dispatch.twentyPollersFresh;
  return [
    dispatch('1 poller', d.dispatch.onePoller),
    dispatch('20 pollers (containers that served a run before)', d.dispatch.twentyPollers),
    {
      what: `task dispatch with 20 pollers waiting in fresh containers, their first tasks, deployed (${how}, n=${fresh.count})`,
      target: 'reported (V8 compiles each path as it first runs)',
      measured: `p50 ${msText(fresh.p50)}, p99 ${msText(fresh.p99)}`,
      verdict: 'n/a',
    },
    {
      what: `tasks handed out twice, deployed dispatch runs`,
      target: '0',
      measured: String(d.dispatch.extraTasks),
      verdict: verdict(d.dispatch.extraTasks === 0),
    },
    {
      what: `idle cost of one waiting poller, deployed, all in (${how}, ${d.idle.windowMs} ms)`,
      target: '≤ $0.008 an hour',
      measured: `$${d.idle.perHour.toFixed(4)} (${Object.entries(d.idle.lines)
        .map(([k, v]) => `${k} $${v.toFixed(4)}`)
        .join(', ')})`,
      verdict: verdict(d.idle.perHour <= 0.008),
    },
    {
      what: `lost claims per task, ${d.herd.pollers} pollers waiting on one list, deployed (${how}, ${d.herd.tasks} tasks)`,
      target: '≤ 0.2',
      measured: `${d.herd.lostClaimsPerTask} (${d.herd.stateReads} run reads, ${d.herd.lostWrites} lost writes, ${d.herd.failedCalls} failed calls)`,
      verdict: verdict(d.herd.lostClaimsPerTask <= 0.2),
    },
    {
      what: `polling cost per million activity round trips, deployed, API side (front door, API Lambda, its DynamoDB, wake SQS; one task at a time, pollers waiting; ${how})`,
      target: 'reported (all in today: $19.08 API Gateway, $14.06 function URL)',
      measured: `$${d.polling.httpApi.toFixed(2)} API Gateway, $${d.polling.functionUrl.toFixed(2)} function URL`,
      verdict: 'n/a',
    },
    ...managedInstancesRows(d.managedInstances),
  ];
}

/** The same function on Lambda Managed Instances: many invocations in one process. */
function managedInstancesRows(m: DeployedResult['managedInstances']): Row[] {
  const how = `managed instances, ${m.perEnvironment} invocations an environment`;
  return [
    {
      what: `task dispatch with 20 pollers waiting in one process, deployed (${how}, ${m.environments} environment(s), n=${m.dispatch.count})`,
      target: 'p50 ≤ 50 ms, p99 ≤ 250 ms',
      measured: `p50 ${msText(m.dispatch.p50)}, p99 ${msText(m.dispatch.p99)}`,
      verdict: verdict(m.dispatch.p50 <= 50 && m.dispatch.p99 <= 250),
    },
    {
      what: `tasks handed out twice, deployed dispatch run (${how})`,
      target: '0',
      measured: String(m.extraTasks),
      verdict: verdict(m.extraTasks === 0),
    },
    {
      what: `idle cost of one waiting poller, deployed, all in (${how}: its calls, and its share of a c7g.large, ${m.idle.windowMs} ms)`,
      target: '≤ $0.008 an hour',
      measured: `$${m.idle.perHour.toFixed(4)} (instance share $${m.idle.instanceShare.toFixed(4)}, ${Object.entries(
        m.idle.lines,
      )
        .map(([k, v]) => `${k} $${v.toFixed(4)}`)
        .join(
          ', ',
        )}); the instances cost at least $${m.fixedMonthly.toFixed(0)} a month, what ${m.breakEvenPollers} pollers waiting on Lambda's default compute cost`,
      verdict: verdict(m.idle.perHour <= 0.008),
    },
  ];
}
