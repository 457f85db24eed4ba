/**
 * The domain the timeout tests run in: its workflow and activity types, its task lists, the wire form
 * of the decisions they send, and a service on a manual clock of its own for each scenario.
 */
import { randomUUID } from 'node:crypto';
import { ManualClockService } from './manual-clock-service.js';
import type { TestStores } from './stores.js';
import type { OracleDecision } from './timeout-oracle.js';

export const ACTIVITY_TYPES = {
  full: { scheduleToStart: '6', scheduleToClose: '20', startToClose: '9', heartbeat: '4' },
  bare: { startToClose: '7' },
  unlimited: {
    scheduleToStart: 'NONE',
    scheduleToClose: 'NONE',
    startToClose: 'NONE',
    heartbeat: 'NONE',
  },
} as const;
export type TypeName = keyof typeof ACTIVITY_TYPES;

export const MAIN_LIST = 'deciders';
export const ALT_LIST = 'deciders-alt';
export const ACTIVITY_IDS = ['a0', 'a1', 'a2'];
export const TIMER_IDS = ['t0', 't1'];

export type HistoryEvent = { eventType: string; [k: string]: unknown };

let clockBase = Math.floor(Date.now() / 1000) * 1000;

/**
 * A service on a clock 30 days past the previous scenario's, with the domain and its types
 * registered: no scenario's deadlines reach into another's.
 */
export async function freshTimeoutDomain(
  stores: TestStores,
  lambda?: ConstructorParameters<typeof ManualClockService>[2],
) {
  clockBase += 30 * 86_400_000;
  const service = new ManualClockService(stores, clockBase, lambda);
  const domain = `to-${randomUUID().slice(0, 8)}`;
  await registerTypes(service, domain);
  return { service, domain };
}

async function registerTypes(service: ManualClockService, domain: string) {
  await service.must('RegisterDomain', {
    name: domain,
    workflowExecutionRetentionPeriodInDays: '1',
  });
  await service.must('RegisterWorkflowType', {
    domain,
    name: 'w',
    version: '1',
    defaultTaskList: { name: MAIN_LIST },
    defaultExecutionStartToCloseTimeout: '600',
    defaultTaskStartToCloseTimeout: '60',
    defaultChildPolicy: 'ABANDON',
  });
  for (const [name, d] of Object.entries(ACTIVITY_TYPES) as [TypeName, Record<string, string>][])
    await service.must('RegisterActivityType', {
      domain,
      name,
      version: '1',
      ...(d.scheduleToStart === undefined
        ? {}
        : { defaultTaskScheduleToStartTimeout: d.scheduleToStart }),
      ...(d.scheduleToClose === undefined
        ? {}
        : { defaultTaskScheduleToCloseTimeout: d.scheduleToClose }),
      ...(d.startToClose === undefined ? {} : { defaultTaskStartToCloseTimeout: d.startToClose }),
      ...(d.heartbeat === undefined ? {} : { defaultTaskHeartbeatTimeout: d.heartbeat }),
    });
}

/**
 * The execution that the hand-written timeout scenarios run: workflow `w` on the main list, 600 s to
 * close, no decision task timeout, child policy TERMINATE.
 */
export const ONE_RUN = {
  workflowId: 'w',
  workflowType: { name: 'w', version: '1' },
  taskList: { name: MAIN_LIST },
  taskStartToCloseTimeout: 'NONE',
  executionStartToCloseTimeout: '600',
  childPolicy: 'TERMINATE',
} as const;

/** Starts `ONE_RUN` in `domain` a second after the clock's start, with `extra` request fields. */
export async function startOneRun(
  service: ManualClockService,
  domain: string,
  extra: Record<string, unknown> = {},
) {
  service.clock.ms += 1_000;
  const started = await service.must('StartWorkflowExecution', { domain, ...ONE_RUN, ...extra });
  return { workflowId: ONE_RUN.workflowId, runId: started.runId as string };
}

