/**
 * Two callers whose commits are byte for byte the same (the same change of the same version in the same
 * millisecond: two identical signals, one worker's two pollers claiming one task) while the first one's
 * answer is lost: its retry meets the twin's commit. The store must not take the twin's commit for its
 * own (test/support/ambiguous-weather.ts, 'lost-retried'): each call's change is recorded, and a task
 * goes to one poll only.
 */
import { PollForDecisionTaskCommand, type SWFClient } from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ambiguousWeather, isStatePut } from '../support/ambiguous-weather.js';
import { eventsOf, type SwfKit, sleep } from '../support/decider.js';
import { serveDomain } from '../support/local.js';

const domain = 'ambiguous-twins';
const wf = { name: 'wf', version: '1' };
const weather = ambiguousWeather();
/** While set, the service's clock stands still: two calls made then stamp the same millisecond. */
let frozenAt: number | undefined;
let swf: SWFClient;
let kit: SwfKit;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ swf, kit, close } = await serveDomain(domain, {
    dynamoIntercept: weather.intercept,
    clock: { now: () => frozenAt ?? Date.now() },
    // Polls race for a task as the deployed API's containers do, unaware of each other.
    requestsApart: true,
    polling: { maxWaitMs: 1_000 },
  }));
  await kit.registerTypes(wf, { name: 'act', version: '1' });
});
afterAll(() => close());

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
    const { execution } = await kit.start(wf);
    weather.add({
      match: isStatePut,
      weather: 'lost-retried',
      between: () => kit.signal(execution, 'twin', 'same'),
    });
    await frozen(() => kit.signal(execution, 'twin', 'same'));
    weather.clear();
    expect(eventsOf(await kit.history(execution), 'WorkflowExecutionSignaled')).toHaveLength(2);
  });
});

describe("a poll's claim lost on its way, while the same worker's other poll claims the same task", () => {
  it('hands the decision task to one poll', async () => {
    const { taskList } = await kit.start(wf);
    await sleep(100);
    const poll = () =>
      swf.send(
        new PollForDecisionTaskCommand({ domain, taskList: { name: taskList }, identity: 'w1' }),
      );
    let twin: Awaited<ReturnType<typeof poll>> | undefined;
    weather.add({
      match: isStatePut,
      weather: 'lost-retried',
      between: async () => {
        twin = await poll();
        // Both claims are stamped: time goes on, so that the first poll's wait can end.
        frozenAt = undefined;
      },
    });
    const first = await frozen(poll);
    weather.clear();
    // The twin's claim committed first: the task is its poll's, and the first poll's retry finds it taken.
    expect({
      first: (first.taskToken ?? '') !== '',
      twin: (twin?.taskToken ?? '') !== '',
    }).toEqual({ first: false, twin: true });
  });
});
