import {
  attributesMember,
  closeDecisionTypes,
  type Decision,
  type DecisionType,
} from '../core/decision.js';
import {
  type ContinuedRun,
  completeDecisionTask,
  startDecisionTask,
  type TypeLookup,
} from '../core/decision-tasks.js';
import type { ExecutionState } from '../core/execution-state.js';
import { startRun } from '../core/executions.js';
import { UnknownResourceFault, ValidationException } from '../core/faults.js';
import { type HistoryEvent, type TypeRef, toWireEvent } from '../core/history-event.js';
import type { ActivityTypeRecord, TaskList, WorkflowTypeRecord } from '../core/registry.js';
import type { PushedTaskRef } from '../core/task-queue.js';
import { rejectMember } from '../http/coral-message.js';
import { epochSeconds } from '../ports/clock.js';
import type { HistoryPage, LoadedRun, QueueEntry } from '../ports/execution-store.js';
import type { HandoffStarter } from '../ports/task-notifier.js';
import { PUSHED_EVENT_MAX_BYTES } from '../ports/task-push.js';
import { type OperationDeps, operation } from './context.js';
import { RECENT_REGISTRY, requireDomain } from './domains.js';
import { claimQueuedTask, longPoll } from './long-poll.js';
import { pageSize } from './paging.js';
import { closedExecution, mutateRun } from './run-mutation.js';
import { deliverPushed, pushedEvent, startPushed } from './task-push.js';
import type { TaskTokenClaims } from './task-token.js';

interface PollForDecisionTaskInput {
  domain: string;
  taskList: TaskList;
  identity?: string;
  nextPageToken?: string;
  maximumPageSize?: number;
  reverseOrder?: boolean;
  startAtPreviousStartedEvent?: boolean;
}

interface StartedDecisionTask {
  readonly state: ExecutionState;
  readonly scheduledEventId: number;
  readonly startedEventId: number;
  /** The whole history up to DecisionTaskStarted, when it is already in hand. */
  readonly history?: readonly HistoryEvent[];
  /** The run's latest events, when in hand (through DecisionTaskStarted at least): only what precedes them is read. */
  readonly recent?: readonly HistoryEvent[];
}

/** A page of history from the events in hand, exactly as the store would read it. */
function pageOf(
  history: readonly HistoryEvent[],
  page: { after?: number; limit: number; reverse: boolean },
): HistoryPage {
  const from = page.after ?? (page.reverse ? Number.MAX_SAFE_INTEGER : 1);
  const events = page.reverse
    ? [...history].reverse().filter((e) => e.eventId <= from)
    : history.filter((e) => e.eventId >= from);
  const next = events[page.limit]?.eventId;
  const shown = events.slice(0, page.limit);
  return next === undefined ? { events: shown } : { events: shown, next };
}

const POLL_ACTION = 'PollForDecisionTask';

export const pollForDecisionTask = operation<PollForDecisionTaskInput>(
  async (input, deps, request) => {
    await requireDomain(deps, input.domain, RECENT_REGISTRY);
    const args = {
      domain: input.domain,
      taskList: input.taskList.name,
      reverseOrder: input.reverseOrder === true,
      startAtPreviousStartedEvent: input.startAtPreviousStartedEvent === true,
    };
    if (input.nextPageToken !== undefined && input.nextPageToken !== '') {
      const cursor = await deps.pageTokens.decode(
        { action: POLL_ACTION, args },
        input.nextPageToken,
      );
      return nextHistoryPage(deps, input, args, cursor);
    }
    const list = { kind: 'decision' as const, domain: input.domain, taskList: input.taskList.name };
    const task = await longPoll(
      deps,
      request,
      list,
      (entry) => claimDecisionTask(deps, entry, input.identity),
      decisionHandoff(deps, input.identity),
    );
    // An empty task when the poll times out: no taskToken, startedEventId 0 (swf-api.md §4, §14.1).
    if (task === undefined) return { startedEventId: 0, previousStartedEventId: 0 };
    return decisionTaskPage(deps, input, args, task, firstEventId(task, input));
  },
);

