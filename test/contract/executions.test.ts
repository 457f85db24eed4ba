/**
 * StartWorkflowExecution through the official SDK: settings resolved from the request and the type's
 * defaults, its faults, one open run per workflowId, and the limits on tags and input.
 */
import {
  DescribeWorkflowExecutionCommand,
  ListOpenWorkflowExecutionsCommand,
  PollForDecisionTaskCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  RespondDecisionTaskCompletedCommand,
  SignalWorkflowExecutionCommand,
  StartWorkflowExecutionCommand,
  TerminateWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import { keys } from '../../lib/adapters/dynamodb/keys.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { LOCAL_REGION } from '../../lib/local/local-service.js';
import { at, decide, eventIds, eventTypes, expectFault, sleep, uid } from '../support/decider.js';
import {
  bare,
  bareConfig,
  domain,
  full,
  lambdaRole,
  old,
  serveExecutions,
} from '../support/executions.js';
import { servedForFile } from '../support/local.js';

const server = servedForFile(serveExecutions);

describe('StartWorkflowExecution', () => {
  it('resolves omitted settings from the type defaults (Started event and Describe)', async () => {
    const workflowId = uid('defaults');
    const { runId } = await server.swf.send(
      new StartWorkflowExecutionCommand({ domain, workflowId, workflowType: full, input: 'in' }),
    );
    expect(runId).toMatch(/^.{1,64}$/);
    const execution = { workflowId, runId };
    const history = await server.driver.history(execution);
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

    const detail = await server.driver.describe(execution);
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
    await server.swf.send(new TerminateWorkflowExecutionCommand({ domain, workflowId, runId }));
  });

  it('prefers the request values over the type defaults', async () => {
    const { execution } = await server.driver.start(full, {
      executionStartToCloseTimeout: '600',
      taskStartToCloseTimeout: '15',
      childPolicy: 'REQUEST_CANCEL',
      taskPriority: '-3',
      lambdaRole: 'arn:aws:iam::000000000000:role/other',
      tagList: ['a', 'b'],
    });
    const detail = await server.driver.describe(execution);
    expect(detail.executionConfiguration).toMatchObject({
      taskStartToCloseTimeout: '15',
      executionStartToCloseTimeout: '600',
      taskPriority: '-3',
      childPolicy: 'REQUEST_CANCEL',
      lambdaRole: 'arn:aws:iam::000000000000:role/other',
    });
    expect(detail.executionInfo?.tagList).toEqual(['a', 'b']);
    const [started] = await server.driver.history(execution);
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
      server.swf.send(
        new StartWorkflowExecutionCommand({ domain, workflowId, workflowType: bare, ...rest }),
      ),
      'DefaultUndefinedFault',
    );
    expect(error.message).toContain(field);
    // nothing was started under that workflowId
    await expectFault(
      server.swf.send(new SignalWorkflowExecutionCommand({ domain, workflowId, signalName: 's' })),
      'UnknownResourceFault',
    );
  });

  it('starts a type without defaults when the request supplies everything', async () => {
    const { execution } = await server.driver.start(bare, bareConfig);
    const detail = await server.driver.describe(execution);
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
      server.swf.send(
        new StartWorkflowExecutionCommand({ domain, workflowId: uid('old'), workflowType: old }),
      ),
      'TypeDeprecatedFault',
    );
    expect(error.message).toContain('name=old');
  });

  it('refuses an unknown type or domain with UnknownResourceFault', async () => {
    await expectFault(
      server.swf.send(
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
      server.swf.send(
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
      server.swf.send(
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
    const { execution, taskList } = await server.driver.start(full);
    const again = () =>
      server.swf.send(
        new StartWorkflowExecutionCommand({
          domain,
          workflowId: execution.workflowId,
          workflowType: full,
          taskList: { name: taskList },
        }),
      );
    await expectFault(again(), 'WorkflowExecutionAlreadyStartedFault');

    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [decide.complete('done')]);

    const { runId } = await again();
    expect(runId).toBeTruthy();
    expect(runId).not.toBe(execution.runId);
    expect((await server.driver.describe(execution)).executionInfo).toMatchObject({
      executionStatus: 'CLOSED',
      closeStatus: 'COMPLETED',
    });
    expect(
      (await server.driver.describe({ workflowId: execution.workflowId, runId })).executionInfo
        ?.executionStatus,
    ).toBe('OPEN');
    // a third start while the second run is open is refused again
    await expectFault(again(), 'WorkflowExecutionAlreadyStartedFault');
    // a terminated run frees the id as well
    await server.swf.send(
      new TerminateWorkflowExecutionCommand({ domain, workflowId: execution.workflowId }),
    );
    const third = await again();
    expect(third.runId).not.toBe(runId);
  });

  it('reuses a workflowId at once in a domain of retention 0, whose closed run is already gone', async () => {
    const gone = 'executions-no-retention';
    await server.swf.send(
      new RegisterDomainCommand({ name: gone, workflowExecutionRetentionPeriodInDays: '0' }),
    );
    await server.swf.send(new RegisterWorkflowTypeCommand({ domain: gone, ...bare }));
    const workflowId = uid('no-retention');
    const start = () =>
      server.swf.send(
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
        const found = await server.swf.send(describe).then(
          () => true,
          (error: Error) => error.name !== 'UnknownResourceFault',
        );
        if (!found) return;
        expect(waited).toBeLessThan(5_000);
        await sleep(100);
      }
    };
    await runAndForget((runId) =>
      server.swf.send(new TerminateWorkflowExecutionCommand({ domain: gone, workflowId, runId })),
    );
    await runAndForget(async () => {
      const task = await server.swf.send(
        new PollForDecisionTaskCommand({ domain: gone, taskList: bareConfig.taskList }),
      );
      await server.swf.send(
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
    const { execution, taskList } = await server.driver.start(full);
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [decide.complete('done')]);
    // The close left the pointer; write it again, as a pointer left by an older close would read.
    const client = createDocumentClient({
      endpoint: server.service.dynamoEndpoint,
      region: LOCAL_REGION,
      credentials: localCredentials,
    });
    try {
      await client.put({
        TableName: server.service.tableName,
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
    const listed = await server.swf.send(
      new ListOpenWorkflowExecutionsCommand({
        domain,
        startTimeFilter: { oldestDate: new Date(0) },
        executionFilter: { workflowId: execution.workflowId },
      }),
    );
    expect(listed.executionInfos).toEqual([]);
    const unknown = `Unknown execution, workflowId = ${execution.workflowId}`;
    await expectFault(
      server.swf.send(new SignalWorkflowExecutionCommand({ ...byWorkflowId, signalName: 's' })),
      'UnknownResourceFault',
      unknown,
    );
    await expectFault(
      server.swf.send(new TerminateWorkflowExecutionCommand(byWorkflowId)),
      'UnknownResourceFault',
      unknown,
    );
    // The next start takes the workflowId over, and the pointer then names the new run.
    const next = await server.swf.send(
      new StartWorkflowExecutionCommand({
        ...byWorkflowId,
        workflowType: full,
        taskList: { name: taskList },
      }),
    );
    await server.swf.send(
      new SignalWorkflowExecutionCommand({ ...byWorkflowId, signalName: 'here' }),
    );
    const events = await server.driver.history({
      workflowId: execution.workflowId,
      runId: next.runId ?? '',
    });
    expect(eventTypes(events)).toContain('WorkflowExecutionSignaled');
    expect((await server.driver.describe(execution)).executionInfo?.executionStatus).toBe('CLOSED');
  });

  it('accepts 5 tags and refuses 6 with ValidationException', async () => {
    const tags = ['t1', 't2', 't3', 't4', 't5'];
    const { execution } = await server.driver.start(full, { tagList: tags });
    expect((await server.driver.describe(execution)).executionInfo?.tagList).toEqual(tags);
    await expectFault(
      server.driver.start(full, { tagList: [...tags, 't6'] }),
      'ValidationException',
      /tagList/,
    );
  });

  it('accepts an input of 32768 characters and refuses 32769 with ValidationException', async () => {
    const { execution } = await server.driver.start(full, { input: 'x'.repeat(32768) });
    const [started] = await server.driver.history(execution);
    expect(started?.workflowExecutionStartedEventAttributes?.input).toHaveLength(32768);
    await expectFault(
      server.driver.start(full, { input: 'x'.repeat(32769) }),
      'ValidationException',
      /input/,
    );
  });
});