/** An execution's history: its first page, which holds all the events these tests make. */
export async function historyOf(
  service: ManualClockService,
  domain: string,
  execution: { workflowId: string; runId: string },
): Promise<HistoryEvent[]> {
  const page = await service.must('GetWorkflowExecutionHistory', { domain, execution });
  return (page.events ?? []) as HistoryEvent[];
}

type Run = { workflowId: string; runId: string };

/**
 * A fresh domain whose workflow `parent` (execution timeout `parent` s, child policy `policy`) has
 * started one child (`child` s, policy ABANDON), neither with a decision task timeout; `t0` is the
 * clock once the child started.
 */
export async function parentWithChild(
  stores: TestStores,
  timeouts: { parent: number; child: number; policy: string },
) {
  const { service, domain } = await freshTimeoutDomain(stores);
  service.clock.ms += 1_000;
  const started = await service.must('StartWorkflowExecution', {
    domain,
    workflowId: 'parent',
    workflowType: { name: 'w', version: '1' },
    taskList: { name: MAIN_LIST },
    taskStartToCloseTimeout: 'NONE',
    executionStartToCloseTimeout: String(timeouts.parent),
    childPolicy: timeouts.policy,
  });
  const parentRun: Run = { workflowId: 'parent', runId: started.runId as string };
  const task = await service.must('PollForDecisionTask', { domain, taskList: { name: MAIN_LIST } });
  await service.must('RespondDecisionTaskCompleted', {
    taskToken: task.taskToken,
    decisions: [startChildDecision(timeouts.child)],
  });
  const events = (execution: Run) => historyOf(service, domain, execution);
  const childStarted = (await events(parentRun)).find(
    (e) => e.eventType === 'ChildWorkflowExecutionStarted',
  );
  if (childStarted === undefined) throw new Error('the child did not start');
  const childRun = (
    childStarted.childWorkflowExecutionStartedEventAttributes as { workflowExecution: Run }
  ).workflowExecution;
  const describeRun = (execution: Run) =>
    service.must('DescribeWorkflowExecution', { domain, execution });
  return { service, domain, parentRun, childRun, events, describeRun, t0: service.clock.ms };
}

function startChildDecision(seconds: number) {
  return {
    decisionType: 'StartChildWorkflowExecution',
    startChildWorkflowExecutionDecisionAttributes: {
      workflowType: { name: 'w', version: '1' },
      workflowId: 'child',
      taskList: { name: 'child-deciders' },
      executionStartToCloseTimeout: String(seconds),
      taskStartToCloseTimeout: 'NONE',
      childPolicy: 'ABANDON',
    },
  };
}

/** An oracle's decision as RespondDecisionTaskCompleted takes it. */
export function toWire(d: OracleDecision): Record<string, unknown> {
  switch (d.kind) {
    case 'schedule':
      return {
        decisionType: 'ScheduleActivityTask',
        scheduleActivityTaskDecisionAttributes: {
          activityType: { name: d.typeName, version: '1' },
          activityId: d.activityId,
          taskList: { name: d.taskList },
          ...(d.timeouts.scheduleToStart === undefined
            ? {}
            : { scheduleToStartTimeout: d.timeouts.scheduleToStart }),
          ...(d.timeouts.scheduleToClose === undefined
            ? {}
            : { scheduleToCloseTimeout: d.timeouts.scheduleToClose }),
          ...(d.timeouts.startToClose === undefined
            ? {}
            : { startToCloseTimeout: d.timeouts.startToClose }),
          ...(d.timeouts.heartbeat === undefined ? {} : { heartbeatTimeout: d.timeouts.heartbeat }),
        },
      };
    case 'cancelActivity':
      return {
        decisionType: 'RequestCancelActivityTask',
        requestCancelActivityTaskDecisionAttributes: { activityId: d.activityId },
      };
    case 'startTimer':
      return {
        decisionType: 'StartTimer',
        startTimerDecisionAttributes: { timerId: d.timerId, startToFireTimeout: String(d.seconds) },
      };
    case 'cancelTimer':
      return { decisionType: 'CancelTimer', cancelTimerDecisionAttributes: { timerId: d.timerId } };
  }
}
