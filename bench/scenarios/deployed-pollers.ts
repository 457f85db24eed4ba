/** Pollers and workloads of the `deployed` scenario, driven through SWF clients on the front door. */
import {
  PollForActivityTaskCommand,
  type PollForActivityTaskCommandOutput,
  PollForDecisionTaskCommand,
  type PollForDecisionTaskCommandOutput,
  RespondDecisionTaskCompletedCommand,
  StartWorkflowExecutionCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { decide } from '../../lib/sdk/index.js';
import { ACTIVITY, DOMAIN, uniqueId, WORKFLOW } from '../env.js';

type Poll = PollForDecisionTaskCommandOutput | PollForActivityTaskCommandOutput;

export const now = () => performance.timeOrigin + performance.now();

export const decisionPoll = (taskList: string) => (client: SWFClient) =>
  client.send(new PollForDecisionTaskCommand({ domain: DOMAIN, taskList: { name: taskList } }));
export const activityPoll = (taskList: string) => (client: SWFClient) =>
  client.send(new PollForActivityTaskCommand({ domain: DOMAIN, taskList: { name: taskList } }));

/**
 * `count` pollers polling one list without pause until stopped. A task goes to whoever waits for the
 * list's next one (`next`); one nobody waits for was handed out beyond what was scheduled.
 */
export class Pollers {
  #stopped = false;
  #waiter: ((task: { poll: Poll; at: number }) => void) | undefined;
  readonly #loops: Promise<void>[] = [];
  extra = 0;

  constructor(count: number, poll: (client: SWFClient) => Promise<Poll>, client: () => SWFClient) {
    for (let i = 0; i < count; i++) this.#loops.push(this.#loop(client(), poll));
  }

  next(): Promise<{ poll: Poll; at: number }> {
    return new Promise((resolve) => {
      this.#waiter = resolve;
    });
  }

  /** Stops polling; resolves when every poll out has been answered (at most the poll's wait). */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#loops);
  }

  async #loop(client: SWFClient, poll: (client: SWFClient) => Promise<Poll>): Promise<void> {
    while (!this.#stopped) {
      const answer = await poll(client);
      if (!answer.taskToken) continue;
      const waiter = this.#waiter;
      this.#waiter = undefined;
      if (waiter === undefined) this.extra += 1;
      else waiter({ poll: answer, at: now() });
    }
  }
}

/**
 * `count` executions started at once, each of whose first decision schedules one activity on
 * `activityList` (so the activity tasks are of different runs, and reach the list as the decider
 * answers, one after another); each closes once its activity completed.
 */
export async function runOneActivityEach(
  client: SWFClient,
  count: number,
  decisionList: string,
  activityList: string,
): Promise<void> {
  for (let i = 0; i < count; i++) {
    await client.send(
      new StartWorkflowExecutionCommand({
        domain: DOMAIN,
        workflowId: uniqueId('herd'),
        workflowType: WORKFLOW,
        taskList: { name: decisionList },
      }),
    );
  }
  let closed = 0;
  while (closed < count) {
    const task = await decisionPoll(decisionList)(client);
    if (!task.taskToken) continue;
    const events = task.events ?? [];
    const count = (...types: string[]) =>
      events.filter((e) => types.includes(e.eventType ?? '')).length;
    const completed = count('ActivityTaskCompleted') > 0;
    const scheduled = count('ActivityTaskScheduled');
    // An activity whose worker's call failed times out: it is scheduled again.
    const open = scheduled - count('ActivityTaskTimedOut', 'ActivityTaskFailed');
    const decisions = completed
      ? [decide.completeWorkflowExecution()]
      : open > 0
        ? []
        : [
            decide.scheduleActivityTask({
              activityId: `a${scheduled}`,
              activityType: ACTIVITY,
              taskList: { name: activityList },
            }),
          ];
    await client.send(
      new RespondDecisionTaskCompletedCommand({ taskToken: task.taskToken, decisions }),
    );
    if (completed) closed += 1;
  }
}
