/**
 * Workflow executions through the official SDK: starting with resolved
 * defaults and its faults, describing open and closed executions, history pages, termination.
 */
import {
  CountPendingActivityTasksCommand,
  CountPendingDecisionTasksCommand,
  DeprecateWorkflowTypeCommand,
  DescribeWorkflowExecutionCommand,
  GetWorkflowExecutionHistoryCommand,
  ListOpenWorkflowExecutionsCommand,
  PollForActivityTaskCommand,
  PollForDecisionTaskCommand,
  RecordActivityTaskHeartbeatCommand,
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  RequestCancelWorkflowExecutionCommand,
  RespondActivityTaskCanceledCommand,
  RespondActivityTaskCompletedCommand,
  RespondActivityTaskFailedCommand,
  RespondDecisionTaskCompletedCommand,
  SignalWorkflowExecutionCommand,
  StartWorkflowExecutionCommand,
  type SWFClient,
  TerminateWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import { keys } from '../../lib/adapters/dynamodb/keys.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { LOCAL_REGION, type LocalService } from '../../lib/local/local-service.js';
import {
  at,
  decide,
  eventIds,
  eventTypes,
  expectFault,
  type SwfDriver,
  single,
  sleep,
  uid,
} from '../support/decider.js';
import { serveDomain } from '../support/local.js';

let swf: SWFClient;
let service: LocalService;
let driver: SwfDriver;
let close: () => Promise<void>;
const domain = 'executions';
const full = { name: 'full', version: '1' };
const bare = { name: 'bare', version: '1' };
const old = { name: 'old', version: '1' };
const act = { name: 'act', version: '1' };
const lambdaRole = 'arn:aws:iam::000000000000:role/swf-lambda';

beforeAll(async () => {
  ({ swf, close, service, driver } = await serveDomain(domain, { polling: { maxWaitMs: 1_000 } }));
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...full,
      defaultTaskList: { name: 'full-defaults' },
      defaultExecutionStartToCloseTimeout: '3600',
      defaultTaskStartToCloseTimeout: '45',
      defaultChildPolicy: 'ABANDON',
      defaultTaskPriority: '7',
      defaultLambdaRole: lambdaRole,
    }),
  );
  await swf.send(new RegisterWorkflowTypeCommand({ domain, ...bare }));
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...old,
      defaultTaskList: { name: 'old' },
      defaultExecutionStartToCloseTimeout: '60',
      defaultTaskStartToCloseTimeout: '10',
      defaultChildPolicy: 'TERMINATE',
    }),
  );
  await swf.send(new DeprecateWorkflowTypeCommand({ domain, workflowType: old }));
  await swf.send(
    new RegisterActivityTypeCommand({
      domain,
      ...act,
      defaultTaskList: { name: 'act-defaults' },
      defaultTaskScheduleToStartTimeout: 'NONE',
      defaultTaskScheduleToCloseTimeout: 'NONE',
      defaultTaskStartToCloseTimeout: '600',
      defaultTaskHeartbeatTimeout: 'NONE',
    }),
  );
});
afterAll(() => close());

const bareConfig = {
  taskList: { name: 'bare-list' },
  executionStartToCloseTimeout: '120',
  taskStartToCloseTimeout: '20',
  childPolicy: 'TERMINATE' as const,
};

