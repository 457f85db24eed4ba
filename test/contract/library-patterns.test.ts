/**
 * The call patterns of third-party SWF libraries, replayed as raw HTTP with the headers and JSON each
 * library sends, and judged by what each reads back. Sources (public code, cited by file):
 *
 * - boto 2 (boto/swf/layer1.py `make_request`, boto/exception.py `get_error_name`): target
 *   `com.amazonaws.swf.service.model.SimpleWorkflowService.<Action>`, `Content-Type: application/json;
 *   charset=UTF-8`, `Content-Encoding: amz-1.0`; None members dropped; fault name = `__type` after `#`.
 *   The same legacy target is what the SWF Developer Guide's "Making HTTP Requests to Amazon SWF"
 *   (UsingJSON-swf.html) documents, and what older Go and Ruby (ruote-swf) clients send.
 * - simpleflow (simpleflow/swf/mapper/actors/decider.py `poll`): pages a decision task's history by
 *   repeating PollForDecisionTask with `nextPageToken` and the same other members, and treats a page
 *   without `taskToken` as a poll timeout; exceptions.py `is_unknown` reads UnknownResourceFault
 *   messages with regexes.
 * - aws-sdk-ruby v1 (lib/aws/simple_workflow/decision_task.rb `_events`): enumerating a decision
 *   task's events again replays the first page's `nextPageToken`; `complete!` omits `decisions` when
 *   there are none.
 * - aws-swf-flow-library (worker/DecisionTaskPoller.java, AffinityHelper.java, DecisionsHelper.java,
 *   WorkflowExecutionUtils.java): affinity pollers send `startAtPreviousStartedEvent: true` on every
 *   page and check `previousStartedEventId` against the cached decider's `startedEventId`; decisions
 *   move the next decision task to a host task list; more than 100 decisions end with a
 *   `FORCE_IMMEDIATE_DECISION` timer of `"0"` seconds; a closed run's close event is the first event
 *   of its history in reverse order.
 * - aws-flow-ruby (aws/decider/task_poller.rb): a too-large decision is recognised by the
 *   ValidationException text `failed to satisfy constraint: Member must have length less than or
 *   equal to`.
 * - aws-swf-flow-library DefaultChildWorkflowIdHandler, aws-sdk-java GenericWorkflowClientImpl and
 *   aws-flow-ruby workflow_client.rb: a child started without a workflowId is named
 *   `<parent runId>:<n>`.
 * - swfsm (Go, poller/poller.go): decision tasks read newest first through aws-sdk-go's
 *   PollForDecisionTaskPages; a task is a response whose TaskToken is not nil.
 * - garcon (garcon/decider.py `run`): an empty decision poll is one without `events`.
 * - aws-swf-fluent-php (src/Aws/Swf/Fluent/Domain.php): workflowIds from PHP's microtime() (a space
 *   inside), deciders polling with `reverseOrder: true` and reading only the first page.
 */
import { RegisterDomainCommand } from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, uid } from '../support/decider.js';
import { startTestServer } from '../support/local.js';

const POLL_WAIT_MS = 1_000;
let endpoint: string;
let close: () => Promise<void>;
const domain = uid('libs');
const workflowType = { name: 'lib-wf', version: '1' };
const activityType = { name: 'lib-act', version: '1' };

beforeAll(async () => {
  const server = await startTestServer({ polling: { maxWaitMs: POLL_WAIT_MS } });
  endpoint = server.service.endpoint;
  close = server.close;
  await server.swf.send(
    new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }),
  );
  const sdk = client('sdk');
  await sdk.ok('RegisterWorkflowType', {
    domain,
    ...workflowType,
    defaultTaskList: { name: 'lib-deciders' },
    defaultExecutionStartToCloseTimeout: '3600',
    defaultTaskStartToCloseTimeout: '600',
    defaultChildPolicy: 'TERMINATE',
  });
  await sdk.ok('RegisterActivityType', {
    domain,
    ...activityType,
    defaultTaskList: { name: 'lib-workers' },
    defaultTaskScheduleToStartTimeout: 'NONE',
    defaultTaskScheduleToCloseTimeout: 'NONE',
    defaultTaskStartToCloseTimeout: '600',
    defaultTaskHeartbeatTimeout: 'NONE',
  });
});

afterAll(async () => {
  await close();
});

type Json = Record<string, unknown>;
type Event = { eventId: number; eventType: string; eventTimestamp: number } & Json;

