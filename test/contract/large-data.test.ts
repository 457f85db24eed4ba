/**
 * Data as large as SWF allows, through the official SDK (SWF's quotas: 32,768 characters in each
 * input, result, details or control; decisions per response limited only by the 1 MB request). A run
 * may hold the inputs of many children, signals and Lambda tasks it has not started yet, more than one
 * DynamoDB item takes; characters outside ASCII take up to three bytes each; and a page of a thousand
 * such events would pass what a Lambda function may answer with. Each is taken whole and read back
 * whole, in pages of at most a megabyte.
 */
import { randomBytes } from 'node:crypto';
import {
  type Decision,
  GetWorkflowExecutionHistoryCommand,
  type HistoryEvent,
  PollForDecisionTaskCommand,
  RegisterWorkflowTypeCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { HISTORY_PAGE_BYTES } from '../../lib/operations/paging.js';
import { eventIds, eventsOf, uid } from '../support/decider.js';
import { domainForFile } from '../support/local.js';
import { awaitDecision, awaitHistory } from '../support/waiting.js';

const domain = 'large-data';
const wf = { name: 'large', version: '1' };
const lambdaRole = 'arn:aws:iam::000000000000:role/swf-lambda';

/** A string of SWF's most characters (32,768) that deflate cannot shrink: random base64. */
const incompressible = () => randomBytes(24_576).toString('base64');
/** 32,768 random CJK characters: three UTF-8 bytes each. */
const multiByte = () =>
  Array.from({ length: 32_768 }, () =>
    String.fromCharCode(0x4e00 + Math.floor(Math.random() * 20_000)),
  ).join('');

/** How many decisions of 32,768 characters one response of under 1 MB can carry. */
const FAN_OUT = 28;

const server = domainForFile(
  domain,
  { polling: { maxWaitMs: 1_000 } },
  async ({ swf, service }) => {
    await swf.send(
      new RegisterWorkflowTypeCommand({
        domain,
        ...wf,
        defaultExecutionStartToCloseTimeout: '600',
        defaultTaskStartToCloseTimeout: '60',
        defaultChildPolicy: 'ABANDON',
      }),
    );
    service.lambda.register('length', async (input) => String(input?.length ?? 0));
  },
);

/** Starts an execution and answers its first decision task with `decisions`. */
async function startWith(decisions: Decision[]) {
  const started = await server.driver.start(wf, { lambdaRole });
  const task = await server.driver.pollDecision(started.taskList);
  await server.driver.respond(task.taskToken, decisions);
  return started;
}

/** Every page of a run's history as GetWorkflowExecutionHistory answers it. */
async function historyPages(execution: { workflowId: string; runId: string }) {
  const pages: HistoryEvent[][] = [];
  let nextPageToken: string | undefined;
  do {
    const page = await server.swf.send(
      new GetWorkflowExecutionHistoryCommand({ domain, execution, nextPageToken }),
    );
    pages.push(page.events ?? []);
    nextPageToken = page.nextPageToken;
  } while (nextPageToken !== undefined);
  return pages;
}

/** Bytes of a page's events as JSON (the SDK's parse of them: timestamps as dates, near enough). */
const pageBytes = (events: readonly HistoryEvent[]) => Buffer.byteLength(JSON.stringify(events));

describe('a run holding more than one DynamoDB item of inputs it has not handed on yet', () => {
  it('starts children whose inputs together pass 400 KB, each with its own input', async () => {
    const inputs = Array.from({ length: FAN_OUT }, incompressible);
    const children = inputs.map(() => uid('child'));
    const { execution } = await startWith(
      inputs.map((input, i) => ({
        decisionType: 'StartChildWorkflowExecution',
        startChildWorkflowExecutionDecisionAttributes: {
          workflowType: wf,
          workflowId: children[i] ?? '',
          input,
          taskList: { name: uid('children') },
        },
      })),
    );
    const events = await awaitHistory(
      server.driver,
      execution,
      (e) => eventsOf(e, 'ChildWorkflowExecutionStarted').length === FAN_OUT,
      15_000,
    );
    expect(eventsOf(events, 'StartChildWorkflowExecutionFailed')).toEqual([]);
    for (const i of [0, FAN_OUT - 1]) {
      const started = eventsOf(events, 'ChildWorkflowExecutionStarted').find(
        (e) =>
          e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId ===
          children[i],
      );
      const child = started?.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
      if (child?.runId === undefined || child.workflowId === undefined)
        throw new Error('child not started');
      const childEvents = await server.driver.history({
        workflowId: child.workflowId,
        runId: child.runId,
      });
      expect(childEvents[0]?.workflowExecutionStartedEventAttributes?.input).toBe(inputs[i]);
    }
  });

  it('signals executions with inputs that together pass 400 KB, each with its own input', async () => {
    const targets = await Promise.all(
      Array.from({ length: FAN_OUT }, () => server.driver.start(wf)),
    );
    const inputs = targets.map(incompressible);
    const { execution } = await startWith(
      targets.map(({ execution: target }, i) => ({
        decisionType: 'SignalExternalWorkflowExecution',
        signalExternalWorkflowExecutionDecisionAttributes: {
          workflowId: target.workflowId,
          runId: target.runId,
          signalName: 'big',
          input: inputs[i],
        },
      })),
    );
    await awaitHistory(
      server.driver,
      execution,
      (e) => eventsOf(e, 'ExternalWorkflowExecutionSignaled').length === FAN_OUT,
      15_000,
    );
    for (const i of [0, FAN_OUT - 1]) {
      const target = targets[i]?.execution;
      if (target === undefined) throw new Error('no target');
      const signaled = eventsOf(await server.driver.history(target), 'WorkflowExecutionSignaled');
      expect(signaled.map((e) => e.workflowExecutionSignaledEventAttributes?.input)).toEqual([
        inputs[i],
      ]);
    }
  });

  it('runs Lambda tasks whose inputs together pass 400 KB, each with its own input', async () => {
    const { execution } = await startWith(
      Array.from({ length: FAN_OUT }, (_, i) => ({
        decisionType: 'ScheduleLambdaFunction',
        scheduleLambdaFunctionDecisionAttributes: {
          id: `l${i}`,
          name: 'length',
          input: incompressible(),
        },
      })),
    );
    const events = await awaitHistory(
      server.driver,
      execution,
      (e) => eventsOf(e, 'LambdaFunctionCompleted').length === FAN_OUT,
      15_000,
    );
    expect(
      eventsOf(events, 'LambdaFunctionCompleted').map(
        (e) => e.lambdaFunctionCompletedEventAttributes?.result,
      ),
    ).toEqual(Array(FAN_OUT).fill('32768'));
  });
});

describe('history past a megabyte', () => {
  it('records characters of three bytes each past 400 KB in one response, and reads them back whole', async () => {
    const details = Array.from({ length: 10 }, multiByte);
    const { execution } = await startWith(
      details.map((text, i) => ({
        decisionType: 'RecordMarker',
        recordMarkerDecisionAttributes: { markerName: `m${i}`, details: text },
      })),
    );
    const markers = eventsOf(await server.driver.history(execution), 'MarkerRecorded');
    expect(markers.map((e) => e.markerRecordedEventAttributes?.details)).toEqual(details);
  });

  it('is answered in pages of at most a megabyte, by GetWorkflowExecutionHistory and PollForDecisionTask', async () => {
    // Two responses of markers: about 1.8 MB of history, which one page of 1000 events would hold.
    const marker = (i: number): Decision => ({
      decisionType: 'RecordMarker',
      recordMarkerDecisionAttributes: { markerName: `m${i}`, details: incompressible() },
    });
    const { execution, taskList } = await startWith([
      ...Array.from({ length: FAN_OUT }, (_, i) => marker(i)),
      {
        decisionType: 'StartTimer',
        startTimerDecisionAttributes: { timerId: 't', startToFireTimeout: '0' },
      },
    ]);
    const second = await awaitDecision(server.driver, taskList);
    await server.driver.respond(
      second.taskToken,
      Array.from({ length: FAN_OUT }, (_, i) => marker(FAN_OUT + i)),
    );
    const pages = await historyPages(execution);
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) expect(pageBytes(page)).toBeLessThan(HISTORY_PAGE_BYTES * 1.1);
    const all = pages.flat();
    expect(eventIds(all)).toEqual(all.map((_, i) => i + 1));
    expect(eventsOf(all, 'MarkerRecorded')).toHaveLength(2 * FAN_OUT);

    // A decision task's history, page by page: the run is signalled for a third task.
    await server.driver.signal(execution);
    const first = await awaitDecision(server.driver, taskList);
    const taskPages = [first.events];
    for (let token = first.nextPageToken; token !== undefined; ) {
      const page = await server.swf.send(
        new PollForDecisionTaskCommand({
          domain,
          taskList: { name: taskList },
          nextPageToken: token,
        }),
      );
      taskPages.push(page.events ?? []);
      token = page.nextPageToken;
    }
    expect(taskPages.length).toBeGreaterThan(1);
    for (const page of taskPages) expect(pageBytes(page)).toBeLessThan(HISTORY_PAGE_BYTES * 1.1);
    const task = taskPages.flat();
    expect(eventIds(task)).toEqual(task.map((_, i) => i + 1));
    expect(task.at(-1)?.eventType).toBe('DecisionTaskStarted');
  });
});