describe('StartWorkflowExecution', () => {
  it('resolves omitted settings from the type defaults (Started event and Describe)', async () => {
    const workflowId = uid('defaults');
    const { runId } = await swf.send(
      new StartWorkflowExecutionCommand({ domain, workflowId, workflowType: full, input: 'in' }),
    );
    expect(runId).toMatch(/^.{1,64}$/);
    const execution = { workflowId, runId };
    const history = await driver.history(execution);
    expect(eventTypes(history)).toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled']);
    expect(eventIds(history)).toEqual([1, 2]);
    expect(history[0]?.workflowExecutionStartedEventAttributes).toEqual({
      input: 'in',
      executionStartToCloseTimeout: '3600',
      taskStartToCloseTimeout: '45',
      childPolicy: 'ABANDON',
      taskList: { name: 'full-defaults' },
      taskPriority: '7',
      workflowType: full,
      parentInitiatedEventId: 0,
      lambdaRole,
    });
    expect(history[1]?.decisionTaskScheduledEventAttributes).toMatchObject({
      taskList: { name: 'full-defaults' },
      taskPriority: '7',
      startToCloseTimeout: '45',
    });

    const detail = await driver.describe(execution);
    expect(detail.executionConfiguration).toEqual({
      taskStartToCloseTimeout: '45',
      executionStartToCloseTimeout: '3600',
      taskList: { name: 'full-defaults' },
      taskPriority: '7',
      childPolicy: 'ABANDON',
      lambdaRole,
    });
    expect(detail.executionInfo).toMatchObject({
      execution,
      workflowType: full,
      executionStatus: 'OPEN',
      cancelRequested: false,
    });
    expect(detail.executionInfo?.closeStatus).toBeUndefined();
    expect(detail.executionInfo?.closeTimestamp).toBeUndefined();
    expect(detail.executionInfo?.startTimestamp?.getTime()).toBe(at(history[0]));
    expect(detail.openCounts).toEqual({
      openActivityTasks: 0,
      openDecisionTasks: 1,
      openTimers: 0,
      openChildWorkflowExecutions: 0,
      openLambdaFunctions: 0,
    });
    await swf.send(new TerminateWorkflowExecutionCommand({ domain, workflowId, runId }));
  });

  it('prefers the request values over the type defaults', async () => {
    const { execution } = await driver.start(full, {
      executionStartToCloseTimeout: '600',
      taskStartToCloseTimeout: '15',
      childPolicy: 'REQUEST_CANCEL',
      taskPriority: '-3',
      lambdaRole: 'arn:aws:iam::000000000000:role/other',
      tagList: ['a', 'b'],
    });
    const detail = await driver.describe(execution);
    expect(detail.executionConfiguration).toMatchObject({
      taskStartToCloseTimeout: '15',
      executionStartToCloseTimeout: '600',
      taskPriority: '-3',
      childPolicy: 'REQUEST_CANCEL',
      lambdaRole: 'arn:aws:iam::000000000000:role/other',
    });
    expect(detail.executionInfo?.tagList).toEqual(['a', 'b']);
    const [started] = await driver.history(execution);
    expect(started?.workflowExecutionStartedEventAttributes).toMatchObject({
      taskPriority: '-3',
      childPolicy: 'REQUEST_CANCEL',
      tagList: ['a', 'b'],
    });
  });

  it.each([
    'taskList',
    'executionStartToCloseTimeout',
    'taskStartToCloseTimeout',
    'childPolicy',
  ] as const)('without a type default for %s: DefaultUndefinedFault naming it', async (field) => {
    const { [field]: _omitted, ...rest } = bareConfig;
    const workflowId = uid('undefined');
    const error = await expectFault(
      swf.send(
        new StartWorkflowExecutionCommand({ domain, workflowId, workflowType: bare, ...rest }),
      ),
      'DefaultUndefinedFault',
    );
    expect(error.message).toContain(field);
    // nothing was started under that workflowId
    await expectFault(
      swf.send(new SignalWorkflowExecutionCommand({ domain, workflowId, signalName: 's' })),
      'UnknownResourceFault',
    );
  });

  it('starts a type without defaults when the request supplies everything', async () => {
    const { execution } = await driver.start(bare, bareConfig);
    const detail = await driver.describe(execution);
    expect(detail.executionConfiguration).toMatchObject({
      taskList: { name: bareConfig.taskList.name },
      executionStartToCloseTimeout: '120',
      taskStartToCloseTimeout: '20',
      childPolicy: 'TERMINATE',
      taskPriority: '0',
    });
    expect(detail.executionConfiguration?.lambdaRole).toBeUndefined();
  });

  it('refuses a deprecated type with TypeDeprecatedFault', async () => {
    const error = await expectFault(
      swf.send(
        new StartWorkflowExecutionCommand({ domain, workflowId: uid('old'), workflowType: old }),
      ),
      'TypeDeprecatedFault',
    );
    expect(error.message).toContain('name=old');
  });

  it('refuses an unknown type or domain with UnknownResourceFault', async () => {
    await expectFault(
      swf.send(
        new StartWorkflowExecutionCommand({
          domain,
          workflowId: uid('x'),
          workflowType: { name: 'nope', version: '1' },
        }),
      ),
      'UnknownResourceFault',
      'Unknown type: WorkflowType=[name=nope, version=1]',
    );
    await expectFault(
      swf.send(
        new StartWorkflowExecutionCommand({
          domain,
          workflowId: uid('x'),
          workflowType: { name: 'full', version: '2' },
        }),
      ),
      'UnknownResourceFault',
      'Unknown type: WorkflowType=[name=full, version=2]',
    );
    await expectFault(
      swf.send(
        new StartWorkflowExecutionCommand({
          domain: 'no-such-domain',
          workflowId: uid('x'),
          workflowType: full,
        }),
      ),
      'UnknownResourceFault',
      'Unknown domain: no-such-domain',
    );
  });

  it('refuses a second open execution with the same workflowId, and reuses the id once closed', async () => {
    const { execution, taskList } = await driver.start(full);
    const again = () =>
      swf.send(
        new StartWorkflowExecutionCommand({
          domain,
          workflowId: execution.workflowId,
          workflowType: full,
          taskList: { name: taskList },
        }),
      );
    await expectFault(again(), 'WorkflowExecutionAlreadyStartedFault');

    const task = await driver.pollDecision(taskList);
    await driver.respond(task.taskToken, [decide.complete('done')]);

    const { runId } = await again();
    expect(runId).toBeTruthy();
    expect(runId).not.toBe(execution.runId);
    expect((await driver.describe(execution)).executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'COMPLETED',
    });
    expect(
      (await driver.describe({ workflowId: execution.workflowId, runId })).executionInfo
        ?.executionStatus,
    ).toBe('OPEN');
    // a third start while the second run is open is refused again
    await expectFault(again(), 'WorkflowExecutionAlreadyStartedFault');
    // a terminated run frees the id as well
    await swf.send(
      new TerminateWorkflowExecutionCommand({ domain, workflowId: execution.workflowId }),
    );
    const third = await again();
    expect(third.runId).not.toBe(runId);
  });

  it('reuses a workflowId at once in a domain of retention 0, whose closed run is already gone', async () => {
    const gone = 'executions-no-retention';
    await swf.send(
      new RegisterDomainCommand({ name: gone, workflowExecutionRetentionPeriodInDays: '0' }),
    );
    await swf.send(new RegisterWorkflowTypeCommand({ domain: gone, ...bare }));
    const workflowId = uid('no-retention');
    const start = () =>
      swf.send(
        new StartWorkflowExecutionCommand({
          domain: gone,
          workflowId,
          workflowType: bare,
          ...bareConfig,
        }),
      );
    /** Starts a run, closes it, and waits until it is gone, well inside the 30 s a start in flight holds its workflowId for. */
    const runAndForget = async (closeRun: (runId: string) => Promise<unknown>) => {
      const { runId = '' } = await start();
      await closeRun(runId);
      const describe = new DescribeWorkflowExecutionCommand({
        domain: gone,
        execution: { workflowId, runId },
      });
      for (let waited = 0; ; waited += 100) {
        const found = await swf.send(describe).then(
          () => true,
          (error: Error) => error.name !== 'UnknownResourceFault',
        );
        if (!found) return;
        expect(waited).toBeLessThan(5_000);
        await sleep(100);
      }
    };
    await runAndForget((runId) =>
      swf.send(new TerminateWorkflowExecutionCommand({ domain: gone, workflowId, runId })),
    );
    await runAndForget(async () => {
      const task = await swf.send(
        new PollForDecisionTaskCommand({ domain: gone, taskList: bareConfig.taskList }),
      );
      await swf.send(
        new RespondDecisionTaskCompletedCommand({
          taskToken: task.taskToken,
          decisions: [decide.complete('done')],
        }),
      );
    });
    const { runId } = await start();
    expect(runId).toBeTruthy();
    await expectFault(start(), 'WorkflowExecutionAlreadyStartedFault');
  });

  it('treats a workflowId whose pointer still names a closed run (its removal failed) as having no open run', async () => {
    const { execution, taskList } = await driver.start(full);
    const task = await driver.pollDecision(taskList);
    await driver.respond(task.taskToken, [decide.complete('done')]);
    // The close left the pointer; write it again, as a pointer left by an older close would read.
    const client = createDocumentClient({
      endpoint: service.dynamoEndpoint,
      region: LOCAL_REGION,
      credentials: localCredentials,
    });
    try {
      await client.put({
        TableName: service.tableName,
        Item: {
          ...keys.openRun(domain, execution.workflowId),
          entity: 'OpenRun',
          runId: execution.runId,
          since: Date.now() / 1000,
        },
      });
    } finally {
      client.destroy();
    }
    const byWorkflowId = { domain, workflowId: execution.workflowId };
    const listed = await swf.send(
      new ListOpenWorkflowExecutionsCommand({
        domain,
        startTimeFilter: { oldestDate: new Date(0) },
        executionFilter: { workflowId: execution.workflowId },
      }),
    );
    expect(listed.executionInfos).toEqual([]);
    const unknown = `Unknown execution, workflowId = ${execution.workflowId}`;
    await expectFault(
      swf.send(new SignalWorkflowExecutionCommand({ ...byWorkflowId, signalName: 's' })),
      'UnknownResourceFault',
      unknown,
    );
    await expectFault(
      swf.send(new TerminateWorkflowExecutionCommand(byWorkflowId)),
      'UnknownResourceFault',
      unknown,
    );
    // The next start takes the workflowId over, and the pointer then names the new run.
    const next = await swf.send(
      new StartWorkflowExecutionCommand({
        ...byWorkflowId,
        workflowType: full,
        taskList: { name: taskList },
      }),
    );
    await swf.send(new SignalWorkflowExecutionCommand({ ...byWorkflowId, signalName: 'here' }));
    const events = await driver.history({
      workflowId: execution.workflowId,
      runId: next.runId ?? '',
    });
    expect(eventTypes(events)).toContain('WorkflowExecutionSignaled');
    expect((await driver.describe(execution)).executionInfo?.executionStatus).toBe('CLOSED');
  });

  it('accepts 5 tags and refuses 6 with ValidationException', async () => {
    const tags = ['t1', 't2', 't3', 't4', 't5'];
    const { execution } = await driver.start(full, { tagList: tags });
    expect((await driver.describe(execution)).executionInfo?.tagList).toEqual(tags);
    await expectFault(
      driver.start(full, { tagList: [...tags, 't6'] }),
      'ValidationException',
      /tagList/,
    );
  });

  it('accepts an input of 32768 characters and refuses 32769 with ValidationException', async () => {
    const { execution } = await driver.start(full, { input: 'x'.repeat(32768) });
    const [started] = await driver.history(execution);
    expect(started?.workflowExecutionStartedEventAttributes?.input).toHaveLength(32768);
    await expectFault(
      driver.start(full, { input: 'x'.repeat(32769) }),
      'ValidationException',
      /input/,
    );
  });
});

