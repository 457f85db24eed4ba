/**
 * Closing an execution, in each of the six ways it can close, and what happens to its tasks and tokens
 * (docs/architecture.md, "Closing an execution" and "Task tokens"): queued activity tasks are withdrawn (no worker
 * ever gets one, CountPendingActivityTasks drops them), every token of the run answers
 * UnknownResourceFault, and the history is final. Also: tokens forged, altered, reused or stale.
 */
import { createHmac } from 'node:crypto';
import {
  CountPendingActivityTasksCommand,
  CountPendingDecisionTasksCommand,
  type Decision,
  PollForActivityTaskCommand,
  PollForDecisionTaskCommand,
  RecordActivityTaskHeartbeatCommand,
  RespondActivityTaskCanceledCommand,
  RespondActivityTaskCompletedCommand,
  RespondActivityTaskFailedCommand,
  RespondDecisionTaskCompletedCommand,
  TerminateWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { decide, eventTypes, expectFault, uid } from '../support/decider.js';
import { domainForFile, registerTaskTypes } from '../support/local.js';

const domain = 'engine-closing';
const wf = { name: 'wf', version: '1' };
const act = { name: 'act', version: '1' };

const server = domainForFile(domain, { polling: { maxWaitMs: 300 } }, async ({ swf }) => {
  await registerTaskTypes(swf, domain, { workflow: wf, activity: act, decisionTaskTimeout: '300' });
});

const count = async (kind: 'activity' | 'decision', taskList: string) =>
  (
    await server.swf.send(
      kind === 'activity'
        ? new CountPendingActivityTasksCommand({ domain, taskList: { name: taskList } })
        : new CountPendingDecisionTasksCommand({ domain, taskList: { name: taskList } }),
    )
  ).count;

/** Every call that takes an activity token, each of which must now fail. */
/** Every call an activity worker makes with its token, each made only when the caller asks. */
const activityCalls = (taskToken: string): (() => Promise<unknown>)[] => [
  () => server.swf.send(new RecordActivityTaskHeartbeatCommand({ taskToken, details: 'late' })),
  () => server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken, result: 'late' })),
  () => server.swf.send(new RespondActivityTaskFailedCommand({ taskToken, reason: 'late' })),
  () => server.swf.send(new RespondActivityTaskCanceledCommand({ taskToken, details: 'late' })),
];

/**
 * An execution with one started activity, two queued ones (on their own list) and, while a decision
 * task is out, one more signal: everything a close must clean up.
 */
async function busyExecution() {
  const { execution, taskList } = await server.driver.start(wf);
  const workers = uid('workers');
  await server.driver.decide(taskList, () =>
    ['started', 'queued-1', 'queued-2'].map((activityId) =>
      decide.scheduleActivity({ activityType: act, activityId, taskList: { name: workers } }),
    ),
  );
  const activity = await server.driver.pollActivity(workers);
  expect(await count('activity', workers)).toBe(2);
  await server.driver.signal(execution, 'wake');
  return { execution, taskList, workers, activity };
}

const closings: [
  string,
  string,
  (d: { taskToken: string; execution: { workflowId: string; runId: string } }) => Promise<void>,
][] = [
  [
    'CompleteWorkflowExecution',
    'COMPLETED',
    ({ taskToken }) => server.driver.respond(taskToken, [decide.complete('done')]),
  ],
  [
    'FailWorkflowExecution',
    'FAILED',
    ({ taskToken }) => server.driver.respond(taskToken, [decide.fail('broken', 'details')]),
  ],
  [
    'CancelWorkflowExecution',
    'CANCELED',
    ({ taskToken }) => server.driver.respond(taskToken, [decide.cancel('stop')]),
  ],
  [
    'ContinueAsNewWorkflowExecution',
    'CONTINUED_AS_NEW',
    ({ taskToken }) => server.driver.respond(taskToken, [decide.continueAsNew({ input: 'next' })]),
  ],
  [
    'TerminateWorkflowExecution (a decision task started)',
    'TERMINATED',
    ({ execution }) =>
      server.swf
        .send(
          new TerminateWorkflowExecutionCommand({
            domain,
            workflowId: execution.workflowId,
            runId: execution.runId,
          }),
        )
        .then(() => undefined),
  ],
];

describe.each(closings)('closing with %s', (_name, closeStatus, closeIt) => {
  it('withdraws queued activity tasks, kills every token and freezes the history', async () => {
    const { execution, taskList, workers, activity } = await busyExecution();
    const decision = await server.driver.pollDecision(taskList);

    await closeIt({ taskToken: decision.taskToken, execution });

    const described = await server.driver.describe(execution);
    expect(described.executionInfo?.executionStatus).toBe('CLOSED');
    expect(described.executionInfo?.closeStatus).toBe(closeStatus);
    expect(described.openCounts).toMatchObject({
      openActivityTasks: 0,
      openDecisionTasks: 0,
      openTimers: 0,
    });
    expect(await count('activity', workers)).toBe(0);
    const final = await server.driver.history(execution);

    const poll = await server.swf.send(
      new PollForActivityTaskCommand({ domain, taskList: { name: workers } }),
    );
    expect(poll.taskToken).toBeUndefined();
    for (const call of activityCalls(activity.taskToken)) {
      await expectFault(call(), 'UnknownResourceFault');
    }
    await expectFault(server.driver.respond(decision.taskToken, []), 'UnknownResourceFault');
    await expectFault(server.driver.signal(execution, 'too-late'), 'UnknownResourceFault');

    expect(await server.driver.history(execution)).toStrictEqual(final);
    expect(eventTypes(final).filter((t) => t === 'ActivityTaskStarted')).toHaveLength(1);
  });
});

