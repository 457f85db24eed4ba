import type { SWFClient } from '@aws-sdk/client-swf';
import type { Activity } from './activity/context.js';
import { CancelReason } from './activity/context.js';
import type { TaskEnd } from './activity/run-task.js';
import { DEFAULT_CANCEL_GRACE_MS, startActivityTask } from './activity/start-task.js';
import type { ApiFunction } from './api-function.js';
import { createSwfClient, type SwfClientOptions } from './client.js';
import { checkDeciders, type Deciders, decideTask } from './decider/decide-task.js';
import { describeError } from './errors.js';
import { readWireAnswer } from './lean-transport.js';
import { consoleLogger, type Logger } from './logger.js';

/**
 * What the service invokes a push task list's function with: the task it started for the function,
 * as PollForActivityTask or PollForDecisionTask would have answered it (SWF's JSON wire shape, epoch
 * second timestamps). A decision task's further history pages come from PollForDecisionTask with its
 * `nextPageToken` on the same domain and task list.
 */
export interface PushedTaskEvent {
  readonly source: 'swf.pushed-task';
  readonly kind: 'activity' | 'decision';
  readonly domain: string;
  readonly taskList: string;
  readonly task: Readonly<Record<string, unknown>>;
  /**
   * An activity task's heartbeat timeout as scheduled (seconds, or NONE), which the poll's answer
   * does not carry: the handler heartbeats often enough to meet it.
   */
  readonly heartbeatTimeout?: string;
  /**
   * The service's API function, which the handler calls directly (Lambda Invoke) for the task's
   * heartbeats, responses and further history pages, instead of going through the front door. A
   * deployed service always names it; a handler given its own `client` does not use it.
   */
  readonly api?: ApiFunction;
}

/** The part of Lambda's context the handlers use (aws-lambda's `Context` has it). */
export interface LambdaContext {
  getRemainingTimeInMillis(): number;
}

/** A Lambda handler of pushed tasks. */
export type PushedTaskHandler<R> = (event: PushedTaskEvent, context?: LambdaContext) => Promise<R>;

/** Time left for the canceled report after the activity's grace, before Lambda's time limit. */
export const REPORT_MARGIN_MS = 2_000;

interface HandlerClientOptions {
  /**
   * The client for every task. By default the handler calls the API function the event names (`api`:
   * Lambda Invoke, which needs `lambda:InvokeFunction` on it), or else `$SWF_ENDPOINT` in
   * `$AWS_REGION`, signed for `$SWF_SIGNING_NAME` (default `execute-api`). Either client is made once,
   * on first use, with `clientOptions`.
   */
  readonly client?: SWFClient;
  /** Options of the clients the handler makes (see `client`): retries, timeouts, `observe` … */
  readonly clientOptions?: Omit<SwfClientOptions, 'endpoint' | 'apiFunction'>;
  readonly logger?: Logger;
}

export interface ActivityTaskHandlerOptions extends HandlerClientOptions {
  /** Activity functions by activity type name. */
  readonly activities: Readonly<Record<string, Activity>>;
  /**
   * Time between automatic heartbeats (default 1 s), as for ActivityWorker; shorter when the task's
   * heartbeat timeout (which the pushed event carries) needs beats more often.
   */
  readonly heartbeatIntervalMs?: number;
  /** Time an activity gets to return after its signal fires (default 10 s), as for ActivityWorker. */
  readonly cancelGraceMs?: number;
  /** Called with what became of the task, before the handler resolves with it. */
  readonly onTaskEnd?: (end: TaskEnd) => void;
}

export interface DecisionTaskHandlerOptions extends HandlerClientOptions, Deciders {
  /** History page size asked of PollForDecisionTask for further pages (default: the service's). */
  readonly maximumPageSize?: number;
}

/**
 * A Lambda handler that runs pushed activity tasks as ActivityWorker runs polled ones: heartbeats,
 * `ctx.signal` cancellation, one report. It resolves with the TaskEnd even when the activity failed
 * (that is reported to SWF; a throw would make Lambda retry and run it again). `cancelGraceMs + 2 s`
 * before the function's time limit, the activity is shut down and reported failed with reason
 * `WorkerShutdown` (canceled when the decider asked).
 *
 * @example
 * export const handler = activityTaskHandler({
 *   activities: { resize: async (input, ctx) => resize(input, { signal: ctx.signal }) },
 * });
 */
export function activityTaskHandler(
  options: ActivityTaskHandlerOptions,
): PushedTaskHandler<TaskEnd> {
  const clientFor = handlerClients(options);
  const logger = options.logger ?? consoleLogger;
  const cancelGraceMs = options.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS;
  return async (event, context) => {
    const pushed = pushedTask(event, 'activity');
    const { task } = pushed;
    const client = clientFor(pushed);
    const activityTask = readWireAnswer('PollForActivityTask', task);
    const { taskToken } = activityTask;
    if (!taskToken) throw new Error('not a pushed activity task: its task has no taskToken');
    const marginMs = cancelGraceMs + REPORT_MARGIN_MS;
    const leftMs = context?.getRemainingTimeInMillis();
    if (leftMs !== undefined && leftMs <= marginMs)
      logger.warn(
        `the function has ${leftMs} ms left, no more than cancelGraceMs + 2 s (${marginMs} ms): the activity is cancelled as it starts. Give the function a timeout above the activity's longest run plus ${marginMs} ms`,
        { activityId: activityTask.activityId },
      );
    const shuttingDown = new AbortController();
    const running = startActivityTask(
      { ...options, client, logger, cancelGraceMs },
      { ...activityTask, taskToken },
      shuttingDown.signal,
      Promise.resolve(pushed.heartbeatTimeout),
    );
    const clear = atDeadline(context, marginMs, () => {
      logger.warn('the function is about to time out: cancelling the activity', {
        activityId: activityTask.activityId,
      });
      shuttingDown.abort(new Error('function time limit'));
      running.cancel(CancelReason.shutdown);
    });
    try {
      const end = await running.done;
      try {
        options.onTaskEnd?.(end);
      } catch (error) {
        // The caller's own hook: its failure must not fail the invocation (Lambda would run the
        // activity again).
        logger.error('onTaskEnd threw', { error: describeError(error) });
      }
      return end;
    } finally {
      clear();
    }
  };
}

