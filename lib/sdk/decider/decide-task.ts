import {
  type Decision,
  type DecisionTask,
  type HistoryEvent,
  PollForDecisionTaskCommand,
  RespondDecisionTaskCompletedCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { defaultIdentity, durationSeconds, report, retrying } from '../util.js';
import { decideWorkflowTask, type WorkflowObservation } from '../workflow/decide.js';
import type { WorkflowDefinition } from '../workflow/definitions.js';
import { workflowState } from './replay.js';
import type { WorkflowState } from './state.js';

/** What a decider answers: the decisions, and optionally an executionContext to record. */
export type DeciderResult =
  | readonly Decision[]
  | { readonly decisions: readonly Decision[]; readonly executionContext?: string };

/** A decider is a plain function of the replayed state: test it with `workflowState({events})`. */
export type Decider = (state: WorkflowState) => DeciderResult | Promise<DeciderResult>;

/** Who decides a list's tasks: state-function deciders, workflows as code, or both. */
export interface Deciders {
  /**
   * One decider for every workflow type on the list, or one per workflow type name (a decider
   * function, or a workflow definition).
   */
  readonly decider?: Decider | Readonly<Record<string, Decider | WorkflowDefinition>> | undefined;
  /**
   * Workflows as code (`defineWorkflow`), each deciding the tasks of its type name (its exact
   * version first); before `decider`.
   */
  readonly workflows?: readonly WorkflowDefinition[] | undefined;
  /** Told of each workflow task decided, and of each replay that does not match its history. */
  readonly observe?: ((observation: WorkflowObservation) => void) | undefined;
}

/** What deciding a task needs, whoever got the task: a poller or a pushed function. */
export interface DecideOptions extends Deciders {
  readonly client: SWFClient;
  readonly domain: string;
  readonly taskList: string;
  readonly identity?: string | undefined;
  readonly maximumPageSize?: number | undefined;
  readonly logger: Logger;
}

/** Throws unless the options name someone to decide. */
export function checkDeciders(o: Deciders): void {
  if (o.decider === undefined && (o.workflows ?? []).length === 0)
    throw new Error('give a decider, or workflows, to decide the decision tasks');
}

/** PollForDecisionTask on the options' list: a new task, or with `nextPageToken` a further page. */
export function pollDecisionCommand(
  o: Omit<DecideOptions, keyof Deciders | 'logger'>,
  nextPageToken?: string,
): PollForDecisionTaskCommand {
  const { domain, taskList, maximumPageSize } = o;
  return new PollForDecisionTaskCommand({
    domain,
    taskList: { name: taskList },
    identity: o.identity ?? defaultIdentity('decider'),
    ...(maximumPageSize === undefined ? {} : { maximumPageSize }),
    ...(nextPageToken === undefined ? {} : { nextPageToken }),
  });
}

/**
 * Decides one task from its first history page: fetches the other pages, replays, asks the decider
 * and answers RespondDecisionTaskCompleted. Never throws: a failure is logged and the task left to time
 * out and be rescheduled, as SWF does for a decider that crashed.
 */
export async function decideTask(o: DecideOptions, first: DecisionTask): Promise<void> {
  const taskToken = first.taskToken ?? '';
  const name = first.workflowType?.name ?? '';
  const startedAt = Date.now();
  const fields = { workflowType: name, workflowId: first.workflowExecution?.workflowId };
  let events: HistoryEvent[];
  try {
    events = await allEvents(o, first);
  } catch (error) {
    o.logger.error("reading the decision task's history failed; the task will time out", {
      ...fields,
      error: describeError(error),
    });
    return;
  }
  let result: DeciderResult;
  try {
    const answered = await withinTimeout(
      answerOf(o, { ...first, taskToken, events }),
      startToCloseMs(events),
    );
    if (answered === TIMED_OUT) {
      // The task has timed out in SWF and is scheduled again: this worker goes on with other tasks
      // (the decider's promise is left to settle on its own; its answer would find the task gone).
      o.logger.error("the decider did not answer within the task's start-to-close timeout", {
        ...fields,
        tookMs: Date.now() - startedAt,
      });
      return;
    }
    if (answered === undefined) return;
    result = answered;
  } catch (error) {
    o.logger.error('decider failed; the decision task will time out', {
      ...fields,
      error: describeError(error),
    });
    return;
  }
  const { decisions, executionContext } = 'decisions' in result ? result : { decisions: result };
  const outcome = await report(
    () =>
      o.client.send(
        new RespondDecisionTaskCompletedCommand({
          taskToken,
          decisions: [...decisions],
          ...(executionContext === undefined ? {} : { executionContext }),
        }),
      ),
    'RespondDecisionTaskCompleted',
    o.logger,
  );
  // Most often a decider slower than the task's start-to-close timeout: SWF has scheduled the task
  // again, and a decider that is always this slow never gets an answer in.
  if (outcome === 'taskGone') {
    o.logger.warn(
      'the decision task was gone when its answer came: it timed out (is the decider slower than taskStartToCloseTimeout?), its execution closed, or an earlier try of this answer was recorded',
      { ...fields, tookMs: Date.now() - startedAt },
    );
  }
}

/**
 * The start-to-close timeout of the task being decided (its DecisionTaskScheduled, the latest one),
 * in ms, with a second's margin; undefined for NONE or when the history does not say.
 */
function startToCloseMs(events: readonly HistoryEvent[]): number | undefined {
  const scheduled = [...events].reverse().find((e) => e.eventType === 'DecisionTaskScheduled');
  const seconds = durationSeconds(
    scheduled?.decisionTaskScheduledEventAttributes?.startToCloseTimeout,
  );
  return seconds === undefined ? undefined : (seconds + 1) * 1000;
}

const TIMED_OUT = Symbol('timed out');

/** The promise's value, or TIMED_OUT once `ms` have passed without one (never, without `ms`). */
async function withinTimeout<T>(
  value: T | Promise<T>,
  ms: number | undefined,
): Promise<T | typeof TIMED_OUT> {
  if (ms === undefined) return value;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  try {
    return await Promise.race([Promise.resolve(value), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every history page of a decision task: PollForDecisionTask again with nextPageToken. */
async function allEvents(o: DecideOptions, first: DecisionTask): Promise<HistoryEvent[]> {
  const events = [...(first.events ?? [])];
  let token = first.nextPageToken;
  while (token) {
    const asked = token;
    // A page lost to a moment's 5xx or throttling would cost the whole task: retried, as answers are.
    const page = await retrying(() => o.client.send(pollDecisionCommand(o, asked)));
    events.push(...(page.events ?? []));
    token = page.nextPageToken;
    if (token === asked) throw new Error('the history page repeats its nextPageToken');
  }
  return events;
}

/** The answer of whoever decides the task's type; undefined when a workflow chose to send none. */
async function answerOf(
  o: DecideOptions,
  task: DecisionTask & { taskToken: string; events: HistoryEvent[] },
): Promise<DeciderResult | undefined> {
  const decider = deciderFor(o, task.workflowType?.name ?? '', task.workflowType?.version);
  if (typeof decider === 'function') return decider(workflowState(task));
  return decideWorkflowTask(decider, task, o);
}

function deciderFor(
  o: Deciders,
  name: string,
  version: string | undefined,
): Decider | WorkflowDefinition {
  const workflows = o.workflows ?? [];
  const workflow =
    workflows.find((w) => w.name === name && w.version === version) ??
    workflows.find((w) => w.name === name);
  if (workflow !== undefined) return workflow;
  const { decider } = o;
  if (typeof decider === 'function') return decider;
  const found = decider !== undefined && Object.hasOwn(decider, name) ? decider[name] : undefined;
  if (found === undefined) throw new Error(`no decider for workflow type ${name}`);
  return found;
}
