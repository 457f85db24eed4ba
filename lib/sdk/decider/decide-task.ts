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
import { defaultIdentity, report } from '../util.js';
import { workflowState } from './replay.js';
import type { WorkflowState } from './state.js';

/** What a decider answers: the decisions, and optionally an executionContext to record. */
export type DeciderResult =
  | readonly Decision[]
  | { readonly decisions: readonly Decision[]; readonly executionContext?: string };

/** A decider is a plain function of the replayed state: test it with `workflowState({events})`. */
export type Decider = (state: WorkflowState) => DeciderResult | Promise<DeciderResult>;

/** What deciding a task needs, whoever got the task: a poller or a pushed function. */
export interface DecideOptions {
  readonly client: SWFClient;
  readonly domain: string;
  readonly taskList: string;
  /** One decider for every workflow type on the list, or one per workflow type name. */
  readonly decider: Decider | Readonly<Record<string, Decider>>;
  readonly identity?: string | undefined;
  readonly maximumPageSize?: number | undefined;
  readonly logger: Logger;
}

/** PollForDecisionTask on the options' list: a new task, or with `nextPageToken` a further page. */
export function pollDecisionCommand(
  o: Omit<DecideOptions, 'decider' | 'logger'>,
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
  try {
    const events = await allEvents(o, first);
    const state = workflowState({ ...first, taskToken, events });
    const result = await deciderFor(o.decider, name)(state);
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
        'the decision task was gone when its answer came: it timed out (is the decider slower than taskStartToCloseTimeout?) or its execution closed',
        {
          workflowType: name,
          workflowId: first.workflowExecution?.workflowId,
          tookMs: Date.now() - startedAt,
        },
      );
    }
  } catch (error) {
    o.logger.error('decider failed; the decision task will time out', {
      workflowType: name,
      workflowId: first.workflowExecution?.workflowId,
      error: describeError(error),
    });
  }
}

/** Every history page of a decision task: PollForDecisionTask again with nextPageToken. */
async function allEvents(o: DecideOptions, first: DecisionTask): Promise<HistoryEvent[]> {
  const events = [...(first.events ?? [])];
  let token = first.nextPageToken;
  while (token) {
    const page = await o.client.send(pollDecisionCommand(o, token));
    events.push(...(page.events ?? []));
    token = page.nextPageToken;
  }
  return events;
}

function deciderFor(decider: DecideOptions['decider'], workflowTypeName: string): Decider {
  if (typeof decider === 'function') return decider;
  const found = Object.hasOwn(decider, workflowTypeName) ? decider[workflowTypeName] : undefined;
  if (found === undefined) throw new Error(`no decider for workflow type ${workflowTypeName}`);
  return found;
}
