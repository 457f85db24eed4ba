import type { TaskKind } from '../../core/task-queue.js';
import {
  type PushedTaskEvent,
  type PushTaskList,
  pushTargets,
  type TaskPush,
} from '../../ports/task-push.js';

/** A function served in-process: what a Lambda function's handler would be given. */
export type LocalPushHandler = (event: PushedTaskEvent) => unknown;

/**
 * Push task lists for the local server: handlers registered in-process, invoked as Lambda invokes a
 * function asynchronously (the push does not wait for the handler; the event is a copy made through
 * JSON, as if it had crossed the wire). A handler that throws is logged; Lambda would retry it.
 */
export class LocalTaskPush implements TaskPush {
  readonly #lists: PushTaskList[] = [];
  readonly #handlers = new Map<string, LocalPushHandler>();
  #lookup = pushTargets([]);
  #api: PushedTaskEvent['api'];

  /** Serves `list` with `handler` from now on: tasks scheduled on it are pushed, not queued. */
  register(list: PushTaskList, handler: LocalPushHandler): void {
    this.#lists.push(list);
    this.#handlers.set(list.target, handler);
    this.#lookup = pushTargets(this.#lists);
  }

  /** The API function every event names from now on (the local server's, see startLocalService). */
  useApi(api: NonNullable<PushedTaskEvent['api']>): void {
    this.#api = api;
  }

  target(kind: TaskKind, domain: string, taskList: string): string | undefined {
    return this.#lookup(kind, domain, taskList);
  }

  async push(target: string, event: PushedTaskEvent): Promise<void> {
    const handler = this.#handlers.get(target);
    if (handler === undefined) throw new Error(`Function not found: ${target}`);
    const named = this.#api === undefined ? event : { ...event, api: this.#api };
    const copy = JSON.parse(JSON.stringify(named)) as PushedTaskEvent;
    setImmediate(() => {
      Promise.resolve()
        .then(() => handler(copy))
        .catch((error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          console.error(
            JSON.stringify({
              level: 'error',
              message: 'pushed task handler failed',
              target,
              reason,
            }),
          );
        });
    });
  }
}

/**
 * A handler that POSTs each event as JSON to `url`: a worker served over HTTP beside `npm start` (the
 * SDK's Lambda handlers behind any small HTTP server). An answer other than 2xx is an error.
 */
export function postingHandler(url: string): LocalPushHandler {
  if (!isHttpUrl(url))
    throw new Error(`A local push target is the http:// URL events are POSTed to, not "${url}"`);
  return async (event) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(event),
    });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  };
}

/** Whether a local target is an http(s) URL (what npm start POSTs to), not a function's name. */
export const isHttpUrl = (value: string): boolean => /^https?:\/\//.test(value);
