import {
  type HistoryEvent,
  PollForActivityTaskCommand,
  PollForDecisionTaskCommand,
  RespondActivityTaskCompletedCommand,
  RespondDecisionTaskCompletedCommand,
  StartWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { decide } from '../../lib/sdk/index.js';
import { ACTIVITY, type BenchEnv, DOMAIN, ms, uniqueId, WORKFLOW } from '../env.js';
import { Progress } from '../progress.js';
import { type Distribution, distribution, sleep } from '../stats.js';

export interface DispatchResult {
  readonly decision: Distribution;
  readonly activity: Distribution;
}

/** Time for a poll to reach the server and wait before the task is scheduled. */
const POLL_SETTLE_MS = 25;

const lastOf = (events: readonly HistoryEvent[] | undefined, type: string) =>
  [...(events ?? [])].reverse().find((e) => e.eventType === type);

/**
 * Dispatch latency with a poller waiting: from the event that schedules a task (its timestamp, taken
 * by the service before it commits) to the moment the waiting poller holds the task. Each sample is
 * one execution: a decision task (start), an activity task, a decision task (activity completed).
 */
export async function runDispatch(env: BenchEnv, samples: number): Promise<DispatchResult> {
  const progress = new Progress('dispatch');
  const deciderClient = env.client();
  const workerClient = env.client();
  const starter = env.client();
  const decisionList = uniqueId('dispatch-d');
  const activityList = uniqueId('dispatch-a');
  const decision: number[] = [];
  const activity: number[] = [];
  const pollDecision = () =>
    deciderClient.send(
      new PollForDecisionTaskCommand({ domain: DOMAIN, taskList: { name: decisionList } }),
    );
  const pollActivity = () =>
    workerClient.send(
      new PollForActivityTaskCommand({ domain: DOMAIN, taskList: { name: activityList } }),
    );
  for (let i = 0; i < samples; i++) {
    const firstPoll = pollDecision();
    await sleep(POLL_SETTLE_MS);
    await starter.send(
      new StartWorkflowExecutionCommand({
        domain: DOMAIN,
        workflowId: uniqueId('dispatch'),
        workflowType: WORKFLOW,
        taskList: { name: decisionList },
      }),
    );
    const first = await firstPoll;
    decision.push(Date.now() - ms(lastOf(first.events, 'DecisionTaskScheduled')?.eventTimestamp));
    const activityPoll = pollActivity();
    await sleep(POLL_SETTLE_MS);
    await deciderClient.send(
      new RespondDecisionTaskCompletedCommand({
        taskToken: first.taskToken,
        decisions: [
          decide.scheduleActivityTask({
            activityId: 'a',
            activityType: ACTIVITY,
            taskList: { name: activityList },
          }),
        ],
      }),
    );
    const task = await activityPoll;
    const activityStarted = Date.now();
    const secondPoll = pollDecision();
    await sleep(POLL_SETTLE_MS);
    await workerClient.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken }));
    const second = await secondPoll;
    decision.push(Date.now() - ms(lastOf(second.events, 'DecisionTaskScheduled')?.eventTimestamp));
    activity.push(
      activityStarted - ms(lastOf(second.events, 'ActivityTaskScheduled')?.eventTimestamp),
    );
    await deciderClient.send(
      new RespondDecisionTaskCompletedCommand({
        taskToken: second.taskToken,
        decisions: [decide.completeWorkflowExecution()],
      }),
    );
    progress.update(i + 1, samples, 'executions');
  }
  const result = { decision: distribution(decision), activity: distribution(activity) };
  progress.done(
    `decision p50 ${result.decision.p50} ms p99 ${result.decision.p99} ms; activity p50 ${result.activity.p50} ms p99 ${result.activity.p99} ms`,
  );
  return result;
}
