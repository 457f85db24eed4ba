/**
 * Bad input aimed at an execution (docs/architecture.md, "Bad input": nothing already stored is lost or
 * changed by it): every refused call answers its documented fault, and the execution's history — compared
 * before and after — is unchanged; the tokens it held still work.
 */
import {
  CountPendingActivityTasksCommand,
  CountPendingDecisionTasksCommand,
  type Decision,
  DescribeWorkflowExecutionCommand,
  GetWorkflowExecutionHistoryCommand,
  PollForActivityTaskCommand,
  PollForDecisionTaskCommand,
  RecordActivityTaskHeartbeatCommand,
  RequestCancelWorkflowExecutionCommand,
  RespondActivityTaskCompletedCommand,
  RespondActivityTaskFailedCommand,
  RespondDecisionTaskCompletedCommand,
  SignalWorkflowExecutionCommand,
  StartWorkflowExecutionCommand,
  TerminateWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { expectWireError, rawCall, rawRequest, wireType } from '../support/contract.js';
import { decide, eventTypes, expectFault, liveRun } from '../support/decider.js';
import { domainForFile, registerTaskTypes } from '../support/local.js';

const domain = 'engine-bad-input';
const wf = { name: 'wf', version: '1' };
const act = { name: 'act', version: '1' };
const big = (n: number) => 'x'.repeat(n);

const server = domainForFile(domain, { polling: { maxWaitMs: 300 } }, ({ swf }) =>
  registerTaskTypes(swf, domain, { workflow: wf, activity: act, decisionTaskTimeout: '300' }),
);

describe('refused calls on an execution', () => {
  it('leave its history unchanged, and its tokens usable', async () => {
    const { execution, activity, decision } = await liveRun(server.driver, wf, act);
    const { workflowId } = execution;
    const before = await server.driver.history(execution);
    const otherRun = 'r'.repeat(20);

    // Sent one at a time: each call is made only when its turn comes, so no refusal goes unobserved.
    const refused: [() => Promise<unknown>, string, RegExp?][] = [
      [
        () =>
          server.swf.send(
            new SignalWorkflowExecutionCommand({
              domain,
              workflowId,
              signalName: 's',
              input: big(32769),
            }),
          ),
        'ValidationException',
        /at 'input' failed to satisfy constraint: Member must have length less than or equal to 32768/,
      ],
      [
        () =>
          server.swf.send(
            new SignalWorkflowExecutionCommand({ domain, workflowId, signalName: big(257) }),
          ),
        'ValidationException',
        /signalName/,
      ],
      [
        () =>
          server.swf.send(
            new SignalWorkflowExecutionCommand({
              domain,
              workflowId,
              runId: otherRun,
              signalName: 's',
            }),
          ),
        'UnknownResourceFault',
        new RegExp(
          `^Unknown execution: WorkflowExecution=\\[workflowId=${workflowId}, runId=${otherRun}\\]$`,
        ),
      ],
      [
        () =>
          server.swf.send(
            new SignalWorkflowExecutionCommand({
              domain: 'no-such-domain',
              workflowId,
              signalName: 's',
            }),
          ),
        'UnknownResourceFault',
        /^Unknown domain: no-such-domain$/,
      ],
      [
        () =>
          server.swf.send(
            new RequestCancelWorkflowExecutionCommand({ domain, workflowId, runId: otherRun }),
          ),
        'UnknownResourceFault',
      ],
      [
        () =>
          server.swf.send(
            new TerminateWorkflowExecutionCommand({ domain, workflowId, reason: big(257) }),
          ),
        'ValidationException',
        /reason/,
      ],
      [
        () =>
          server.swf.send(
            new TerminateWorkflowExecutionCommand({ domain, workflowId, details: big(32769) }),
          ),
        'ValidationException',
        /details/,
      ],
      [
        () =>
          server.swf.send(
            new TerminateWorkflowExecutionCommand({ domain, workflowId, runId: otherRun }),
          ),
        'UnknownResourceFault',
      ],
      [
        () =>
          server.swf.send(
            new StartWorkflowExecutionCommand({ domain, workflowId, workflowType: wf }),
          ),
        'WorkflowExecutionAlreadyStartedFault',
      ],
      [
        () =>
          server.swf.send(
            new RespondActivityTaskCompletedCommand({
              taskToken: activity.taskToken,
              result: big(32769),
            }),
          ),
        'ValidationException',
        /result/,
      ],
      [
        () =>
          server.swf.send(
            new RespondActivityTaskFailedCommand({
              taskToken: activity.taskToken,
              reason: big(257),
            }),
          ),
        'ValidationException',
        /reason/,
      ],
      [
        () =>
          server.swf.send(
            new RecordActivityTaskHeartbeatCommand({
              taskToken: activity.taskToken,
              details: big(2049),
            }),
          ),
        'ValidationException',
        /details/,
      ],
      [
        () =>
          server.swf.send(
            new RespondDecisionTaskCompletedCommand({
              taskToken: decision.taskToken,
              decisions: [],
              executionContext: big(32769),
            }),
          ),
        'ValidationException',
        /executionContext/,
      ],
    ];
    for (const [call, name, message] of refused) await expectFault(call(), name, message);

    const wrongTypes = await rawCall(server.service.endpoint, 'TerminateWorkflowExecution', {
      domain,
      workflowId,
      childPolicy: 'DESTROY',
    });
    expectWireError(
      wrongTypes,
      wireType.validation,
      /enum value set: \[TERMINATE, REQUEST_CANCEL, ABANDON\]/,
    );
    const notAString = await rawCall(server.service.endpoint, 'SignalWorkflowExecution', {
      domain,
      workflowId,
      signalName: 's',
      input: { nested: true },
    });
    expectWireError(notAString, wireType.serialization, /'input'/);
    // Half of a surrogate pair has no UTF-8 form: stored, it would become U+FFFD.
    const halfPair = await rawRequest(server.service.endpoint, {
      target: 'SimpleWorkflowService.SignalWorkflowExecution',
      body: `{"domain":${JSON.stringify(domain)},"workflowId":${JSON.stringify(workflowId)},"signalName":"s\\ud800"}`,
    });
    expectWireError(halfPair, wireType.serialization, /'signalName' .* surrogate pair/);

    expect(await server.driver.history(execution)).toStrictEqual(before);
    expect((await server.driver.describe(execution)).executionInfo?.executionStatus).toBe('OPEN');
    await server.swf.send(
      new RecordActivityTaskHeartbeatCommand({ taskToken: activity.taskToken }),
    );
    await server.swf.send(
      new RespondActivityTaskCompletedCommand({ taskToken: activity.taskToken }),
    );
    await server.driver.respond(decision.taskToken, []);
    expect(eventTypes(await server.driver.history(execution)).slice(before.length)).toStrictEqual([
      'ActivityTaskCompleted',
      'DecisionTaskCompleted',
      'DecisionTaskScheduled',
    ]);
  });

  it.each<[string, Decision[], RegExp]>([
    [
      'a timer duration that is not whole seconds',
      [decide.startTimer('t', 'soon')],
      /decisions\.2\.member\.startTimerDecisionAttributes\.startToFireTimeout/,
    ],
    [
      'a timerId with a colon',
      [decide.startTimer('a:b')],
      /startTimerDecisionAttributes\.timerId.*must not contain ':'/,
    ],
    [
      'a taskPriority that is no integer',
      [decide.scheduleActivity({ activityType: act, activityId: 'p', taskPriority: 'high' })],
      /scheduleActivityTaskDecisionAttributes\.taskPriority/,
    ],
    [
      'a continue-as-new execution limit over a year',
      [decide.continueAsNew({ executionStartToCloseTimeout: '31536001' })],
      /continueAsNewWorkflowExecutionDecisionAttributes\.executionStartToCloseTimeout/,
    ],
    [
      'two close decisions',
      [decide.complete('a'), decide.fail('b')],
      /Close must be last decision in list/,
    ],
    [
      'a marker name over 256 characters',
      [decide.marker(big(257))],
      /recordMarkerDecisionAttributes\.markerName/,
    ],
    [
      'a result over 32768 characters',
      [decide.complete(big(32769))],
      /completeWorkflowExecutionDecisionAttributes\.result/,
    ],
    [
      'an activity type without a version',
      [
        {
          decisionType: 'ScheduleActivityTask',
          scheduleActivityTaskDecisionAttributes: {
            activityType: { name: 'act' } as { name: string; version: string },
            activityId: 'v',
          },
        },
      ],
      /activityType\.version.*Member must not be null/,
    ],
  ])(
    'a response with %s is refused whole; the history is unchanged',
    async (_, decisions, message) => {
      const { execution, decision } = await liveRun(server.driver, wf, act);
      const before = await server.driver.history(execution);

      await expectFault(
        server.driver.respond(decision.taskToken, [decide.marker('fine'), ...decisions]),
        'ValidationException',
        message,
      );

      expect(await server.driver.history(execution)).toStrictEqual(before);
      await server.driver.respond(decision.taskToken, [decide.marker('fine')]);
      expect(
        eventTypes(await server.driver.history(execution)).slice(before.length, before.length + 2),
      ).toStrictEqual(['DecisionTaskCompleted', 'MarkerRecorded']);
    },
  );

  it('a refused StartWorkflowExecution leaves the open run of that workflowId alone', async () => {
    const { execution } = await liveRun(server.driver, wf, act);
    const before = await server.driver.history(execution);

    await expectFault(
      server.swf.send(
        new StartWorkflowExecutionCommand({
          domain,
          workflowId: execution.workflowId,
          workflowType: wf,
          input: big(32769),
        }),
      ),
      'ValidationException',
    );
    await expectFault(
      server.swf.send(
        new StartWorkflowExecutionCommand({
          domain,
          workflowId: execution.workflowId,
          workflowType: wf,
          tagList: ['1', '2', '3', '4', '5', '6'],
        }),
      ),
      'ValidationException',
      /tagList/,
    );

    expect(await server.driver.history(execution)).toStrictEqual(before);
  });
});

describe('an unknown domain or execution', () => {
  it('is UnknownResourceFault with the documented message for every execution call', async () => {
    const missing = 'no-such-domain';
    const taskList = { name: 'anything' };
    const execution = { workflowId: 'w', runId: 'r' };
    const unknownDomain: (() => Promise<unknown>)[] = [
      () => server.swf.send(new CountPendingActivityTasksCommand({ domain: missing, taskList })),
      () => server.swf.send(new CountPendingDecisionTasksCommand({ domain: missing, taskList })),
      () => server.swf.send(new PollForActivityTaskCommand({ domain: missing, taskList })),
      () => server.swf.send(new PollForDecisionTaskCommand({ domain: missing, taskList })),
      () => server.swf.send(new DescribeWorkflowExecutionCommand({ domain: missing, execution })),
      () => server.swf.send(new GetWorkflowExecutionHistoryCommand({ domain: missing, execution })),
      () =>
        server.swf.send(
          new RequestCancelWorkflowExecutionCommand({ domain: missing, workflowId: 'w' }),
        ),
      () =>
        server.swf.send(
          new TerminateWorkflowExecutionCommand({ domain: missing, workflowId: 'w' }),
        ),
      () =>
        server.swf.send(
          new StartWorkflowExecutionCommand({ domain: missing, workflowId: 'w', workflowType: wf }),
        ),
    ];
    for (const call of unknownDomain) {
      await expectFault(call(), 'UnknownResourceFault', `Unknown domain: ${missing}`);
    }

    const { execution: real } = await server.driver.start(wf);
    const unknownRun = { workflowId: real.workflowId, runId: 'r'.repeat(10) };
    const message = `Unknown execution: WorkflowExecution=[workflowId=${real.workflowId}, runId=${unknownRun.runId}]`;
    await expectFault(
      server.swf.send(new DescribeWorkflowExecutionCommand({ domain, execution: unknownRun })),
      'UnknownResourceFault',
      message,
    );
    await expectFault(
      server.swf.send(new GetWorkflowExecutionHistoryCommand({ domain, execution: unknownRun })),
      'UnknownResourceFault',
      message,
    );
    await expectFault(
      server.swf.send(
        new SignalWorkflowExecutionCommand({
          domain,
          workflowId: 'never-started',
          signalName: 's',
        }),
      ),
      'UnknownResourceFault',
      'Unknown execution, workflowId = never-started',
    );
  });
});
