/**
 * The answer-side oracle: every answer the local server gives a broad workload (registry, tags, every
 * decision and its failure, activities, timers, signals, markers, children, cancellations,
 * continue-as-new, terminations, timeouts, Lambda functions, visibility, paged and empty answers) is
 * read raw, before the SDK parses it, and held to the service model's output shape
 * (test/support/output-shapes.ts): required members present, JSON types, enums, lengths, ranges, and
 * no member the model does not have. The workload must show every event type the local server can
 * record. Its error answers (each fault each action can answer, and a validation error from every
 * action) are held to the action's modeled errors, or AWS's common ones, and to the error's shape.
 */

import * as swfCommands from '@aws-sdk/client-swf';
import {
  CountClosedWorkflowExecutionsCommand,
  CountOpenWorkflowExecutionsCommand,
  CountPendingActivityTasksCommand,
  CountPendingDecisionTasksCommand,
  type Decision,
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
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseAccessPolicies } from '../../lib/core/principals.js';
import { LOCAL_REGION, type LocalService } from '../../lib/local/local-service.js';
import { unique } from '../support/contract.js';
import {
  decide,
  expectFault,
  type SwfDriver,
  SwfDriver as SwfDriverFor,
  uid,
} from '../support/decider.js';
import { registerWorkflowType, serveDomain } from '../support/local.js';
import {
  answersProblems,
  isEmptyPoll,
  KNOWN_DIFFERENCES,
  type RawAnswer,
  recordAnswers,
  unexcused,
} from '../support/output-shapes.js';
import { operationOutputs, outputShapes } from '../support/swf-output-model.js';
import {
  awaitDecision,
  awaitHistory,
  pendingActivities,
  pendingDecisions,
} from '../support/waiting.js';

let swf: SWFClient;
let driver: SwfDriver;
let service: LocalService;
let close: () => Promise<void>;
let answers: RawAnswer[];
const domain = 'output-shapes';
const wf = { name: 'shapes-wf', version: '1' };
const act = { name: 'shapes-act', version: '1' };
const ghost = { name: 'shapes-ghost', version: '1' };
const lambdaRole = 'arn:aws:iam::000000000000:role/shapes';
const seenEventTypes = new Set<string>();

let emptyPolls = 0;

const excusedDifferences = new Map<string, number>();

/**
 * The workload's client may do everything; a decider signing as `no-markers` may do everything but
 * record markers, so that RecordMarkerFailed (whose only cause is such a refusal) is seen too.
 */
const everything = { Effect: 'Allow', Action: '*', Resource: '*' };
const access = parseAccessPolicies(
  {
    test: { Statement: everything },
    'no-markers': {
      Statement: [everything, { Effect: 'Deny', Action: 'swf:RecordMarker', Resource: '*' }],
    },
  },
  'output-shapes',
);

beforeAll(async () => {
  ({ swf, close, driver, service } = await serveDomain(domain, {
    polling: { maxWaitMs: 300 },
    access,
  }));
  answers = recordAnswers(swf);
  await driver.registerTypes(wf, act);
  service.lambda.register('upper', async (input) => input?.toUpperCase());
  service.lambda.register('boom', async () => {
    throw Object.assign(new Error('it went wrong'), { name: 'Boom' });
  });
  service.lambda.register('held', () => new Promise<string>(() => {}));
  service.lambda.register('huge', async () => 'x'.repeat(40_000));
  service.lambda.register('long-failure', async () => {
    throw Object.assign(new Error('m'.repeat(40_000)), { name: 'N'.repeat(300) });
  });
  // A function Lambda refuses to start (the role cannot be assumed): what the AWS invoker reports.
  const invoke = service.lambda.invoke.bind(service.lambda);
  vi.spyOn(service.lambda, 'invoke').mockImplementation(async (request) =>
    request.name === 'unstartable'
      ? { kind: 'start-failed', cause: 'ASSUME_ROLE_FAILED', message: 'cannot assume the role' }
      : invoke(request),
  );
});
afterAll(() => close());

/** The answers since the last check conform to their output shapes (empty polls excused). */
function expectConforming(): void {
  const batch = answers.splice(0);
  for (const answer of batch) noteEvents(answer);
  const checked = batch.filter((answer) => {
    const excused = isEmptyPoll(answer);
    if (excused) emptyPolls++;
    return !excused;
  });
  expect(unexcused(answersProblems(checked), excusedDifferences)).toEqual([]);
  expect(checked.filter((answer) => answer.status === 200).length).toBeGreaterThan(0);
}