/** The headers each client family puts on every call. */
const styles = {
  sdk: (action: string) => ({
    'x-amz-target': `SimpleWorkflowService.${action}`,
    'content-type': 'application/x-amz-json-1.0',
  }),
  // boto/swf/layer1.py make_request
  boto2: (action: string) => ({
    'x-amz-target': `com.amazonaws.swf.service.model.SimpleWorkflowService.${action}`,
    'content-type': 'application/json; charset=UTF-8',
    'content-encoding': 'amz-1.0',
  }),
  // a Go client of the same era (swfReqWithResponse): the legacy target, no Content-Encoding
  goLegacy: (action: string) => ({
    'x-amz-target': `com.amazonaws.swf.service.model.SimpleWorkflowService.${action}`,
    'content-type': 'application/json; charset=UTF-8',
  }),
} as const;

interface Answer {
  status: number;
  text: string;
  body: Json | undefined;
}

/** A raw client that sends what one library family sends. */
function client(style: keyof typeof styles) {
  const call = async (action: string, body: Json): Promise<Answer> => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: styles[style](action),
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text, body: text === '' ? undefined : JSON.parse(text) };
  };
  const ok = async (action: string, body: Json): Promise<Json> => {
    const answer = await call(action, body);
    expect(answer.status, `${action}: ${answer.text}`).toBe(200);
    return answer.body ?? {};
  };
  return { call, ok };
}

/** boto 2's boto.exception.get_error_name: the fault name after the '#'. */
const boto2ErrorName = (answer: Answer) =>
  String(answer.body?.__type ?? '')
    .split('#')
    .pop();

const events = (page: Json) => (page.events ?? []) as Event[];
const ids = (list: Event[]) => list.map((e) => e.eventId);

/** Starts a run whose decision tasks go to a list of its own; returns its ids and that list. */
async function startRun(extra: Json = {}) {
  const sdk = client('sdk');
  const workflowId = uid('wf');
  const taskList = uid('deciders');
  const { runId } = await sdk.ok('StartWorkflowExecution', {
    domain,
    workflowId,
    workflowType,
    taskList: { name: taskList },
    ...extra,
  });
  return { workflowId, runId: String(runId), taskList };
}

describe('boto 2 and other clients of the legacy target (UsingJSON-swf.html)', () => {
  it('answers every call sent to com.amazonaws.swf.service.model.SimpleWorkflowService.<Action>', async () => {
    const boto = client('boto2');
    // Output-less action: 200 with an empty body (boto 2 returns None for it).
    const name = uid('boto2-domain');
    const registered = await boto.call('RegisterDomain', {
      name,
      description: 'music',
      workflowExecutionRetentionPeriodInDays: '1',
    });
    expect(registered.status, registered.text).toBe(200);
    expect(registered.text).toBe('');
    expect((await boto.ok('DescribeDomain', { name })).domainInfo).toMatchObject({
      name,
      status: 'REGISTERED',
    });
    // A fault: boto 2 raises SWFResponseError whose error_code is the name after '#'.
    const again = await boto.call('RegisterDomain', {
      name,
      workflowExecutionRetentionPeriodInDays: '1',
    });
    expect(again.status).toBe(400);
    expect(boto2ErrorName(again)).toBe('DomainAlreadyExistsFault');
    const go = client('goLegacy');
    expect((await go.ok('ListDomains', { registrationStatus: 'REGISTERED' })).domainInfos).toEqual(
      expect.arrayContaining([expect.objectContaining({ name })]),
    );
  });

  it('runs a workflow end to end through layer1 calls on the legacy target', async () => {
    const boto = client('boto2');
    const workflowId = uid('boto2-wf');
    const deciders = uid('boto2-deciders');
    const workers = uid('boto2-workers');
    // layer1.start_workflow_execution: None members dropped by _normalize_request_dict.
    const { runId } = await boto.ok('StartWorkflowExecution', {
      domain,
      workflowId,
      workflowType,
      taskList: { name: deciders },
      input: 'in',
    });
    const first = await boto.ok('PollForDecisionTask', {
      domain,
      taskList: { name: deciders },
      identity: 'boto2-decider',
    });
    expect(first.taskToken).toEqual(expect.any(String));
    await boto.ok('RespondDecisionTaskCompleted', {
      taskToken: first.taskToken,
      decisions: [
        {
          decisionType: 'ScheduleActivityTask',
          scheduleActivityTaskDecisionAttributes: {
            activityId: 'a1',
            activityType,
            taskList: { name: workers },
          },
        },
      ],
    });
    const task = await boto.ok('PollForActivityTask', {
      domain,
      taskList: { name: workers },
      identity: 'boto2-worker',
    });
    expect(task).toMatchObject({ activityId: 'a1', workflowExecution: { workflowId, runId } });
    expect(await boto.ok('RecordActivityTaskHeartbeat', { taskToken: task.taskToken })).toEqual({
      cancelRequested: false,
    });
    await boto.ok('RespondActivityTaskCompleted', { taskToken: task.taskToken, result: 'done' });
    const second = await boto.ok('PollForDecisionTask', {
      domain,
      taskList: { name: deciders },
      identity: 'boto2-decider',
    });
    await boto.ok('RespondDecisionTaskCompleted', {
      taskToken: second.taskToken,
      decisions: [
        {
          decisionType: 'CompleteWorkflowExecution',
          completeWorkflowExecutionDecisionAttributes: { result: 'ok' },
        },
      ],
    });
    const history = await boto.ok('GetWorkflowExecutionHistory', {
      domain,
      execution: { runId, workflowId },
      reverseOrder: true,
    });
    expect(events(history)[0]?.eventType).toBe('WorkflowExecutionCompleted');
  });
});

