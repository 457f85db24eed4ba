/**
 * A small driver for contract tests that drive the service through the official SDK only: unique ids,
 * a decision/activity poller that insists on getting a task, history reads across pages, fault
 * assertions and decision builders.
 */
import { randomUUID } from 'node:crypto';
import {
  type ActivityTask,
  type ActivityType,
  type Decision,
  type DecisionTask,
  DescribeWorkflowExecutionCommand,
  GetWorkflowExecutionHistoryCommand,
  type HistoryEvent,
  PollForActivityTaskCommand,
  PollForDecisionTaskCommand,
  type PollForDecisionTaskInput,
  RegisterActivityTypeCommand,
  RegisterWorkflowTypeCommand,
  RespondDecisionTaskCompletedCommand,
  type RespondDecisionTaskCompletedInput,
  type ScheduleActivityTaskDecisionAttributes,
  SignalWorkflowExecutionCommand,
  StartWorkflowExecutionCommand,
  type StartWorkflowExecutionInput,
  type SWFClient,
  type WorkflowExecution,
  type WorkflowType,
} from '@aws-sdk/client-swf';
import { expect } from 'vitest';

/** An identifier no other test uses: workflowIds, task lists, activity ids. */
export const uid = (prefix: string) => `${prefix}-${randomUUID().slice(0, 12)}`;

export const eventTypes = (events: readonly HistoryEvent[] | undefined) =>
  (events ?? []).map((e) => e.eventType ?? '');

export const eventIds = (events: readonly HistoryEvent[] | undefined) =>
  (events ?? []).map((e) => e.eventId ?? -1);

/** The events of a type, in history order. */
export const eventsOf = (events: readonly HistoryEvent[] | undefined, eventType: string) =>
  (events ?? []).filter((e) => e.eventType === eventType);

/** The only event of a type; fails the test if there is not exactly one. */
export function single(
  events: readonly HistoryEvent[] | undefined,
  eventType: string,
): HistoryEvent {
  const found = eventsOf(events, eventType);
  expect(
    found.map((e) => e.eventType),
    `exactly one ${eventType}`,
  ).toEqual([eventType]);
  const [event] = found;
  if (event === undefined) throw new Error(`no ${eventType}`);
  return event;
}

/** Awaits a call that must fail with the named error; returns it for further checks. */
export async function expectFault(
  call: Promise<unknown>,
  name: string,
  message?: string | RegExp,
): Promise<Error> {
  const outcome = await call.then(
    (value: unknown) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok)
    throw new Error(`expected ${name}, got success: ${JSON.stringify(outcome.value)}`);
  const { error } = outcome;
  if (!(error instanceof Error)) throw new Error(`expected ${name}, got ${String(error)}`);
  expect(error.name, error.message).toBe(name);
  if (typeof message === 'string') expect(error.message).toBe(message);
  if (message instanceof RegExp) expect(error.message).toMatch(message);
  return error;
}

export type StartedDecisionTask = DecisionTask & { taskToken: string; events: HistoryEvent[] };
export type StartedActivityTask = ActivityTask & { taskToken: string };

/** The SDK calls of a test file, bound to its client and domain. */
/**
 * How long the driver polls again for a task a test expects to be there. The test servers keep their
 * long polls short (50 ms to a few seconds), and on a loaded machine such a poll may end empty before
 * its first queue read returns, as a poll whose time is up should; a worker would simply poll again.
 */
const TASK_THERE_WITHIN_MS = 10_000;

/** Polls until an answer carries a task token or `withinMs` has passed (polling at least once). */
async function pollUntilTask<T extends { taskToken?: string | undefined }>(
  poll: () => Promise<T>,
  withinMs: number,
): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const task = await poll();
    const { taskToken } = task;
    if ((taskToken !== undefined && taskToken !== '') || Date.now() >= deadline) return task;
  }
}

export class SwfDriver {
  constructor(
    readonly swf: SWFClient,
    readonly domain: string,
  ) {}

