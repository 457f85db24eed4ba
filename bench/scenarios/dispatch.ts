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
  /** From the scheduling call's answer to the waiting poller holding the task. */
  readonly decision: Distribution;
  readonly activity: Distribution;
  /** The same, counted from the scheduling event's timestamp: includes the scheduling commit itself. */
  readonly decisionFromEvent: Distribution;
  readonly activityFromEvent: Distribution;
}

/** Time for a poll to reach the server and wait before the task is scheduled. */
const POLL_SETTLE_MS = 25;

const lastOf = (events: readonly HistoryEvent[] | undefined, type: string) =>
  [...(events ?? [])].reverse().find((e) => e.eventType === type);

/** A call and the moment (epoch ms) its answer arrived. */
const timed = <T>(call: Promise<T>) =>
  call.then((value) => ({ value, at: performance.timeOrigin + performance.now() }));
const now = () => performance.timeOrigin + performance.now();

/**
 * Dispatch latency with a poller waiting, as users feel it: from the moment the call that schedules a
 * task (StartWorkflowExecution, RespondDecisionTaskCompleted, RespondActivityTaskCompleted) is answered
 * to the moment the waiting poller holds the task. Both instants are taken in this process. The JSON
 * also has the figure counted from the scheduling event's timestamp, which adds the scheduling commit.
 * Each sample is one execution: a decision task (start), an activity task, a decision task.
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
  const decisionFromEvent: number[] = [];
  const activityFromEvent: number[] = [];
  for (let i = 0; i < samples; i++) {
    const firstPoll = timed(pollDecision());
    await sleep(POLL_SETTLE_MS);
    await starter.send(
      new StartWorkflowExecutionCommand({
        domain: DOMAIN,
        workflowId: uniqueId('dispatch'),
        workflowType: WORKFLOW,
        taskList: { name: decisionList },
      }),
    );
    const startAnswered = now();
    const { value: first, at: firstAt } = await firstPoll;
    decision.push(Math.max(0, firstAt - startAnswered));
    decisionFromEvent.push(
      firstAt - ms(lastOf(first.events, 'DecisionTaskScheduled')?.eventTimestamp),
    );
    const activityPoll = timed(pollActivity());
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
    const respondAnswered = now();
    const { value: task, at: activityAt } = await activityPoll;
    activity.push(Math.max(0, activityAt - respondAnswered));
    const secondPoll = timed(pollDecision());
    await sleep(POLL_SETTLE_MS);
    await workerClient.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken }));
    const completeAnswered = now();
    const { value: second, at: secondAt } = await secondPoll;
    decision.push(Math.max(0, secondAt - completeAnswered));
    decisionFromEvent.push(
      secondAt - ms(lastOf(second.events, 'DecisionTaskScheduled')?.eventTimestamp),
    );
    activityFromEvent.push(
      activityAt - ms(lastOf(second.events, 'ActivityTaskScheduled')?.eventTimestamp),
    );
    await deciderClient.send(
      new RespondDecisionTaskCompletedCommand({
        taskToken: second.taskToken,
        decisions: [decide.completeWorkflowExecution()],
      }),
    );
    progress.update(i + 1, samples, 'executions');
  }
  const result = {
    decision: distribution(decision),
    activity: distribution(activity),
    decisionFromEvent: distribution(decisionFromEvent),
    activityFromEvent: distribution(activityFromEvent),
  };
  progress.done(
    `decision p50 ${result.decision.p50} ms p99 ${result.decision.p99} ms; activity p50 ${result.activity.p50} ms p99 ${result.activity.p99} ms`,
  );
  return result;
}