describe('simpleflow: a decision task paged by PollForDecisionTask (actors/decider.py)', () => {
  it('carries the task token on every page, and the pages make the whole history', async () => {
    const sdk = client('sdk');
    const run = await startRun();
    for (let i = 0; i < 7; i++)
      await sdk.ok('SignalWorkflowExecution', {
        domain,
        workflowId: run.workflowId,
        signalName: `s${i}`,
      });
    // simpleflow sends the same members on every page, start_at_previous_started_event=False included.
    const request = {
      domain,
      taskList: { name: run.taskList },
      identity: 'simpleflow-host',
      maximumPageSize: 3,
      startAtPreviousStartedEvent: false,
    };
    const first = await sdk.ok('PollForDecisionTask', request);
    const all = [...events(first)];
    let page = first;
    let pages = 1;
    while (page.nextPageToken !== undefined) {
      page = await sdk.ok('PollForDecisionTask', { ...request, nextPageToken: page.nextPageToken });
      pages++;
      // simpleflow: `if not token: raise PollTimeout`
      expect(page.taskToken).toBe(first.taskToken);
      expect(page.startedEventId).toBe(first.startedEventId);
      expect(page.workflowExecution).toEqual(first.workflowExecution);
      all.push(...events(page));
    }
    expect(pages).toBeGreaterThan(2);
    expect(ids(all)).toEqual(Array.from({ length: Number(first.startedEventId) }, (_, i) => i + 1));
    expect(all.at(-1)?.eventType).toBe('DecisionTaskStarted');
  });

  it('words UnknownResourceFault so that exceptions.is_unknown finds the resource', async () => {
    const sdk = client('sdk');
    // REGEX_UNKNOWN_RESOURCE and REGEX_NESTED_RESOURCE of simpleflow/swf/mapper/exceptions.py
    const resource = (message: string) => {
      const first = /^Unknown ([^ :,]+)/.exec(message)?.[1];
      if (first === 'type' || first === 'execution')
        return /Unknown (?:type|execution)[:,]\s*([^ =]+)\s*=/.exec(message)?.[1];
      return first;
    };
    const messageOf = async (action: string, body: Json) => {
      const answer = await sdk.call(action, body);
      expect(boto2ErrorName(answer)).toBe('UnknownResourceFault');
      return String(answer.body?.message);
    };
    expect(resource(await messageOf('DescribeDomain', { name: uid('none') }))).toBe('domain');
    expect(
      resource(
        await messageOf('DescribeWorkflowType', {
          domain,
          workflowType: { name: 'no', version: '1' },
        }),
      ),
    ).toBe('WorkflowType');
    expect(
      resource(
        await messageOf('DescribeActivityType', {
          domain,
          activityType: { name: 'no', version: '1' },
        }),
      ),
    ).toBe('ActivityType');
    expect(
      resource(
        await messageOf('DescribeWorkflowExecution', {
          domain,
          execution: { workflowId: 'no', runId: 'no' },
        }),
      ),
    ).toBe('WorkflowExecution');
  });
});

