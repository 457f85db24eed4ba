import { StartWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import { type Decider, DeciderWorker, decide, silentLogger } from '../../lib/sdk/index.js';
import { type BenchEnv, DOMAIN, ms, uniqueId, WORKFLOW } from '../env.js';
import { Progress } from '../progress.js';
import { type Distribution, distribution, sleep } from '../stats.js';

export interface TimersResult {
  /** TimerFired's timestamp minus the timer's due time (TimerStarted + startToFireTimeout). */
  readonly lateness: Distribution;
  /** When the decider held the decision task carrying TimerFired, minus the due time. */
  readonly seenByDecider: Distribution;
}

const MAX_SECONDS = 5;

/** `count` executions each start one timer of 1–5 s; lateness is read from their histories. */
export async function runTimers(env: BenchEnv, count: number): Promise<TimersResult> {
  const progress = new Progress('timers');
  const taskList = uniqueId('timers');
  const lateness: number[] = [];
  const seen: number[] = [];
  const decider: Decider = (state) => {
    const fired = state.events.find((e) => e.eventType === 'TimerFired');
    if (fired === undefined) return [decide.startTimer('t', state.input ?? '1')];
    const started = state.events.find((e) => e.eventType === 'TimerStarted');
    const seconds = Number(started?.timerStartedEventAttributes?.startToFireTimeout ?? Number.NaN);
    const due = ms(started?.eventTimestamp) + seconds * 1000;
    lateness.push(ms(fired.eventTimestamp) - due);
    seen.push(Date.now() - due);
    progress.update(lateness.length, count, 'timers fired');
    return [decide.completeWorkflowExecution()];
  };
  const deciders = new DeciderWorker({
    client: env.client(),
    domain: DOMAIN,
    taskList,
    decider,
    concurrency: 8,
    shutdownSignals: [],
    logger: silentLogger,
  }).start();
  const starter = env.client();
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      await starter.send(
        new StartWorkflowExecutionCommand({
          domain: DOMAIN,
          workflowId: uniqueId('timer'),
          workflowType: WORKFLOW,
          taskList: { name: taskList },
          input: String(1 + (i % MAX_SECONDS)),
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  const deadline = Date.now() + 60_000 + MAX_SECONDS * 1000;
  while (lateness.length < count && Date.now() < deadline) await sleep(100);
  await deciders.shutdown();
  if (lateness.length < count)
    progress.note(`only ${lateness.length} of ${count} timers fired in time`);
  const result = { lateness: distribution(lateness), seenByDecider: distribution(seen) };
  progress.done(
    `fire lateness p50 ${result.lateness.p50} ms p99 ${result.lateness.p99} ms; seen by the decider p99 ${result.seenByDecider.p99} ms`,
  );
  return result;
}
