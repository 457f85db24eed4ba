import { PollForDecisionTaskCommand } from '@aws-sdk/client-swf';
import { createSwfClient } from '../../lib/sdk/index.js';
import { type BenchEnv, DOMAIN } from '../env.js';
import { cpuMsOf } from '../process-cpu.js';
import { Progress } from '../progress.js';
import { sleep } from '../stats.js';

export interface IdleResult {
  readonly polls: number;
  /** Share of one core (0.1 = 10 %) the service's process used while only the polls waited. */
  readonly serviceCore: number;
  /** The same for its DynamoDB Local (its JVM), when the service started one. */
  readonly dynamoCore: number | undefined;
  readonly windowMs: number;
}

/** SWF's limit on pollers of one task list: a crowd this size on one list, the rest on lists of one. */
const CROWD = 200;
const POLLS = 1_000;
/** Time for every poll to arrive and make its first look before the window opens. */
const SETTLE_MS = 3_000;

/**
 * What 1,000 long polls cost while they wait and nothing else happens: 200 on one task list and 800
 * on 800 others, the CPU of the service's process (this one: the idle client in it costs nothing)
 * and of its DynamoDB Local measured over a window in which only the polls wait.
 */
export async function runIdle(env: BenchEnv, windowMs: number): Promise<IdleResult> {
  const progress = new Progress('idle');
  const client = createSwfClient({
    endpoint: env.service.endpoint,
    maxSockets: POLLS * 2,
    maxAttempts: 1,
  });
  const stop = new AbortController();
  const polls = Array.from({ length: POLLS }, (_, i) =>
    client
      .send(
        new PollForDecisionTaskCommand({
          domain: DOMAIN,
          taskList: { name: i < CROWD ? 'idle-crowd' : `idle-solo-${i}` },
        }),
        { abortSignal: stop.signal },
      )
      .catch(() => undefined),
  );
  try {
    await sleep(SETTLE_MS);
    const dynamoPid = env.service.dynamo?.pid();
    const before = { own: process.cpuUsage(), dynamo: dynamoPid && cpuMsOf(dynamoPid) };
    const began = performance.now();
    await sleep(windowMs);
    const elapsed = performance.now() - began;
    const own = process.cpuUsage(before.own);
    progress.done(`${POLLS} polls waited ${Math.round(elapsed)} ms`);
    return {
      polls: POLLS,
      serviceCore: round((own.user + own.system) / 1000 / elapsed),
      dynamoCore:
        dynamoPid === undefined || before.dynamo === undefined
          ? undefined
          : round((cpuMsOf(dynamoPid) - before.dynamo) / elapsed),
      windowMs: Math.round(elapsed),
    };
  } finally {
    stop.abort();
    await Promise.all(polls);
    client.destroy();
  }
}

const round = (n: number) => Number(n.toFixed(3));
