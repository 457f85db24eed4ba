import { StartWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import {
  ActivityWorker,
  type Decider,
  DeciderWorker,
  decide,
  isOpenActivity,
  silentLogger,
} from '../lib/sdk/index.js';
import { ACTIVITY, type BenchEnv, DOMAIN, uniqueId, WORKFLOW } from './env.js';
import type { Progress } from './progress.js';

export const ACTIVITIES_PER_WORKFLOW = 3;

export interface SequenceOptions {
  readonly workflows: number;
  /** Executions open at once: a new one starts when one closes. */
  readonly inFlight: number;
  readonly deciderConcurrency: number;
  readonly activityConcurrency: number;
  readonly activityPollers: number;
  readonly progress: Progress;
  /** Called once every worker is polling, just before the first execution starts. */
  readonly onStart?: () => void;
  /** Awaited once the last execution has closed; the run ends when it resolves. */
  readonly settle?: () => Promise<void>;
}

export interface SequenceResult {
  readonly workflows: number;
  readonly roundTrips: number;
  readonly elapsedMs: number;
}

/**
 * Runs `workflows` executions of a 3-activity sequential workflow with real SDK workers (a
 * DeciderWorker and an ActivityWorker), keeping `inFlight` open at once. An execution counts as done
 * when the RespondDecisionTaskCompleted that closes it has returned.
 */
export async function runSequence(env: BenchEnv, o: SequenceOptions): Promise<SequenceResult> {
  const taskList = uniqueId('seq');
  const closed = new Map<string, () => void>();
  const decider: Decider = (state) => {
    const activities = [...state.activities.values()];
    if (activities.some(isOpenActivity)) return [];
    const failed = activities.find((a) => a.status !== 'completed');
    if (failed !== undefined) return [decide.failWorkflowExecution(`activity ${failed.status}`)];
    if (activities.length >= ACTIVITIES_PER_WORKFLOW) {
      const done = closed.get(state.workflowExecution.workflowId ?? '');
      if (done !== undefined) env.swf.onDecisionResponded.set(state.taskToken, done);
      return [decide.completeWorkflowExecution('done')];
    }
    return [
      decide.scheduleActivityTask({
        activityId: `step-${activities.length + 1}`,
        activityType: ACTIVITY,
        taskList: { name: taskList },
        input: String(activities.length + 1),
      }),
    ];
  };
  const deciders = new DeciderWorker({
    client: env.client(),
    domain: DOMAIN,
    taskList,
    decider,
    concurrency: o.deciderConcurrency,
    shutdownSignals: [],
    logger: silentLogger,
  }).start();
  const workers = new ActivityWorker({
    client: env.client(),
    domain: DOMAIN,
    taskList,
    activities: { [ACTIVITY.name]: (input) => `did ${input ?? ''}` },
    concurrency: o.activityConcurrency,
    pollers: o.activityPollers,
    shutdownSignals: [],
    logger: silentLogger,
  }).start();
  const starter = env.client();
  let started = 0;
  let finished = 0;
  o.onStart?.();
  const begin = performance.now();
  const lane = async () => {
    while (started < o.workflows) {
      started += 1;
      const workflowId = uniqueId('wf');
      const done = new Promise<void>((resolve) => closed.set(workflowId, resolve));
      await starter.send(
        new StartWorkflowExecutionCommand({
          domain: DOMAIN,
          workflowId,
          workflowType: WORKFLOW,
          taskList: { name: taskList },
        }),
      );
      await done;
      closed.delete(workflowId);
      finished += 1;
      o.progress.update(finished, o.workflows, 'workflows');
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.inFlight, o.workflows) }, lane));
  await o.settle?.();
  const elapsedMs = performance.now() - begin;
  await Promise.all([deciders.shutdown(), workers.shutdown()]);
  return { workflows: o.workflows, roundTrips: o.workflows * ACTIVITIES_PER_WORKFLOW, elapsedMs };
}
