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
  TagResourceCommand,
  TerminateWorkflowExecutionCommand,
  UndeprecateActivityTypeCommand,
  UndeprecateDomainCommand,
  UndeprecateWorkflowTypeCommand,
  UntagResourceCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { unique } from '../support/contract.js';
import { expectFault, SwfDriver as SwfDriverFor, uid } from '../support/decider.js';
import { registerWorkflowType, servedForFile } from '../support/local.js';
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
  serveShapes,
  twoPages,
  wf,
} from '../support/output-shapes-workload.js';
import { operationOutputs } from '../support/swf-output-model.js';
import { awaitHistory, pendingDecisions } from '../support/waiting.js';

const server = servedForFile(serveShapes);

describe('answers conform to the output shapes', () => {
  it('the rarer members: task-list overrides, heartbeat details, child policies, long texts', async () => {
    // A decision task moved to a list nobody polls times out SCHEDULE_TO_START.
    const moved = await server.driver.start(wf, { lambdaRole });
    const first = await server.driver.pollDecision(moved.taskList, {
      startAtPreviousStartedEvent: true,
    });
    await server.driver.respond(
      first.taskToken,
      [lambda('huge', 'huge'), lambda('long', 'long-failure')],
      {
        taskList: { name: uid('nobody') },
        taskListScheduleToStartTimeout: '1',
      },
    );
    // The last heartbeat's details go into the activity's HEARTBEAT timeout.
    const worked = await server.driver.start(wf);
    const beats = uid('beats');
    await server.driver.decide(worked.taskList, () => [
      activity('beats', beats, { heartbeatTimeout: '1' }),
    ]);
    const beating = await server.driver.pollActivity(beats);
    await server.swf.send(
      new RecordActivityTaskHeartbeatCommand({
        taskToken: beating.taskToken,
        details: 'd'.repeat(2048),
      }),
    );
    await awaitHistory(
      server.driver,
      moved.execution,
      has('DecisionTaskTimedOut', 'LambdaFunctionCompleted', 'LambdaFunctionFailed'),
      5_000,
    );
    await awaitHistory(server.driver, worked.execution, has('ActivityTaskTimedOut'), 5_000);
    // A parent's child policy applied to its open child; a child whose workflowId is running.
    for (const childPolicy of ['REQUEST_CANCEL', 'TERMINATE'] as const) {
      const parent = await server.driver.start(wf);
      const kid = uid('kid');
      await server.driver.decide(parent.taskList, () => [
        child(kid, uid('kid')),
        child(parent.execution.workflowId, uid('twin'), { control: 'twin' }),
      ]);
      const events = await awaitHistory(
        server.driver,
        parent.execution,
        has('ChildWorkflowExecutionStarted', 'StartChildWorkflowExecutionFailed'),
      );
      const kidRun = {
        workflowId: kid,
        runId:
          events.find((e) => e.eventType === 'ChildWorkflowExecutionStarted')
            ?.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.runId ?? '',
      };
      await server.service.streamCaughtUp();
      await server.swf.send(
        new ListOpenWorkflowExecutionsCommand({
          domain,
          startTimeFilter: { oldestDate: new Date(0) },
          executionFilter: { workflowId: kid },
        }),
      );
      await server.driver.describe(kidRun);
      await server.swf.send(
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
      await awaitHistory(server.driver, kidRun, has(closing));
      await server.driver.describe(kidRun);
    }
    for (const execution of [moved.execution, worked.execution])
      await server.swf.send(new TerminateWorkflowExecutionCommand({ domain, ...execution }));
    server.shapes.expectConforming();
  });

  it('page tokens of listings whose names are the longest the model allows', async () => {
    // A name of 256 characters (a version of 64), each three bytes in UTF-8: the longest tokens.
    const long = (n: number, tail: string) => `${'語'.repeat(n - tail.length)}${tail}`;
    const name = long(256, uid('').slice(1, 9));
    await server.swf.send(
      new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1' }),
    );
    await server.swf.send(
      new RegisterDomainCommand({
        name: `${name.slice(0, 255)}z`,
        workflowExecutionRetentionPeriodInDays: '1',
      }),
    );
    const types = ['1', '2'].map((v) => ({ name: long(256, v), version: long(64, v) }));
    for (const type of types) {
      await server.swf.send(
        new RegisterWorkflowTypeCommand({
          domain: name,
          ...type,
          defaultTaskList: { name: long(256, 'tl') },
          defaultExecutionStartToCloseTimeout: '60',
          defaultTaskStartToCloseTimeout: '10',
          defaultChildPolicy: 'TERMINATE',
        }),
      );
      await server.swf.send(
        new RegisterActivityTypeCommand({ domain: name, ...type, defaultTaskList: { name: 'tl' } }),
      );
    }
    const longDriver = new SwfDriverFor(server.swf, name);
    const workflowId = long(256, 'w');
    for (const type of types) {
      const run = await longDriver.start(type, { workflowId, tagList: [long(256, 't')] });
      await server.swf.send(new TerminateWorkflowExecutionCommand({ domain: name, workflowId }));
      await longDriver.start(type, {
        workflowId: long(256, type.version),
        tagList: [long(256, 't')],
      });
      expect(run.execution.runId).toBeDefined();
    }
    await server.service.streamCaughtUp();
    await twoPages((page) =>
      server.swf.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED', ...page })),
    );
    for (const registrationStatus of ['REGISTERED'] as const) {
      await twoPages((page) =>
        server.swf.send(
          new ListWorkflowTypesCommand({ domain: name, registrationStatus, ...page }),
        ),
      );
      await twoPages((page) =>
        server.swf.send(
          new ListActivityTypesCommand({ domain: name, registrationStatus, ...page }),
        ),
      );
    }
    const startTimeFilter = { oldestDate: new Date(0) };
    for (const filter of [{}, { tagFilter: { tag: long(256, 't') } }]) {
      await twoPages((page) =>
        server.swf.send(
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
      server.swf.send(
        new ListClosedWorkflowExecutionsCommand({
          domain: name,
          startTimeFilter,
          executionFilter: { workflowId },
          ...page,
        }),
      ),
    );
    server.shapes.expectConforming();
  });

  it('visibility: lists, filters, counts, pages, histories, empty polls', async () => {
    const since = new Date(Date.now() - 3_600_000);
    const open = await server.driver.start(wf, { tagList: ['vis'] });
    await server.driver.start(wf); // two open runs: a page of one has a next page
    await server.service.streamCaughtUp(); // the visibility rows are written
    const startTimeFilter = { oldestDate: since };
    await twoPages((page) =>
      server.swf.send(new ListOpenWorkflowExecutionsCommand({ domain, startTimeFilter, ...page })),
    );
    for (const filter of [
      { tagFilter: { tag: 'vis' } },
      { typeFilter: wf },
      { executionFilter: { workflowId: open.execution.workflowId } },
    ])
      await server.swf.send(
        new ListOpenWorkflowExecutionsCommand({ domain, startTimeFilter, ...filter }),
      );
    await twoPages((page) =>
      server.swf.send(
        new ListClosedWorkflowExecutionsCommand({ domain, startTimeFilter, ...page }),
      ),
    );
    for (const filter of [
      { closeTimeFilter: startTimeFilter },
      { startTimeFilter, closeStatusFilter: { status: 'CONTINUED_AS_NEW' as const } },
      { startTimeFilter, typeFilter: wf, reverseOrder: true },
    ])
      await server.swf.send(new ListClosedWorkflowExecutionsCommand({ domain, ...filter }));
    await server.swf.send(new CountOpenWorkflowExecutionsCommand({ domain, startTimeFilter }));
    await server.swf.send(
      new CountClosedWorkflowExecutionsCommand({
        domain,
        startTimeFilter,
        closeStatusFilter: { status: 'TERMINATED' },
      }),
    );
    await twoPages((page) =>
      server.swf.send(
        new GetWorkflowExecutionHistoryCommand({
          domain,
          execution: open.execution,
          reverseOrder: true,
          ...page,
        }),
      ),
    );
    await server.driver.describe(open.execution);
    const emptyList = { name: uid('empty') };
    const before = server.shapes.emptyPolls;
    await server.swf.send(new PollForDecisionTaskCommand({ domain, taskList: emptyList }));
    await server.swf.send(new PollForActivityTaskCommand({ domain, taskList: emptyList }));
    await pendingDecisions(server.driver, emptyList.name);
    server.shapes.expectConforming();
    expect(server.shapes.emptyPolls - before).toBe(2);
  });

  it('errors: each fault an action can answer, and a validation error from every action', async () => {
    const name = unique('shapes-errors');
    const nowhere = unique('shapes-nowhere');
    await server.swf.send(
      new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1' }),
    );
    const errors = new SwfDriverFor(server.swf, name);
    const bare = { name: 'bare', version: '1' }; // no defaults: a start must give them all
    await server.swf.send(new RegisterWorkflowTypeCommand({ domain: name, ...bare }));
    await errors.registerTypes(wf, act);
    const { domainInfo } = await server.swf.send(new DescribeDomainCommand({ name }));
    const arn = domainInfo?.arn ?? '';
    const taskList = { name: 'tl' };
    const startTimeFilter = { oldestDate: new Date(0) };
    const registrationStatus = 'REGISTERED';
    const nobody = { workflowId: 'nobody', runId: 'nobody' };
    const start = (domain: string, workflowType: { name: string; version: string }) =>
      server.swf.send(
        new StartWorkflowExecutionCommand({ domain, workflowId: uid('w'), workflowType }),
      );
    /** Each call must fail with `code`. */
    const allFail = async (code: string, calls: (() => Promise<unknown>)[]) => {
      for (const call of calls) await expectFault(call(), code);
    };
    /** The calls on a type: unknown ones answer UnknownResourceFault. */
    const typeCalls = (domain: string, workflowType: typeof wf, activityType: typeof act) => [
      () => server.swf.send(new DescribeWorkflowTypeCommand({ domain, workflowType })),
      () => server.swf.send(new DescribeActivityTypeCommand({ domain, activityType })),
      () => server.swf.send(new DeprecateWorkflowTypeCommand({ domain, workflowType })),
      () => server.swf.send(new DeprecateActivityTypeCommand({ domain, activityType })),
      () => server.swf.send(new UndeprecateWorkflowTypeCommand({ domain, workflowType })),
      () => server.swf.send(new UndeprecateActivityTypeCommand({ domain, activityType })),
      () => server.swf.send(new DeleteWorkflowTypeCommand({ domain, workflowType })),
      () => server.swf.send(new DeleteActivityTypeCommand({ domain, activityType })),
      () => start(domain, workflowType),
    ];
    /** The calls on an execution: unknown ones answer UnknownResourceFault. */
    const executionCalls = (domain: string) => [
      () =>
        server.swf.send(new SignalWorkflowExecutionCommand({ domain, ...nobody, signalName: 's' })),
      () => server.swf.send(new RequestCancelWorkflowExecutionCommand({ domain, ...nobody })),
      () => server.swf.send(new TerminateWorkflowExecutionCommand({ domain, ...nobody })),
      () => server.swf.send(new DescribeWorkflowExecutionCommand({ domain, execution: nobody })),
      () => server.swf.send(new GetWorkflowExecutionHistoryCommand({ domain, execution: nobody })),
    ];
    const unknownArn = arn.replace(name, nowhere);
    const d = { domain: nowhere };
    // Unknown domain, to every action that names one; an unknown type and execution in a known one.
    await allFail('UnknownResourceFault', [
      () => server.swf.send(new DescribeDomainCommand({ name: nowhere })),
      () => server.swf.send(new DeprecateDomainCommand({ name: nowhere })),
      () => server.swf.send(new UndeprecateDomainCommand({ name: nowhere })),
      () => server.swf.send(new RegisterWorkflowTypeCommand({ ...d, ...bare })),
      () => server.swf.send(new RegisterActivityTypeCommand({ ...d, ...act })),
      () => server.swf.send(new ListWorkflowTypesCommand({ ...d, registrationStatus })),
      () => server.swf.send(new ListActivityTypesCommand({ ...d, registrationStatus })),
      ...typeCalls(nowhere, wf, act),
      ...executionCalls(nowhere),
      () => server.swf.send(new ListOpenWorkflowExecutionsCommand({ ...d, startTimeFilter })),
      () => server.swf.send(new ListClosedWorkflowExecutionsCommand({ ...d, startTimeFilter })),
      () => server.swf.send(new CountOpenWorkflowExecutionsCommand({ ...d, startTimeFilter })),
      () => server.swf.send(new CountClosedWorkflowExecutionsCommand({ ...d, startTimeFilter })),
      () => server.swf.send(new CountPendingActivityTasksCommand({ ...d, taskList })),
      () => server.swf.send(new CountPendingDecisionTasksCommand({ ...d, taskList })),
      () => server.swf.send(new PollForActivityTaskCommand({ ...d, taskList })),
      () => server.swf.send(new PollForDecisionTaskCommand({ ...d, taskList })),
      () =>
        server.swf.send(new TagResourceCommand({ resourceArn: unknownArn, tags: [{ key: 'k' }] })),
      () => server.swf.send(new UntagResourceCommand({ resourceArn: unknownArn, tagKeys: ['k'] })),
      () => server.swf.send(new ListTagsForResourceCommand({ resourceArn: unknownArn })),
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
      () => server.swf.send(new RecordActivityTaskHeartbeatCommand({ taskToken })),
      () => server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken })),
      () => server.swf.send(new RespondActivityTaskFailedCommand({ taskToken })),
      () => server.swf.send(new RespondActivityTaskCanceledCommand({ taskToken })),
    ];
    await allFail('UnknownResourceFault', [
      ...activityCalls(`${task.taskToken}x`),
      ...activityCalls(decision.taskToken),
      () => errors.respond(decision.taskToken, []),
      () => errors.respond(task.taskToken, []),
    ]);
    await server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken }));
    await allFail('UnknownResourceFault', activityCalls(task.taskToken));

    // Already there; not deprecated; already deprecated; no default to fall back on.
    const t = { domain: name };
    const retention = { workflowExecutionRetentionPeriodInDays: '1' };
    await allFail('DomainAlreadyExistsFault', [
      () => server.swf.send(new RegisterDomainCommand({ name, ...retention })),
      () => server.swf.send(new UndeprecateDomainCommand({ name })),
    ]);
    await allFail('TypeAlreadyExistsFault', [
      () => server.swf.send(new RegisterWorkflowTypeCommand({ ...t, ...wf })),
      () => server.swf.send(new RegisterActivityTypeCommand({ ...t, ...act })),
      () => server.swf.send(new UndeprecateWorkflowTypeCommand({ ...t, workflowType: wf })),
      () => server.swf.send(new UndeprecateActivityTypeCommand({ ...t, activityType: act })),
    ]);
    await allFail('TypeNotDeprecatedFault', [
      () => server.swf.send(new DeleteWorkflowTypeCommand({ ...t, workflowType: wf })),
      () => server.swf.send(new DeleteActivityTypeCommand({ ...t, activityType: act })),
    ]);
    await expectFault(
      errors.start(wf, { workflowId: run.execution.workflowId }),
      'WorkflowExecutionAlreadyStartedFault',
    );
    await expectFault(start(name, bare), 'DefaultUndefinedFault');
    const old = { name: 'old', version: '1' };
    await registerWorkflowType(server.swf, name, old);
    await server.swf.send(new DeprecateWorkflowTypeCommand({ ...t, workflowType: old }));
    await server.swf.send(new DeprecateActivityTypeCommand({ ...t, activityType: act }));
    await allFail('TypeDeprecatedFault', [
      () => server.swf.send(new DeprecateWorkflowTypeCommand({ ...t, workflowType: old })),
      () => server.swf.send(new DeprecateActivityTypeCommand({ ...t, activityType: act })),
      () => start(name, old),
    ]);

    // Tags past 50, on registration and on tagging.
    const tags = Array.from({ length: 51 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    await allFail('TooManyTagsFault', [
      () =>
        server.swf.send(
          new RegisterDomainCommand({ name: unique('shapes-tags'), ...retention, tags }),
        ),
      () => server.swf.send(new TagResourceCommand({ resourceArn: arn, tags })),
    ]);

    // A deprecated domain: deprecated again; types registered in it or started (named exceptions).
    await server.swf.send(new DeprecateDomainCommand({ name }));
    await allFail('DomainDeprecatedFault', [
      () => server.swf.send(new DeprecateDomainCommand({ name })),
      () => server.swf.send(new RegisterWorkflowTypeCommand({ ...t, name: 'late', version: '1' })),
      () => server.swf.send(new RegisterActivityTypeCommand({ ...t, name: 'late', version: '1' })),
    ]);
    await expectFault(start(name, wf), 'TypeDeprecatedFault'); // deprecated with its domain
    await server.swf.send(new UndeprecateWorkflowTypeCommand({ ...t, workflowType: wf }));
    await expectFault(start(name, wf), 'DomainDeprecatedFault');

    // The domains' quota (100, deprecated ones included): registered up to it, then refused.
    let refusal: unknown;
    for (let i = 0; i < 101 && refusal === undefined; i++)
      await server.swf
        .send(new RegisterDomainCommand({ name: unique('shapes-quota'), ...retention }))
        .catch((error: unknown) => {
          refusal = error;
        });
    await expectFault(Promise.reject(refusal ?? new Error('no refusal')), 'LimitExceededFault');

    // A request the model refuses (a required member missing), to every action; a bad page token.
    for (const action of Object.keys(operationOutputs)) {
      const Command = Reflect.get(swfCommands, `${action}Command`) as new (input: object) => never;
      await expectFault(server.swf.send(new Command({})), 'ValidationException');
    }
    await expectFault(
      server.swf.send(new ListDomainsCommand({ registrationStatus, nextPageToken: 'x' })),
      'ValidationException',
    );
    const faults = server.shapes.answers.filter((answer) => answer.status !== 200);
    expect(faults.length).toBeGreaterThan(100);
    expect(new Set(faults.map((answer) => answer.action)).size).toBe(39);
    server.shapes.expectConforming();
  });

  it('meets each known difference error answers show', () => {
    // None is left standing once its difference is gone; output-shapes.test.ts meets the others.
    expect([...server.shapes.excusedDifferences.keys()]).toEqual(knownDifferences(true));
  });
});