  /**
   * Registers a workflow type (an hour to run, 10 minutes a decision task, children terminated) and an
   * activity type (10 minutes to run, no other timeout), each with a default task list.
   */
  async registerTypes(workflowType: WorkflowType, activityType: ActivityType): Promise<void> {
    const domain = this.domain;
    await this.swf.send(
      new RegisterWorkflowTypeCommand({
        domain,
        name: workflowType.name,
        version: workflowType.version,
        defaultTaskList: { name: 'wf-defaults' },
        defaultExecutionStartToCloseTimeout: '3600',
        defaultTaskStartToCloseTimeout: '600',
        defaultChildPolicy: 'TERMINATE',
      }),
    );
    await this.swf.send(
      new RegisterActivityTypeCommand({
        domain,
        name: activityType.name,
        version: activityType.version,
        defaultTaskList: { name: 'act-defaults' },
        defaultTaskScheduleToStartTimeout: 'NONE',
        defaultTaskScheduleToCloseTimeout: 'NONE',
        defaultTaskStartToCloseTimeout: '600',
        defaultTaskHeartbeatTimeout: 'NONE',
      }),
    );
  }

  /** Starts an execution with a unique workflowId; its decision tasks go to a unique list unless given. */
  async start(
    workflowType: WorkflowType,
    options: Omit<Partial<StartWorkflowExecutionInput>, 'domain' | 'workflowType'> = {},
  ): Promise<{
    execution: WorkflowExecution & { runId: string; workflowId: string };
    taskList: string;
  }> {
    const workflowId = options.workflowId ?? uid('wf');
    const taskList = options.taskList?.name ?? uid('deciders');
    const { runId } = await this.swf.send(
      new StartWorkflowExecutionCommand({
        ...options,
        domain: this.domain,
        workflowType,
        workflowId,
        taskList: { name: taskList },
      }),
    );
    if (runId === undefined) throw new Error('StartWorkflowExecution returned no runId');
    return { execution: { workflowId, runId }, taskList };
  }

  /** Polls for a decision task that must be there (a full task, with a token). */
  async pollDecision(
    taskList: string,
    options: Omit<PollForDecisionTaskInput, 'domain' | 'taskList'> = {},
    withinMs = TASK_THERE_WITHIN_MS,
  ): Promise<StartedDecisionTask> {
    const poll = () =>
      this.swf.send(
        new PollForDecisionTaskCommand({
          ...options,
          domain: this.domain,
          taskList: { name: taskList },
        }),
      );
    const task = await pollUntilTask(poll, withinMs);
    const { taskToken } = task;
    if (taskToken === undefined || taskToken === '') {
      throw new Error(`no decision task on ${taskList} within ${withinMs} ms`);
    }
    return { ...task, taskToken, events: task.events ?? [] };
  }

  async respond(
    taskToken: string,
    decisions: Decision[],
    extra: Omit<RespondDecisionTaskCompletedInput, 'taskToken' | 'decisions'> = {},
  ): Promise<void> {
    await this.swf.send(
      new RespondDecisionTaskCompletedCommand({ ...extra, taskToken, decisions }),
    );
  }

  /** Polls one decision task, answers it with what `decide` returns, and returns the task. */
  async decide(
    taskList: string,
    decide: (task: StartedDecisionTask) => Decision[],
  ): Promise<StartedDecisionTask> {
    const task = await this.pollDecision(taskList);
    await this.respond(task.taskToken, decide(task));
    return task;
  }

  /** Polls for an activity task that must be there. */
  async pollActivity(taskList: string, identity?: string): Promise<StartedActivityTask> {
    const poll = () =>
      this.swf.send(
        new PollForActivityTaskCommand({
          domain: this.domain,
          taskList: { name: taskList },
          ...(identity === undefined ? {} : { identity }),
        }),
      );
    const task = await pollUntilTask(poll, TASK_THERE_WITHIN_MS);
    const { taskToken } = task;
    if (taskToken === undefined || taskToken === '')
      throw new Error(`no activity task on ${taskList} within ${TASK_THERE_WITHIN_MS} ms`);
    return { ...task, taskToken };
  }

