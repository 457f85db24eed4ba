import {
  attributesMember,
  closeDecisionTypes,
  type Decision,
  type DecisionType,
} from '../core/decision.js';
import {
  type ContinuedRun,
  completeDecisionTask,
  type TypeLookup,
} from '../core/decision-tasks.js';
import { type ExecutionState, isStartedDecisionTask } from '../core/execution-state.js';
import { startRun } from '../core/executions.js';
import { UnknownResourceFault, ValidationException } from '../core/faults.js';
import type { TypeRef } from '../core/history-event.js';
import type { ActivityTypeRecord, TaskList, WorkflowTypeRecord } from '../core/registry.js';
import { stampAfter } from '../core/transition.js';
import { rejectMember } from '../core/validation-messages.js';
import { epochSeconds } from '../ports/clock.js';
import type { QueueEntry } from '../ports/task-queue-store.js';
import { authorizeInDomain, decisionAccess } from './access.js';
import { type OperationDeps, operation } from './context.js';
import { RECENT_REGISTRY, requireDomain } from './domains.js';
import { answerPoll, claimQueuedTask, longPoll } from './long-poll.js';
import { openExecutions } from './open-executions.js';
import { closedExecution, mutateRun, timedOutUnfired } from './run-mutation.js';
import {
  DECISION_POLL_ACTION,
  decisionHandoff,
  decisionTaskPage,
  type PollForDecisionTaskInput,
  type StartedDecisionTask,
  startScheduledDecision,
} from './task-start.js';

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
        { action: DECISION_POLL_ACTION, args },
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
    // An empty task when the poll times out: no taskToken, startedEventId 0.
    const empty = { startedEventId: 0, previousStartedEventId: 0 };
    if (task === undefined) return empty;
    return answerPoll(
      deps,
      request,
      list,
      task,
      (t) => decisionTaskPage(deps, input, args, t, firstEventId(t, input)),
      empty,
    );
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

function claimDecisionTask(deps: OperationDeps, entry: QueueEntry, identity: string | undefined) {
  return claimQueuedTask<StartedDecisionTask>(deps, entry, (loaded) =>
    startScheduledDecision(deps, loaded, entry.scheduledEventId, identity),
  );
}

async function nextHistoryPage(
  deps: OperationDeps,
  input: PollForDecisionTaskInput,
  args: unknown,
  cursor: string,
) {
  const [runId = '', scheduled, started, next] = cursor.split('|');
  const loaded = await deps.runs.loadRun(runId);
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
  async (input, deps, request) => {
    const claims = await deps.taskTokens.decode(input.taskToken, 'decision');
    const current = await deps.runs.loadRun(claims.runId);
    const unknownTask = () =>
      new UnknownResourceFault(
        `Unknown decision task, scheduledEventId = ${claims.scheduledEventId}`,
      );
    if (current === undefined) throw unknownTask();
    authorizeInDomain(deps, request, 'RespondDecisionTaskCompleted', current.state.domain);
    const access = decisionAccess(deps, request, current.state.domain);
    if (current.state.status !== 'OPEN') throw closedExecution(current.state);
    // The token names the started task before the decisions are judged; the commit
    // checks again against the state it writes over.
    if (!isStartedDecisionTask(current.state, claims.startedEventId)) throw unknownTask();
    // A task past its start-to-close timeout (or of a run past its own) is timed out, whether or not
    // the fire that records it has come yet (see passedDeadline).
    const task = { kind: 'decision' as const, scheduledEventId: claims.scheduledEventId };
    if (await timedOutUnfired(deps, current.state, task)) throw unknownTask();
    const decisions = unwrapDecisions(input.decisions ?? []);
    const types = await loadTypes(deps, current.state, decisions);
    const startsChildren = decisions.some((d) => d.decisionType === 'StartChildWorkflowExecution');
    const openWorkflowsRoom = startsChildren
      ? await openExecutions(deps).room(current.state.domain)
      : undefined;
    const response = {
      decisions,
      ...(input.executionContext === undefined ? {} : { executionContext: input.executionContext }),
      ...(input.taskList === undefined ? {} : { taskList: input.taskList }),
      ...(input.taskListScheduleToStartTimeout === undefined
        ? {}
        : { taskListScheduleToStartTimeout: input.taskListScheduleToStartTimeout }),
    };
    let initiated = 0;
    const answer = await mutateRun(
      deps,
      claims.runId,
      async ({ state }) => {
        if (state.status !== 'OPEN') throw closedExecution(state);
        if (!isStartedDecisionTask(state, claims.startedEventId)) throw unknownTask();
        if (await timedOutUnfired(deps, state, task)) throw unknownTask();
        const now = epochSeconds(deps.clock);
        const { transition, continuedRun } = completeDecisionTask(state, response, types, {
          now,
          newRunId: () => deps.ids.runId(),
          lambdaAvailable: deps.lambda.available,
          ...(openWorkflowsRoom === undefined ? {} : { openWorkflowsRoom }),
          ...(access === undefined ? {} : { access }),
        });
        initiated = transition.events.filter(
          (e) => e.eventType === 'StartChildWorkflowExecutionInitiated',
        ).length;
        const base = {
          write: true as const,
          result: undefined,
          state: transition.state,
          events: transition.events,
        };
        return continuedRun === undefined
          ? base
          : {
              ...base,
              // The new run starts when the old one closed (its events may be held after `now`).
              newRun: continueRun(
                transition.state,
                continuedRun,
                stampAfter(transition.state, now),
              ),
            };
      },
      current,
    );
    if (initiated > 0) openExecutions(deps).opened(current.state.domain, initiated);
    return answer;
  },
);

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
 * Checks what the model cannot: each decision carries the attributes its type
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