describe('DescribeWorkflowExecution', () => {
  it('counts open activities, timers and decision tasks; keeps the latest activity time and context', async () => {
    const { execution, taskList } = await driver.start(full);
    const workers = uid('workers');
    expect((await driver.describe(execution)).openCounts?.openDecisionTasks).toBe(1);

    const first = await driver.pollDecision(taskList);
    // a started decision task is still open
    expect((await driver.describe(execution)).openCounts?.openDecisionTasks).toBe(1);
    expect((await driver.describe(execution)).latestActivityTaskTimestamp).toBeUndefined();
    await driver.respond(
      first.taskToken,
      [
        decide.scheduleActivity({
          activityType: act,
          activityId: 'a1',
          taskList: { name: workers },
        }),
        decide.scheduleActivity({
          activityType: act,
          activityId: 'a2',
          taskList: { name: workers },
        }),
        decide.startTimer('t1'),
      ],
      { executionContext: 'ctx-1' },
    );
    let detail = await driver.describe(execution);
    expect(detail.openCounts).toEqual({
      openActivityTasks: 2,
      openDecisionTasks: 0,
      openTimers: 1,
      openChildWorkflowExecutions: 0,
      openLambdaFunctions: 0,
    });
    expect(detail.latestExecutionContext).toBe('ctx-1');
    const scheduled = (await driver.history(execution)).filter(
      (e) => e.eventType === 'ActivityTaskScheduled',
    );
    expect(scheduled).toHaveLength(2);
    expect(detail.latestActivityTaskTimestamp?.getTime()).toBe(at(scheduled.at(-1)));

    // started activities stay open until they close
    const task = await driver.pollActivity(workers);
    expect((await driver.describe(execution)).openCounts?.openActivityTasks).toBe(2);
    await swf.send(
      new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken, result: 'r' }),
    );
    detail = await driver.describe(execution);
    expect(detail.openCounts).toMatchObject({
      openActivityTasks: 1,
      openDecisionTasks: 1,
      openTimers: 1,
    });

    const second = await driver.pollDecision(taskList);
    await driver.respond(second.taskToken, [decide.cancelTimer('t1')], {
      executionContext: 'ctx-2',
    });
    detail = await driver.describe(execution);
    expect(detail.openCounts).toMatchObject({
      openActivityTasks: 1,
      openDecisionTasks: 0,
      openTimers: 0,
    });
    expect(detail.latestExecutionContext).toBe('ctx-2');
    expect(detail.latestActivityTaskTimestamp?.getTime()).toBe(at(scheduled.at(-1)));

    // a response without executionContext leaves the latest one in place
    await driver.signal(execution);
    const third = await driver.pollDecision(taskList);
    await driver.respond(third.taskToken, []);
    expect((await driver.describe(execution)).latestExecutionContext).toBe('ctx-2');
  });

  it('shows cancelRequested after RequestCancelWorkflowExecution, and the close once canceled', async () => {
    const { execution, taskList } = await driver.start(full);
    const first = await driver.pollDecision(taskList);
    await driver.respond(first.taskToken, []);
    await swf.send(
      new RequestCancelWorkflowExecutionCommand({
        domain,
        workflowId: execution.workflowId,
        runId: execution.runId,
      }),
    );
    let detail = await driver.describe(execution);
    expect(detail.executionInfo).toMatchObject({ executionStatus: 'OPEN', cancelRequested: true });
    expect(detail.openCounts?.openDecisionTasks).toBe(1);
    const requested = single(await driver.history(execution), 'WorkflowExecutionCancelRequested');
    expect(
      requested.workflowExecutionCancelRequestedEventAttributes?.externalWorkflowExecution,
    ).toBeUndefined();
    expect(requested.workflowExecutionCancelRequestedEventAttributes?.cause).toBeUndefined();

    const second = await driver.pollDecision(taskList);
    expect(eventTypes(second.events)).toContain('WorkflowExecutionCancelRequested');
    await driver.respond(second.taskToken, [decide.cancel('bye')]);
    detail = await driver.describe(execution);
    const history = await driver.history(execution);
    const canceled = single(history, 'WorkflowExecutionCanceled');
    expect(canceled.workflowExecutionCanceledEventAttributes).toMatchObject({ details: 'bye' });
    expect(detail.executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'CANCELED',
      cancelRequested: true,
    });
    expect(detail.executionInfo?.closeTimestamp?.getTime()).toBe(at(canceled));
    expect(detail.openCounts).toMatchObject({
      openDecisionTasks: 0,
      openActivityTasks: 0,
      openTimers: 0,
    });
  });

  it.each([
    ['COMPLETED', decide.complete('ok'), 'WorkflowExecutionCompleted'],
    ['FAILED', decide.fail('why', 'what'), 'WorkflowExecutionFailed'],
  ] as const)(
    'reports closeStatus %s with its closeTimestamp',
    async (status, decision, eventType) => {
      const { execution, taskList } = await driver.start(full);
      const task = await driver.pollDecision(taskList);
      await driver.respond(task.taskToken, [decision]);
      const detail = await driver.describe(execution);
      const closed = single(await driver.history(execution), eventType);
      expect(detail.executionInfo).toMatchObject({
        executionStatus: 'CLOSED',
        closeStatus: status,
      });
      expect(detail.executionInfo?.closeTimestamp?.getTime()).toBe(at(closed));
      expect(detail.executionInfo?.closeTimestamp?.getTime()).toBeGreaterThanOrEqual(
        detail.executionInfo?.startTimestamp?.getTime() ?? Number.POSITIVE_INFINITY,
      );
    },
  );

  it('refuses an unknown execution with UnknownResourceFault', async () => {
    await expectFault(
      driver.describe({ workflowId: uid('none'), runId: 'no-such-run' }),
      'UnknownResourceFault',
    );
  });
});

