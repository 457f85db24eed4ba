/**
 * Two callers whose commits are byte for byte the same (the same change of the same version in the same
 * millisecond: two identical signals, one worker's two pollers claiming one task) while the first one's
 * answer is lost: its retry meets the identical commit. The store must not take the identical commit for its
 * own (test/support/ambiguous-outcomes.ts, 'lost-retried'): each call's change is recorded, and a task
 * goes to one poll only.
 */
import { PollForDecisionTaskCommand } from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { ambiguousOutcomes, isStatePut } from '../support/ambiguous-outcomes.js';
import { eventsOf, sleep } from '../support/decider.js';
import { domainForFile } from '../support/local.js';

const domain = 'ambiguous-identical-commits';
const wf = { name: 'wf', version: '1' };
const ambiguous = ambiguousOutcomes();
/** While set, the service's clock stands still: two calls made then stamp the same millisecond. */
let frozenAt: number | undefined;

const server = domainForFile(
  domain,
  {
    dynamoIntercept: ambiguous.intercept,
    clock: { now: () => frozenAt ?? Date.now() },
    // Polls race for a task as the deployed API's containers do, unaware of each other.
    requestsApart: true,
    polling: { maxWaitMs: 1_000 },
  },
  async ({ driver }) => {
    await driver.registerTypes(wf, { name: 'act', version: '1' });
  },
);

/** Runs `call` on a clock stopped at one millisecond. */
async function frozen<T>(call: () => Promise<T>): Promise<T> {
  frozenAt = Date.now();
  try {
    return await call();
  } finally {
    frozenAt = undefined;
  }
}

describe('SignalWorkflowExecution lost on its way, while an identical signal commits before the retry', () => {
  it('records both signals', async () => {
    const { execution } = await server.driver.start(wf);
    ambiguous.add({
      match: isStatePut,
      outcome: 'lost-retried',
      between: () => server.driver.signal(execution, 'identical', 'same'),
    });
    await frozen(() => server.driver.signal(execution, 'identical', 'same'));
    ambiguous.clear();
    expect(
      eventsOf(await server.driver.history(execution), 'WorkflowExecutionSignaled'),
    ).toHaveLength(2);
  });
});

describe("a poll's claim lost on its way, while the same worker's other poll claims the same task", () => {
  it('hands the decision task to one poll', async () => {
    const { taskList } = await server.driver.start(wf);
    await sleep(100);
    const poll = () =>
      server.swf.send(
        new PollForDecisionTaskCommand({ domain, taskList: { name: taskList }, identity: 'w1' }),
      );
    let identical: Awaited<ReturnType<typeof poll>> | undefined;
    ambiguous.add({
      match: isStatePut,
      outcome: 'lost-retried',
      between: async () => {
        identical = await poll();
        // Both claims are stamped: time goes on, so that the first poll's wait can end.
        frozenAt = undefined;
      },
    });
    const first = await frozen(poll);
    ambiguous.clear();
    // The identical claim committed first: the task is its poll's, and the first poll's retry finds it taken.
    expect({
      first: (first.taskToken ?? '') !== '',
      identical: (identical?.taskToken ?? '') !== '',
    }).toEqual({ first: false, identical: true });
  });
});
