/**
 * Access control on the deployed path: the API function behind the front door judges the caller its
 * event's IAM authorizer context names (payload 2.0), and the function push-task-list workers invoke
 * directly trusts no caller at all: it answers only what a task token authorizes. Both over one table
 * in DynamoDB Local, driven with the events Lambda would hand them.
 */
import type { Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiHandler } from '../../functions/shared/api-handler.js';
import { parseAccessPolicies } from '../../lib/core/principals.js';
import type { AuditEntry } from '../../lib/http/dispatch.js';
import { uid } from '../support/decider.js';
import {
  iamAuthorizer,
  lambdaContext,
  TEST_ACCOUNT,
  TEST_REGION,
} from '../support/lambda-events.js';
import { tableForFile } from '../support/local.js';

const role = (name: string) => `arn:aws:iam::${TEST_ACCOUNT}:role/${name}`;
const session = (name: string) => `arn:aws:sts::${TEST_ACCOUNT}:assumed-role/${name}/sdk-session`;
const access = parseAccessPolicies(
  {
    [role('admins')]: { Statement: { Effect: 'Allow', Action: '*', Resource: '*' } },
    [role('deciders')]: {
      Statement: { Effect: 'Allow', Action: 'swf:*', Resource: 'arn:aws:swf:*:*:/domain/*' },
    },
  },
  'deployed-access',
);
const domain = 'deployed-access';
const workflowType = { name: 'flow', version: '1' };
const activityType = { name: 'work', version: '1' };

const tableOf = tableForFile('deployed-access');
let front: ReturnType<typeof createApiHandler>;
let direct: ReturnType<typeof createApiHandler>;
const audit: AuditEntry[] = [];

beforeAll(async () => {
  const table = tableOf();
  const wiring = {
    doc: table.doc,
    tableName: table.tableName,
    region: TEST_REGION,
    accountId: TEST_ACCOUNT,
    polling: { maxWaitMs: 500 },
    access,
    audit: (entry: AuditEntry) => audit.push(entry),
  };
  const options = { timeoutEarlyInMillis: 0, windDownMs: 200 };
  front = createApiHandler(wiring, options);
  direct = createApiHandler({ ...wiring, callers: 'direct-invoke' }, options);
  await as('admins', 'RegisterDomain', {
    name: domain,
    workflowExecutionRetentionPeriodInDays: '1',
  });
  await as('admins', 'RegisterWorkflowType', {
    domain,
    ...workflowType,
    defaultTaskList: { name: 'decide' },
    defaultExecutionStartToCloseTimeout: '3600',
    defaultTaskStartToCloseTimeout: '300',
    defaultChildPolicy: 'TERMINATE',
  });
  await as('admins', 'RegisterActivityType', {
    domain,
    ...activityType,
    defaultTaskList: { name: 'work' },
    defaultTaskScheduleToStartTimeout: 'NONE',
    defaultTaskScheduleToCloseTimeout: 'NONE',
    defaultTaskStartToCloseTimeout: '300',
    defaultTaskHeartbeatTimeout: 'NONE',
  });
}, 60_000);

/** A payload 2.0 event of one SWF call; `caller` the role whose session signed it, none for a direct Invoke. */
function event(action: string, body: object, caller: string | undefined) {
  return {
    version: '2.0',
    routeKey: 'POST /',
    rawPath: '/',
    rawQueryString: '',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': `SimpleWorkflowService.${action}`,
    },
    requestContext: {
      http: { method: 'POST', path: '/', sourceIp: '203.0.113.7' },
      ...(caller === undefined ? {} : { authorizer: iamAuthorizer(`Credential=${caller}/`) }),
    },
    body: JSON.stringify(body),
    isBase64Encoded: false,
  };
}

async function call(
  handler: ReturnType<typeof createApiHandler>,
  action: string,
  body: object,
  caller: string | undefined,
  context: Context = lambdaContext({ remainingMs: 28_000 }),
) {
  const result = await handler(event(action, body, caller) as never, context);
  if (typeof result === 'string') throw new Error('string result');
  return {
    statusCode: result.statusCode,
    body: JSON.parse(
      result.body === undefined || result.body === '' ? '{}' : result.body,
    ) as Record<string, unknown>,
  };
}
const as = (caller: string, action: string, body: object) => call(front, action, body, caller);
const fault = (answer: { body: Record<string, unknown> }) =>
  String(answer.body.__type).split('#')[1];

/** A run whose first decision task the admin answers with one activity on `work`; its started task. */
async function startedActivity() {
  const workflowId = uid('wf');
  await as('admins', 'StartWorkflowExecution', { domain, workflowId, workflowType });
  const task = await as('admins', 'PollForDecisionTask', { domain, taskList: { name: 'decide' } });
  await as('admins', 'RespondDecisionTaskCompleted', {
    taskToken: task.body.taskToken,
    decisions: [
      {
        decisionType: 'ScheduleActivityTask',
        scheduleActivityTaskDecisionAttributes: { activityType, activityId: 'a' },
      },
    ],
  });
  const polled = await as('admins', 'PollForActivityTask', { domain, taskList: { name: 'work' } });
  return String(polled.body.taskToken);
}