function firstEventId(
  task: StartedDecisionTask,
  input: PollForDecisionTaskInput,
): number | undefined {
  if (input.reverseOrder === true) return task.startedEventId;
  const previous = task.state.previousStartedEventId;
  return input.startAtPreviousStartedEvent === true && previous > 0 ? previous : undefined;
}

/** Starts a decision task the moment it is scheduled, for a poller waiting on its list. */
function decisionHandoff(deps: OperationDeps, identity: string | undefined): HandoffStarter {
  return (state, task, events) => {
    const scheduled = state.decisionTask;
    if (
      task.kind !== 'decision' ||
      state.status !== 'OPEN' ||
      scheduled.status !== 'scheduled' ||
      scheduled.scheduledEventId !== task.scheduledEventId
    ) {
      return undefined;
    }
    const t = startDecisionTask(state, identity, epochSeconds(deps.clock));
    const known = [...events, ...t.events];
    const result: StartedDecisionTask = {
      state: t.state,
      scheduledEventId: scheduled.scheduledEventId,
      startedEventId: t.state.nextEventId - 1,
      // A run's first decision task holds only events of this commit: no need to read them back.
      ...(known[0]?.eventId === 1 ? { history: known } : {}),
    };
    return { state: t.state, events: t.events, result };
  };
}

function claimDecisionTask(deps: OperationDeps, entry: QueueEntry, identity: string | undefined) {
  return claimQueuedTask<StartedDecisionTask>(deps, entry, (loaded) =>
    startScheduledDecision(deps, loaded, entry.scheduledEventId, identity),
  );
}

/** Starts the run's scheduled decision task (a queue entry's, or a push list's) for `identity`. */
function startScheduledDecision(
  deps: OperationDeps,
  { state, recentEvents }: LoadedRun,
  scheduledEventId: number,
  identity: string | undefined,
) {
  const t = startDecisionTask(state, identity, epochSeconds(deps.clock));
  const result: StartedDecisionTask = {
    state: t.state,
    scheduledEventId,
    startedEventId: t.state.nextEventId - 1,
    recent: [...(recentEvents ?? []), ...t.events],
  };
  return { state: t.state, events: t.events, result };
}

/**
 * Starts a decision task scheduled on a push task list, for its function (the identity that took it),
 * and hands the function what a poll would have answered: the history's first page, as large as the
 * invocation's payload allows (the function reads the next pages with PollForDecisionTask and the
 * nextPageToken, as a poller does). A task already started, or of a closed run, is left alone; one
 * whose function cannot be reached times out (start-to-close) and is scheduled again.
 */
export async function pushDecisionTask(deps: OperationDeps, task: PushedTaskRef): Promise<void> {
  const started = await startPushed(deps, task, (loaded) =>
    startScheduledDecision(deps, loaded, task.scheduledEventId, task.target),
  );
  if (started === undefined) return;
  const input = { domain: task.domain, taskList: { name: task.taskList } };
  const args = {
    domain: task.domain,
    taskList: task.taskList,
    reverseOrder: false,
    startAtPreviousStartedEvent: false,
  };
  for (let limit = pageSize(undefined); ; limit = Math.ceil(limit / 2)) {
    const page = await decisionTaskPage(
      deps,
      { ...input, maximumPageSize: limit },
      args,
      started,
      undefined,
    );
    const event = pushedEvent(task, page);
    if (limit === 1 || Buffer.byteLength(JSON.stringify(event)) <= PUSHED_EVENT_MAX_BYTES)
      return deliverPushed(deps, task, event);
  }
}