function noteEvents(answer: RawAnswer): void {
  if (answer.status !== 200 || !answer.text.includes('"events"')) return;
  const body: unknown = JSON.parse(answer.text);
  const events: unknown = typeof body === 'object' && body !== null && Reflect.get(body, 'events');
  if (!Array.isArray(events)) return;
  for (const event of events) {
    const type: unknown = typeof event === 'object' && event !== null && event.eventType;
    if (typeof type === 'string') seenEventTypes.add(type);
  }
}

const lambda = (id: string, name: string, startToCloseTimeout?: string): Decision => ({
  decisionType: 'ScheduleLambdaFunction',
  scheduleLambdaFunctionDecisionAttributes: {
    id,
    name,
    input: 'in',
    ...(startToCloseTimeout === undefined ? {} : { startToCloseTimeout }),
  },
});
const activity = (activityId: string, taskList: string, extra: object = {}) =>
  decide.scheduleActivity({
    activityType: act,
    activityId,
    taskList: { name: taskList },
    ...extra,
  });
const child = (workflowId: string, taskList: string, extra: object = {}): Decision => ({
  decisionType: 'StartChildWorkflowExecution',
  startChildWorkflowExecutionDecisionAttributes: {
    workflowType: wf,
    workflowId,
    taskList: { name: taskList },
    input: 'child input',
    tagList: ['child'],
    ...extra,
  },
});
const signalExternal = (workflowId: string): Decision => ({
  decisionType: 'SignalExternalWorkflowExecution',
  signalExternalWorkflowExecutionDecisionAttributes: {
    workflowId,
    signalName: 'from-parent',
    input: 'sig',
    control: 'c',
  },
});
const cancelExternal = (workflowId: string): Decision => ({
  decisionType: 'RequestCancelExternalWorkflowExecution',
  requestCancelExternalWorkflowExecutionDecisionAttributes: { workflowId, control: 'c' },
});
/** A listing's first page of one item, then its next page by the token the first gave. */
async function twoPages(
  list: (page: { maximumPageSize?: number; nextPageToken?: string }) => Promise<{
    nextPageToken?: string | undefined;
  }>,
): Promise<void> {
  const { nextPageToken } = await list({ maximumPageSize: 1 });
  expect(nextPageToken).toBeDefined();
  await list({ ...(nextPageToken === undefined ? {} : { nextPageToken }) });
}

const has =
  (...types: string[]) =>
  (events: { eventType?: string | undefined }[]) =>
    types.every((type) => events.some((e) => e.eventType === type));

