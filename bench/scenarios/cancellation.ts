import { SignalWorkflowExecutionCommand, StartWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import {
  ActivityWorker,
  type Decider,
  DeciderWorker,
  decide,
  silentLogger,
} from '../../lib/sdk/index.js';
import { type BenchEnv, DOMAIN, LONG_ACTIVITY, ms, uniqueId, WORKFLOW } from '../env.js';
import { Progress } from '../progress.js';
import { type Distribution, distribution, sleep } from '../stats.js';

export interface CancellationResult {
  /** ActivityTaskCancelRequested's timestamp → the activity's ctx.signal firing. */
  readonly latency: Distribution;
  readonly heartbeatIntervalMs: string;
}

/**
 * A running activity (SDK ActivityWorker, default settings) waits on ctx.signal; the driver signals
 * the workflow, whose decider answers RequestCancelActivityTask. Latency is from that event's
 * timestamp to the moment the AbortSignal fires in the worker.
 */
export async function runCancellation(env: BenchEnv, samples: number): Promise<CancellationResult> {
  const progress = new Progress('cancellation');
  const taskList = uniqueId('cancel');
  const requestedAt = new Map<string, number>();
  const abortedAt = new Map<string, number>();
  const running = new Map<string, () => void>();
  const closed = new Map<string, () => void>();
  const decider: Decider = (state) => {
    const workflowId = state.workflowExecution.workflowId ?? '';
    const activity = state.activities.get('long');
    if (activity === undefined)
      return [
        decide.scheduleActivityTask({
          activityId: 'long',
          activityType: LONG_ACTIVITY,
          taskList: { name: taskList },
        }),
      ];
    if (activity.status === 'scheduled' || activity.status === 'started') {
      const asked = state.signals.some((s) => s.signalName === 'cancel');
      return asked && !activity.cancelRequested ? [decide.requestCancelActivityTask('long')] : [];
    }
    const requested = state.events.find((e) => e.eventType === 'ActivityTaskCancelRequested');
    if (requested !== undefined) requestedAt.set(workflowId, ms(requested.eventTimestamp));
    const done = closed.get(workflowId);
    if (done !== undefined) env.swf.onDecisionResponded.set(state.taskToken, done);
    return [decide.completeWorkflowExecution()];
  };
  const deciders = new DeciderWorker({
    client: env.client(),
    domain: DOMAIN,
    taskList,
    decider,
    concurrency: 4,
    shutdownSignals: [],
    logger: silentLogger,
  }).start();
  // Default SDK settings: heartbeat interval, slots, grace periods all as shipped.
  const workers = new ActivityWorker({
    client: env.client(),
    domain: DOMAIN,
    taskList,
    activities: {
      [LONG_ACTIVITY.name]: async (_input, ctx) => {
        const workflowId = ctx.workflowExecution.workflowId ?? '';
        running.get(workflowId)?.();
        await new Promise<void>((resolve) => {
          ctx.signal.addEventListener('abort', () => resolve(), { once: true });
        });
        abortedAt.set(workflowId, Date.now());
        throw ctx.signal.reason;
      },
    },
    shutdownSignals: [],
    logger: silentLogger,
  }).start();
  const client = env.client();
  let next = 0;
  let finished = 0;
  const lane = async () => {
    while (next < samples) {
      next += 1;
      const workflowId = uniqueId('cancel');
      const started = new Promise<void>((resolve) => running.set(workflowId, resolve));
      const done = new Promise<void>((resolve) => closed.set(workflowId, resolve));
      await client.send(
        new StartWorkflowExecutionCommand({
          domain: DOMAIN,
          workflowId,
          workflowType: WORKFLOW,
          taskList: { name: taskList },
        }),
      );
      await started;
      // Cancel at a random point of the heartbeat cycle.
      await sleep(100 + Math.random() * 1_500);
      await client.send(
        new SignalWorkflowExecutionCommand({ domain: DOMAIN, workflowId, signalName: 'cancel' }),
      );
      await done;
      finished += 1;
      progress.update(finished, samples, 'activities cancelled');
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers.concurrency, samples) }, lane));
  await Promise.all([deciders.shutdown(), workers.shutdown()]);
  const latencies = [...abortedAt].flatMap(([id, at]) => {
    const asked = requestedAt.get(id);
    return asked === undefined ? [] : [at - asked];
  });
  const result = { latency: distribution(latencies), heartbeatIntervalMs: 'SDK default (1,000)' };
  progress.done(`p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`);
  return result;
}
