/**
 * An execution as long as SWF lets one grow: activities (some failing, then retried), timers and a
 * signal first, then markers a thousand to a decision until the service terminates the run at its
 * 25,000-event limit (EVENT_LIMIT_EXCEEDED). For the console's test that such a history opens quickly.
 */
import {
  type Decision,
  DescribeWorkflowExecutionCommand,
  GetWorkflowExecutionHistoryCommand,
  PollForActivityTaskCommand,
  PollForDecisionTaskCommand,
  RegisterActivityTypeCommand,
  RegisterWorkflowTypeCommand,
  RespondActivityTaskCompletedCommand,
  RespondActivityTaskFailedCommand,
  RespondDecisionTaskCompletedCommand,
  SignalWorkflowExecutionCommand,
  StartWorkflowExecutionCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import type { ExecutionRef } from './order-runs.js';

const TYPE = { name: 'BigHistory', version: '1' };
const ACTIVITIES = 40;
const MARKERS_PER_DECISION = 1000;
/** SWF's limit on a run's history. */
const HISTORY_LIMIT = 25_000;

const registered = (call: Promise<unknown>) =>
  call.catch((error: unknown) => {
    if (!(error instanceof Error && error.name === 'TypeAlreadyExistsFault')) throw error;
  });

export async function bigHistory(
  client: SWFClient,
  domain: string,
  workflowId: string,
): Promise<ExecutionRef> {
  const decisions = `${workflowId}-decisions`;
  await registered(
    client.send(
      new RegisterWorkflowTypeCommand({
        domain,
        ...TYPE,
        defaultTaskList: { name: decisions },
        defaultExecutionStartToCloseTimeout: '3600',
        defaultTaskStartToCloseTimeout: '300',
        defaultChildPolicy: 'TERMINATE',
      }),
    ),
  );
  for (const name of ['Resize', 'Upload'])
    await registered(client.send(new RegisterActivityTypeCommand({ domain, name, version: '1' })));
  const work = `${workflowId}-work`;
  const { runId = '' } = await client.send(
    new StartWorkflowExecutionCommand({
      domain,
      workflowId,
      workflowType: TYPE,
      input: '{"size":"max"}',
    }),
  );
  await decide(client, domain, decisions, [...activityDecisions(work, 'a'), ...timerDecisions()]);
  const tried = new Set<string>();
  await workActivities(client, domain, work, ACTIVITIES, tried);
  // Those that failed are tried again.
  await decide(
    client,
    domain,
    decisions,
    activityDecisions(work, 'a', (i) => i % 4 === 0),
  );
  await workActivities(client, domain, work, ACTIVITIES / 4, tried);
  // A timer that fired while the markers are added would take room they counted on, and the run
  // would end short of the limit: the markers start once every timer has fired.
  await timersFired(client, domain, { workflowId, runId });
  await fillToTheLimit(client, domain, decisions, { workflowId, runId });
  const last = await lastEventId(client, domain, { workflowId, runId });
  if (last < HISTORY_LIMIT - 10)
    throw new Error(`the run was terminated at event ${last}, short of the ${HISTORY_LIMIT} limit`);
  return { workflowId, runId };
}

async function lastEventId(client: SWFClient, domain: string, execution: ExecutionRef) {
  const { events = [] } = await client.send(
    new GetWorkflowExecutionHistoryCommand({
      domain,
      execution,
      reverseOrder: true,
      maximumPageSize: 1,
    }),
  );
  return events[0]?.eventId ?? 0;
}

async function timersFired(client: SWFClient, domain: string, execution: ExecutionRef) {
  for (;;) {
    const info = await client.send(new DescribeWorkflowExecutionCommand({ domain, execution }));
    if (info.openCounts?.openTimers === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Markers, a thousand a decision, until the run's history is full and SWF terminates it. */
async function fillToTheLimit(
  client: SWFClient,
  domain: string,
  decisions: string,
  execution: ExecutionRef,
) {
  const closed = async () => {
    const info = await client.send(new DescribeWorkflowExecutionCommand({ domain, execution }));
    return info.executionInfo?.executionStatus === 'CLOSED';
  };
  for (let round = 0; !(await closed()); round++) {
    // Room left for markers: the signal and its decision task take four events, the termination one.
    const room = HISTORY_LIMIT - (await lastEventId(client, domain, execution)) - 5;
    await client.send(
      new SignalWorkflowExecutionCommand({
        domain,
        ...execution,
        signalName: 'more',
        input: String(round),
      }),
    );
    // The signal itself may be what passes the limit.
    if (await closed()) return;
    const marks = Array.from(
      { length: Math.max(1, Math.min(MARKERS_PER_DECISION, room)) },
      (_, i): Decision => ({
        decisionType: 'RecordMarker',
        recordMarkerDecisionAttributes: {
          markerName: `step-${round}-${i}`,
          details: JSON.stringify({ round, i }),
        },
      }),
    );
    await decide(client, domain, decisions, marks);
  }
}

function activityDecisions(
  list: string,
  prefix: string,
  only: (i: number) => boolean = () => true,
): Decision[] {
  return Array.from({ length: ACTIVITIES }, (_, i) => i)
    .filter(only)
    .map((i) => ({
      decisionType: 'ScheduleActivityTask',
      scheduleActivityTaskDecisionAttributes: {
        activityType: { name: i % 2 === 0 ? 'Resize' : 'Upload', version: '1' },
        activityId: `${prefix}${i}`,
        taskList: { name: list },
        input: JSON.stringify({ image: i }),
        scheduleToCloseTimeout: '600',
        scheduleToStartTimeout: '600',
        startToCloseTimeout: '600',
        heartbeatTimeout: 'NONE',
      },
    }));
}

function timerDecisions(): Decision[] {
  return Array.from({ length: 5 }, (_, i) => ({
    decisionType: 'StartTimer',
    startTimerDecisionAttributes: { timerId: `wait-${i}`, startToFireTimeout: String(1 + i) },
  }));
}

/**
 * Polls for a decision task and answers it with `decisions`; gives up after a few empty polls (the
 * run may have been terminated at its limit).
 */
async function decide(
  client: SWFClient,
  domain: string,
  list: string,
  decisions: Decision[],
): Promise<void> {
  for (let poll = 0; poll < 3; poll++) {
    const task = await client.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: list }, maximumPageSize: 1 }),
    );
    if (task.taskToken === undefined || task.taskToken === '') continue;
    await client.send(
      new RespondDecisionTaskCompletedCommand({ taskToken: task.taskToken, decisions }),
    );
    return;
  }
}

/** Works `count` activity tasks: every fourth fails the first time it is `tried`. */
async function workActivities(
  client: SWFClient,
  domain: string,
  list: string,
  count: number,
  tried: Set<string>,
): Promise<void> {
  for (let done = 0; done < count; ) {
    const task = await client.send(
      new PollForActivityTaskCommand({ domain, taskList: { name: list } }),
    );
    if (task.taskToken === undefined || task.taskToken === '') continue;
    const id = task.activityId ?? '';
    const index = Number(id.slice(1));
    const firstTry = !tried.has(id);
    tried.add(id);
    if (index % 4 === 0 && firstTry)
      await client.send(
        new RespondActivityTaskFailedCommand({
          taskToken: task.taskToken,
          reason: 'Timeout talking to storage',
        }),
      );
    else
      await client.send(
        new RespondActivityTaskCompletedCommand({
          taskToken: task.taskToken,
          result: JSON.stringify({ ok: index }),
        }),
      );
    done++;
  }
}
