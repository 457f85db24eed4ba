import type { TaskKind } from '../core/task-queue.js';

/**
 * Push task lists: a task list served by a function instead of pollers. A task scheduled on one is
 * never queued; the commit that schedules it starts it (recording the function as the identity that
 * took it, as a poll would), and the process that made the commit invokes the function with what
 * PollForActivityTask or PollForDecisionTask would have answered once it has landed. The worker then
 * heartbeats and responds through the API, as any worker does.
 */
export interface PushTaskList {
  readonly kind: TaskKind;
  readonly domain: string;
  readonly taskList: string;
  /** The function: a Lambda function's name or ARN (locally, a registered handler's name). */
  readonly target: string;
}

/**
 * What a pushed function receives. `task` is the poll's answer exactly as the API would send it (SWF's
 * JSON: timestamps in epoch seconds). A decision task's history may come in several pages: its
 * `nextPageToken` is for PollForDecisionTask on the same domain and task list, as with a poll.
 */
export interface PushedTaskEvent {
  readonly source: typeof PUSHED_TASK_SOURCE;
  readonly kind: TaskKind;
  readonly domain: string;
  readonly taskList: string;
  readonly task: Readonly<Record<string, unknown>>;
  /**
   * An activity task's heartbeat timeout as scheduled (seconds, or NONE), which the poll's answer
   * does not carry: the worker heartbeats often enough to meet it.
   */
  readonly heartbeatTimeout?: string;
  /**
   * The service's API function, for the worker to call directly (Lambda Invoke) rather than through
   * the front door: its heartbeats, responses and further history pages then cost no API Gateway
   * request. Added by the push itself (see TaskPush.push); `endpoint` is Lambda's, locally only.
   */
  readonly api?: { readonly functionName: string; readonly endpoint?: string };
}

export const PUSHED_TASK_SOURCE = 'swf.pushed-task';

/**
 * The most a pushed event's JSON may weigh: Lambda's limit on an asynchronous invocation's payload (1 MB,
 * API reference of Invoke). A decision task's history is cut into pages under it (the function reads
 * the rest as a poller would).
 */
export const PUSHED_EVENT_MAX_BYTES = 1024 * 1024;

/**
 * The most the service's part of a pushed event may weigh: the push adds the API function's name
 * (`api`, well under a kilobyte) before the whole is held to PUSHED_EVENT_MAX_BYTES.
 */
export const PUSHED_TASK_MAX_BYTES = PUSHED_EVENT_MAX_BYTES - 1024;

export interface TaskPush {
  /** The function tasks of this list are pushed to, or undefined for a list served by polls. */
  target(kind: TaskKind, domain: string, taskList: string): string | undefined;
  /**
   * Hands a started task to its function without waiting for it to run (Lambda's asynchronous
   * invocation), naming the service's API function in the event (`api`) when it knows it. Rejects
   * only when the function could not be reached at all.
   */
  push(target: string, event: PushedTaskEvent): Promise<void>;
}

/** Every task list is served by polls. */
export const noTaskPush: TaskPush = {
  target: () => undefined,
  push: (target) => Promise.reject(new Error(`no function ${target} to push tasks to`)),
};

/** A lookup over configured push task lists. */
export function pushTargets(
  lists: readonly PushTaskList[],
): (kind: TaskKind, domain: string, taskList: string) => string | undefined {
  const byList = new Map(lists.map((l) => [listKey(l.kind, l.domain, l.taskList), l.target]));
  return (kind, domain, taskList) => byList.get(listKey(kind, domain, taskList));
}

const listKey = (kind: TaskKind, domain: string, taskList: string) =>
  JSON.stringify([kind, domain, taskList]);
