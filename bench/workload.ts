import { StartWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import {
  ActivityWorker,
  activityTaskHandler,
  type Decider,
  DeciderWorker,
  decide,
  decisionTaskHandler,
  isOpenActivity,
  silentLogger,
} from '../lib/sdk/index.js';
import { ACTIVITY, type BenchEnv, DOMAIN, uniqueId, WORKFLOW } from './env.js';
import { inOutbox, swfObserver } from './instrument.js';
import type { Progress } from './progress.js';

export const ACTIVITIES_PER_WORKFLOW = 3;

/** The workflow's one activity: cheap, so the service's work is what is measured. */
const benchActivities = { [ACTIVITY.name]: (input: string | undefined) => `did ${input ?? ''}` };

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
  /**
   * Serve both task lists by functions (push task lists) instead of polling workers: the SDK's Lambda
   * handlers, registered in the local service's process. The concurrency options do not apply then.
   */
  readonly push?: boolean;
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
  if (o.push === true) servePushed(env, taskList, decider);
  const workers = o.push === true ? [] : startWorkers(env, o, taskList, decider);
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
  await Promise.all(workers.map((w) => w.shutdown()));
  return { workflows: o.workflows, roundTrips: o.workflows * ACTIVITIES_PER_WORKFLOW, elapsedMs };
}

/** The SDK's polling workers on the sequence's task list. */
function startWorkers(env: BenchEnv, o: SequenceOptions, taskList: string, decider: Decider) {
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
    activities: benchActivities,
    concurrency: o.activityConcurrency,
    pollers: o.activityPollers,
    shutdownSignals: [],
    logger: silentLogger,
  }).start();
  return [deciders, workers];
}

/** A pushed task, handed over by the outbox (stream, timers) or by the API call that scheduled it. */
function countPush(env: BenchEnv): void {
  env.pushes.count += 1;
  if (inOutbox()) env.pushes.byOutbox += 1;
}

/**
 * The SDK's Lambda handlers serving the sequence's task lists as push task lists. Given no client, as
 * deployed, they call the API function each event names (the local server serves its Invoke).
 */
function servePushed(env: BenchEnv, taskList: string, decider: Decider): void {
  const clientOptions = { maxAttempts: 1, observe: swfObserver(env.swf, true) };
  const handleDecision = decisionTaskHandler({ decider, logger: silentLogger, clientOptions });
  const work = activityTaskHandler({
    activities: benchActivities,
    logger: silentLogger,
    clientOptions,
  });
  const list = { domain: DOMAIN, taskList };
  env.service.push.register({ ...list, kind: 'decision', target: 'bench-decider' }, (event) => {
    countPush(env);
    return handleDecision(event as Parameters<typeof handleDecision>[0]);
  });
  env.service.push.register({ ...list, kind: 'activity', target: 'bench-worker' }, (event) => {
    countPush(env);
    return work(event as Parameters<typeof work>[0]);
  });
}