describe('the front door function', () => {
  it('judges the session API Gateway authenticated against its role’s policies', async () => {
    expect(
      (await as('admins', 'ListDomains', { registrationStatus: 'REGISTERED' })).statusCode,
    ).toBe(200);
    const refused = await as('strangers', 'ListDomains', { registrationStatus: 'REGISTERED' });
    expect(fault(refused)).toBe('OperationNotPermittedFault');
    expect(refused.body.message).toBe(
      `User: ${session('strangers')} is not authorized to perform: swf:ListDomains on resource: arn:aws:swf:${TEST_REGION}:${TEST_ACCOUNT}:/domain/*: no access policy names this caller`,
    );
  });

  it('takes an event with no IAM identity (a direct Invoke of it) for a call with no caller', async () => {
    const start = await call(
      front,
      'StartWorkflowExecution',
      { domain, workflowId: uid('x'), workflowType },
      undefined,
    );
    expect(fault(start)).toBe('OperationNotPermittedFault');
    expect(start.body.message).toMatch(
      /^A call without a caller \(a direct Invoke of the API function\)/,
    );
  });
});

describe('the function workers invoke directly', () => {
  it('refuses what no token authorizes, whatever identity its event claims', async () => {
    for (const caller of [undefined, 'admins']) {
      for (const [action, body] of [
        ['StartWorkflowExecution', { domain, workflowId: uid('x'), workflowType }],
        ['PollForActivityTask', { domain, taskList: { name: 'work' } }],
        ['PollForDecisionTask', { domain, taskList: { name: 'decide' } }],
        ['TerminateWorkflowExecution', { domain, workflowId: 'any' }],
        ['DeprecateDomain', { name: domain }],
      ] as const)
        expect(fault(await call(direct, action, body, caller)), `${action} as ${caller}`).toBe(
          'OperationNotPermittedFault',
        );
    }
  });

  it('answers the task its token names, and the next page of a pushed decision task', async () => {
    const token = await startedActivity();
    const done = await call(
      direct,
      'RespondActivityTaskCompleted',
      { taskToken: token, result: 'r' },
      'admins',
    );
    expect(done.statusCode).toBe(200);
    const paged = await as('admins', 'PollForDecisionTask', {
      domain,
      taskList: { name: 'decide' },
      maximumPageSize: 2,
    });
    expect(paged.body.nextPageToken).toEqual(expect.any(String));
    const next = await call(
      direct,
      'PollForDecisionTask',
      {
        domain,
        taskList: { name: 'decide' },
        maximumPageSize: 2,
        nextPageToken: paged.body.nextPageToken,
      },
      undefined,
    );
    expect(next.statusCode).toBe(200);
    expect(next.body.events).toHaveLength(2);
    // A pushed decider's decisions apply, but one naming a lambdaRole: no caller can pass a role.
    const answer = await call(
      direct,
      'RespondDecisionTaskCompleted',
      {
        taskToken: paged.body.taskToken,
        decisions: [
          {
            decisionType: 'StartTimer',
            startTimerDecisionAttributes: { timerId: 't', startToFireTimeout: '60' },
          },
          {
            decisionType: 'StartChildWorkflowExecution',
            startChildWorkflowExecutionDecisionAttributes: {
              workflowType,
              workflowId: uid('child'),
              lambdaRole: role('anything'),
            },
          },
        ],
      },
      undefined,
    );
    expect(answer.statusCode).toBe(200);
    const history = await as('admins', 'GetWorkflowExecutionHistory', {
      domain,
      execution: {
        workflowId: String((paged.body.workflowExecution as { workflowId: string }).workflowId),
        runId: String((paged.body.workflowExecution as { runId: string }).runId),
      },
    });
    const events = history.body.events as {
      eventType: string;
      startChildWorkflowExecutionFailedEventAttributes?: { cause: string };
    }[];
    expect(events.map((e) => e.eventType)).toContain('TimerStarted');
    expect(
      events.find((e) => e.eventType === 'StartChildWorkflowExecutionFailed')
        ?.startChildWorkflowExecutionFailedEventAttributes?.cause,
    ).toBe('OPERATION_NOT_PERMITTED');
  });
});

describe('the audit line', () => {
  it('names the caller, the action, the domain, the outcome and the Lambda request', async () => {
    const context = lambdaContext({ remainingMs: 28_000 });
    audit.length = 0;
    await call(front, 'DescribeDomain', { name: domain }, 'deciders', context);
    await call(direct, 'DescribeDomain', { name: domain }, 'deciders', context);
    expect(audit).toEqual([
      {
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        invocationId: context.awsRequestId,
        caller: session('deciders'),
        action: 'DescribeDomain',
        domain,
        outcome: 'ok',
        statusCode: 200,
      },
      expect.objectContaining({
        caller: 'task-token',
        action: 'DescribeDomain',
        outcome: 'OperationNotPermittedFault',
        statusCode: 400,
      }),
    ]);
  });
});