describe('the history limit of 25,000 events', () => {
  const markers = (count: number): Decision[] =>
    Array.from({ length: count }, () => ({
      decisionType: 'RecordMarker',
      recordMarkerDecisionAttributes: { markerName: 'm' },
    }));

  it('terminates a run whose history a response would take past it (EVENT_LIMIT_EXCEEDED), recording nothing of the response', async () => {
    const { execution, taskList } = await startWith(markers(12_000));
    for (const count of [12_000, 1_000]) {
      await server.driver.signal(execution);
      const task = await awaitDecision(server.driver, taskList);
      await server.driver.respond(task.taskToken, markers(count));
    }
    // 24,008 events before the last response; its 1,001 would make 25,009.
    const described = await server.driver.describe(execution);
    expect(described.executionInfo?.executionStatus).toBe('CLOSED');
    expect(described.executionInfo?.closeStatus).toBe('TERMINATED');
    const last = await server.swf.send(
      new GetWorkflowExecutionHistoryCommand({
        domain,
        execution,
        reverseOrder: true,
        maximumPageSize: 2,
      }),
    );
    expect(last.events?.[0]).toMatchObject({
      eventId: 24_012,
      eventType: 'WorkflowExecutionTerminated',
      workflowExecutionTerminatedEventAttributes: {
        cause: 'EVENT_LIMIT_EXCEEDED',
        childPolicy: 'ABANDON',
      },
    });
    expect(last.events?.[1]?.eventType).toBe('DecisionTaskStarted');
  });

  it("tells a child's parent that the child was terminated at the limit", async () => {
    const childId = uid('child');
    const childList = uid('children');
    const { execution: parent, taskList } = await startWith([
      {
        decisionType: 'StartChildWorkflowExecution',
        startChildWorkflowExecutionDecisionAttributes: {
          workflowType: wf,
          workflowId: childId,
          taskList: { name: childList },
        },
      },
    ]);
    const first = await awaitDecision(server.driver, childList);
    const child = { workflowId: childId, runId: first.workflowExecution?.runId ?? '' };
    await server.driver.respond(first.taskToken, markers(12_000));
    for (const count of [12_000, 1_000]) {
      await server.driver.signal(child);
      const task = await awaitDecision(server.driver, childList);
      await server.driver.respond(task.taskToken, markers(count));
    }
    const events = await awaitHistory(
      server.driver,
      parent,
      (e) => eventsOf(e, 'ChildWorkflowExecutionTerminated').length === 1,
    );
    expect(eventsOf(events, 'ChildWorkflowExecutionTerminated')[0]).toMatchObject({
      childWorkflowExecutionTerminatedEventAttributes: { workflowExecution: child },
    });
    await awaitDecision(server.driver, taskList);
  });
});