describe('GetWorkflowExecutionHistory', () => {
  /** An execution with 10 events: started, decision task 2–4, 5 markers, one signal and its decision task. */
  async function tenEvents() {
    const { execution, taskList } = await driver.start(full);
    const task = await driver.pollDecision(taskList);
    await driver.respond(
      task.taskToken,
      ['m1', 'm2', 'm3', 'm4'].map((m) => decide.marker(m)),
    );
    await driver.signal(execution, 'ping');
    const history = await driver.history(execution);
    expect(eventTypes(history)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'MarkerRecorded',
      'MarkerRecorded',
      'MarkerRecorded',
      'MarkerRecorded',
      'WorkflowExecutionSignaled',
      'DecisionTaskScheduled',
    ]);
    return execution;
  }

  async function pages(execution: { workflowId: string; runId: string }, reverseOrder: boolean) {
    const ids: number[][] = [];
    let nextPageToken: string | undefined;
    do {
      const page = await swf.send(
        new GetWorkflowExecutionHistoryCommand({
          domain,
          execution,
          maximumPageSize: 4,
          reverseOrder,
          ...(nextPageToken === undefined ? {} : { nextPageToken }),
        }),
      );
      ids.push(eventIds(page.events));
      nextPageToken = page.nextPageToken;
      expect(ids.length).toBeLessThan(10);
    } while (nextPageToken !== undefined);
    return ids;
  }

  it('pages forward and backward with maximumPageSize', async () => {
    const execution = await tenEvents();
    expect(await pages(execution, false)).toEqual([
      [1, 2, 3, 4],
      [5, 6, 7, 8],
      [9, 10],
    ]);
    expect(await pages(execution, true)).toEqual([
      [10, 9, 8, 7],
      [6, 5, 4, 3],
      [2, 1],
    ]);
  });

  it('omits nextPageToken when the page holds the rest exactly', async () => {
    const execution = await tenEvents();
    const page = await swf.send(
      new GetWorkflowExecutionHistoryCommand({ domain, execution, maximumPageSize: 10 }),
    );
    expect(eventIds(page.events)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(page.nextPageToken).toBeUndefined();
  });

  it('refuses a page token of another execution, or with other arguments, with ValidationException', async () => {
    const one = await tenEvents();
    const other = await tenEvents();
    const first = await swf.send(
      new GetWorkflowExecutionHistoryCommand({ domain, execution: one, maximumPageSize: 4 }),
    );
    expect(first.nextPageToken).toBeTruthy();
    await expectFault(
      swf.send(
        new GetWorkflowExecutionHistoryCommand({
          domain,
          execution: other,
          maximumPageSize: 4,
          nextPageToken: first.nextPageToken,
        }),
      ),
      'ValidationException',
    );
    await expectFault(
      swf.send(
        new GetWorkflowExecutionHistoryCommand({
          domain,
          execution: one,
          maximumPageSize: 4,
          reverseOrder: true,
          nextPageToken: first.nextPageToken,
        }),
      ),
      'ValidationException',
    );
    // the token still works with the arguments it came from
    const second = await swf.send(
      new GetWorkflowExecutionHistoryCommand({
        domain,
        execution: one,
        maximumPageSize: 4,
        nextPageToken: first.nextPageToken,
      }),
    );
    expect(eventIds(second.events)).toEqual([5, 6, 7, 8]);
  });

  it('refuses maximumPageSize above 1000 with ValidationException', async () => {
    const execution = await tenEvents();
    await expectFault(
      swf.send(
        new GetWorkflowExecutionHistoryCommand({ domain, execution, maximumPageSize: 1001 }),
      ),
      'ValidationException',
    );
  });
});