  async signal(
    execution: { workflowId: string; runId?: string | undefined },
    signalName = 'poke',
    input?: string,
  ): Promise<void> {
    await this.swf.send(
      new SignalWorkflowExecutionCommand({
        domain: this.domain,
        workflowId: execution.workflowId,
        runId: execution.runId,
        signalName,
        ...(input === undefined ? {} : { input }),
      }),
    );
  }

  /** The whole history, following nextPageToken. */
  async history(execution: WorkflowExecution): Promise<HistoryEvent[]> {
    const events: HistoryEvent[] = [];
    let nextPageToken: string | undefined;
    do {
      const page = await this.swf.send(
        new GetWorkflowExecutionHistoryCommand({
          domain: this.domain,
          execution,
          ...(nextPageToken === undefined ? {} : { nextPageToken }),
        }),
      );
      events.push(...(page.events ?? []));
      nextPageToken = page.nextPageToken;
    } while (nextPageToken !== undefined && nextPageToken !== '');
    return events;
  }

  describe(execution: WorkflowExecution) {
    return this.swf.send(new DescribeWorkflowExecutionCommand({ domain: this.domain, execution }));
  }
}

/**
 * A run with a started activity task (activityId 'a', of `activityType`) and, after a signal, a started
 * decision task: every kind of task token live.
 */
export async function liveRun(
  driver: SwfDriver,
  workflowType: WorkflowType,
  activityType: ActivityType,
) {
  const { execution, taskList } = await driver.start(workflowType);
  const workers = uid('workers');
  await driver.decide(taskList, () => [
    decide.scheduleActivity({ activityType, activityId: 'a', taskList: { name: workers } }),
  ]);
  const activity = await driver.pollActivity(workers);
  await driver.signal(execution, 'first');
  const decision = await driver.pollDecision(taskList);
  return { execution, taskList, activity, decision };
}

/** Decision builders, so tests read like the decisions they make. */
export const decide = {
  scheduleActivity: (attributes: ScheduleActivityTaskDecisionAttributes): Decision => ({
    decisionType: 'ScheduleActivityTask',
    scheduleActivityTaskDecisionAttributes: attributes,
  }),
  requestCancelActivity: (activityId: string): Decision => ({
    decisionType: 'RequestCancelActivityTask',
    requestCancelActivityTaskDecisionAttributes: { activityId },
  }),
  complete: (result?: string): Decision => ({
    decisionType: 'CompleteWorkflowExecution',
    completeWorkflowExecutionDecisionAttributes: result === undefined ? {} : { result },
  }),
  fail: (reason?: string, details?: string): Decision => ({
    decisionType: 'FailWorkflowExecution',
    failWorkflowExecutionDecisionAttributes: {
      ...(reason === undefined ? {} : { reason }),
      ...(details === undefined ? {} : { details }),
    },
  }),
  cancel: (details?: string): Decision => ({
    decisionType: 'CancelWorkflowExecution',
    cancelWorkflowExecutionDecisionAttributes: details === undefined ? {} : { details },
  }),
  continueAsNew: (
    attributes: NonNullable<Decision['continueAsNewWorkflowExecutionDecisionAttributes']>,
  ): Decision => ({
    decisionType: 'ContinueAsNewWorkflowExecution',
    continueAsNewWorkflowExecutionDecisionAttributes: attributes,
  }),
  marker: (markerName: string, details?: string): Decision => ({
    decisionType: 'RecordMarker',
    recordMarkerDecisionAttributes: { markerName, ...(details === undefined ? {} : { details }) },
  }),
  startTimer: (timerId: string, startToFireTimeout = '3600', control?: string): Decision => ({
    decisionType: 'StartTimer',
    startTimerDecisionAttributes: {
      timerId,
      startToFireTimeout,
      ...(control === undefined ? {} : { control }),
    },
  }),
  cancelTimer: (timerId: string): Decision => ({
    decisionType: 'CancelTimer',
    cancelTimerDecisionAttributes: { timerId },
  }),
};

/** Epoch milliseconds of an event's timestamp. */
export const at = (event: HistoryEvent | undefined) =>
  event?.eventTimestamp?.getTime() ?? Number.NaN;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
