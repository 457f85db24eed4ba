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
  TagResourceCommand,
  TerminateWorkflowExecutionCommand,
  UndeprecateActivityTypeCommand,
  UndeprecateDomainCommand,
  UndeprecateWorkflowTypeCommand,
  UntagResourceCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { LOCAL_REGION } from '../../lib/local/local-service.js';
import { unique } from '../support/contract.js';
import { decide, SwfDriver as SwfDriverFor, uid } from '../support/decider.js';
import { servedForFile } from '../support/local.js';
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

const server = servedForFile(serveShapes);

describe('answers conform to the output shapes', () => {
  it('registry: domains, types, tags, deprecations, pages', async () => {
    const name = unique('shapes-reg');
    await server.swf.send(
      new RegisterDomainCommand({
        name,
        description: 'a domain',
        workflowExecutionRetentionPeriodInDays: '3',
        tags: [{ key: 'team', value: 'shapes' }],
      }),
    );
    const { domainInfo } = await server.swf.send(new DescribeDomainCommand({ name }));
    const resourceArn = domainInfo?.arn ?? '';
    await server.swf.send(new TagResourceCommand({ resourceArn, tags: [{ key: 'k' }] }));
    await server.swf.send(new ListTagsForResourceCommand({ resourceArn }));
    await server.swf.send(new UntagResourceCommand({ resourceArn, tagKeys: ['k'] }));
    await twoPages((page) =>
      server.swf.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED', ...page })),
    );
    for (const version of ['1', '2']) {
      await server.swf.send(
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
      await server.swf.send(
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
    await server.swf.send(new DescribeWorkflowTypeCommand({ domain: name, workflowType }));
    await server.swf.send(new DescribeActivityTypeCommand({ domain: name, activityType }));
    await twoPages((page) =>
      server.swf.send(
        new ListWorkflowTypesCommand({ domain: name, registrationStatus: 'REGISTERED', ...page }),
      ),
    );
    await server.swf.send(new DeprecateWorkflowTypeCommand({ domain: name, workflowType }));
    await server.swf.send(new DeprecateActivityTypeCommand({ domain: name, activityType }));
    await server.swf.send(new DescribeWorkflowTypeCommand({ domain: name, workflowType }));
    await server.swf.send(new DescribeActivityTypeCommand({ domain: name, activityType }));
    await server.swf.send(
      new ListWorkflowTypesCommand({ domain: name, registrationStatus: 'DEPRECATED' }),
    );
    await server.swf.send(
      new ListActivityTypesCommand({ domain: name, registrationStatus: 'DEPRECATED', name: 'a' }),
    );
    await server.swf.send(new UndeprecateWorkflowTypeCommand({ domain: name, workflowType }));
    await server.swf.send(new UndeprecateActivityTypeCommand({ domain: name, activityType }));
    await server.swf.send(new DeprecateWorkflowTypeCommand({ domain: name, workflowType }));
    await server.swf.send(new DeprecateActivityTypeCommand({ domain: name, activityType }));
    await server.swf.send(new DeleteWorkflowTypeCommand({ domain: name, workflowType }));
    await server.swf.send(new DeleteActivityTypeCommand({ domain: name, activityType }));
    await server.swf.send(
      new ListActivityTypesCommand({ domain: name, registrationStatus: 'REGISTERED' }),
    );
    await server.swf.send(new DeprecateDomainCommand({ name }));
    await server.swf.send(new DescribeDomainCommand({ name }));
    await server.swf.send(new ListDomainsCommand({ registrationStatus: 'DEPRECATED' }));
    await server.swf.send(new UndeprecateDomainCommand({ name }));
    server.shapes.expectConforming();
  });

  it('activities, timers, markers, signals, Lambda functions and each decision failure', async () => {
    const { execution, taskList } = await server.driver.start(wf, {
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
    await server.driver.respond(
      (await server.driver.pollDecision(taskList, { identity: 'decider' })).taskToken,
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
    const done = await server.driver.pollActivity(lists.done, 'worker');
    await server.swf.send(
      new RecordActivityTaskHeartbeatCommand({ taskToken: done.taskToken, details: 'd' }),
    );
    await server.swf.send(
      new RespondActivityTaskCompletedCommand({ taskToken: done.taskToken, result: 'r' }),
    );
    const failed = await server.driver.pollActivity(lists.failed);
    await server.swf.send(
      new RespondActivityTaskFailedCommand({
        taskToken: failed.taskToken,
        reason: 'r',
        details: 'd',
      }),
    );
    const canceled = await server.driver.pollActivity(lists.cancel);
    await server.driver.signal(execution, 'poke', 'payload');
    const second = await server.driver.pollDecision(taskList);
    await server.driver.respond(second.taskToken, [
      decide.requestCancelActivity('cancel'),
      decide.cancelTimer('canceled'),
    ]);
    await server.swf.send(
      new RecordActivityTaskHeartbeatCommand({ taskToken: canceled.taskToken }),
    );
    await server.swf.send(
      new RespondActivityTaskCanceledCommand({ taskToken: canceled.taskToken, details: 'd' }),
    );
    await awaitHistory(
      server.driver,
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
    await pendingDecisions(server.driver, taskList);
    await pendingActivities(server.driver, lists.idle);
    await server.driver.describe(execution);
    // A decision task in pages: the first page, then the next by its token.
    const paged = await server.swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: taskList }, maximumPageSize: 5 }),
    );
    expect(paged.nextPageToken).toBeDefined();
    await server.swf.send(
      new PollForDecisionTaskCommand({
        domain,
        taskList: { name: taskList },
        nextPageToken: paged.nextPageToken,
      }),
    );
    await server.driver.respond(paged.taskToken ?? '', [decide.complete('done')]);
    await server.driver.describe(execution);
    server.shapes.expectConforming();
  });

  it('closes and their failures, continue-as-new, cancellation, termination, timeouts', async () => {
    // Each close decision while a signal waits unseen fails with UNHANDLED_DECISION.
    const run = await server.driver.start(wf, { lambdaRole });
    for (const close of [
      decide.complete('r'),
      decide.fail('r', 'd'),
      decide.cancel('d'),
      decide.continueAsNew({ input: 'again' }),
    ]) {
      const task = await server.driver.pollDecision(run.taskList);
      await server.driver.signal(run.execution);
      await server.driver.respond(task.taskToken, [close]);
    }
    const last = await server.driver.pollDecision(run.taskList);
    await server.driver.respond(last.taskToken, [
      decide.continueAsNew({
        input: 'again',
        tagList: ['t'],
        lambdaRole,
        taskPriority: '1',
        taskList: { name: run.taskList },
      }),
    ]);
    const next = await server.driver.pollDecision(run.taskList);
    await server.driver.respond(next.taskToken, [decide.fail('r', 'd')]);

    const canceled = await server.driver.start(wf);
    await server.swf.send(
      new RequestCancelWorkflowExecutionCommand({
        domain,
        workflowId: canceled.execution.workflowId,
      }),
    );
    // Without a lambdaRole a Lambda function cannot be scheduled (a named exception, above).
    await server.driver.respond((await server.driver.pollDecision(canceled.taskList)).taskToken, [
      lambda('no-role', 'upper'),
      decide.cancel('d'),
    ]);

    const terminated = await server.driver.start(wf);
    await server.swf.send(
      new TerminateWorkflowExecutionCommand({
        domain,
        workflowId: terminated.execution.workflowId,
        reason: 'r',
        details: 'd',
        childPolicy: 'ABANDON',
      }),
    );

    const timedOut = await server.driver.start(wf, { executionStartToCloseTimeout: '1' });
    const slow = await server.driver.start(wf, { taskStartToCloseTimeout: '1' });
    await server.driver.pollDecision(slow.taskList);
    await awaitHistory(server.driver, timedOut.execution, has('WorkflowExecutionTimedOut'), 5_000);
    await awaitHistory(server.driver, slow.execution, has('DecisionTaskTimedOut'), 5_000);
    const again = await awaitDecision(server.driver, slow.taskList);
    await server.driver.respond(again.taskToken, [decide.complete()]);
    const continued = {
      execution: { ...run.execution, runId: next.workflowExecution?.runId ?? '' },
    };
    for (const { execution } of [run, continued, canceled, terminated, timedOut, slow]) {
      await server.driver.describe(execution);
      await server.driver.history(execution);
    }
    server.shapes.expectConforming();
  });

  it('children: each close a parent hears of, signals and cancel requests between runs', async () => {
    const parent = await server.driver.start(wf);
    const kids = ['ok', 'failed', 'timeout', 'canceled', 'terminated'].map((name) => ({
      name,
      workflowId: uid(`child-${name}`),
      taskList: uid(`child-${name}`),
    }));
    await server.driver.respond(
      (await server.driver.pollDecision(parent.taskList)).taskToken,
      kids.map((k) =>
        child(k.workflowId, k.taskList, {
          control: k.name,
          childPolicy: 'TERMINATE',
          ...(k.name === 'timeout' ? { executionStartToCloseTimeout: '1' } : {}),
        }),
      ),
    );
    await awaitHistory(
      server.driver,
      parent.execution,
      (events) =>
        events.filter((e) => e.eventType === 'ChildWorkflowExecutionStarted').length ===
        kids.length,
    );
    const [ok, failed, , canceled, terminated] = kids;
    if (!ok || !failed || !canceled || !terminated) throw new Error('five children');
    await server.driver.respond((await awaitDecision(server.driver, parent.taskList)).taskToken, [
      signalExternal(canceled.workflowId),
      cancelExternal(canceled.workflowId),
    ]);
    await server.driver.decide(ok.taskList, () => [decide.complete('r')]);
    await server.driver.decide(failed.taskList, () => [decide.fail('r', 'd')]);
    await server.swf.send(
      new TerminateWorkflowExecutionCommand({ domain, workflowId: terminated.workflowId }),
    );
    await awaitHistory(
      server.driver,
      parent.execution,
      has('ExternalWorkflowExecutionSignaled', 'ExternalWorkflowExecutionCancelRequested'),
    );
    const canceledTask = await server.driver.pollDecision(canceled.taskList);
    await server.driver.respond(canceledTask.taskToken, [decide.cancel()]);
    await awaitHistory(
      server.driver,
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
    await server.driver.describe(parent.execution);
    await server.driver.respond((await awaitDecision(server.driver, parent.taskList)).taskToken, [
      decide.complete(),
    ]);
    server.shapes.expectConforming();
  });

  it("a marker the decider's access policy refuses (RecordMarkerFailed)", async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const refused = new swfCommands.SWFClient({
      endpoint: server.service.endpoint,
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
    await awaitHistory(
      server.driver,
      execution,
      has('RecordMarkerFailed', 'DecisionTaskScheduled'),
    );
    await server.driver.history(execution);
    server.shapes.expectConforming();
    expect(server.shapes.seenEventTypes.has('RecordMarkerFailed')).toBe(true);
  });

  it('shows every event type the local server can record', () => {
    const eventType = outputShapes.EventType;
    const all = eventType?.type === 'string' ? (eventType.enum ?? []) : [];
    expect(all).toHaveLength(54);
    expect(all.filter((type) => !server.shapes.seenEventTypes.has(type))).toEqual([]);
    // Each named exception outside error answers was met (none is left standing once its
    // difference is gone); output-shapes-listings-errors.test.ts meets those of error answers.
    expect([...server.shapes.excusedDifferences.keys()]).toEqual(knownDifferences(false));
  });
});
