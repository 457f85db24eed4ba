/**
 * `npm run bench`: measures the local service as users feel it and prints the figures the service is
 * held to (docs/performance.md), each target beside each figure. Options:
 *
 *   --only throughput,dispatch,cancellation,timers,cost,replay,idle,deployed   run some (default: all)
 *   --json FILE                                           also write every figure as JSON
 *   --quick                                               smaller samples (a smoke run)
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { startBenchEnv } from './env.js';
import { buildTable, formatTable } from './report.js';
import { type CancellationResult, runCancellation } from './scenarios/cancellation.js';
import { type CostResult, DEPLOYED_POLL_MAX_WAIT_MS, runCost } from './scenarios/cost.js';
import { type DeployedResult, runDeployed } from './scenarios/deployed.js';
import { deployedMemoryMb } from './scenarios/deployed-compute.js';
import { type DispatchResult, runDispatch } from './scenarios/dispatch.js';
import { type IdleResult, runIdle } from './scenarios/idle.js';
import { type ReplayResult, runReplay } from './scenarios/replay.js';
import { runThroughput, type ThroughputResult } from './scenarios/throughput.js';
import { runTimers, type TimersResult } from './scenarios/timers.js';

/**
 * In the order they run. Throughput first: DynamoDB Local serves the reference loop less than half as
 * fast once other scenarios have filled it (the run itself is not slowed as much), so the store's rate
 * is taken on a store that holds only the throughput scenario's own executions.
 */
export const SCENARIOS = [
  'throughput',
  'dispatch',
  'cancellation',
  'timers',
  'cost',
  'replay',
  'idle',
  'deployed',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface BenchResults {
  dispatch?: DispatchResult;
  throughput?: ThroughputResult;
  cancellation?: CancellationResult;
  timers?: TimersResult;
  cost?: CostResult;
  replay?: ReplayResult;
  idle?: IdleResult;
  deployed?: DeployedResult;
}

interface Args {
  readonly only: readonly Scenario[];
  readonly json: string | undefined;
  readonly quick: boolean;
  /** The deployed scenario's API function memory (BENCH_API_MEMORY_MB, else the stack's). */
  readonly apiMemoryMb: number;
}

function parseArgs(argv: readonly string[]): Args {
  let only: Scenario[] = [...SCENARIOS];
  let json: string | undefined;
  let quick = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') quick = true;
    else if (arg === '--json') json = argv[++i];
    else if (arg === '--only') {
      const names = (argv[++i] ?? '').split(',').filter((n) => n !== '');
      const unknown = names.filter((n) => !(SCENARIOS as readonly string[]).includes(n));
      if (unknown.length > 0 || names.length === 0)
        usage(`unknown scenario(s): ${unknown.join(', ') || '(none)'}`);
      only = SCENARIOS.filter((s) => names.includes(s));
    } else usage(`unknown option ${arg}`);
  }
  if (json === '') usage('--json needs a file name');
  let apiMemoryMb: number;
  try {
    apiMemoryMb = deployedMemoryMb(process.env.BENCH_API_MEMORY_MB);
  } catch (error) {
    usage((error as Error).message);
  }
  return { only, json, quick, apiMemoryMb };
}

function usage(problem: string): never {
  process.stderr.write(
    `${problem}\nusage: npm run bench -- [--only ${SCENARIOS.join(',')}] [--json FILE] [--quick]\n`,
  );
  process.exit(2);
}

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const args = parseArgs(process.argv.slice(2));
  const size = args.quick
    ? {
        dispatch: 30,
        workflows: 40,
        storeMs: 3_000,
        warmUpMs: 15_000,
        cancels: 10,
        timers: 60,
        cost: 20,
        replays: 10,
        idleMs: 3_000,
        deployed: { dispatchExecutions: 10, idleMs: 40_000, herdBatches: 2 },
      }
    : {
        dispatch: 150,
        workflows: 200,
        storeMs: 12_000,
        warmUpMs: 60_000,
        cancels: 30,
        timers: 300,
        cost: 60,
        replays: 60,
        idleMs: 10_000,
        deployed: { dispatchExecutions: 40, idleMs: 60_000, herdBatches: 10 },
      };
  const began = Date.now();
  process.stderr.write('starting the local service (DynamoDB Local, table, SWF endpoint) …\n');
  const env = await startBenchEnv();
  const results: BenchResults = {};
  try {
    for (const scenario of args.only) {
      env.resetCounters();
      if (scenario === 'dispatch') results.dispatch = await runDispatch(env, size.dispatch);
      if (scenario === 'throughput')
        results.throughput = await runThroughput(env, {
          workflows: size.workflows,
          inFlight: args.quick ? [16, 32] : [16, 32, 64],
          storeRateMs: size.storeMs,
          warmUpMs: size.warmUpMs,
        });
      if (scenario === 'cancellation')
        results.cancellation = await runCancellation(env, size.cancels);
      if (scenario === 'timers') results.timers = await runTimers(env, size.timers);
      // Replaying a workflow is the decider's own work: no request, the stack idle meanwhile.
      if (scenario === 'replay') results.replay = await runReplay(size.replays);
      if (scenario === 'idle') results.idle = await runIdle(env, size.idleMs);
      if (scenario === 'deployed')
        results.deployed = await runDeployed(env, size.deployed, args.apiMemoryMb);
      if (scenario === 'cost') {
        // The deployed service's figures: every request on its own (a Lambda container serves one
        // at a time, so no poller is handed a task or woken by another request), deployed long polls.
        // On a DynamoDB Local of its own: the one the other scenarios filled reads a new table's
        // stream slowly (every stream's reads slow down as the others grow: 4 -> 22 ms a GetRecords
        // after the throughput scenario), and a slow store stretches runs past their deadlines.
        const deployed = await startBenchEnv({
          tableName: 'swf-bench-cost',
          requestsApart: true,
          // The stack's wake channel, unless the stack before it is measured.
          wakeChannel: process.env.BENCH_DEPLOYED_WAKES !== 'off',
          attributeOrigin: true,
          polling: { maxWaitMs: DEPLOYED_POLL_MAX_WAIT_MS },
        });
        try {
          results.cost = await runCost(deployed, size.cost);
        } finally {
          await deployed.close();
        }
      }
    }
  } finally {
    await env.close();
  }
  const rows = buildTable(results);
  process.stdout.write(`\n${formatTable(rows)}\n`);
  process.stdout.write(`\n(${((Date.now() - began) / 1000).toFixed(0)} s on ${os()})\n`);
  if (args.json !== undefined) {
    const document = {
      when: new Date().toISOString(),
      machine: os(),
      durationSeconds: Math.round((Date.now() - began) / 1000),
      table: rows,
      results,
    };
    writeFileSync(args.json, `${JSON.stringify(document, null, 2)}\n`);
    process.stderr.write(`wrote ${args.json}\n`);
  }
}

function os(): string {
  return `Node ${process.versions.node}, ${availableParallelism()} cores`;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
