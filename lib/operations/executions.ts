import { executionTimedOutBy } from '../core/deadlines.js';
import { type ExecutionConfig, type ExecutionState, openCounts } from '../core/execution-state.js';
import {
  type ExecutionRequest,
  requestCancelExecution,
  resolveExecutionConfig,
  signalExecution,
  startRun,
  terminateExecution,
} from '../core/executions.js';
import {
  DefaultUndefinedFault,
  DomainDeprecatedFault,
  faultText,
  LimitExceededFault,
  ThrottlingException,
  TypeDeprecatedFault,
  UnknownResourceFault,
  WorkflowExecutionAlreadyStartedFault,
} from '../core/faults.js';
import type { TypeRef } from '../core/history-event.js';
import { tagListKeys } from '../core/swf-access.js';
import { queueChanges } from '../core/task-queue.js';
import type { Transition } from '../core/transition.js';
import { epochSeconds } from '../ports/clock.js';
import type { CommitOutcome } from '../ports/run-store.js';
import { authorizeInDomain, authorizePassRole } from './access.js';
import { type OperationDeps, operation, type RequestContext } from './context.js';
import { RECENT_REGISTRY, requireDomain } from './domains.js';
import { MAX_OPEN_EXECUTIONS, openExecutions } from './open-executions.js';
import { historyPage, nextPageToken, pageSize } from './paging.js';
import {
  closedExecution,
  commitRuns,
  continuedAsNew,
  MAX_CONTINUED_HOPS,
  mutateRun,
  requireRun,
  resolveOpenRun,
  startStampedAfterClose,
} from './run-mutation.js';

interface StartWorkflowExecutionInput extends ExecutionRequest {
  domain: string;
  workflowId: string;
  workflowType: TypeRef;
  input?: string;
  tagList?: string[];
}

/**
 * The domain and workflow type of a start the caller may make: SWF judges swf:taskList.name on the
 * type's default task list when the start names none, so the type is read first. A start the caller
 * may not make is refused as such even when its domain or type is unknown (which it does not learn).
 */
async function authorizedStart(
  deps: OperationDeps,
  request: RequestContext,
  input: StartWorkflowExecutionInput,
) {
  const keys = (defaultTaskList: string | undefined) => ({
    'swf:workflowType.name': input.workflowType.name,
    'swf:workflowType.version': input.workflowType.version,
    'swf:taskList.name': input.taskList?.name ?? defaultTaskList,
    ...tagListKeys(input.tagList),
  });
  const authorize = (defaultTaskList?: string) =>
    authorizeInDomain(deps, request, 'StartWorkflowExecution', input.domain, keys(defaultTaskList));
  try {
    const domain = await requireDomain(deps, input.domain, RECENT_REGISTRY);
    const type = await deps.registry.getType(
      { kind: 'workflow', domain: input.domain, ...input.workflowType },
      RECENT_REGISTRY,
    );
    if (type === undefined || type.kind !== 'workflow') {
      throw new UnknownResourceFault(
        faultText.unknownType('WorkflowType', input.workflowType.name, input.workflowType.version),
      );
    }
    authorize(type.configuration.defaultTaskList?.name);
    authorizePassRole(deps, request, input.lambdaRole);
    return { domain, type };
  } catch (error) {
    if (error instanceof UnknownResourceFault) authorize();
    throw error;
  }
}