describe('answers conform to the output shapes', () => {
  it('registry: domains, types, tags, deprecations, pages', async () => {
    const name = unique('shapes-reg');
    await swf.send(
      new RegisterDomainCommand({
        name,
        description: 'a domain',
        workflowExecutionRetentionPeriodInDays: '3',
        tags: [{ key: 'team', value: 'shapes' }],
      }),
    );
    const { domainInfo } = await swf.send(new DescribeDomainCommand({ name }));
    const resourceArn = domainInfo?.arn ?? '';
    await swf.send(new TagResourceCommand({ resourceArn, tags: [{ key: 'k' }] }));
    await swf.send(new ListTagsForResourceCommand({ resourceArn }));
    await swf.send(new UntagResourceCommand({ resourceArn, tagKeys: ['k'] }));
    await twoPages((page) =>
      swf.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED', ...page })),
    );
    for (const version of ['1', '2']) {
      await swf.send(
        new RegisterWorkflowTypeCommand({
          domain: name,
          name: 'w',
          version,
          description: 'a workflow type',
          defaultTaskList: { name: 'tl' },
          defaultTaskPriority: '2',
          defaultExecutionStartToCloseTimeout: '60',
          defaultTaskStartToCloseTimeout: '10',
          defaultChildPolicy: 'ABANDON',
          defaultLambdaRole: lambdaRole,
        }),
      );
      await swf.send(
        new RegisterActivityTypeCommand({
          domain: name,
          name: 'a',
          version,
          description: 'an activity type',
          defaultTaskList: { name: 'tl' },
          defaultTaskPriority: '-3',
          defaultTaskScheduleToStartTimeout: '10',
          defaultTaskScheduleToCloseTimeout: '20',
          defaultTaskStartToCloseTimeout: '15',
          defaultTaskHeartbeatTimeout: '5',
        }),
      );
    }
    const workflowType = { name: 'w', version: '1' };
    const activityType = { name: 'a', version: '1' };
    await swf.send(new DescribeWorkflowTypeCommand({ domain: name, workflowType }));
    await swf.send(new DescribeActivityTypeCommand({ domain: name, activityType }));
    await twoPages((page) =>
      swf.send(
        new ListWorkflowTypesCommand({ domain: name, registrationStatus: 'REGISTERED', ...page }),
      ),
    );
    await swf.send(new DeprecateWorkflowTypeCommand({ domain: name, workflowType }));
    await swf.send(new DeprecateActivityTypeCommand({ domain: name, activityType }));
    await swf.send(new DescribeWorkflowTypeCommand({ domain: name, workflowType }));
    await swf.send(new DescribeActivityTypeCommand({ domain: name, activityType }));
    await swf.send(
      new ListWorkflowTypesCommand({ domain: name, registrationStatus: 'DEPRECATED' }),
    );
    await swf.send(
      new ListActivityTypesCommand({ domain: name, registrationStatus: 'DEPRECATED', name: 'a' }),
    );
    await swf.send(new UndeprecateWorkflowTypeCommand({ domain: name, workflowType }));
    await swf.send(new UndeprecateActivityTypeCommand({ domain: name, activityType }));
    await swf.send(new DeprecateWorkflowTypeCommand({ domain: name, workflowType }));
    await swf.send(new DeprecateActivityTypeCommand({ domain: name, activityType }));
    await swf.send(new DeleteWorkflowTypeCommand({ domain: name, workflowType }));
    await swf.send(new DeleteActivityTypeCommand({ domain: name, activityType }));
    await swf.send(
      new ListActivityTypesCommand({ domain: name, registrationStatus: 'REGISTERED' }),
    );
    await swf.send(new DeprecateDomainCommand({ name }));
    await swf.send(new DescribeDomainCommand({ name }));
    await swf.send(new ListDomainsCommand({ registrationStatus: 'DEPRECATED' }));
    await swf.send(new UndeprecateDomainCommand({ name }));
    expectConforming();
  });

  it('activities, timers, markers, signals, Lambda functions and each decision failure', async () => {
    const { execution, taskList } = await driver.start(wf, {
      lambdaRole,
      input: 'in',
      tagList: ['a', 'b'],
      taskPriority: '5',
      executionStartToCloseTimeout: '600',
      taskStartToCloseTimeout: '60',
      childPolicy: 'ABANDON',
    });
    const lists = {
      done: uid('done'),
      failed: uid('failed'),
      idle: uid('idle'),
      cancel: uid('cancel'),
    };
    await driver.respond(
      (await driver.pollDecision(taskList, { identity: 'decider' })).taskToken,
      [
        activity('done', lists.done, { input: 'x', control: 'c', heartbeatTimeout: '600' }),
        activity('failed', lists.failed),
        activity('idle', lists.idle, {
          scheduleToStartTimeout: '1',
          scheduleToCloseTimeout: '600',
        }),
        activity('cancel', lists.cancel),
        decide.scheduleActivity({ activityType: ghost, activityId: 'ghost' }),
        decide.requestCancelActivity('nobody'),
        decide.startTimer('fires', '1', 'ctl'),
        decide.startTimer('canceled'),
        decide.startTimer('canceled'),
        decide.cancelTimer('nobody'),
        decide.marker('m', 'details'),
        child(uid('ghost-child'), 'x', { workflowType: ghost }),
        signalExternal(uid('nobody')),
        cancelExternal(uid('nobody')),
        lambda('up', 'upper'),
        lambda('boom', 'boom'),
        lambda('held', 'held', '1'),
        lambda('held', 'held'), // ID_ALREADY_IN_USE
        lambda('unstartable', 'unstartable'),
      ],
      { executionContext: 'ctx' },
    );
    const done = await driver.pollActivity(lists.done, 'worker');
    await swf.send(
      new RecordActivityTaskHeartbeatCommand({ taskToken: done.taskToken, details: 'd' }),
    );
    await swf.send(
      new RespondActivityTaskCompletedCommand({ taskToken: done.taskToken, result: 'r' }),
    );
    const failed = await driver.pollActivity(lists.failed);
    await swf.send(
      new RespondActivityTaskFailedCommand({
        taskToken: failed.taskToken,
        reason: 'r',
        details: 'd',
      }),
    );
    const canceled = await driver.pollActivity(lists.cancel);
    await driver.signal(execution, 'poke', 'payload');
    const second = await driver.pollDecision(taskList);
    await driver.respond(second.taskToken, [
      decide.requestCancelActivity('cancel'),
      decide.cancelTimer('canceled'),
    ]);
    await swf.send(new RecordActivityTaskHeartbeatCommand({ taskToken: canceled.taskToken }));
    await swf.send(
      new RespondActivityTaskCanceledCommand({ taskToken: canceled.taskToken, details: 'd' }),
    );
    await awaitHistory(
      driver,
      execution,
      has(
        'TimerFired',
        'ActivityTaskTimedOut',
        'LambdaFunctionCompleted',
        'LambdaFunctionFailed',
        'LambdaFunctionTimedOut',
        'StartLambdaFunctionFailed',
        'SignalExternalWorkflowExecutionFailed',
        'RequestCancelExternalWorkflowExecutionFailed',
      ),
    );
    await pendingDecisions(driver, taskList);
    await pendingActivities(driver, lists.idle);
    await driver.describe(execution);
    // A decision task in pages: the first page, then the next by its token.
    const paged = await swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: taskList }, maximumPageSize: 5 }),
    );
    expect(paged.nextPageToken).toBeDefined();
    await swf.send(
      new PollForDecisionTaskCommand({
        domain,
        taskList: { name: taskList },
        nextPageToken: paged.nextPageToken,
      }),
    );
    await driver.respond(paged.taskToken ?? '', [decide.complete('done')]);
    await driver.describe(execution);
    expectConforming();
  });

  it('closes and their failures, continue-as-new, cancellation, termination, timeouts', async () => {
    // Each close decision while a signal waits unseen fails with UNHANDLED_DECISION.
    const run = await driver.start(wf, { lambdaRole });
    for (const close of [
      decide.complete('r'),
      decide.fail('r', 'd'),
      decide.cancel('d'),
      decide.continueAsNew({ input: 'again' }),
    ]) {
      const task = await driver.pollDecision(run.taskList);
      await driver.signal(run.execution);
      await driver.respond(task.taskToken, [close]);
    }
    const last = await driver.pollDecision(run.taskList);
    await driver.respond(last.taskToken, [
      decide.continueAsNew({
        input: 'again',
        tagList: ['t'],
        lambdaRole,
        taskPriority: '1',
        taskList: { name: run.taskList },
      }),
    ]);
    const next = await driver.pollDecision(run.taskList);
    await driver.respond(next.taskToken, [decide.fail('r', 'd')]);

    const canceled = await driver.start(wf);
    await swf.send(
      new RequestCancelWorkflowExecutionCommand({
        domain,
        workflowId: canceled.execution.workflowId,
      }),
    );
    // Without a lambdaRole a Lambda function cannot be scheduled (a named exception, above).
    await driver.respond((await driver.pollDecision(canceled.taskList)).taskToken, [
      lambda('no-role', 'upper'),
      decide.cancel('d'),
    ]);

    const terminated = await driver.start(wf);
    await swf.send(
      new TerminateWorkflowExecutionCommand({
        domain,
        workflowId: terminated.execution.workflowId,
        reason: 'r',
        details: 'd',
        childPolicy: 'ABANDON',
      }),
    );

    const timedOut = await driver.start(wf, { executionStartToCloseTimeout: '1' });
    const slow = await driver.start(wf, { taskStartToCloseTimeout: '1' });
    await driver.pollDecision(slow.taskList);
    await awaitHistory(driver, timedOut.execution, has('WorkflowExecutionTimedOut'), 5_000);
    await awaitHistory(driver, slow.execution, has('DecisionTaskTimedOut'), 5_000);
    const again = await awaitDecision(driver, slow.taskList);
    await driver.respond(again.taskToken, [decide.complete()]);
    const continued = {
      execution: { ...run.execution, runId: next.workflowExecution?.runId ?? '' },
    };
    for (const { execution } of [run, continued, canceled, terminated, timedOut, slow]) {
      await driver.describe(execution);
      await driver.history(execution);
    }
    expectConforming();
  });

  it('children: each close a parent hears of, signals and cancel requests between runs', async () => {
    const parent = await driver.start(wf);
    const kids = ['ok', 'failed', 'timeout', 'canceled', 'terminated'].map((name) => ({
      name,
      workflowId: uid(`child-${name}`),
      taskList: uid(`child-${name}`),
    }));
    await driver.respond(
      (await driver.pollDecision(parent.taskList)).taskToken,
      kids.map((k) =>
        child(k.workflowId, k.taskList, {
          control: k.name,
          childPolicy: 'TERMINATE',
          ...(k.name === 'timeout' ? { executionStartToCloseTimeout: '1' } : {}),
        }),
      ),
    );
    await awaitHistory(
      driver,
      parent.execution,
      (events) =>
        events.filter((e) => e.eventType === 'ChildWorkflowExecutionStarted').length ===
        kids.length,
    );
    const [ok, failed, , canceled, terminated] = kids;
    if (!ok || !failed || !canceled || !terminated) throw new Error('five children');
    await driver.respond((await awaitDecision(driver, parent.taskList)).taskToken, [
      signalExternal(canceled.workflowId),
      cancelExternal(canceled.workflowId),
    ]);
    await driver.decide(ok.taskList, () => [decide.complete('r')]);
    await driver.decide(failed.taskList, () => [decide.fail('r', 'd')]);
    await swf.send(
      new TerminateWorkflowExecutionCommand({ domain, workflowId: terminated.workflowId }),
    );
    await awaitHistory(
      driver,
      parent.execution,
      has('ExternalWorkflowExecutionSignaled', 'ExternalWorkflowExecutionCancelRequested'),
    );
    const canceledTask = await driver.pollDecision(canceled.taskList);
    await driver.respond(canceledTask.taskToken, [decide.cancel()]);
    await awaitHistory(
      driver,
      parent.execution,
      has(
        'ChildWorkflowExecutionCompleted',
        'ChildWorkflowExecutionFailed',
        'ChildWorkflowExecutionTimedOut',
        'ChildWorkflowExecutionCanceled',
        'ChildWorkflowExecutionTerminated',
        'ExternalWorkflowExecutionSignaled',
        'ExternalWorkflowExecutionCancelRequested',
      ),
      5_000,
    );
    await driver.describe(parent.execution);
    await driver.respond((await awaitDecision(driver, parent.taskList)).taskToken, [
      decide.complete(),
    ]);
    expectConforming();
  });

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
    expectConforming();
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
    expectConforming();
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
    const before = emptyPolls;
    await swf.send(new PollForDecisionTaskCommand({ domain, taskList: emptyList }));
    await swf.send(new PollForActivityTaskCommand({ domain, taskList: emptyList }));
    await pendingDecisions(driver, emptyList.name);
    expectConforming();
    expect(emptyPolls - before).toBe(2);
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
    expectConforming();
  });

  it("a marker the decider's access policy refuses (RecordMarkerFailed)", async () => {
    const { execution, taskList } = await driver.start(wf);
    const refused = new swfCommands.SWFClient({
      endpoint: service.endpoint,
      region: LOCAL_REGION,
      credentials: { accessKeyId: 'no-markers', secretAccessKey: 'not-checked' },
    });
    try {
      const decider = new SwfDriverFor(refused, domain);
      const task = await decider.pollDecision(taskList);
      await decider.respond(task.taskToken, [
        decide.marker('refused', 'd'),
        decide.startTimer('t'),
      ]);
    } finally {
      refused.destroy();
    }
    await awaitHistory(driver, execution, has('RecordMarkerFailed', 'DecisionTaskScheduled'));
    await driver.history(execution);
    expectConforming();
    expect(seenEventTypes.has('RecordMarkerFailed')).toBe(true);
  });

  it('shows every event type the local server can record', () => {
    const eventType = outputShapes.EventType;
    const all = eventType?.type === 'string' ? (eventType.enum ?? []) : [];
    expect(all).toHaveLength(54);
    expect(all.filter((type) => !seenEventTypes.has(type))).toEqual([]);
    // Each named exception was met (none is left standing once its difference is gone).
    expect([...excusedDifferences.keys()]).toEqual(KNOWN_DIFFERENCES.map((d) => d.name));
  });
});