describe('closing with TerminateWorkflowExecution (a decision task scheduled)', () => {
  it('withdraws the scheduled decision task too', async () => {
    const { execution, taskList, workers, activity } = await busyExecution();
    expect(await count('decision', taskList)).toBe(1);

    await server.swf.send(
      new TerminateWorkflowExecutionCommand({ domain, workflowId: execution.workflowId }),
    );

    expect(await count('decision', taskList)).toBe(0);
    expect(await count('activity', workers)).toBe(0);
    const poll = await server.swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: taskList } }),
    );
    expect(poll.taskToken).toBeUndefined();
    for (const call of activityCalls(activity.taskToken)) {
      await expectFault(call(), 'UnknownResourceFault');
    }
  });
});

describe('task tokens', () => {
  /** A token with a well-formed body signed with a key this service does not have. */
  function forged(claims: string): string {
    const payload = Buffer.from(claims).toString('base64url');
    const mac = createHmac('sha256', Buffer.alloc(32, 7))
      .update('task-token\n')
      .update(payload)
      .digest('base64url');
    return `${payload}.${mac}`;
  }

  it('refuses forged tokens, garbage and a token with parts added, changing nothing', async () => {
    const { execution, taskList, activity } = await busyExecution();
    const decision = await server.driver.pollDecision(taskList);
    const before = await server.driver.history(execution);
    const runId = execution.runId;
    const bad = [
      forged(`D.${runId}.${(decision.startedEventId ?? 0) - 1}.${decision.startedEventId}`),
      forged(`A.${runId}.5.6`),
      `${activity.taskToken}.extra`,
      activity.taskToken.split('.')[0] ?? 'x',
      'x',
      Buffer.from('{"runId":"r"}').toString('base64'),
    ];

    for (const token of bad) {
      await expectFault(server.driver.respond(token, [decide.complete()]), 'UnknownResourceFault');
      await expectFault(
        server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken: token })),
        'UnknownResourceFault',
      );
    }

    expect(await server.driver.history(execution)).toStrictEqual(before);
    // The genuine tokens still work.
    await server.swf.send(
      new RecordActivityTaskHeartbeatCommand({ taskToken: activity.taskToken }),
    );
    await server.driver.respond(decision.taskToken, []);
  });

  it('refuses a token over 1024 characters with ValidationException', async () => {
    await expectFault(
      server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken: 't'.repeat(1025) })),
      'ValidationException',
      /at 'taskToken' failed to satisfy constraint: Member must have length less than or equal to 1024/,
    );
  });

  it('refuses an activity token for decision calls and a decision token for activity calls', async () => {
    const { execution, taskList, activity } = await busyExecution();
    const decision = await server.driver.pollDecision(taskList);
    const before = await server.driver.history(execution);

    await expectFault(
      server.swf.send(
        new RespondDecisionTaskCompletedCommand({
          taskToken: activity.taskToken,
          decisions: [decide.complete()],
        }),
      ),
      'UnknownResourceFault',
    );
    for (const call of activityCalls(decision.taskToken)) {
      await expectFault(call(), 'UnknownResourceFault');
    }

    expect(await server.driver.history(execution)).toStrictEqual(before);
  });

  it('refuses a stale decision token: the task of an earlier attempt, once a later one started', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const first = await server.driver.pollDecision(taskList);
    await server.driver.respond(first.taskToken, []);
    await server.driver.signal(execution, 'again');
    const second = await server.driver.pollDecision(taskList);
    const before = await server.driver.history(execution);

    await expectFault(
      server.driver.respond(first.taskToken, [decide.complete()]),
      'UnknownResourceFault',
    );

    expect(await server.driver.history(execution)).toStrictEqual(before);
    await server.driver.respond(second.taskToken, [decide.complete()]);
  });

  it('refuses a reused activity token after the task was canceled', async () => {
    const { execution, taskList, activity } = await busyExecution();
    const decision = await server.driver.pollDecision(taskList);
    await server.driver.respond(decision.taskToken, [decide.requestCancelActivity('started')]);
    const heartbeat = await server.swf.send(
      new RecordActivityTaskHeartbeatCommand({ taskToken: activity.taskToken }),
    );
    expect(heartbeat.cancelRequested).toBe(true);
    await server.swf.send(
      new RespondActivityTaskCanceledCommand({ taskToken: activity.taskToken }),
    );
    const before = await server.driver.history(execution);

    for (const call of activityCalls(activity.taskToken)) {
      await expectFault(
        call(),
        'UnknownResourceFault',
        /^Unknown activity, scheduledEventId = \d+$/,
      );
    }

    expect(await server.driver.history(execution)).toStrictEqual(before);
  });
});

describe('decisions that cannot be applied', () => {
  it('leave the run open with their failure events; nothing else changes', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const decisions: Decision[] = [
      decide.cancelTimer('never-started'),
      decide.requestCancelActivity('never-scheduled'),
      decide.scheduleActivity({ activityType: { name: 'missing', version: '1' }, activityId: 'm' }),
    ];
    await server.driver.decide(taskList, () => decisions);

    const events = await server.driver.history(execution);
    expect(eventTypes(events).slice(-4)).toStrictEqual([
      'CancelTimerFailed',
      'RequestCancelActivityTaskFailed',
      'ScheduleActivityTaskFailed',
      'DecisionTaskScheduled',
    ]);
    expect((await server.driver.describe(execution)).executionInfo?.executionStatus).toBe('OPEN');
  });
});