export const startWorkflowExecution = operation<StartWorkflowExecutionInput>(
  async (input, deps, request) => {
    const { domain, type } = await authorizedStart(deps, request, input);
    if (type.status === 'DEPRECATED') {
      throw new TypeDeprecatedFault(faultText.typeRef('WorkflowType', type.name, type.version));
    }
    if (domain.status === 'DEPRECATED')
      throw new DomainDeprecatedFault(`Domain is deprecated: ${domain.name}`);
    const resolved = resolveExecutionConfig(input, type.configuration);
    if (!resolved.ok) throw new DefaultUndefinedFault(resolved.missing);
    const gauge = openExecutions(deps);
    if ((await gauge.room(input.domain)) === 0) {
      throw new LimitExceededFault(
        `Domain ${input.domain} has ${MAX_OPEN_EXECUTIONS} open executions, the most it may have`,
      );
    }
    const { workflowId } = input;
    // A start whose run was fenced while it was between its writes (another start found the run
    // missing and took the workflowId: see OpenRunPointers) tries again under a new runId, as a
    // runId that was fenced can never be written.
    let outcome: CommitOutcome = 'conflict';
    let runId = '';
    for (let tries = 0; outcome === 'conflict' && tries < MAX_FENCED_TRIES; tries++) {
      runId = deps.ids.runId();
      outcome = await commitStart(deps, input, resolved.config, runId);
    }
    if (outcome === 'already-open') {
      throw new WorkflowExecutionAlreadyStartedFault(
        `An open execution already has workflowId ${workflowId}`,
      );
    }
    if (outcome !== 'committed')
      throw new ThrottlingException(
        `Other starts of workflowId ${workflowId} kept taking it from this one; try again`,
      );
    gauge.opened(input.domain);
    return { runId };
  },
);

/** Tries of a start whose run another start fenced (see startWorkflowExecution). */
const MAX_FENCED_TRIES = 3;

/** One try of a start: the new run `runId` and its workflowId's pointer, committed together. */
async function commitStart(
  deps: OperationDeps,
  input: StartWorkflowExecutionInput,
  config: ExecutionConfig,
  runId: string,
): Promise<CommitOutcome> {
  const { workflowId } = input;
  const { result } = await startStampedAfterClose(
    deps,
    (now) => {
      const { state, events } = startRun(
        {
          domain: input.domain,
          execution: { workflowId, runId },
          workflowType: input.workflowType,
          config,
          ...(input.input === undefined ? {} : { input: input.input }),
          ...(input.tagList === undefined ? {} : { tagList: input.tagList }),
        },
        now,
      );
      const write = { state, events, queue: queueChanges(undefined, state) };
      const pointer = {
        kind: 'acquire' as const,
        domain: input.domain,
        workflowId,
        runId,
        startedAt: now,
      };
      return commitRuns(deps, [write], [pointer]);
    },
    (outcome) => (outcome === 'already-open' ? { domain: input.domain, workflowId } : undefined),
  );
  return result;
}

interface ExecutionTarget {
  domain: string;
  workflowId: string;
  runId?: string;
}

/**
 * Records a change in the open run a request names (by runId, or its workflowId's open run): the run
 * resolved is the one committed on, unless it changed meanwhile (then it is read again, and must
 * still be open). A request by workflowId alone whose run continued as new meanwhile is carried to
 * the new run: continue-as-new closes one run and opens the next in one commit, so the workflowId
 * was never without an open run (MAX_CONTINUED_HOPS reads of the open run, each following at most as
 * many continued runs, then the fault).
 */
async function changeOpenRun(
  deps: OperationDeps,
  input: ExecutionTarget,
  change: (state: ExecutionState, now: number) => Transition,
): Promise<undefined> {
  await requireDomain(deps, input.domain, RECENT_REGISTRY);
  const byWorkflowId = input.runId === undefined || input.runId === '';
  for (let hop = 0; ; hop++) {
    const target = await resolveOpenRun(deps, input.domain, input.workflowId, input.runId);
    const follow = byWorkflowId && hop + 1 < MAX_CONTINUED_HOPS;
    const outcome = await mutateRun(
      deps,
      target.state.execution.runId,
      ({ state }) => {
        if (state.status !== 'OPEN') {
          if (follow && continuedAsNew(state))
            return { write: false, result: 'continued' as const };
          throw closedExecution(state);
        }
        const now = epochSeconds(deps.clock);
        // Past its own timeout, the fire not come: timed out for every request (see executionTimedOutBy).
        if (executionTimedOutBy(state, now)) throw closedExecution(state);
        const t = change(state, now);
        return { write: true, result: 'changed' as const, state: t.state, events: t.events };
      },
      target,
    );
    if (outcome === 'changed') return undefined;
  }
}

export const signalWorkflowExecution = operation<
  ExecutionTarget & { signalName: string; input?: string }
