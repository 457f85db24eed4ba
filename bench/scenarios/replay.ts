/**
 * Workflows as code: how long replaying a whole history and deciding the next step takes, the work
 * of every decision task of a long-running workflow. The histories (bench/replay-history.ts) have
 * one decision task per step of the workflow's loop, the most replay steps for their events.
 */
import { silentLogger } from '../../lib/sdk/index.js';
import { decideWorkflowTask } from '../../lib/sdk/workflow/decide.js';
import { Progress } from '../progress.js';
import { replayBenchHistory, replayBenchWorkflow } from '../replay-history.js';
import { type Distribution, distribution } from '../stats.js';

export interface ReplaySize {
  readonly events: number;
  /** Decision tasks replayed per decision (the steps of the workflow's loop, and the one decided). */
  readonly steps: number;
  /** Wall time of replaying the history and deciding, in ms. */
  readonly ms: Distribution;
  /**
   * CPU time of the same, in ms: all of the replay's work (it waits on nothing); on a shared
   * machine the wall time adds the waits for a core.
   */
  readonly cpuMs: Distribution;
  /** Heap in use once the replays are done, in MB (the history itself included). */
  readonly heapUsedMb: number;
}

export interface ReplayResult {
  readonly sizes: readonly ReplaySize[];
}

export const REPLAY_EVENTS = [10_000, 25_000] as const;

export async function runReplay(samples: number): Promise<ReplayResult> {
  const progress = new Progress('replay');
  const sizes: ReplaySize[] = [];
  for (const events of REPLAY_EVENTS) {
    const history = replayBenchHistory(events);
    const runs = events > 10_000 ? Math.ceil(samples / 2) : samples;
    const decide = async () => {
      const began = performance.now();
      const cpu = process.cpuUsage();
      const decisions = await decideWorkflowTask(replayBenchWorkflow, history, {
        logger: silentLogger,
      });
      const used = process.cpuUsage(cpu);
      const took = { wall: performance.now() - began, cpu: (used.user + used.system) / 1000 };
      if (decisions === undefined || decisions.length === 0)
        throw new Error(`the replay of ${events} events did not decide the workflow's next step`);
      return took;
    };
    for (let i = 0; i < 5; i++) await decide(); // warm-up: compiled code, as a long-running worker has
    const times: { wall: number; cpu: number }[] = [];
    for (let i = 0; i < runs; i++) {
      times.push(await decide());
      progress.update(i + 1, runs, `replays of ${history.events.length} events`);
    }
    const heapUsedMb = Math.round(process.memoryUsage().heapUsed / 1e5) / 10;
    sizes.push({
      events: history.events.length,
      steps: history.steps + 1,
      ms: distribution(times.map((t) => t.wall)),
      cpuMs: distribution(times.map((t) => t.cpu)),
      heapUsedMb,
    });
  }
  progress.done(sizes.map((s) => `${s.events} events p50 ${s.ms.p50} ms`).join(', '));
  return { sizes };
}
