/**
 * The identifier rule, through the official SDK, on every member SWF's API reference constrains with
 * it: domain names, type names and versions, task lists, workflowIds, activityIds and timerIds. Each
 * refuses a value with whitespace at either end, a `:`, `/`, `|` or control character, or the literal
 * `arn`, answering ValidationException that names the member and the constraint; nothing is
 * registered, started or recorded. (A child's workflowId takes a `:`, as the Flow Frameworks name
 * children so; edge-names.test.ts has that case and many more characters.)
 */
import {
  type Decision,
  GetWorkflowExecutionHistoryCommand,
  ListActivityTypesCommand,
  ListDomainsCommand,
  ListOpenWorkflowExecutionsCommand,
  ListWorkflowTypesCommand,
  PollForActivityTaskCommand,
  PollForDecisionTaskCommand,
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  RespondDecisionTaskCompletedCommand,
  StartWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectServiceError } from '../support/contract.js';
import { decide } from '../support/decider.js';
import { registerDomain, registerWorkflowType, serverForFile } from '../support/local.js';

const server = serverForFile({ polling: { maxWaitMs: 300 } });
const domain = 'identifier-rules';
const wf = { name: 'wf', version: '1' };

/** Each way to break the rule, with the constraint the answer names. */
const BAD: readonly [string, string, RegExp][] = [
  ['a leading space', ' x', /must not start or end with whitespace/],
  ['a trailing space', 'x ', /must not start or end with whitespace/],
  ['a trailing no-break space', 'x\u00a0', /must not start or end with whitespace/],
  ['a colon', 'a:b', /must not contain ':', '\/', '\|' or control characters/],
  ['a slash', 'a/b', /must not contain/],
  ['a vertical bar', 'a|b', /must not contain/],
  ['a control character', 'a\u0007b', /must not contain/],
  ['a C1 control character', 'a\u0085b', /must not contain/],
  ['the literal arn', 'arn', /must not be the literal string 'arn'/],
];

/** A refused call: ValidationException naming `path` and the constraint. */
const refused = (call: Promise<unknown>, path: string, constraint: RegExp) =>
  expectServiceError(
    call,
    'ValidationException',
    new RegExp(
      `^1 validation error detected: Value .* at '${path}' failed to satisfy constraint: Member ${constraint.source}`,
    ),
  );

beforeAll(async () => {
  await registerDomain(server.swf, domain);
  await registerWorkflowType(server.swf, domain, wf);
});

describe.each(BAD)('a name with %s', (_, value, constraint) => {
  it('is no domain, type name, type version or task list to register', async () => {
    const { swf } = server;
    const before = await registry();
    await refused(
      swf.send(
        new RegisterDomainCommand({ name: value, workflowExecutionRetentionPeriodInDays: '1' }),
      ),
      'name',
      constraint,
    );
    for (const [name, version, path] of [
      [value, '1', 'name'],
      ['checked', value, 'version'],
    ] as const) {
      await refused(
        swf.send(new RegisterActivityTypeCommand({ domain, name, version })),
        path,
        constraint,
      );
      await refused(
        swf.send(new RegisterWorkflowTypeCommand({ domain, name, version })),
        path,
        constraint,
      );
    }
    await refused(
      swf.send(
        new RegisterActivityTypeCommand({
          domain,
          name: 'checked',
          version: '1',
          defaultTaskList: { name: value },
        }),
      ),
      'defaultTaskList.name',
      constraint,
    );
    expect(await registry()).toEqual(before);
  });

  it('is no workflowId or task list to start or poll', async () => {
    const { swf } = server;
    const before = await openExecutions();
    await refused(
      swf.send(new StartWorkflowExecutionCommand({ domain, workflowType: wf, workflowId: value })),
      'workflowId',
      constraint,
    );
    await refused(
      swf.send(
        new StartWorkflowExecutionCommand({
          domain,
          workflowType: wf,
          workflowId: 'fine',
          taskList: { name: value },
        }),
      ),
      'taskList.name',
      constraint,
    );
    await refused(
      swf.send(new PollForDecisionTaskCommand({ domain, taskList: { name: value } })),
      'taskList.name',
      constraint,
    );
    await refused(
      swf.send(new PollForActivityTaskCommand({ domain, taskList: { name: value } })),
      'taskList.name',
      constraint,
    );
    expect(await openExecutions()).toEqual(before);
  });
});

describe('decisions', () => {
  it('refuse an activityId, a timerId, a task list or a child workflowId that breaks the rule, recording nothing', async () => {
    const { swf } = server;
    const started = await swf.send(
      new StartWorkflowExecutionCommand({ domain, workflowType: wf, workflowId: 'decider' }),
    );
    const execution = { workflowId: 'decider', runId: started.runId ?? '' };
    const task = await swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: 'tl' } }),
    );
    const history = async () =>
      (await swf.send(new GetWorkflowExecutionHistoryCommand({ domain, execution }))).events;
    const before = await history();
    expect(before?.map((e) => e.eventType)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    const activity = { name: 'act', version: '1' };
    const respond = (decision: Decision) =>
      swf.send(
        new RespondDecisionTaskCompletedCommand({
          taskToken: task.taskToken,
          decisions: [decision],
        }),
      );
    for (const [, value, constraint] of BAD) {
      await refused(
        respond(decide.scheduleActivity({ activityType: activity, activityId: value })),
        'decisions.1.member.scheduleActivityTaskDecisionAttributes.activityId',
        constraint,
      );
      await refused(
        respond(
          decide.scheduleActivity({
            activityType: activity,
            activityId: 'fine',
            taskList: { name: value },
          }),
        ),
        'decisions.1.member.scheduleActivityTaskDecisionAttributes.taskList.name',
        constraint,
      );
      await refused(
        respond(decide.startTimer(value, '10')),
        'decisions.1.member.startTimerDecisionAttributes.timerId',
        constraint,
      );
      if (value !== 'a:b')
        await refused(
          respond({
            decisionType: 'StartChildWorkflowExecution',
            startChildWorkflowExecutionDecisionAttributes: { workflowType: wf, workflowId: value },
          }),
          'decisions.1.member.startChildWorkflowExecutionDecisionAttributes.workflowId',
          // A child's workflowId may hold a ':' (see above): the constraint says so.
          new RegExp(constraint.source.replace("':', ", '')),
        );
    }
    expect(await history()).toEqual(before);
    await respond(decide.complete());
  });
});

/** What the domain's registry and the list of domains hold. */
async function registry() {
  const { swf } = server;
  const [domains, activities, workflows] = await Promise.all([
    swf.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED' })),
    swf.send(new ListActivityTypesCommand({ domain, registrationStatus: 'REGISTERED' })),
    swf.send(new ListWorkflowTypesCommand({ domain, registrationStatus: 'REGISTERED' })),
  ]);
  return [domains.domainInfos, activities.typeInfos, workflows.typeInfos];
}

/** The domain's open executions. */
async function openExecutions() {
  await server.service.streamCaughtUp();
  const { executionInfos } = await server.swf.send(
    new ListOpenWorkflowExecutionsCommand({ domain, startTimeFilter: { oldestDate: new Date(0) } }),
  );
  return executionInfos;
}