describe('swfsm (Go, poller/poller.go): PollForDecisionTaskPages newest first', () => {
  it('pages a decision task in reverse order down to the first event, the token on every page', async () => {
    const sdk = client('sdk');
    const run = await startRun();
    for (let i = 0; i < 6; i++)
      await sdk.ok('SignalWorkflowExecution', {
        domain,
        workflowId: run.workflowId,
        signalName: `s${i}`,
      });
    // aws-sdk-go's paginator resends the input with NextPageToken; swfsm asks ReverseOrder: true and
    // stops once its state marker is found (here: never, so every page is read).
    const request = {
      domain,
      identity: 'swfsm',
      reverseOrder: true,
      taskList: { name: run.taskList },
      maximumPageSize: 4,
    };
    const first = await sdk.ok('PollForDecisionTask', request);
    const all = [...events(first)];
    let page = first;
    while (page.nextPageToken !== undefined) {
      page = await sdk.ok('PollForDecisionTask', { ...request, nextPageToken: page.nextPageToken });
      // poller.go: `resp.TaskToken != nil` decides whether the merged pages are a task.
      expect(page.taskToken).toBe(first.taskToken);
      all.push(...events(page));
    }
    const started = Number(first.startedEventId);
    expect(ids(all)).toEqual(Array.from({ length: started }, (_, i) => started - i));
  });
});

describe('aws-sdk-ruby v1: DecisionTask#events enumerated twice (decision_task.rb)', () => {
  it('gives the same later pages for the first page token each time, and takes complete! without decisions', async () => {
    const sdk = client('sdk');
    const run = await startRun();
    for (let i = 0; i < 4; i++)
      await sdk.ok('SignalWorkflowExecution', {
        domain,
        workflowId: run.workflowId,
        signalName: `s${i}`,
      });
    // DecisionTaskCollection#poll_for_single_task: identity, maximum_page_size, reverse_order false.
    const request = {
      domain,
      identity: 'host:4242',
      taskList: { name: run.taskList },
      maximumPageSize: 4,
      reverseOrder: false,
    };
    const first = await sdk.ok('PollForDecisionTask', request);
    const enumerate = async () => {
      const seen = [...events(first)];
      let token = first.nextPageToken;
      while (token !== undefined) {
        const page = await sdk.ok('PollForDecisionTask', { ...request, nextPageToken: token });
        seen.push(...events(page));
        token = page.nextPageToken;
      }
      return ids(seen);
    };
    const once = await enumerate();
    expect(await enumerate()).toEqual(once);
    expect(once.at(-1)).toBe(first.startedEventId);
    // complete! sends only the token when no decision was added.
    expect(
      (await sdk.call('RespondDecisionTaskCompleted', { taskToken: first.taskToken })).status,
    ).toBe(200);
  });
});

