/**
 * Push task lists: a task list served by a function instead of pollers. A task scheduled on one is never
 * queued; the commit that schedules it starts it for the function (the function is the identity in its
 * Started event), and the function is invoked with what a poll would have answered. The function then
 * responds through the API like any worker, or calls the API function the event names directly.
 */
import {
  CountPendingActivityTasksCommand,
  CountPendingDecisionTasksCommand,
  type HistoryEvent,
  PollForActivityTaskCommand,
  PollForDecisionTaskCommand,
  RegisterActivityTypeCommand,
  RegisterWorkflowTypeCommand,
  RespondActivityTaskCompletedCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it, vi } from 'vitest';
import { LOCAL_API_FUNCTION } from '../../lib/local/local-service.js';
import { PUSHED_EVENT_MAX_BYTES, type PushedTaskEvent } from '../../lib/ports/task-push.js';
import {
  type Activity,
  activityTaskHandler,
  type Decider,
  decisionTaskHandler,
  type PushedTaskHandler,
  type SwfCall,
  decide as sdkDecide,
  silentLogger,
  type TaskEnd,
} from '../../lib/sdk/index.js';
import { decide, single, sleep, uid } from '../support/decider.js';
import { domainForFile } from '../support/local.js';
import { awaitDecision, awaitHistory } from '../support/waiting.js';

const domain = 'push-lists';
const workflowType = { name: 'pushed-flow', version: '1' };
const activityType = { name: 'pushed-work', version: '1' };

const server = domainForFile(domain, { polling: { maxWaitMs: 1_000 } }, async ({ swf }) => {
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...workflowType,
      defaultTaskList: { name: 'unused' },
      defaultExecutionStartToCloseTimeout: '3600',
      defaultTaskStartToCloseTimeout: '60',
      defaultChildPolicy: 'TERMINATE',
    }),
  );
  await swf.send(
    new RegisterActivityTypeCommand({
      domain,
      ...activityType,
      defaultTaskList: { name: 'unused' },
      defaultTaskScheduleToStartTimeout: '60',
      defaultTaskScheduleToCloseTimeout: '120',
      defaultTaskStartToCloseTimeout: '60',
      defaultTaskHeartbeatTimeout: 'NONE',
    }),
  );
});

/** Events a registered function received, and a wait for the next ones. */
function served(kind: 'activity' | 'decision', taskList: string, target: string) {
  const received: PushedTaskEvent[] = [];
  server.service.push.register({ kind, domain, taskList, target }, (event) => {
    received.push(event);
  });
  const awaitCount = async (count: number, withinMs = 5_000) => {
    const deadline = Date.now() + withinMs;
    while (received.length < count) {
      if (Date.now() > deadline)
        throw new Error(`${target} got ${received.length} of ${count} tasks in ${withinMs} ms`);
      await sleep(10);
    }
    return received[count - 1] as PushedTaskEvent;
  };
  return { received, awaitCount };
}

interface WireEvent {
  eventId: number;
  eventType: string;
  eventTimestamp: number;
}

