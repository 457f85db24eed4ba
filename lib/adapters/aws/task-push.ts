import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { TaskKind } from '../../core/task-queue.js';
import {
  PUSHED_EVENT_MAX_BYTES,
  type PushedTaskEvent,
  type PushTaskList,
  pushTargets,
  type TaskPush,
} from '../../ports/task-push.js';

/**
 * Push task lists on AWS: each list's function is invoked asynchronously (Lambda queues the event and
 * retries the function) with the role of the function that committed the task's scheduling (api,
 * stream or timer), the event naming the API function for the worker to call. One Lambda client per
 * container, made on the first push.
 */
export class AwsTaskPush implements TaskPush {
  readonly #lookup: ReturnType<typeof pushTargets>;
  #client: LambdaClient | undefined;

  constructor(
    lists: readonly PushTaskList[],
    /** The service's API function, named in every event (see PushedTaskEvent.api). */
    private readonly apiFunction: string | undefined,
    private readonly makeClient: () => LambdaClient = () => new LambdaClient({}),
  ) {
    this.#lookup = pushTargets(lists);
  }

  target(kind: TaskKind, domain: string, taskList: string): string | undefined {
    return this.#lookup(kind, domain, taskList);
  }

  async push(target: string, event: PushedTaskEvent): Promise<void> {
    const named =
      this.apiFunction === undefined
        ? event
        : { ...event, api: { functionName: this.apiFunction } };
    const payload = Buffer.from(JSON.stringify(named));
    const what = `a ${event.kind} task of ${event.domain}/${event.taskList} to function ${target}`;
    if (payload.byteLength > PUSHED_EVENT_MAX_BYTES) {
      throw new Error(
        `Cannot push ${what}: its event is ${payload.byteLength} bytes, over the ${PUSHED_EVENT_MAX_BYTES} of an asynchronous invocation`,
      );
    }
    this.#client ??= this.makeClient();
    let status: number | undefined;
    let functionError: string | undefined;
    try {
      const response = await this.#client.send(
        new InvokeCommand({ FunctionName: target, InvocationType: 'Event', Payload: payload }),
      );
      status = response.StatusCode;
      functionError = response.FunctionError;
    } catch (error) {
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new Error(`Could not push ${what}: ${reason}`, { cause: error });
    }
    if (functionError !== undefined)
      throw new Error(`Could not push ${what}: FunctionError ${functionError}`);
    if (status === undefined || status < 200 || status >= 300)
      throw new Error(`Could not push ${what}: Lambda answered status ${status ?? 'none'}`);
  }
}
