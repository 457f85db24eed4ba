/**
 * SWF's access control through the local server, configured as `npm start -- --access-policies FILE`
 * configures it (the same file reader): each client signs with its own access key id, and the
 * policies of that key decide each call and each decision, as IAM decides them on Amazon SWF.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type HistoryEvent,
  ListDomainsCommand,
  PollForActivityTaskCommand,
  PollForDecisionTaskCommand,
  RegisterActivityTypeCommand,
  RespondActivityTaskCompletedCommand,
  StartWorkflowExecutionCommand,
  SWFClient,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAccessPolicies } from '../../lib/local/access-policies-file.js';
import {
  LOCAL_API_FUNCTION,
  LOCAL_REGION,
  type LocalService,
} from '../../lib/local/local-service.js';
import { apiEvent } from '../../lib/sdk/api-function.js';
import { decide, expectFault, SwfDriver, single, uid } from '../support/decider.js';
import { registerDomain, startTestServer } from '../support/local.js';
import { awaitHistory } from '../support/waiting.js';

const domain = 'guarded';
const other = 'elsewhere';
const arn = (d: string) => `arn:aws:swf:*:*:/domain/${d}`;
const workflowType = { name: 'guarded-flow', version: '1' };
const allowed = { name: 'allowed-work', version: '1' };
const forbidden = { name: 'forbidden-work', version: '1' };
const elsewhereList = { name: 'elsewhere-work', version: '1' };
const LAMBDA_ROLE = 'arn:aws:iam::000000000000:role/swf-lambda';

const policies = {
  // The test server's own client registers and drives what the others may not.
  test: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
  worker: {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'PollOneList',
        Effect: 'Allow',
        Action: 'swf:PollForActivityTask',
        Resource: arn(domain),
        Condition: { StringEquals: { 'swf:taskList.name': 'work-a' } },
      },
      {
        Sid: 'Respond',
        Effect: 'Allow',
        Action: ['swf:RespondActivityTask*', 'swf:RecordActivityTaskHeartbeat'],
        Resource: arn(domain),
      },
    ],
  },
  decider: {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: [
          'swf:PollForDecisionTask',
          'swf:RespondDecisionTaskCompleted',
          'swf:ScheduleActivityTask',
          'swf:StartTimer',
          'swf:StartChildWorkflowExecution',
          'swf:CompleteWorkflowExecution',
        ],
        Resource: arn(domain),
      },
      {
        Sid: 'NotThatActivity',
        Effect: 'Deny',
        Action: 'swf:ScheduleActivityTask',
        Resource: '*',
        Condition: { StringEquals: { 'swf:activityType.name': forbidden.name } },
      },
      {
        Sid: 'OnlyWorkA',
        Effect: 'Deny',
        Action: 'swf:ScheduleActivityTask',
        Resource: '*',
        Condition: { StringNotEquals: { 'swf:taskList.name': 'work-a' } },
      },
    ],
  },
  // As the API reference's ListDomains says: `arn:aws:swf::AccountID:domain/*`.
  'lister-documented': {
    Statement: {
      Effect: 'Allow',
      Action: 'swf:ListDomains',
      Resource: 'arn:aws:swf::000000000000:domain/*',
    },
  },
  starter: {
    Version: '2012-10-17',
    Statement: { Effect: 'Allow', Action: 'swf:StartWorkflowExecution', Resource: arn(domain) },
  },
  'starter-with-role': {
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Action: 'swf:StartWorkflowExecution', Resource: arn(domain) },
      {
        Effect: 'Allow',
        Action: 'iam:PassRole',
        Resource: LAMBDA_ROLE,
        Condition: { StringEquals: { 'iam:PassedToService': 'swf.amazonaws.com' } },
      },
    ],
  },
};

let service: LocalService;
let admin: SWFClient;
let close: () => Promise<void>;
let driver: SwfDriver;
const audit: string[] = [];
const clients: SWFClient[] = [];

/** An SDK client signing with this access key id (the local server's caller). */
function clientOf(accessKeyId: string): SWFClient {
  const client = new SWFClient({
    endpoint: service.endpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId, secretAccessKey: 'not-checked' },
    maxAttempts: 1,
  });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  const file = join(tmpdir(), `${uid('access-policies')}.json`);
  writeFileSync(file, JSON.stringify(policies));
  ({
    service,
    swf: admin,
    close,
  } = await startTestServer({
    access: readAccessPolicies(file),
    polling: { maxWaitMs: 1_000 },
    auditLog: (line) => audit.push(line),
  }));
  await registerDomain(admin, domain);
  await registerDomain(admin, other);
  driver = new SwfDriver(admin, domain);
  await driver.registerTypes(workflowType, allowed);
  for (const [d, type, list] of [
    [domain, forbidden, 'work-a'],
    [domain, elsewhereList, 'work-b'],
  ] as const)
    await admin.send(
      new RegisterActivityTypeCommand({
        domain: d,
        ...type,
        defaultTaskList: { name: list },
        defaultTaskScheduleToStartTimeout: 'NONE',
        defaultTaskScheduleToCloseTimeout: 'NONE',
        defaultTaskStartToCloseTimeout: '600',
        defaultTaskHeartbeatTimeout: 'NONE',
      }),
    );
});