describe('aws-swf-flow-library (Java)', () => {
  it('affinity: startAtPreviousStartedEvent on every page, previousStartedEventId, the host task list', async () => {
    const sdk = client('sdk');
    const run = await startRun();
    const host = `ip-10-0-0-1.ec2.internal-${uid('h')}`;
    const poll = (taskList: string, nextPageToken?: unknown) =>
      sdk.ok('PollForDecisionTask', {
        domain,
        identity: '4242@ip-10-0-0-1',
        taskList: { name: taskList },
        startAtPreviousStartedEvent: true,
        ...(nextPageToken === undefined ? {} : { nextPageToken }),
      });
    const first = await poll(run.taskList);
    // The first task has no previous one: its whole history.
    expect(first.previousStartedEventId).toBe(0);
    expect(ids(events(first))[0]).toBe(1);
    await sdk.ok('RespondDecisionTaskCompleted', {
      taskToken: first.taskToken,
      decisions: [
        {
          decisionType: 'RecordMarker',
          recordMarkerDecisionAttributes: { markerName: 'cached' },
        },
      ],
      taskList: { name: host },
      taskListScheduleToStartTimeout: '30',
    });
    await sdk.ok('SignalWorkflowExecution', {
      domain,
      workflowId: run.workflowId,
      signalName: 'go',
    });
    const second = await poll(host);
    // AffinityHelper.isValidDecider: previousStartedEventId == cached decider's startedEventId.
    expect(second.previousStartedEventId).toBe(first.startedEventId);
    const seen = events(second);
    expect(seen[0]).toMatchObject({
      eventId: first.startedEventId,
      eventType: 'DecisionTaskStarted',
    });
    expect(seen.at(-1)).toMatchObject({
      eventId: second.startedEventId,
      eventType: 'DecisionTaskStarted',
    });
    expect(second.nextPageToken).toBeUndefined();
  });

  it('FORCE_IMMEDIATE_DECISION: a "0" second timer after 99 decisions fires and brings the next task at once', async () => {
    const sdk = client('sdk');
    const run = await startRun();
    const first = await sdk.ok('PollForDecisionTask', { domain, taskList: { name: run.taskList } });
    const decisions: Json[] = Array.from({ length: 99 }, (_, i) => ({
      decisionType: 'RecordMarker',
      recordMarkerDecisionAttributes: { markerName: `m${i}` },
    }));
    decisions.push({
      decisionType: 'StartTimer',
      startTimerDecisionAttributes: {
        timerId: 'FORCE_IMMEDIATE_DECISION',
        startToFireTimeout: '0',
      },
    });
    await sdk.ok('RespondDecisionTaskCompleted', { taskToken: first.taskToken, decisions });
    const next = await sdk.ok('PollForDecisionTask', { domain, taskList: { name: run.taskList } });
    expect(next.taskToken).toEqual(expect.any(String));
    expect(
      events(next)
        .slice(-4)
        .map((e) => e.eventType),
    ).toEqual(['TimerStarted', 'TimerFired', 'DecisionTaskScheduled', 'DecisionTaskStarted']);
  });

  it('getInstanceCloseEvent: the first event of a closed run in reverse order is its close event', async () => {
    const sdk = client('sdk');
    const run = await startRun();
    const task = await sdk.ok('PollForDecisionTask', { domain, taskList: { name: run.taskList } });
    await sdk.ok('RespondDecisionTaskCompleted', {
      taskToken: task.taskToken,
      decisions: [
        {
          decisionType: 'FailWorkflowExecution',
          failWorkflowExecutionDecisionAttributes: { reason: 'r' },
        },
      ],
    });
    const execution = { workflowId: run.workflowId, runId: run.runId };
    const info = await sdk.ok('DescribeWorkflowExecution', { domain, execution });
    expect(info.executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'FAILED' });
    const page = await sdk.ok('GetWorkflowExecutionHistory', {
      domain,
      execution,
      reverseOrder: true,
      maximumPageSize: 1,
    });
    expect(events(page).map((e) => e.eventType)).toEqual(['WorkflowExecutionFailed']);
    expect(page.nextPageToken).toEqual(expect.any(String));
  });
});

describe('child workflowIds of the Flow frameworks (Java and Ruby)', () => {
  // aws-swf-flow-library DefaultChildWorkflowIdHandler.generateWorkflowId ("%s:%s", the parent's runId
  // and the decider's next id), aws-sdk-java's flow GenericWorkflowClientImpl.generateUniqueId
  // (runId + ":" + id), aws-flow-ruby workflow_client.rb start_internal_workflow
  // (get_next_id(run_id + ":")): every child started without an explicit workflowId. Both frameworks
  // ran against Amazon SWF for years with these ids, so SWF takes a ':' in the child's workflowId.
  it('starts a child whose workflowId is <parent runId>:<n>, which the parent can then signal and cancel', async () => {
    const sdk = client('sdk');
    const parent = await startRun();
    const childId = `${parent.runId}:1`;
    const childList = uid('child-deciders');
    const first = await sdk.ok('PollForDecisionTask', {
      domain,
      taskList: { name: parent.taskList },
    });
    const started = await sdk.call('RespondDecisionTaskCompleted', {
      taskToken: first.taskToken,
      decisions: [
        {
          decisionType: 'StartChildWorkflowExecution',
          startChildWorkflowExecutionDecisionAttributes: {
            workflowType,
            workflowId: childId,
            taskList: { name: childList },
            control: '1',
          },
        },
      ],
    });
    expect(started.status, started.text).toBe(200);
    const second = await sdk.ok('PollForDecisionTask', {
      domain,
      taskList: { name: parent.taskList },
    });
    const childStarted = events(second).find(
      (e) => e.eventType === 'ChildWorkflowExecutionStarted',
    );
    expect(childStarted?.childWorkflowExecutionStartedEventAttributes).toMatchObject({
      workflowExecution: { workflowId: childId },
    });
    // GenericWorkflowClientImpl: a signal to the child, and ChildWorkflowCancellationHandler's cancel.
    await sdk.ok('RespondDecisionTaskCompleted', {
      taskToken: second.taskToken,
      decisions: [
        {
          decisionType: 'SignalExternalWorkflowExecution',
          signalExternalWorkflowExecutionDecisionAttributes: {
            workflowId: childId,
            signalName: 'ping',
            control: '2',
          },
        },
        {
          decisionType: 'RequestCancelExternalWorkflowExecution',
          requestCancelExternalWorkflowExecutionDecisionAttributes: { workflowId: childId },
        },
      ],
    });
    const attributes = childStarted?.childWorkflowExecutionStartedEventAttributes as
      | { workflowExecution?: Json }
      | undefined;
    const child = { workflowId: childId, runId: String(attributes?.workflowExecution?.runId) };
    // The signal and the cancel request reach the child across executions: wait for both.
    let childEvents: string[] = [];
    for (let i = 0; i < 50 && !childEvents.includes('WorkflowExecutionCancelRequested'); i++) {
      const page = await sdk.ok('GetWorkflowExecutionHistory', { domain, execution: child });
      childEvents = events(page).map((e) => e.eventType);
      if (!childEvents.includes('WorkflowExecutionCancelRequested')) await sleep(100);
    }
    expect(childEvents).toEqual(
      expect.arrayContaining(['WorkflowExecutionSignaled', 'WorkflowExecutionCancelRequested']),
    );
    const described = await sdk.ok('DescribeWorkflowExecution', { domain, execution: child });
    expect(described.executionInfo).toMatchObject({
      execution: child,
      parent: { workflowId: parent.workflowId, runId: parent.runId },
      cancelRequested: true,
    });
    const task = await sdk.ok('PollForDecisionTask', { domain, taskList: { name: childList } });
    expect(task.workflowExecution).toEqual(child);
  });
});

