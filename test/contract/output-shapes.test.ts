/**
 * The answer-side oracle: every answer the local server gives a broad workload (registry, tags, every
 * decision and its failure, activities, timers, signals, markers, children, cancellations,
 * continue-as-new, terminations, timeouts, Lambda functions) is read raw, before the SDK parses it,
 * and held to the service model's output shape (test/support/output-shapes.ts): required members
 * present, JSON types, enums, lengths, ranges, and no member the model does not have. The workload
 * must show every event type the local server can record, and meet each known difference. The rarer
 * members, listings, empty polls and error answers are held to their shapes in
 * output-shapes-listings-errors.test.ts.
 */
import * as swfCommands from '@aws-sdk/client-swf';
import {
  DeleteActivityTypeCommand,
  DeleteWorkflowTypeCommand,
  DeprecateActivityTypeCommand,
  DeprecateDomainCommand,
  DeprecateWorkflowTypeCommand,
  DescribeActivityTypeCommand,
  DescribeDomainCommand,
  DescribeWorkflowTypeCommand,
  ListActivityTypesCommand,
  ListDomainsCommand,
  ListTagsForResourceCommand,
  ListWorkflowTypesCommand,
  PollForDecisionTaskCommand,
  RecordActivityTaskHeartbeatCommand,
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  RequestCancelWorkflowExecutionCommand,
  RespondActivityTaskCanceledCommand,
  RespondActivityTaskCompletedCommand,
  RespondActivityTaskFailedCommand,
  type SWFClient,
  TagResourceCommand,
  TerminateWorkflowExecutionCommand,
  UndeprecateActivityTypeCommand,
  UndeprecateDomainCommand,
  UndeprecateWorkflowTypeCommand,
  UntagResourceCommand,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_REGION, type LocalService } from '../../lib/local/local-service.js';
import { unique } from '../support/contract.js';
import { decide, type SwfDriver, SwfDriver as SwfDriverFor, uid } from '../support/decider.js';
import {
  activity,
  cancelExternal,
  child,
  domain,
  ghost,
  has,
  knownDifferences,
  lambda,
  lambdaRole,
  type ShapesCheck,
  serveShapes,
  signalExternal,
  twoPages,
  wf,
} from '../support/output-shapes-workload.js';
import { outputShapes } from '../support/swf-output-model.js';
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
let shapes: ShapesCheck;

beforeAll(async () => {
  ({ swf, driver, service, close, shapes } = await serveShapes());
});
afterAll(() => close());

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
    shapes.expectConforming();
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
    shapes.expectConforming();
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
    shapes.expectConforming();
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
    shapes.expectConforming();
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
    shapes.expectConforming();
    expect(shapes.seenEventTypes.has('RecordMarkerFailed')).toBe(true);
  });

  it('shows every event type the local server can record', () => {
    const eventType = outputShapes.EventType;
    const all = eventType?.type === 'string' ? (eventType.enum ?? []) : [];
    expect(all).toHaveLength(54);
    expect(all.filter((type) => !shapes.seenEventTypes.has(type))).toEqual([]);
    // Each named exception outside error answers was met (none is left standing once its
    // difference is gone); output-shapes-listings-errors.test.ts meets those of error answers.
    expect([...shapes.excusedDifferences.keys()]).toEqual(knownDifferences(false));
  });
});