afterAll(async () => {
  for (const client of clients) client.destroy();
  await close();
});

/** A run whose first decision schedules `allowed` on `list`, the admin deciding. */
async function activityOn(list: string, inDomain = domain) {
  const k = inDomain === domain ? driver : new SwfDriver(admin, inDomain);
  if (inDomain !== domain) await k.registerTypes(workflowType, allowed).catch(() => {});
  const { taskList } = await k.start(workflowType);
  await k.decide(taskList, () => [
    decide.scheduleActivity({ activityType: allowed, activityId: 'a', taskList: { name: list } }),
  ]);
}

describe('a worker key that may only poll and respond on one task list of one domain', () => {
  it('polls and completes on its list', async () => {
    await activityOn('work-a');
    const worker = clientOf('worker');
    const task = await worker.send(
      new PollForActivityTaskCommand({ domain, taskList: { name: 'work-a' } }),
    );
    expect(task.taskToken).toBeDefined();
    await worker.send(
      new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken, result: 'done' }),
    );
  });

  it('is refused another list, another domain, and every other action', async () => {
    const worker = clientOf('worker');
    await expectFault(
      worker.send(new PollForActivityTaskCommand({ domain, taskList: { name: 'work-b' } })),
      'OperationNotPermittedFault',
      /^User: worker is not authorized to perform: swf:PollForActivityTask on resource: arn:aws:swf:us-east-1:000000000000:\/domain\/guarded because no identity-based policy allows the action$/,
    );
    await expectFault(
      worker.send(new PollForActivityTaskCommand({ domain: other, taskList: { name: 'work-a' } })),
      'OperationNotPermittedFault',
    );
    await expectFault(
      new SwfDriver(worker, domain).start(workflowType),
      'OperationNotPermittedFault',
    );
  });

  it("may not answer a task of another domain's run, though it holds its token", async () => {
    await activityOn('work-a', other);
    const task = await new SwfDriver(admin, other).pollActivity('work-a');
    await expectFault(
      clientOf('worker').send(
        new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken, result: 'x' }),
      ),
      'OperationNotPermittedFault',
      /swf:RespondActivityTaskCompleted on resource: arn:aws:swf:us-east-1:000000000000:\/domain\/elsewhere/,
    );
  });
});