>(async (input, deps) => {
  const signal = {
    signalName: input.signalName,
    ...(input.input === undefined ? {} : { input: input.input }),
  };
  return changeOpenRun(deps, input, (state, now) => signalExecution(state, signal, now));
});

export const requestCancelWorkflowExecution = operation<ExecutionTarget>(async (input, deps) => {
  return changeOpenRun(deps, input, (state, now) => requestCancelExecution(state, {}, now));
});

interface TerminateInput extends ExecutionTarget {
  reason?: string;
  details?: string;
  childPolicy?: string;
}

export const terminateWorkflowExecution = operation<TerminateInput>(async (input, deps) => {
  const request = {
    ...(input.reason === undefined ? {} : { reason: input.reason }),
    ...(input.details === undefined ? {} : { details: input.details }),
    ...(input.childPolicy === undefined ? {} : { childPolicy: input.childPolicy }),
  };
  return changeOpenRun(deps, input, (state, now) => terminateExecution(state, request, now));
});

interface ExecutionInput {
  domain: string;
  execution: { workflowId: string; runId: string };
}

export const describeWorkflowExecution = operation<ExecutionInput>(async (input, deps) => {
  await requireDomain(deps, input.domain, RECENT_REGISTRY);
  const { state } = await requireRun(
    deps,
    input.domain,
    input.execution.workflowId,
    input.execution.runId,
  );
  const c = state.config;
  return {
    executionInfo: {
      execution: state.execution,
      workflowType: state.workflowType,
      startTimestamp: state.startTimestamp,
      ...(state.closeTimestamp === undefined ? {} : { closeTimestamp: state.closeTimestamp }),
      executionStatus: state.status,
      ...(state.closeStatus === undefined ? {} : { closeStatus: state.closeStatus }),
      ...(state.parent === undefined ? {} : { parent: state.parent.execution }),
      ...(state.tagList.length === 0 ? {} : { tagList: state.tagList }),
      cancelRequested: state.cancelRequested,
    },
    executionConfiguration: {
      taskStartToCloseTimeout: c.taskStartToCloseTimeout,
      executionStartToCloseTimeout: c.executionStartToCloseTimeout,
      taskList: c.taskList,
      taskPriority: c.taskPriority,
      childPolicy: c.childPolicy,
      ...(c.lambdaRole === undefined ? {} : { lambdaRole: c.lambdaRole }),
    },
    openCounts: openCounts(state),
    ...(state.latestActivityTaskTimestamp === undefined
      ? {}
      : { latestActivityTaskTimestamp: state.latestActivityTaskTimestamp }),
    ...(state.latestExecutionContext === undefined
      ? {}
      : { latestExecutionContext: state.latestExecutionContext }),
  };
});

interface HistoryInput extends ExecutionInput {
  nextPageToken?: string;
  maximumPageSize?: number;
  reverseOrder?: boolean;
}

export const getWorkflowExecutionHistory = operation<HistoryInput>(async (input, deps) => {
  await requireDomain(deps, input.domain, RECENT_REGISTRY);
  const { workflowId, runId } = input.execution;
  const loaded = await requireRun(deps, input.domain, workflowId, runId);
  const action = 'GetWorkflowExecutionHistory';
  const args = {
    domain: input.domain,
    workflowId,
    runId,
    reverseOrder: input.reverseOrder === true,
  };
  const token = input.nextPageToken;
  const after =
    token === undefined || token === ''
      ? undefined
      : Number(await deps.pageTokens.decode({ action, args }, token));
  const page = await deps.runs.readHistory(runId, {
    ...(after === undefined ? {} : { after }),
    limit: pageSize(input.maximumPageSize),
    reverse: input.reverseOrder === true,
    // The run's latest events came with it: only what precedes them is read.
    ...(loaded.recentEvents === undefined ? {} : { recent: loaded.recentEvents }),
  });
  const { events, next } = historyPage(page.events, page.next);
  return {
    events,
    ...(await nextPageToken(deps, action, args, next === undefined ? undefined : String(next))),
  };
});