describe('an activity task list served by a function', () => {
  it('starts the task for the function and hands it what PollForActivityTask answers', async () => {
    const activities = uid('pushed-activities');
    const fn = served('activity', activities, 'activity-fn');
    const { execution, taskList } = await server.driver.start(workflowType);
    await server.driver.decide(taskList, () => [
      decide.scheduleActivity({
        activityId: 'a1',
        activityType,
        taskList: { name: activities },
        input: 'to the function',
      }),
    ]);

    const event = await fn.awaitCount(1);
    expect(event).toMatchObject({
      source: 'swf.pushed-task',
      kind: 'activity',
      domain,
      taskList: activities,
      task: {
        activityId: 'a1',
        activityType,
        input: 'to the function',
        workflowExecution: execution,
      },
      // Not in a poll's answer: the worker needs it to heartbeat in time.
      heartbeatTimeout: 'NONE',
    });
    const task = event.task as { taskToken: string; startedEventId: number };
    expect(task.taskToken).toEqual(expect.any(String));

    // Started for the function, as a poll by it would have: the function is the identity.
    const history = await server.driver.history(execution);
    const started = single(history, 'ActivityTaskStarted');
    expect(started.eventId).toBe(task.startedEventId);
    expect(started.activityTaskStartedEventAttributes).toMatchObject({
      identity: 'activity-fn',
      scheduledEventId: single(history, 'ActivityTaskScheduled').eventId,
    });

    // Never queued: nothing pending, nothing for a poller of the same list.
    const pending = await server.swf.send(
      new CountPendingActivityTasksCommand({ domain, taskList: { name: activities } }),
    );
    expect(pending.count).toBe(0);
    const poll = await server.swf.send(
      new PollForActivityTaskCommand({ domain, taskList: { name: activities } }),
    );
    expect(poll.taskToken ?? '').toBe('');

    // The function answers through the API like any worker.
    await server.swf.send(
      new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken, result: 'done' }),
    );
    const next = await awaitDecision(server.driver, taskList);
    expect(
      single(next.events, 'ActivityTaskCompleted').activityTaskCompletedEventAttributes,
    ).toMatchObject({
      result: 'done',
    });
    await server.driver.respond(next.taskToken, [decide.complete()]);
    expect(fn.received).toHaveLength(1);
  });

  it('hands each of several parallel activities to the function once', async () => {
    const activities = uid('pushed-activities');
    const fn = served('activity', activities, 'parallel-fn');
    const { execution, taskList } = await server.driver.start(workflowType);
    const ids = Array.from({ length: 8 }, (_, i) => `p${i}`);
    await server.driver.decide(taskList, () =>
      ids.map((activityId) =>
        decide.scheduleActivity({ activityId, activityType, taskList: { name: activities } }),
      ),
    );
    await fn.awaitCount(ids.length);
    await sleep(200); // nothing more comes
    const got = fn.received.map((e) => (e.task as { activityId: string }).activityId);
    expect(got.sort()).toEqual(ids);
    const history = await server.driver.history(execution);
    expect(history.filter((e) => e.eventType === 'ActivityTaskStarted')).toHaveLength(ids.length);
  });
});