describe('aws-flow-ruby: too-large values (task_poller.rb)', () => {
  it('refuses them with the ValidationException text the poller looks for', async () => {
    const sdk = client('sdk');
    const run = await startRun();
    const task = await sdk.ok('PollForDecisionTask', { domain, taskList: { name: run.taskList } });
    const tooLarge = await sdk.call('RespondDecisionTaskCompleted', {
      taskToken: task.taskToken,
      decisions: [
        {
          decisionType: 'ScheduleActivityTask',
          scheduleActivityTaskDecisionAttributes: {
            activityType,
            activityId: 'big',
            input: 'x'.repeat(32_769),
          },
        },
      ],
    });
    expect(boto2ErrorName(tooLarge)).toBe('ValidationException');
    expect(String(tooLarge.body?.message)).toContain(
      'failed to satisfy constraint: Member must have length less than or equal to',
    );
    // The poller then fails the workflow with minimal details: the task is still the decider's.
    await sdk.ok('RespondDecisionTaskCompleted', {
      taskToken: task.taskToken,
      decisions: [
        {
          decisionType: 'FailWorkflowExecution',
          failWorkflowExecutionDecisionAttributes: {
            reason: 'too large',
            details: 'ValidationException',
          },
        },
      ],
    });
  });
});

describe('empty polls as libraries detect them', () => {
  it('an empty decision task has no taskToken and no events (simpleflow, garcon, Flow, aws-sdk-ruby)', async () => {
    const sdk = client('sdk');
    const answer = await sdk.ok('PollForDecisionTask', {
      domain,
      taskList: { name: uid('idle') },
      identity: 'idle',
    });
    expect(answer.taskToken).toBeUndefined();
    expect('events' in answer).toBe(false);
    expect(answer).toEqual({ startedEventId: 0, previousStartedEventId: 0 });
  });

  it('an empty activity task has no taskToken (boto 2 layer2, aws-swf for node)', async () => {
    const boto = client('boto2');
    const answer = await boto.call('PollForActivityTask', {
      domain,
      taskList: { name: uid('idle') },
      identity: 'idle',
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body?.taskToken).toBeUndefined();
  });
});

describe('aws-swf-fluent-php (Fluent/Domain.php)', () => {
  it('takes a microtime() workflowId and serves a decider that reads one page newest first', async () => {
    const sdk = client('sdk');
    const workflowId = `0.${String(Date.now() % 1e8).padStart(8, '0')} ${Math.floor(Date.now() / 1000)}`;
    const taskList = uid('main');
    await sdk.ok('StartWorkflowExecution', {
      domain,
      workflowId,
      workflowType,
      taskList: { name: taskList },
      executionStartToCloseTimeout: '1800',
      taskStartToCloseTimeout: '600',
      childPolicy: 'TERMINATE',
    });
    const task = await sdk.ok('PollForDecisionTask', {
      domain,
      taskList: { name: taskList },
      identity: 'decider',
      reverseOrder: true,
    });
    expect(task.workflowExecution).toMatchObject({ workflowId });
    expect(events(task).map((e) => e.eventType)).toEqual([
      'DecisionTaskStarted',
      'DecisionTaskScheduled',
      'WorkflowExecutionStarted',
    ]);
  });
});