describe('a decider key whose policy forbids scheduling one activity type', () => {
  it('fails that decision and a marker OPERATION_NOT_PERMITTED, and the others apply', async () => {
    const { execution, taskList } = await driver.start(workflowType);
    const decider = new SwfDriver(clientOf('decider'), domain);
    const task = await decider.pollDecision(taskList);
    await decider.respond(task.taskToken, [
      decide.scheduleActivity({
        activityType: allowed,
        activityId: 'ok',
        taskList: { name: 'work-a' },
      }),
      decide.scheduleActivity({
        activityType: forbidden,
        activityId: 'no',
        taskList: { name: 'work-a' },
      }),
      // Judged on its type's default task list (work-b), which the policy does not allow.
      decide.scheduleActivity({ activityType: elsewhereList, activityId: 'default-list' }),
      decide.marker('not-allowed'),
      decide.startTimer('t'),
    ]);
    const events = await awaitHistory(driver, execution, (e) =>
      e.some(
        (x) =>
          x.eventType === 'DecisionTaskScheduled' && (x.eventId ?? 0) > (task.startedEventId ?? 0),
      ),
    );
    const after = events.filter((e) => (e.eventId ?? 0) > (task.startedEventId ?? 0));
    expect(after.map((e) => e.eventType)).toEqual([
      'DecisionTaskCompleted',
      'ActivityTaskScheduled',
      'ScheduleActivityTaskFailed',
      'ScheduleActivityTaskFailed',
      'RecordMarkerFailed',
      'TimerStarted',
      'DecisionTaskScheduled',
    ]);
    const [first, second] = after.filter((e) => e.eventType === 'ScheduleActivityTaskFailed');
    expect(first?.scheduleActivityTaskFailedEventAttributes).toMatchObject({
      activityId: 'no',
      activityType: forbidden,
      cause: 'OPERATION_NOT_PERMITTED',
    });
    expect(second?.scheduleActivityTaskFailedEventAttributes?.cause).toBe(
      'OPERATION_NOT_PERMITTED',
    );
    expect(single(after, 'RecordMarkerFailed').recordMarkerFailedEventAttributes).toEqual({
      markerName: 'not-allowed',
      cause: 'OPERATION_NOT_PERMITTED',
      decisionTaskCompletedEventId: after[0]?.eventId,
    });
  });

  it('fails a child start that names a lambdaRole it may not pass', async () => {
    const { execution, taskList } = await driver.start(workflowType);
    const decider = new SwfDriver(clientOf('decider'), domain);
    const task = await decider.pollDecision(taskList);
    await decider.respond(task.taskToken, [
      {
        decisionType: 'StartChildWorkflowExecution',
        startChildWorkflowExecutionDecisionAttributes: {
          workflowType,
          workflowId: uid('child'),
          lambdaRole: LAMBDA_ROLE,
        },
      },
    ]);
    const events = await awaitHistory(driver, execution, (e: HistoryEvent[]) =>
      e.some((x) => x.eventType === 'StartChildWorkflowExecutionFailed'),
    );
    expect(
      single(events, 'StartChildWorkflowExecutionFailed')
        .startChildWorkflowExecutionFailedEventAttributes,
    ).toMatchObject({ cause: 'OPERATION_NOT_PERMITTED', initiatedEventId: 0 });
    expect(events.some((e) => e.eventType === 'StartChildWorkflowExecutionInitiated')).toBe(false);
  });
});

describe('a starter key', () => {
  const start = (client: SWFClient, extra: object = {}) =>
    client.send(
      new StartWorkflowExecutionCommand({ domain, workflowId: uid('s'), workflowType, ...extra }),
    );

  it('starts runs, but may not name a lambdaRole without iam:PassRole on it', async () => {
    const starter = clientOf('starter');
    expect((await start(starter)).runId).toBeDefined();
    await expectFault(
      start(starter, { lambdaRole: LAMBDA_ROLE }),
      'OperationNotPermittedFault',
      `User: starter is not authorized to perform: iam:PassRole on resource: ${LAMBDA_ROLE} because no identity-based policy allows the action`,
    );
    const trusted = clientOf('starter-with-role');
    expect((await start(trusted, { lambdaRole: LAMBDA_ROLE })).runId).toBeDefined();
    await expectFault(
      start(trusted, { lambdaRole: 'arn:aws:iam::000000000000:role/admin' }),
      'OperationNotPermittedFault',
    );
  });

  it('is refused in another domain without learning whether it or its type exists', async () => {
    const starter = clientOf('starter');
    for (const d of [other, 'no-such-domain'])
      await expectFault(
        starter.send(
          new StartWorkflowExecutionCommand({ domain: d, workflowId: 'w', workflowType }),
        ),
        'OperationNotPermittedFault',
      );
    // Where it may start, an unknown type is what it is.
    await expectFault(
      start(starter, { workflowType: { name: 'nope', version: '1' } }),
      'UnknownResourceFault',
    );
  });
});