describe('a decision task list served by a function', () => {
  it('starts each decision task for the function, with the history a poll would give', async () => {
    const deciders = uid('pushed-deciders');
    const fn = served('decision', deciders, 'decider-fn');
    const { execution } = await server.driver.start(workflowType, {
      taskList: { name: deciders },
      input: 'start',
    });

    const first = await fn.awaitCount(1);
    expect(first).toMatchObject({
      source: 'swf.pushed-task',
      kind: 'decision',
      domain,
      taskList: deciders,
    });
    const task = first.task as {
      taskToken: string;
      startedEventId: number;
      previousStartedEventId: number;
      workflowType: unknown;
      workflowExecution: unknown;
      events: WireEvent[];
      nextPageToken?: string;
    };
    expect(task).toMatchObject({
      workflowType,
      workflowExecution: execution,
      previousStartedEventId: 0,
    });
    expect(task.events.map((e) => e.eventType)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    expect(task.events.at(-1)?.eventId).toBe(task.startedEventId);
    // SWF's JSON, as the API sends it: timestamps in epoch seconds.
    expect(typeof task.events[0]?.eventTimestamp).toBe('number');
    expect(task.nextPageToken).toBeUndefined();
    const pending = await server.swf.send(
      new CountPendingDecisionTasksCommand({ domain, taskList: { name: deciders } }),
    );
    expect(pending.count).toBe(0);

    await server.driver.respond(task.taskToken, [decide.complete('by the function')]);
    const history = await awaitHistory(server.driver, execution, (events) =>
      events.some((e) => e.eventType === 'WorkflowExecutionCompleted'),
    );
    expect(
      single(history, 'DecisionTaskStarted').decisionTaskStartedEventAttributes?.identity,
    ).toBe('decider-fn');
    expect(fn.received).toHaveLength(1);
  });

  it('cuts a long history into pages under the invocation limit; the function reads the rest by polling with nextPageToken', async () => {
    const deciders = uid('pushed-deciders');
    const fn = served('decision', deciders, 'paging-fn');
    const big = 'x'.repeat(32_000);
    const { execution } = await server.driver.start(workflowType, {
      taskList: { name: deciders },
      input: big,
    });
    const first = (await fn.awaitCount(1)).task as { taskToken: string };
    // Signals that arrive while the first decision task is out make the next one's history long.
    for (let i = 0; i < 36; i++) await server.driver.signal(execution, `s${i}`, big);
    await server.driver.respond(first.taskToken, []);

    const second = await fn.awaitCount(2);
    expect(Buffer.byteLength(JSON.stringify(second))).toBeLessThanOrEqual(PUSHED_EVENT_MAX_BYTES);
    const task = second.task as {
      taskToken: string;
      startedEventId: number;
      events: WireEvent[];
      nextPageToken?: string;
    };
    expect(task.nextPageToken).toEqual(expect.any(String));
    const events: { eventId?: number | undefined; eventType?: string | undefined }[] = [
      ...task.events,
    ];
    let token = task.nextPageToken;
    while (token !== undefined) {
      const page = await server.swf.send(
        new PollForDecisionTaskCommand({
          domain,
          taskList: { name: deciders },
          nextPageToken: token,
        }),
      );
      expect(page.taskToken).toBe(task.taskToken);
      events.push(...(page.events ?? []));
      token = page.nextPageToken;
    }
    // The whole history up to the task's DecisionTaskStarted, each event once, in order.
    expect(events.map((e) => e.eventId)).toEqual(
      Array.from({ length: task.startedEventId }, (_, i) => i + 1),
    );
    expect(events.filter((e) => e.eventType === 'WorkflowExecutionSignaled')).toHaveLength(36);
    expect(events.at(-1)?.eventType).toBe('DecisionTaskStarted');

    await server.driver.respond(task.taskToken, [decide.complete()]);
    const history: HistoryEvent[] = await awaitHistory(server.driver, execution, (all) =>
      all.some((e) => e.eventType === 'WorkflowExecutionCompleted'),
    );
    expect(history.filter((e) => e.eventType === 'DecisionTaskStarted')).toHaveLength(2);
  });

  it('pushes the decision task that replaces one that timed out', async () => {
    const deciders = uid('pushed-deciders');
    const fn = served('decision', deciders, 'slow-fn');
    const { execution } = await server.driver.start(workflowType, {
      taskList: { name: deciders },
      taskStartToCloseTimeout: '1',
    });
    await fn.awaitCount(1); // never answered: it times out after 1 s
    const second = (await fn.awaitCount(2, 6_000)).task as {
      taskToken: string;
      events: WireEvent[];
    };
    expect(second.events.map((e) => e.eventType)).toContain('DecisionTaskTimedOut');
    await server.driver.respond(second.taskToken, [decide.complete()]);
    await awaitHistory(server.driver, execution, (all) =>
      all.some((e) => e.eventType === 'WorkflowExecutionCompleted'),
    );
  });
});

describe("the SDK's Lambda handlers serving push task lists", () => {
  /**
   * Runs a one-activity greeting workflow with both lists served by the handlers `serve` makes, and
   * checks it ran end to end: the result, one task end, the functions as the identities.
   */
  async function runGreeting(
    serve: (
      decider: Decider,
      activities: Record<string, Activity>,
      onTaskEnd: (end: TaskEnd) => void,
    ) => { decider: PushedTaskHandler<void>; worker: PushedTaskHandler<TaskEnd> },
  ) {
    const lists = { deciders: uid('fn-deciders'), activities: uid('fn-activities') };
    const greeting: Decider = (state) => {
      const greet = state.activities.get('greet');
      if (greet === undefined)
        return [
          sdkDecide.scheduleActivityTask({
            activityId: 'greet',
            activityType,
            taskList: { name: lists.activities },
            input: state.input,
          }),
        ];
      if (greet.status === 'completed') return [sdkDecide.completeWorkflowExecution(greet.result)];
      return [];
    };
    const ends: TaskEnd[] = [];
    const events: PushedTaskEvent[] = [];
    const { decider, worker } = serve(
      greeting,
      { [activityType.name]: async (name, ctx) => `Hello, ${name} (${ctx.activityId})!` },
      (end) => ends.push(end),
    );
    server.service.push.register(
      { kind: 'decision', domain, taskList: lists.deciders, target: 'sdk-decider' },
      (event) => {
        events.push(event);
        return decider(event as Parameters<typeof decider>[0]);
      },
    );
    server.service.push.register(
      { kind: 'activity', domain, taskList: lists.activities, target: 'sdk-worker' },
      (event) => {
        events.push(event);
        return worker(event as Parameters<typeof worker>[0]);
      },
    );
    const { execution } = await server.driver.start(workflowType, {
      taskList: { name: lists.deciders },
      input: 'world',
    });
    const history = await awaitHistory(server.driver, execution, (all) =>
      all.some((e) => e.eventType === 'WorkflowExecutionCompleted'),
    );
    expect(
      single(history, 'WorkflowExecutionCompleted').workflowExecutionCompletedEventAttributes
        ?.result,
    ).toBe('Hello, world (greet)!');
    expect(ends.map((e) => e.outcome)).toEqual(['completed']);
    const identities = history.flatMap((e) => {
      const a = e.decisionTaskStartedEventAttributes ?? e.activityTaskStartedEventAttributes;
      return a === undefined ? [] : [a.identity];
    });
    expect(identities).toEqual(['sdk-decider', 'sdk-worker', 'sdk-decider']);
    return events;
  }

  it('run a workflow end to end: decisions and activities pushed, answered through the API', async () => {
    await runGreeting((decider, activities, onTaskEnd) => ({
      decider: decisionTaskHandler({ client: server.swf, decider, logger: silentLogger }),
      worker: activityTaskHandler({
        client: server.swf,
        activities,
        logger: silentLogger,
        onTaskEnd,
      }),
    }));
  });

  it('call the API function each event names (Lambda Invoke), not the endpoint, when given no client', async () => {
    // An endpoint nobody serves: a handler that used it could not report anything.
    vi.stubEnv('SWF_ENDPOINT', 'http://127.0.0.1:9');
    const calls: string[] = [];
    const clientOptions = { observe: (call: SwfCall) => calls.push(call.action) };
    try {
      const events = await runGreeting((decider, activities, onTaskEnd) => ({
        decider: decisionTaskHandler({ decider, logger: silentLogger, clientOptions }),
        worker: activityTaskHandler({ activities, logger: silentLogger, onTaskEnd, clientOptions }),
      }));
      expect(events.map((e) => e.api)).toEqual([
        { functionName: LOCAL_API_FUNCTION, endpoint: server.service.endpoint },
        { functionName: LOCAL_API_FUNCTION, endpoint: server.service.endpoint },
        { functionName: LOCAL_API_FUNCTION, endpoint: server.service.endpoint },
      ]);
      expect(calls.filter((c) => c.startsWith('Respond'))).toEqual([
        'RespondDecisionTaskCompleted',
        'RespondActivityTaskCompleted',
        'RespondDecisionTaskCompleted',
      ]);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("heartbeat often enough for the task's heartbeat timeout, which the event carries", async () => {
    // A 5 s activity whose task has a heartbeat timeout of 2 s, on a handler told to beat every 4 s:
    // it beats every 2/3 s instead, and completes.
    const activities = uid('fn-beats');
    const ends: TaskEnd[] = [];
    const calls: string[] = [];
    const worker = activityTaskHandler({
      client: server.swf,
      activities: {
        [activityType.name]: async () => {
          await sleep(5_000);
          return 'done';
        },
      },
      heartbeatIntervalMs: 4_000,
      logger: silentLogger,
      onTaskEnd: (end) => ends.push(end),
    });
    server.service.push.register(
      { kind: 'activity', domain, taskList: activities, target: 'beating-fn' },
      (event) => {
        calls.push(String(event.heartbeatTimeout));
        return worker(event as Parameters<typeof worker>[0]);
      },
    );
    const { execution, taskList } = await server.driver.start(workflowType);
    await server.driver.decide(taskList, () => [
      decide.scheduleActivity({
        activityId: 'slow',
        activityType,
        taskList: { name: activities },
        heartbeatTimeout: '2',
      }),
    ]);
    const history = await awaitHistory(
      server.driver,
      execution,
      (all) =>
        all.some((e) =>
          ['ActivityTaskCompleted', 'ActivityTaskTimedOut'].includes(e.eventType ?? ''),
        ),
      15_000,
    );
    expect(calls).toEqual(['2']);
    expect(history.map((e) => e.eventType)).toContain('ActivityTaskCompleted');
    expect(history.map((e) => e.eventType)).not.toContain('ActivityTaskTimedOut');
    expect(ends.map((e) => e.outcome)).toEqual(['completed']);
  }, 30_000);
});
