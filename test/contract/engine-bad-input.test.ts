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
  type SWFClient,
  TerminateWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectWireError, rawCall, rawRequest, wireType } from '../support/contract.js';
import { decide, eventTypes, expectFault, liveRun, type SwfDriver } from '../support/decider.js';
import { registerTaskTypes, serveDomain } from '../support/local.js';

let swf: SWFClient;
let endpoint: string;
let driver: SwfDriver;
let close: () => Promise<void>;
const domain = 'engine-bad-input';
const wf = { name: 'wf', version: '1' };
const act = { name: 'act', version: '1' };
const big = (n: number) => 'x'.repeat(n);

beforeAll(async () => {
  const server = await serveDomain(domain, { polling: { maxWaitMs: 300 } });
  ({ swf, close, driver } = server);
  endpoint = server.service.endpoint;
  await registerTaskTypes(swf, domain, { workflow: wf, activity: act, decisionTaskTimeout: '300' });
});
afterAll(() => close());

describe('refused calls on an execution', () => {
  it('leave its history unchanged, and its tokens usable', async () => {
    const { execution, activity, decision } = await liveRun(driver, wf, act);
    const { workflowId } = execution;
    const before = await driver.history(execution);
    const otherRun = 'r'.repeat(20);

    // Sent one at a time: each call is made only when its turn comes, so no refusal goes unobserved.
    const refused: [() => Promise<unknown>, string, RegExp?][] = [
      [
        () =>
          swf.send(
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
          swf.send(
            new SignalWorkflowExecutionCommand({ domain, workflowId, signalName: big(257) }),
          ),
        'ValidationException',
        /signalName/,
      ],
      [
        () =>
          swf.send(
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
          swf.send(
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
          swf.send(
            new RequestCancelWorkflowExecutionCommand({ domain, workflowId, runId: otherRun }),
          ),
        'UnknownResourceFault',
      ],
      [
        () =>
          swf.send(new TerminateWorkflowExecutionCommand({ domain, workflowId, reason: big(257) })),
        'ValidationException',
        /reason/,
      ],
      [
        () =>
          swf.send(
            new TerminateWorkflowExecutionCommand({ domain, workflowId, details: big(32769) }),
          ),
        'ValidationException',
        /details/,
      ],
      [
        () =>
          swf.send(new TerminateWorkflowExecutionCommand({ domain, workflowId, runId: otherRun })),
        'UnknownResourceFault',
      ],
      [
        () => swf.send(new StartWorkflowExecutionCommand({ domain, workflowId, workflowType: wf })),
        'WorkflowExecutionAlreadyStartedFault',
      ],
      [
        () =>
          swf.send(
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
          swf.send(
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
          swf.send(
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
          swf.send(
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

    const wrongTypes = await rawCall(endpoint, 'TerminateWorkflowExecution', {
      domain,
      workflowId,
      childPolicy: 'DESTROY',
    });
    expectWireError(
      wrongTypes,
      wireType.validation,
      /enum value set: \[TERMINATE, REQUEST_CANCEL, ABANDON\]/,
    );
    const notAString = await rawCall(endpoint, 'SignalWorkflowExecution', {
      domain,
      workflowId,
      signalName: 's',
      input: { nested: true },
    });
    expectWireError(notAString, wireType.serialization, /'input'/);
    // Half of a surrogate pair has no UTF-8 form: stored, it would become U+FFFD.
    const halfPair = await rawRequest(endpoint, {
      target: 'SimpleWorkflowService.SignalWorkflowExecution',
      body: `{"domain":${JSON.stringify(domain)},"workflowId":${JSON.stringify(workflowId)},"signalName":"s\\ud800"}`,
    });
    expectWireError(halfPair, wireType.serialization, /'signalName' .* surrogate pair/);

    expect(await driver.history(execution)).toStrictEqual(before);
    expect((await driver.describe(execution)).executionInfo?.executionStatus).toBe('OPEN');
    await swf.send(new RecordActivityTaskHeartbeatCommand({ taskToken: activity.taskToken }));
    await swf.send(new RespondActivityTaskCompletedCommand({ taskToken: activity.taskToken }));
    await driver.respond(decision.taskToken, []);
    expect(eventTypes(await driver.history(execution)).slice(before.length)).toStrictEqual([
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
      const { execution, decision } = await liveRun(driver, wf, act);
      const before = await driver.history(execution);

      await expectFault(
        driver.respond(decision.taskToken, [decide.marker('fine'), ...decisions]),
        'ValidationException',
        message,
      );

      expect(await driver.history(execution)).toStrictEqual(before);
      await driver.respond(decision.taskToken, [decide.marker('fine')]);
      expect(
        eventTypes(await driver.history(execution)).slice(before.length, before.length + 2),
      ).toStrictEqual(['DecisionTaskCompleted', 'MarkerRecorded']);
    },
  );

  it('a refused StartWorkflowExecution leaves the open run of that workflowId alone', async () => {
    const { execution } = await liveRun(driver, wf, act);
    const before = await driver.history(execution);

    await expectFault(
      swf.send(
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
      swf.send(
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

    expect(await driver.history(execution)).toStrictEqual(before);
  });
});

describe('an unknown domain or execution', () => {
  it('is UnknownResourceFault with the documented message for every execution call', async () => {
    const missing = 'no-such-domain';
    const taskList = { name: 'anything' };
    const execution = { workflowId: 'w', runId: 'r' };
    const unknownDomain: (() => Promise<unknown>)[] = [
      () => swf.send(new CountPendingActivityTasksCommand({ domain: missing, taskList })),
      () => swf.send(new CountPendingDecisionTasksCommand({ domain: missing, taskList })),
      () => swf.send(new PollForActivityTaskCommand({ domain: missing, taskList })),
      () => swf.send(new PollForDecisionTaskCommand({ domain: missing, taskList })),
      () => swf.send(new DescribeWorkflowExecutionCommand({ domain: missing, execution })),
      () => swf.send(new GetWorkflowExecutionHistoryCommand({ domain: missing, execution })),
      () =>
        swf.send(new RequestCancelWorkflowExecutionCommand({ domain: missing, workflowId: 'w' })),
      () => swf.send(new TerminateWorkflowExecutionCommand({ domain: missing, workflowId: 'w' })),
      () =>
        swf.send(
          new StartWorkflowExecutionCommand({ domain: missing, workflowId: 'w', workflowType: wf }),
        ),
    ];
    for (const call of unknownDomain) {
      await expectFault(call(), 'UnknownResourceFault', `Unknown domain: ${missing}`);
    }

    const { execution: real } = await driver.start(wf);
    const unknownRun = { workflowId: real.workflowId, runId: 'r'.repeat(10) };
    const message = `Unknown execution: WorkflowExecution=[workflowId=${real.workflowId}, runId=${unknownRun.runId}]`;
    await expectFault(
      swf.send(new DescribeWorkflowExecutionCommand({ domain, execution: unknownRun })),
      'UnknownResourceFault',
      message,
    );
    await expectFault(
      swf.send(new GetWorkflowExecutionHistoryCommand({ domain, execution: unknownRun })),
      'UnknownResourceFault',
      message,
    );
    await expectFault(
      swf.send(
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