describe('ListDomains', () => {
  it("is allowed by a policy naming the account's domains as SWF's reference writes them", async () => {
    const list = () =>
      clientOf('lister-documented').send(
        new ListDomainsCommand({ registrationStatus: 'REGISTERED' }),
      );
    expect((await list()).domainInfos?.map((d) => d.name)).toContain(domain);
  });
});

describe('callers the policies do not name', () => {
  it('refuses a key with no policy, and an unsigned request', async () => {
    await expectFault(
      clientOf('stranger').send(
        new PollForDecisionTaskCommand({ domain, taskList: { name: 'x' } }),
      ),
      'OperationNotPermittedFault',
      /^User: stranger is not authorized .*: no access policy names this caller$/,
    );
    const unsigned = await fetch(service.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'SimpleWorkflowService.ListDomains',
      },
      body: JSON.stringify({ registrationStatus: 'REGISTERED' }),
    });
    expect(unsigned.status).toBe(400);
    expect(await unsigned.json()).toMatchObject({
      __type: 'com.amazonaws.swf.base.model#OperationNotPermittedFault',
      message: expect.stringMatching(
        /^An unsigned caller is not authorized to perform: swf:ListDomains on resource: arn:aws:swf:us-east-1:000000000000:\/domain\/\*/,
      ),
    });
  });
});

describe('a direct Invoke of the API function (push-task-list workers)', () => {
  /** Invokes the local API function with a call's event, as a pushed worker does. */
  async function invoke(action: string, body: object, event: object = {}) {
    const response = await fetch(
      `${service.endpoint}/2015-03-31/functions/${LOCAL_API_FUNCTION}/invocations`,
      {
        method: 'POST',
        body: JSON.stringify({
          ...apiEvent(
            `SimpleWorkflowService.${action}`,
            'application/x-amz-json-1.0',
            JSON.stringify(body),
          ),
          ...event,
        }),
      },
    );
    const result = (await response.json()) as { statusCode: number; body: string };
    return {
      statusCode: result.statusCode,
      body: JSON.parse(result.body || '{}') as Record<string, unknown>,
    };
  }

  it('refuses what no task token authorizes, whatever identity the event claims', async () => {
    const claimed = {
      requestContext: {
        http: { method: 'POST', path: '/' },
        authorizer: { iam: { userArn: 'test', accountId: '000000000000' } },
      },
    };
    for (const event of [{}, claimed]) {
      const answer = await invoke(
        'StartWorkflowExecution',
        { domain, workflowId: 'w', workflowType },
        event,
      );
      expect(answer.statusCode).toBe(400);
      expect(answer.body.__type).toBe('com.amazonaws.swf.base.model#OperationNotPermittedFault');
      const poll = await invoke(
        'PollForActivityTask',
        { domain, taskList: { name: 'work-a' } },
        event,
      );
      expect(poll.body.__type).toBe('com.amazonaws.swf.base.model#OperationNotPermittedFault');
    }
  });

  it('answers the task its token names', async () => {
    await activityOn('work-a');
    const task = await driver.pollActivity('work-a');
    const answer = await invoke('RespondActivityTaskCompleted', {
      taskToken: task.taskToken,
      result: 'direct',
    });
    expect(answer.statusCode).toBe(200);
  });
});

describe('the audit log', () => {
  it('has one line per call: caller, action, domain, outcome and request id', () => {
    const lines = audit.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({
        audit: 'swf-call',
        caller: 'worker',
        action: 'PollForActivityTask',
        domain: 'guarded',
        outcome: 'OperationNotPermittedFault',
        statusCode: 400,
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        caller: 'worker',
        action: 'RespondActivityTaskCompleted',
        domain: 'guarded',
        outcome: 'ok',
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        caller: 'task-token',
        action: 'StartWorkflowExecution',
        outcome: 'OperationNotPermittedFault',
      }),
    );
  });
});