describe('TerminateWorkflowExecution', () => {
  it('closes at once with reason, details and childPolicy; every token dies; queued tasks vanish', async () => {
    const { execution, taskList } = await driver.start(full, { childPolicy: 'TERMINATE' });
    const workers = uid('workers');
    const first = await driver.pollDecision(taskList);
    await driver.respond(first.taskToken, [
      decide.scheduleActivity({
        activityType: act,
        activityId: 'started',
        taskList: { name: workers },
      }),
      decide.scheduleActivity({
        activityType: act,
        activityId: 'queued-1',
        taskList: { name: workers },
      }),
      decide.scheduleActivity({
        activityType: act,
        activityId: 'queued-2',
        taskList: { name: workers },
      }),
    ]);
    const activity = await driver.pollActivity(workers, 'worker');
    await driver.signal(execution);
    const decision = await driver.pollDecision(taskList);
    // one more trigger while the decision task is out: a decision task is owed
    await driver.signal(execution);
    expect(
      (
        await swf.send(
          new CountPendingActivityTasksCommand({ domain, taskList: { name: workers } }),
        )
      ).count,
    ).toBe(2);

    await swf.send(
      new TerminateWorkflowExecutionCommand({
        domain,
        workflowId: execution.workflowId,
        runId: execution.runId,
        reason: 'operator',
        details: 'details',
        childPolicy: 'ABANDON',
      }),
    );

    const history = await driver.history(execution);
    const terminated = history.at(-1);
    expect(terminated?.eventType).toBe('WorkflowExecutionTerminated');
    expect(terminated?.workflowExecutionTerminatedEventAttributes).toMatchObject({
      reason: 'operator',
      details: 'details',
      childPolicy: 'ABANDON',
    });
    expect(['OPERATOR_INITIATED', undefined]).toContain(
      terminated?.workflowExecutionTerminatedEventAttributes?.cause,
    );
    const detail = await driver.describe(execution);
    expect(detail.executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'TERMINATED',
    });
    expect(detail.executionInfo?.closeTimestamp?.getTime()).toBe(at(terminated));

    await expectFault(
      swf.send(
        new RespondDecisionTaskCompletedCommand({ taskToken: decision.taskToken, decisions: [] }),
      ),
      'UnknownResourceFault',
    );
    const token = activity.taskToken;
    await expectFault(
      swf.send(new RecordActivityTaskHeartbeatCommand({ taskToken: token })),
      'UnknownResourceFault',
    );
    await expectFault(
      swf.send(new RespondActivityTaskCompletedCommand({ taskToken: token })),
      'UnknownResourceFault',
    );
    await expectFault(
      swf.send(new RespondActivityTaskFailedCommand({ taskToken: token })),
      'UnknownResourceFault',
    );
    await expectFault(
      swf.send(new RespondActivityTaskCanceledCommand({ taskToken: token })),
      'UnknownResourceFault',
    );

    expect(
      (
        await swf.send(
          new CountPendingActivityTasksCommand({ domain, taskList: { name: workers } }),
        )
      ).count,
    ).toBe(0);
    expect(
      (
        await swf.send(
          new CountPendingDecisionTasksCommand({ domain, taskList: { name: taskList } }),
        )
      ).count,
    ).toBe(0);
    const empty = await swf.send(
      new PollForActivityTaskCommand({ domain, taskList: { name: workers } }),
    );
    expect(empty.taskToken).toBeFalsy();
    expect(empty.startedEventId).toBe(0);
    const noDecision = await swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: taskList } }),
    );
    expect(noDecision.taskToken).toBeFalsy();

    // a closed execution takes no more signals, cancel requests or terminations
    const target = { domain, workflowId: execution.workflowId, runId: execution.runId };
    await expectFault(
      swf.send(new SignalWorkflowExecutionCommand({ ...target, signalName: 's' })),
      'UnknownResourceFault',
    );
    await expectFault(
      swf.send(new RequestCancelWorkflowExecutionCommand(target)),
      'UnknownResourceFault',
    );
    await expectFault(
      swf.send(new TerminateWorkflowExecutionCommand(target)),
      'UnknownResourceFault',
    );
    await expectFault(
      swf.send(new TerminateWorkflowExecutionCommand({ domain, workflowId: execution.workflowId })),
      'UnknownResourceFault',
    );
    // the history is final
    expect(eventIds(await driver.history(execution))).toEqual(eventIds(history));
  });

  it("records the execution's own child policy when the request gives none", async () => {
    const { execution } = await driver.start(full, { childPolicy: 'REQUEST_CANCEL' });
    await swf.send(
      new TerminateWorkflowExecutionCommand({ domain, workflowId: execution.workflowId }),
    );
    const terminated = single(await driver.history(execution), 'WorkflowExecutionTerminated');
    expect(terminated.workflowExecutionTerminatedEventAttributes?.childPolicy).toBe(
      'REQUEST_CANCEL',
    );
    expect(terminated.workflowExecutionTerminatedEventAttributes?.reason).toBeUndefined();
    expect(eventTypes(await driver.history(execution))).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'WorkflowExecutionTerminated',
    ]);
  });
});
