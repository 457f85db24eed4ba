/**
 * A Lambda task's START_TO_CLOSE timeout, its function held until the test answers: answered in time,
 * not answered, and answered after the timeout passed but before its fire came.
 */
import { describe, expect, it } from 'vitest';
import type { LambdaInvoker, LambdaRequest, LambdaResult } from '../../lib/ports/lambda-invoker.js';
import { storesForFile } from '../support/stores.js';
import {
  freshTimeoutDomain,
  historyOf,
  MAIN_LIST,
  startOneRun,
} from '../support/timeout-domain.js';

const stores = storesForFile('lambda-timeouts');

/** A Lambda service whose functions answer when the test says. */
class HeldLambda implements LambdaInvoker {
  readonly available = true;
  readonly calls: { request: LambdaRequest; answer: (result: LambdaResult) => void }[] = [];
  invoke(request: LambdaRequest): Promise<LambdaResult> {
    return new Promise((answer) => this.calls.push({ request, answer }));
  }
}

/** A run that has scheduled Lambda function `f` (start-to-close 10 s), its invocation held. */
async function heldLambdaTask() {
  const lambda = new HeldLambda();
  const { service, domain } = await freshTimeoutDomain(stores(), lambda);
  const execution = await startOneRun(service, domain, {
    lambdaRole: 'arn:aws:iam::000000000000:role/swf-lambda',
  });
  const task = await service.must('PollForDecisionTask', { domain, taskList: { name: MAIN_LIST } });
  await service.must('RespondDecisionTaskCompleted', {
    taskToken: task.taskToken,
    decisions: [
      {
        decisionType: 'ScheduleLambdaFunction',
        scheduleLambdaFunctionDecisionAttributes: {
          id: 'f',
          name: 'fn',
          startToCloseTimeout: '10',
        },
      },
    ],
  });
  const t0 = service.clock.ms;
  // The invocation runs in the background: wait (in real time) for it to reach the function.
  for (let i = 0; i < 200 && lambda.calls.length === 0; i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  expect(lambda.calls).toHaveLength(1);
  const history = () => historyOf(service, domain, execution);
  const counts = async () =>
    (await service.must('DescribeWorkflowExecution', { domain, execution })).openCounts;
  /** The function answers; whatever it leads to is recorded before this resolves. */
  const answer = async (result: LambdaResult) => {
    lambda.calls[0]?.answer(result);
    const before = JSON.stringify(await history());
    for (let i = 0; i < 30; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (JSON.stringify(await history()) !== before) break;
    }
  };
  return { service, history, counts, answer, t0 };
}

describe('a Lambda task and its START_TO_CLOSE timeout', () => {
  it('answered in time: LambdaFunctionCompleted', async () => {
    const { service, history, counts, answer, t0 } = await heldLambdaTask();
    expect(await counts()).toMatchObject({ openLambdaFunctions: 1 });
    await service.advancePunctual(t0 + 9_000);
    await answer({ kind: 'completed', result: 'ok' });
    const events = await history();
    expect(events.slice(-2).map((e) => e.eventType)).toEqual([
      'LambdaFunctionCompleted',
      'DecisionTaskScheduled',
    ]);
    expect(await counts()).toMatchObject({ openLambdaFunctions: 0 });
    await service.advancePunctual(t0 + 20_000);
    expect(await history()).toEqual(events);
  });

  it('not answered: LambdaFunctionTimedOut at 10 s; the answer that comes later records nothing', async () => {
    const { service, history, counts, answer, t0 } = await heldLambdaTask();
    const scheduled = (await history()).find((e) => e.eventType === 'LambdaFunctionScheduled');
    const started = (await history()).find((e) => e.eventType === 'LambdaFunctionStarted');
    await service.advancePunctual(t0 + 12_000);
    const events = await history();
    expect(events.slice(-2).map((e) => e.eventType)).toEqual([
      'LambdaFunctionTimedOut',
      'DecisionTaskScheduled',
    ]);
    expect(events.at(-2)?.lambdaFunctionTimedOutEventAttributes).toEqual({
      scheduledEventId: scheduled?.eventId,
      startedEventId: started?.eventId,
      timeoutType: 'START_TO_CLOSE',
    });
    expect(Number(events.at(-2)?.eventTimestamp) * 1000).toBeCloseTo(t0 + 10_000, -1);
    expect(await counts()).toMatchObject({ openLambdaFunctions: 0 });
    await answer({ kind: 'completed', result: 'late' });
    expect(await history()).toEqual(events);
  });

  it('answered after its timeout, the fire not come: the answer records nothing, the fire records the timeout', async () => {
    // As a worker's answer after its task's timeout is refused though the fire has not come.
    const { service, history, answer, t0 } = await heldLambdaTask();
    const before = (await history()).length;
    service.advanceStalled(t0 + 11_000);
    await answer({ kind: 'completed', result: 'late' });
    expect((await history()).length).toBe(before);
    await service.deliverDue();
    expect((await history()).slice(before).map((e) => e.eventType)).toEqual([
      'LambdaFunctionTimedOut',
      'DecisionTaskScheduled',
    ]);
  });
});
