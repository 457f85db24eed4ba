/**
 * The answer-side oracle (test/contract/output-shapes.test.ts) for the rarer members, listings and
 * errors: task-list overrides, heartbeat details, child policies and long texts, the page
 * tokens of listings whose names are the longest the model allows, visibility's lists, counts, pages
 * and empty polls, and every fault each action can answer with a validation error from every action,
 * read raw and held to the service model's output and error shapes (test/support/output-shapes.ts).
 */
import * as swfCommands from '@aws-sdk/client-swf';
import {
  CountClosedWorkflowExecutionsCommand,
  CountOpenWorkflowExecutionsCommand,
  CountPendingActivityTasksCommand,
  CountPendingDecisionTasksCommand,
  DeleteActivityTypeCommand,
  DeleteWorkflowTypeCommand,
  DeprecateActivityTypeCommand,
  DeprecateDomainCommand,
  DeprecateWorkflowTypeCommand,
  DescribeActivityTypeCommand,
  DescribeDomainCommand,
  DescribeWorkflowExecutionCommand,
  DescribeWorkflowTypeCommand,
  GetWorkflowExecutionHistoryCommand,
  ListActivityTypesCommand,
  ListClosedWorkflowExecutionsCommand,
  ListDomainsCommand,
  ListOpenWorkflowExecutionsCommand,
  ListTagsForResourceCommand,
  ListWorkflowTypesCommand,
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
  SignalWorkflowExecutionCommand,
  StartWorkflowExecutionCommand,
  type SWFClient,
  TagResourceCommand,
  TerminateWorkflowExecutionCommand,
  UndeprecateActivityTypeCommand,
  UndeprecateDomainCommand,
  UndeprecateWorkflowTypeCommand,
  UntagResourceCommand,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/local-service.js';
import { unique } from '../support/contract.js';
import { expectFault, type SwfDriver, SwfDriver as SwfDriverFor, uid } from '../support/decider.js';
import { registerWorkflowType } from '../support/local.js';
import type { RawAnswer } from '../support/output-shapes.js';
import {
  act,
  activity,
  child,
  domain,
  ghost,
  has,
  knownDifferences,
  lambda,
  lambdaRole,
  type ShapesCheck,
  serveShapes,
  twoPages,
  wf,
} from '../support/output-shapes-workload.js';
import { operationOutputs } from '../support/swf-output-model.js';
import { awaitHistory, pendingDecisions } from '../support/waiting.js';

let swf: SWFClient;
let driver: SwfDriver;
let service: LocalService;
let close: () => Promise<void>;
let answers: RawAnswer[];
let shapes: ShapesCheck;

beforeAll(async () => {
  ({ swf, driver, service, close, shapes } = await serveShapes());
  ({ answers } = shapes);
});
afterAll(() => close());

describe('answers conform to the output shapes', () => {
  it('the rarer members: task-list overrides, heartbeat details, child policies, long texts', async () => {
    // A decision task moved to a list nobody polls times out SCHEDULE_TO_START.
    const moved = await driver.start(wf, { lambdaRole });
    const first = await driver.pollDecision(moved.taskList, { startAtPreviousStartedEvent: true });
    await driver.respond(
      first.taskToken,
      [lambda('huge', 'huge'), lambda('long', 'long-failure')],
      {
        taskList: { name: uid('nobody') },
        taskListScheduleToStartTimeout: '1',
      },
    );
    // The last heartbeat's details go into the activity's HEARTBEAT timeout.
    const worked = await driver.start(wf);
    const beats = uid('beats');
    await driver.decide(worked.taskList, () => [
      activity('beats', beats, { heartbeatTimeout: '1' }),
    ]);
    const beating = await driver.pollActivity(beats);
    await swf.send(
      new RecordActivityTaskHeartbeatCommand({
        taskToken: beating.taskToken,
        details: 'd'.repeat(2048),
      }),
    );
    await awaitHistory(
      driver,
      moved.execution,
      has('DecisionTaskTimedOut', 'LambdaFunctionCompleted', 'LambdaFunctionFailed'),
      5_000,
    );
    await awaitHistory(driver, worked.execution, has('ActivityTaskTimedOut'), 5_000);
    // A parent's child policy applied to its open child; a child whose workflowId is running.
    for (const childPolicy of ['REQUEST_CANCEL', 'TERMINATE'] as const) {
      const parent = await driver.start(wf);
      const kid = uid('kid');
      await driver.decide(parent.taskList, () => [
        child(kid, uid('kid')),
        child(parent.execution.workflowId, uid('twin'), { control: 'twin' }),
      ]);
      const events = await awaitHistory(
        driver,
        parent.execution,
        has('ChildWorkflowExecutionStarted', 'StartChildWorkflowExecutionFailed'),
      );
      const kidRun = {
        workflowId: kid,
        runId:
          events.find((e) => e.eventType === 'ChildWorkflowExecutionStarted')
            ?.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.runId ?? '',
      };
      await service.streamCaughtUp();
      await swf.send(
        new ListOpenWorkflowExecutionsCommand({
          domain,
          startTimeFilter: { oldestDate: new Date(0) },
          executionFilter: { workflowId: kid },
        }),
      );
      await driver.describe(kidRun);
      await swf.send(
        new TerminateWorkflowExecutionCommand({
          domain,
          workflowId: parent.execution.workflowId,
          reason: 'r'.repeat(256),
          details: 'd'.repeat(32_768),
          childPolicy,
        }),
      );
      const closing =
        childPolicy === 'TERMINATE'
          ? 'WorkflowExecutionTerminated'
          : 'WorkflowExecutionCancelRequested';
      await awaitHistory(driver, kidRun, has(closing));
      await driver.describe(kidRun);
    }
    for (const execution of [moved.execution, worked.execution])
      await swf.send(new TerminateWorkflowExecutionCommand({ domain, ...execution }));
    shapes.expectConforming();
  });

  it('page tokens of listings whose names are the longest the model allows', async () => {
    // A name of 256 characters (a version of 64), each three bytes in UTF-8: the longest tokens.
    const long = (n: number, tail: string) => `${'語'.repeat(n - tail.length)}${tail}`;
    const name = long(256, uid('').slice(1, 9));
    await swf.send(
      new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1' }),
    );
    await swf.send(
      new RegisterDomainCommand({
        name: `${name.slice(0, 255)}z`,
        workflowExecutionRetentionPeriodInDays: '1',
      }),
    );
    const types = ['1', '2'].map((v) => ({ name: long(256, v), version: long(64, v) }));
    for (const type of types) {
      await swf.send(
        new RegisterWorkflowTypeCommand({
          domain: name,
          ...type,
          defaultTaskList: { name: long(256, 'tl') },
          defaultExecutionStartToCloseTimeout: '60',
          defaultTaskStartToCloseTimeout: '10',
          defaultChildPolicy: 'TERMINATE',
        }),
      );
      await swf.send(
        new RegisterActivityTypeCommand({ domain: name, ...type, defaultTaskList: { name: 'tl' } }),
      );
    }
    const longDriver = new SwfDriverFor(swf, name);
    const workflowId = long(256, 'w');
    for (const type of types) {
      const run = await longDriver.start(type, { workflowId, tagList: [long(256, 't')] });
      await swf.send(new TerminateWorkflowExecutionCommand({ domain: name, workflowId }));
      await longDriver.start(type, {
        workflowId: long(256, type.version),
        tagList: [long(256, 't')],
      });
      expect(run.execution.runId).toBeDefined();
    }
    await service.streamCaughtUp();
    await twoPages((page) =>
      swf.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED', ...page })),
    );
    for (const registrationStatus of ['REGISTERED'] as const) {
      await twoPages((page) =>
        swf.send(new ListWorkflowTypesCommand({ domain: name, registrationStatus, ...page })),
      );
      await twoPages((page) =>
        swf.send(new ListActivityTypesCommand({ domain: name, registrationStatus, ...page })),
      );
    }
    const startTimeFilter = { oldestDate: new Date(0) };
    for (const filter of [{}, { tagFilter: { tag: long(256, 't') } }]) {
      await twoPages((page) =>
        swf.send(
          new ListOpenWorkflowExecutionsCommand({
            domain: name,
            startTimeFilter,
            ...filter,
            ...page,
          }),
        ),
      );
    }
    await twoPages((page) =>
      swf.send(
        new ListClosedWorkflowExecutionsCommand({
          domain: name,
          startTimeFilter,
          executionFilter: { workflowId },
          ...page,
        }),
      ),
    );
    shapes.expectConforming();
  });

  it('visibility: lists, filters, counts, pages, histories, empty polls', async () => {
    const since = new Date(Date.now() - 3_600_000);
    const open = await driver.start(wf, { tagList: ['vis'] });
    await driver.start(wf); // two open runs: a page of one has a next page
    await service.streamCaughtUp(); // the visibility rows are written
    const startTimeFilter = { oldestDate: since };
    await twoPages((page) =>
      swf.send(new ListOpenWorkflowExecutionsCommand({ domain, startTimeFilter, ...page })),
    );
    for (const filter of [
      { tagFilter: { tag: 'vis' } },
      { typeFilter: wf },
      { executionFilter: { workflowId: open.execution.workflowId } },
    ])
      await swf.send(new ListOpenWorkflowExecutionsCommand({ domain, startTimeFilter, ...filter }));
    await twoPages((page) =>
      swf.send(new ListClosedWorkflowExecutionsCommand({ domain, startTimeFilter, ...page })),
    );
    for (const filter of [
      { closeTimeFilter: startTimeFilter },
      { startTimeFilter, closeStatusFilter: { status: 'CONTINUED_AS_NEW' as const } },
      { startTimeFilter, typeFilter: wf, reverseOrder: true },
    ])
      await swf.send(new ListClosedWorkflowExecutionsCommand({ domain, ...filter }));
    await swf.send(new CountOpenWorkflowExecutionsCommand({ domain, startTimeFilter }));
    await swf.send(
      new CountClosedWorkflowExecutionsCommand({
        domain,
        startTimeFilter,
        closeStatusFilter: { status: 'TERMINATED' },
      }),
    );
    await twoPages((page) =>
      swf.send(
        new GetWorkflowExecutionHistoryCommand({
          domain,
          execution: open.execution,
          reverseOrder: true,
          ...page,
        }),
      ),
    );
    await driver.describe(open.execution);
    const emptyList = { name: uid('empty') };
    const before = shapes.emptyPolls;
    await swf.send(new PollForDecisionTaskCommand({ domain, taskList: emptyList }));
    await swf.send(new PollForActivityTaskCommand({ domain, taskList: emptyList }));
    await pendingDecisions(driver, emptyList.name);
    shapes.expectConforming();
    expect(shapes.emptyPolls - before).toBe(2);
  });

  it('errors: each fault an action can answer, and a validation error from every action', async () => {
    const name = unique('shapes-errors');
    const nowhere = unique('shapes-nowhere');
    await swf.send(
      new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1' }),
    );
    const errors = new SwfDriverFor(swf, name);
    const bare = { name: 'bare', version: '1' }; // no defaults: a start must give them all
    await swf.send(new RegisterWorkflowTypeCommand({ domain: name, ...bare }));
    await errors.registerTypes(wf, act);
    const { domainInfo } = await swf.send(new DescribeDomainCommand({ name }));
    const arn = domainInfo?.arn ?? '';
    const taskList = { name: 'tl' };
    const startTimeFilter = { oldestDate: new Date(0) };
    const registrationStatus = 'REGISTERED';
    const nobody = { workflowId: 'nobody', runId: 'nobody' };
    const start = (domain: string, workflowType: { name: string; version: string }) =>
      swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: uid('w'), workflowType }));
    /** Each call must fail with `code`. */
    const allFail = async (code: string, calls: (() => Promise<unknown>)[]) => {
      for (const call of calls) await expectFault(call(), code);
    };
    /** The calls on a type: unknown ones answer UnknownResourceFault. */
    const typeCalls = (domain: string, workflowType: typeof wf, activityType: typeof act) => [
      () => swf.send(new DescribeWorkflowTypeCommand({ domain, workflowType })),
      () => swf.send(new DescribeActivityTypeCommand({ domain, activityType })),
      () => swf.send(new DeprecateWorkflowTypeCommand({ domain, workflowType })),
      () => swf.send(new DeprecateActivityTypeCommand({ domain, activityType })),
      () => swf.send(new UndeprecateWorkflowTypeCommand({ domain, workflowType })),
      () => swf.send(new UndeprecateActivityTypeCommand({ domain, activityType })),
      () => swf.send(new DeleteWorkflowTypeCommand({ domain, workflowType })),
      () => swf.send(new DeleteActivityTypeCommand({ domain, activityType })),
      () => start(domain, workflowType),
    ];
    /** The calls on an execution: unknown ones answer UnknownResourceFault. */
    const executionCalls = (domain: string) => [
      () => swf.send(new SignalWorkflowExecutionCommand({ domain, ...nobody, signalName: 's' })),
      () => swf.send(new RequestCancelWorkflowExecutionCommand({ domain, ...nobody })),
      () => swf.send(new TerminateWorkflowExecutionCommand({ domain, ...nobody })),
      () => swf.send(new DescribeWorkflowExecutionCommand({ domain, execution: nobody })),
      () => swf.send(new GetWorkflowExecutionHistoryCommand({ domain, execution: nobody })),
    ];
    const unknownArn = arn.replace(name, nowhere);
    const d = { domain: nowhere };
    // Unknown domain, to every action that names one; an unknown type and execution in a known one.
    await allFail('UnknownResourceFault', [
      () => swf.send(new DescribeDomainCommand({ name: nowhere })),
      () => swf.send(new DeprecateDomainCommand({ name: nowhere })),
      () => swf.send(new UndeprecateDomainCommand({ name: nowhere })),
      () => swf.send(new RegisterWorkflowTypeCommand({ ...d, ...bare })),
      () => swf.send(new RegisterActivityTypeCommand({ ...d, ...act })),
      () => swf.send(new ListWorkflowTypesCommand({ ...d, registrationStatus })),
      () => swf.send(new ListActivityTypesCommand({ ...d, registrationStatus })),
      ...typeCalls(nowhere, wf, act),
      ...executionCalls(nowhere),
      () => swf.send(new ListOpenWorkflowExecutionsCommand({ ...d, startTimeFilter })),
      () => swf.send(new ListClosedWorkflowExecutionsCommand({ ...d, startTimeFilter })),
      () => swf.send(new CountOpenWorkflowExecutionsCommand({ ...d, startTimeFilter })),
      () => swf.send(new CountClosedWorkflowExecutionsCommand({ ...d, startTimeFilter })),
      () => swf.send(new CountPendingActivityTasksCommand({ ...d, taskList })),
      () => swf.send(new CountPendingDecisionTasksCommand({ ...d, taskList })),
      () => swf.send(new PollForActivityTaskCommand({ ...d, taskList })),
      () => swf.send(new PollForDecisionTaskCommand({ ...d, taskList })),
      () => swf.send(new TagResourceCommand({ resourceArn: unknownArn, tags: [{ key: 'k' }] })),
      () => swf.send(new UntagResourceCommand({ resourceArn: unknownArn, tagKeys: ['k'] })),
      () => swf.send(new ListTagsForResourceCommand({ resourceArn: unknownArn })),
      ...typeCalls(name, ghost, ghost),
      ...executionCalls(name),
    ]);

    // Task tokens: altered, of the other kind of task, and used.
    const run = await errors.start(wf);
    const decision = await errors.pollDecision(run.taskList);
    const work = uid('work');
    await errors.respond(decision.taskToken, [activity('a', work)]);
    const task = await errors.pollActivity(work);
    const activityCalls = (taskToken: string) => [
      () => swf.send(new RecordActivityTaskHeartbeatCommand({ taskToken })),
      () => swf.send(new RespondActivityTaskCompletedCommand({ taskToken })),
      () => swf.send(new RespondActivityTaskFailedCommand({ taskToken })),
      () => swf.send(new RespondActivityTaskCanceledCommand({ taskToken })),
    ];
    await allFail('UnknownResourceFault', [
      ...activityCalls(`${task.taskToken}x`),
      ...activityCalls(decision.taskToken),
      () => errors.respond(decision.taskToken, []),
      () => errors.respond(task.taskToken, []),
    ]);
    await swf.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken }));
    await allFail('UnknownResourceFault', activityCalls(task.taskToken));

    // Already there; not deprecated; already deprecated; no default to fall back on.
    const t = { domain: name };
    const retention = { workflowExecutionRetentionPeriodInDays: '1' };
    await allFail('DomainAlreadyExistsFault', [
      () => swf.send(new RegisterDomainCommand({ name, ...retention })),
      () => swf.send(new UndeprecateDomainCommand({ name })),
    ]);
    await allFail('TypeAlreadyExistsFault', [
      () => swf.send(new RegisterWorkflowTypeCommand({ ...t, ...wf })),
      () => swf.send(new RegisterActivityTypeCommand({ ...t, ...act })),
      () => swf.send(new UndeprecateWorkflowTypeCommand({ ...t, workflowType: wf })),
      () => swf.send(new UndeprecateActivityTypeCommand({ ...t, activityType: act })),
    ]);
    await allFail('TypeNotDeprecatedFault', [
      () => swf.send(new DeleteWorkflowTypeCommand({ ...t, workflowType: wf })),
      () => swf.send(new DeleteActivityTypeCommand({ ...t, activityType: act })),
    ]);
    await expectFault(
      errors.start(wf, { workflowId: run.execution.workflowId }),
      'WorkflowExecutionAlreadyStartedFault',
    );
    await expectFault(start(name, bare), 'DefaultUndefinedFault');
    const old = { name: 'old', version: '1' };
    await registerWorkflowType(swf, name, old);
    await swf.send(new DeprecateWorkflowTypeCommand({ ...t, workflowType: old }));
    await swf.send(new DeprecateActivityTypeCommand({ ...t, activityType: act }));
    await allFail('TypeDeprecatedFault', [
      () => swf.send(new DeprecateWorkflowTypeCommand({ ...t, workflowType: old })),
      () => swf.send(new DeprecateActivityTypeCommand({ ...t, activityType: act })),
      () => start(name, old),
    ]);

    // Tags past 50, on registration and on tagging.
    const tags = Array.from({ length: 51 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    await allFail('TooManyTagsFault', [
      () =>
        swf.send(new RegisterDomainCommand({ name: unique('shapes-tags'), ...retention, tags })),
      () => swf.send(new TagResourceCommand({ resourceArn: arn, tags })),
    ]);

    // A deprecated domain: deprecated again; types registered in it or started (named exceptions).
    await swf.send(new DeprecateDomainCommand({ name }));
    await allFail('DomainDeprecatedFault', [
      () => swf.send(new DeprecateDomainCommand({ name })),
      () => swf.send(new RegisterWorkflowTypeCommand({ ...t, name: 'late', version: '1' })),
      () => swf.send(new RegisterActivityTypeCommand({ ...t, name: 'late', version: '1' })),
    ]);
    await expectFault(start(name, wf), 'TypeDeprecatedFault'); // deprecated with its domain
    await swf.send(new UndeprecateWorkflowTypeCommand({ ...t, workflowType: wf }));
    await expectFault(start(name, wf), 'DomainDeprecatedFault');

    // The domains' quota (100, deprecated ones included): registered up to it, then refused.
    let refusal: unknown;
    for (let i = 0; i < 101 && refusal === undefined; i++)
      await swf
        .send(new RegisterDomainCommand({ name: unique('shapes-quota'), ...retention }))
        .catch((error: unknown) => {
          refusal = error;
        });
    await expectFault(Promise.reject(refusal ?? new Error('no refusal')), 'LimitExceededFault');

    // A request the model refuses (a required member missing), to every action; a bad page token.
    for (const action of Object.keys(operationOutputs)) {
      const Command = Reflect.get(swfCommands, `${action}Command`) as new (input: object) => never;
      await expectFault(swf.send(new Command({})), 'ValidationException');
    }
    await expectFault(
      swf.send(new ListDomainsCommand({ registrationStatus, nextPageToken: 'x' })),
      'ValidationException',
    );
    const faults = answers.filter((answer) => answer.status !== 200);
    expect(faults.length).toBeGreaterThan(100);
    expect(new Set(faults.map((answer) => answer.action)).size).toBe(39);
    shapes.expectConforming();
  });

  it('meets each known difference error answers show', () => {
    // None is left standing once its difference is gone; output-shapes.test.ts meets the others.
    expect([...shapes.excusedDifferences.keys()]).toEqual(knownDifferences(true));
  });
});