/** One page of a decision task's history; the other members are repeated on every page. */
async function decisionTaskPage(
  deps: OperationDeps,
  input: PollForDecisionTaskInput,
  args: unknown,
  task: StartedDecisionTask,
  after: number | undefined,
): Promise<object> {
  const { state, scheduledEventId, startedEventId } = task;
  const reverse = input.reverseOrder === true;
  const limit = pageSize(input.maximumPageSize);
  const range = { ...(after === undefined ? {} : { after }), limit, reverse };
  const page =
    task.history === undefined
      ? await deps.executions.readHistory(state.execution.runId, {
          ...range,
          ...(task.recent === undefined ? {} : { recent: task.recent }),
        })
      : pageOf(task.history, range);
  // The task's view of the history ends at its DecisionTaskStarted.
  const events = page.events.filter((e) => e.eventId <= startedEventId);
  const next = page.next !== undefined && page.next <= startedEventId ? page.next : undefined;
  const taskToken = await deps.taskTokens.encode({
    kind: 'decision',
    runId: state.execution.runId,
    scheduledEventId,
    startedEventId,
  });
  const cursor =
    next === undefined
      ? undefined
      : [state.execution.runId, scheduledEventId, startedEventId, next].join('|');
  return {
    taskToken,
    startedEventId,
    workflowExecution: state.execution,
    workflowType: state.workflowType,
    events: events.map(toWireEvent),
    ...(cursor === undefined
      ? {}
      : { nextPageToken: await deps.pageTokens.encode({ action: POLL_ACTION, args }, cursor) }),
    previousStartedEventId: state.previousStartedEventId,
  };
}

async function nextHistoryPage(
  deps: OperationDeps,
  input: PollForDecisionTaskInput,
  args: unknown,
  cursor: string,
) {
  const [runId = '', scheduled, started, next] = cursor.split('|');
  const loaded = await deps.executions.loadRun(runId);
  if (loaded === undefined) throw new UnknownResourceFault(`Unknown execution: runId=${runId}`);
  const task = {
    state: loaded.state,
    scheduledEventId: Number(scheduled),
    startedEventId: Number(started),
    ...(loaded.recentEvents === undefined ? {} : { recent: loaded.recentEvents }),
  };
  return decisionTaskPage(deps, input, args, task, Number(next));
}

interface RespondDecisionTaskCompletedInput {
  taskToken: string;
  decisions?: Record<string, unknown>[];
  executionContext?: string;
  taskList?: TaskList;
  taskListScheduleToStartTimeout?: string;
}

export const respondDecisionTaskCompleted = operation<RespondDecisionTaskCompletedInput>(
  async (input, deps) => {
    const claims = await deps.taskTokens.decode(input.taskToken, 'decision');
    const current = await deps.executions.loadRun(claims.runId);
    const unknownTask = () =>
      new UnknownResourceFault(
        `Unknown decision task, scheduledEventId = ${claims.scheduledEventId}`,
      );
    if (current === undefined) throw unknownTask();
    if (current.state.status !== 'OPEN') throw closedExecution(current.state);
    // The token names the started task before the decisions are judged (swf-api.md §6.3); the commit
    // checks again against the state it writes over.
    if (!isStartedTask(current.state, claims)) throw unknownTask();
    const decisions = unwrapDecisions(input.decisions ?? []);
    const types = await loadTypes(deps, current.state, decisions);
    const response = {
      decisions,
      ...(input.executionContext === undefined ? {} : { executionContext: input.executionContext }),
      ...(input.taskList === undefined ? {} : { taskList: input.taskList }),
      ...(input.taskListScheduleToStartTimeout === undefined
        ? {}
        : { taskListScheduleToStartTimeout: input.taskListScheduleToStartTimeout }),
    };
    return mutateRun(
      deps,
      claims.runId,
      ({ state }) => {
        if (state.status !== 'OPEN') throw closedExecution(state);
        if (!isStartedTask(state, claims)) throw unknownTask();
        const now = epochSeconds(deps.clock);
        const { transition, continuedRun } = completeDecisionTask(state, response, types, {
          now,
          newRunId: () => deps.ids.runId(),
          lambdaAvailable: deps.lambda.available,
        });
        const base = {
          write: true as const,
          result: undefined,
          state: transition.state,
          events: transition.events,
        };
        return continuedRun === undefined
          ? base
          : { ...base, newRun: continueRun(transition.state, continuedRun, now) };
      },
      current,
    );
  },
);