/**
 * A Lambda handler that decides pushed decision tasks as DeciderWorker decides polled ones: every
 * history page, replay, the decider (or the workflow's code), RespondDecisionTaskCompleted. A
 * decider's error is logged, not thrown: the decision task times out and is rescheduled.
 *
 * @example
 * export const handler = decisionTaskHandler({
 *   decider: (state) => [decide.completeWorkflowExecution(state.input)],
 * });
 */
export function decisionTaskHandler(options: DecisionTaskHandlerOptions): PushedTaskHandler<void> {
  checkDeciders(options);
  const clientFor = handlerClients(options);
  const logger = options.logger ?? consoleLogger;
  return async (event) => {
    const pushed = pushedTask(event, 'decision');
    const { domain, taskList, task } = pushed;
    const client = clientFor(pushed);
    const first = readWireAnswer('PollForDecisionTask', task);
    if (!first.taskToken) throw new Error('not a pushed decision task: its task has no taskToken');
    const { decider, workflows, observe, maximumPageSize } = options;
    const deciders = { decider, workflows, observe };
    await decideTask({ client, domain, taskList, ...deciders, maximumPageSize, logger }, first);
  };
}

/** The event's envelope, checked: Lambda hands over whatever it was invoked with. */
function pushedTask(event: unknown, kind: PushedTaskEvent['kind']): PushedTaskEvent {
  const what = `not a pushed ${kind} task`;
  if (typeof event !== 'object' || event === null) throw new Error(`${what}: ${String(event)}`);
  const field = (key: string): unknown => Reflect.get(event, key);
  const source = field('source');
  if (source !== 'swf.pushed-task') throw new Error(`${what}: source ${String(source)}`);
  if (field('kind') !== kind) throw new Error(`${what}: kind ${String(field('kind'))}`);
  const domain = field('domain');
  const taskList = field('taskList');
  const task = field('task');
  if (typeof domain !== 'string' || typeof taskList !== 'string')
    throw new Error(`${what}: no domain or taskList`);
  if (typeof task !== 'object' || task === null || Array.isArray(task))
    throw new Error(`${what}: no task`);
  const api = apiOf(field('api'));
  const heartbeatTimeout = field('heartbeatTimeout');
  return {
    source,
    kind,
    domain,
    taskList,
    task: { ...task },
    ...(typeof heartbeatTimeout === 'string' ? { heartbeatTimeout } : {}),
    ...(api === undefined ? {} : { api }),
  };
}

/** The event's API function, if it names one well. */
function apiOf(value: unknown): ApiFunction | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const functionName: unknown = Reflect.get(value, 'functionName');
  const endpoint: unknown = Reflect.get(value, 'endpoint');
  if (typeof functionName !== 'string' || functionName === '') return undefined;
  return typeof endpoint === 'string' ? { functionName, endpoint } : { functionName };
}

/** Calls `fire` when the function has `marginMs` left (at once if it has less); returns a clear. */
function atDeadline(
  context: LambdaContext | undefined,
  marginMs: number,
  fire: () => void,
): () => void {
  if (context === undefined) return () => {};
  const timer = setTimeout(fire, Math.max(0, context.getRemainingTimeInMillis() - marginMs));
  return () => clearTimeout(timer);
}

/**
 * The client a handler uses for a task: the one it was given, else one of the API function the event
 * names, else one of `$SWF_ENDPOINT`; each made once.
 */
function handlerClients(options: HandlerClientOptions): (event: PushedTaskEvent) => SWFClient {
  const given = options.client;
  if (given !== undefined) return () => given;
  const made = new Map<string, SWFClient>();
  const once = (key: string, make: () => SWFClient) => {
    let client = made.get(key);
    if (client === undefined) {
      client = make();
      made.set(key, client);
    }
    return client;
  };
  // Their region is the options', else `$AWS_REGION` (createSwfClient's default).
  const base = options.clientOptions ?? {};
  return (event) => {
    const { api } = event;
    if (api !== undefined)
      return once(JSON.stringify(api), () => createSwfClient({ ...base, apiFunction: api }));
    const endpoint = process.env.SWF_ENDPOINT;
    if (!endpoint)
      throw new Error(
        'The pushed task names no API function and SWF_ENDPOINT is not set: set it to the SWF endpoint the function reports to, or pass a client',
      );
    return once(endpoint, () =>
      createSwfClient({
        ...base,
        endpoint,
        signingName: base.signingName ?? (process.env.SWF_SIGNING_NAME || 'execute-api'),
      }),
    );
  };
}
