/**
 * A task past its timeouts, its fire not come, is not handed to a poll by the two ways around the
 * queue either (entryStatus covers the queue: timed-out-unfired.test.ts). Over DynamoDB Local with a
 * set clock and no timer service, so no fire comes.
 *
 * 1. adopt (long-poll.ts stillStarted): a task started for a poll whose caller left is handed to the
 *    next poll though its start-to-close timeout has passed.
 * 2. the notifier's hand-off (run-mutation.ts handOff / task-start.ts decisionHandoff): a decision task
 *    scheduled (by a signal) in a run past its execution timeout is started for a waiting poller,
 *    where the same task queued would be 'pending' and not handed out.
 */
import { describe, expect, it } from 'vitest';
import type { OperationDeps, RequestContext } from '../../lib/operations/context.js';
import { operations } from '../../lib/operations/index.js';
import { tableForFile } from '../support/local.js';
import { domainWithType, operationsOver, startW } from '../support/operations.js';

const table = tableForFile('timed-out-handout');
let n = 0;
const fresh = () => `toh-${Date.now()}-${n++}`;
const unknownResource = { type: 'UnknownResourceFault' };

function service(polling = { maxWaitMs: 0, recheckMs: 0 }) {
  const clock = { ms: Date.now(), now: () => clock.ms };
  const over = operationsOver(table(), { clock });
  const deps: OperationDeps = { ...over.deps, polling };
  const callWith = async (
    action: keyof typeof operations,
    input: Record<string, unknown>,
    request: RequestContext = { requestId: 't', signal: new AbortController().signal },
  ) => (await operations[action]?.(input, deps, request)) as Record<string, unknown> | undefined;
  return { clock, deps, call: callWith };
}

describe('a task past its timeout, its fire not come, reached by a poll another way', () => {
  it('is not adopted by the next poll once its start-to-close timeout has passed', async () => {
    const s = service();
    const domain = fresh();
    await domainWithType(s.call, domain);
    await s.call('RegisterActivityType', { domain, name: 'a', version: '1' });
    await startW(s.call, domain, 'w1');
    const decision = await s.call('PollForDecisionTask', { domain, taskList: { name: 'tl' } });
    await s.call('RespondDecisionTaskCompleted', {
      taskToken: decision?.taskToken,
      decisions: [
        {
          decisionType: 'ScheduleActivityTask',
          scheduleActivityTaskDecisionAttributes: {
            activityType: { name: 'a', version: '1' },
            activityId: 'x',
            taskList: { name: 'acts' },
            scheduleToStartTimeout: 'NONE',
            scheduleToCloseTimeout: 'NONE',
            startToCloseTimeout: '10',
            heartbeatTimeout: 'NONE',
          },
        },
      ],
    });
    // A poll whose caller has left: the task it starts is kept for the next poll (orphan).
    const gone = new AbortController();
    gone.abort();
    const first = await s.call(
      'PollForActivityTask',
      { domain, taskList: { name: 'acts' } },
      { requestId: 'gone', signal: new AbortController().signal, callerGone: gone.signal },
    );
    expect(first?.taskToken).toBeUndefined();
    // Its start-to-close timeout passes before the next poll; the fire has not come.
    s.clock.ms += 10_000;
    const next = await s.call('PollForActivityTask', { domain, taskList: { name: 'acts' } });
    // The worker would run a task whose every answer is refused:
    if (typeof next?.taskToken === 'string')
      await expect(
        s.call('RespondActivityTaskCompleted', { taskToken: next.taskToken }),
      ).rejects.toMatchObject(unknownResource);
    expect(next?.taskToken ?? '').toBe('');
  });

  it("is not started for a waiting decider once the run's execution timeout has passed", async () => {
    const s = service({ maxWaitMs: 3_000, recheckMs: 3_000 });
    const domain = fresh();
    await domainWithType(s.call, domain);
    await s.call('StartWorkflowExecution', {
      domain,
      workflowId: 'x',
      workflowType: { name: 'w', version: '1' },
      executionStartToCloseTimeout: '30',
    });
    const task = await s.call('PollForDecisionTask', { domain, taskList: { name: 'tl' } });
    await s.call('RespondDecisionTaskCompleted', { taskToken: task?.taskToken, decisions: [] });
    s.clock.ms += 30_000;
    // A decider waits on the list (its queue is empty), then a signal schedules a decision task.
    // The set clock does not move, so the poll's own time never runs out: it is ended after 1.5 s.
    const end = new AbortController();
    const polled = s.call(
      'PollForDecisionTask',
      { domain, taskList: { name: 'tl' } },
      { requestId: 'waiting', signal: end.signal },
    );
    for (let i = 0; i < 100 && s.deps.notifier.waiting('decision', domain, 'tl') === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await s.call('SignalWorkflowExecution', { domain, workflowId: 'x', signalName: 's' });
    setTimeout(() => end.abort(), 1_500);
    const handed = await polled;
    if (typeof handed?.taskToken === 'string')
      await expect(
        s.call('RespondDecisionTaskCompleted', { taskToken: handed.taskToken, decisions: [] }),
      ).rejects.toMatchObject(unknownResource);
    expect(handed?.taskToken ?? '').toBe('');
  });
});