/** Whether the token's decision task is the run's started one (not completed or timed out since). */
function isStartedTask(state: ExecutionState, claims: TaskTokenClaims): boolean {
  const task = state.decisionTask;
  return task.status === 'started' && task.startedEventId === claims.startedEventId;
}

function continueRun(previous: ExecutionState, run: ContinuedRun, now: number) {
  return startRun(
    {
      domain: previous.domain,
      execution: { workflowId: previous.execution.workflowId, runId: run.runId },
      workflowType: run.workflowType,
      config: run.request,
      continuedExecutionRunId: previous.execution.runId,
      ...(run.input === undefined ? {} : { input: run.input }),
      ...(run.tagList === undefined ? {} : { tagList: run.tagList }),
      ...(previous.parent === undefined ? {} : { parent: previous.parent }),
    },
    now,
  );
}

/**
 * Checks what the model cannot (swf-api.md §6.3 step 2): each decision carries the attributes its type
 * needs, and a close decision is the last one. Any problem rejects the whole response; nothing is recorded.
 */
function unwrapDecisions(wire: readonly Record<string, unknown>[]): Decision[] {
  // The casts below rest on validateInput: decisionType is one of the enum's values and each
  // attributes member has been checked against its shape in the service model.
  return wire.map((d, i) => {
    const decisionType = d.decisionType as DecisionType;
    const path = `decisions.${i + 1}.member`;
    if (closeDecisionTypes.has(decisionType) && i !== wire.length - 1) {
      throw new ValidationException('Close must be last decision in list');
    }
    const member = attributesMember(decisionType);
    const attributes = d[member];
    if (attributes === undefined) {
      if (!decisionsWithOptionalAttributes.has(decisionType))
        rejectMember(`${path}.${member}`, null, 'Member must not be null');
      return { decisionType, attributes: {} } as Decision;
    }
    return { decisionType, attributes } as Decision;
  });
}

const decisionsWithOptionalAttributes: ReadonlySet<DecisionType> = new Set([
  'CompleteWorkflowExecution',
  'FailWorkflowExecution',
  'CancelWorkflowExecution',
  'ContinueAsNewWorkflowExecution',
]);

/** Loads every registered type the decisions name, once, so the core can decide without I/O. */
async function loadTypes(
  deps: OperationDeps,
  state: ExecutionState,
  decisions: readonly Decision[],
): Promise<TypeLookup> {
  const domain = state.domain;
  const activityRefs = new Map<string, TypeRef>();
  const workflowRefs = new Map<string, TypeRef>();
  const keyOf = (ref: TypeRef) => JSON.stringify([ref.name, ref.version]);
  for (const d of decisions) {
    if (d.decisionType === 'ScheduleActivityTask')
      activityRefs.set(keyOf(d.attributes.activityType), d.attributes.activityType);
    if (d.decisionType === 'StartChildWorkflowExecution')
      workflowRefs.set(keyOf(d.attributes.workflowType), d.attributes.workflowType);
    if (d.decisionType === 'ContinueAsNewWorkflowExecution') {
      const ref = {
        name: state.workflowType.name,
        version: d.attributes.workflowTypeVersion ?? state.workflowType.version,
      };
      workflowRefs.set(keyOf(ref), ref);
    }
  }
  const activities = new Map<string, ActivityTypeRecord>();
  const workflows = new Map<string, WorkflowTypeRecord>();
  await Promise.all([
    ...[...activityRefs].map(async ([key, ref]) => {
      const type = await deps.registry.getType(
        { kind: 'activity', domain, ...ref },
        RECENT_REGISTRY,
      );
      if (type?.kind === 'activity') activities.set(key, type);
    }),
    ...[...workflowRefs].map(async ([key, ref]) => {
      const type = await deps.registry.getType(
        { kind: 'workflow', domain, ...ref },
        RECENT_REGISTRY,
      );
      if (type?.kind === 'workflow') workflows.set(key, type);
    }),
  ]);
  return {
    activityType: (ref) => activities.get(keyOf(ref)),
    workflowType: (ref) => workflows.get(keyOf(ref)),
  };
}
