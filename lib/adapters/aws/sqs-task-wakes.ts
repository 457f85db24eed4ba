import { createHash } from 'node:crypto';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import {
  CreateQueueCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
  type SQSClientConfig,
} from '@aws-sdk/client-sqs';
import type { QueuedTaskRef, TaskKind } from '../../core/task-queue.js';
import type { TaskWakes, WakeListener } from '../../ports/task-wakes.js';

/** SQS's longest long poll. */
const MAX_WAIT_SECONDS = 20;
/** SQS's shortest retention: a wake nobody took is stale long before then. */
const RETENTION_SECONDS = 60;
/** The queue's own visibility timeout (as queues were made; a receive sets its own, below). */
const QUEUE_HIDDEN_SECONDS = 30;
/**
 * A taken wake stays hidden past its retention: SQS drops it before anyone could receive it again,
 * so the poll that took it need not delete it (a request per task saved). A wake is taken once
 * anyway: the poll that took it goes for its task, whatever becomes of that claim.
 */
const TAKEN_HIDDEN_SECONDS = 2 * RETENTION_SECONDS;
/**
 * Connections the channel's client may hold. Each waiting poll holds one for its long poll, and one
 * process may serve hundreds of polls at once (Lambda Managed Instances: up to 1,600 invocations per
 * environment): at the SDK's default of 50, the next long poll would wait for a free socket, unwoken.
 */
const MAX_SOCKETS = 2_000;

/** SQS's largest batch. */
const BATCH = 10;

export interface SqsTaskWakesOptions {
  /** Every queue's name starts with it (the stack's IAM policy names them by it). */
  readonly queuePrefix: string;
  readonly client?: SQSClientConfig;
}

/**
 * The wake channel on SQS: a standard queue per task list, made by the first poll that waits on it.
 * A queued task is one message naming it (sent by the committer, ten to a request); a waiting poll
 * long-polls its list's queue for one message, so one task wakes one poll, within milliseconds of the
 * send, and an idle poll costs one request per 20 s. Nobody listening: no queue, one failed lookup.
 */
export class SqsTaskWakes implements TaskWakes {
  readonly #sqs: SQSClient;
  /** Queue URLs by name, once known to exist (a missing queue is looked up again each time). */
  readonly #urls = new Map<string, string>();

  constructor(private readonly options: SqsTaskWakesOptions) {
    this.#sqs = new SQSClient({
      requestHandler: {
        httpAgent: new HttpAgent({ keepAlive: true, maxSockets: MAX_SOCKETS }),
        httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: MAX_SOCKETS }),
      },
      ...options.client,
    });
  }

  async listen(kind: TaskKind, domain: string, taskList: string): Promise<WakeListener> {
    const name = this.queueName(kind, domain, taskList);
    let url = this.#urls.get(name);
    if (url === undefined) {
      const made = await this.#sqs.send(
        new CreateQueueCommand({
          QueueName: name,
          Attributes: {
            MessageRetentionPeriod: String(RETENTION_SECONDS),
            VisibilityTimeout: String(QUEUE_HIDDEN_SECONDS),
          },
        }),
      );
      url = made.QueueUrl ?? '';
      this.#urls.set(name, url);
    }
    const queueUrl = url;
    return { next: (ms, signal) => this.#next(queueUrl, ms, signal) };
  }

  async wake(tasks: readonly QueuedTaskRef[]): Promise<void> {
    const byList = new Map<string, QueuedTaskRef[]>();
    for (const task of tasks) {
      const name = this.queueName(task.kind, task.domain, task.taskList);
      byList.set(name, [...(byList.get(name) ?? []), task]);
    }
    await Promise.all([...byList].map(([name, listed]) => this.#send(name, listed)));
  }

  /** A name per list within SQS's 80 characters: the prefix, the kind, a digest of the list. */
  queueName(kind: TaskKind, domain: string, taskList: string): string {
    const digest = createHash('sha256').update(`${domain}\n${taskList}`).digest('hex');
    return `${this.options.queuePrefix}-${kind === 'decision' ? 'd' : 'a'}-${digest.slice(0, 40)}`;
  }

  async #send(name: string, tasks: readonly QueuedTaskRef[]): Promise<void> {
    try {
      const url = this.#urls.get(name) ?? (await this.#lookUp(name));
      if (url === undefined) return;
      for (let i = 0; i < tasks.length; i += BATCH) {
        const entries = tasks.slice(i, i + BATCH).map((task, n) => ({
          Id: String(n),
          MessageBody: JSON.stringify(task),
        }));
        await this.#sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
      }
    } catch (error) {
      if (isMissingQueue(error)) this.#urls.delete(name);
      else logLostWake(name, error);
    }
  }

  async #lookUp(name: string): Promise<string | undefined> {
    try {
      const { QueueUrl } = await this.#sqs.send(new GetQueueUrlCommand({ QueueName: name }));
      if (QueueUrl !== undefined) this.#urls.set(name, QueueUrl);
      return QueueUrl;
    } catch (error) {
      if (isMissingQueue(error)) return undefined;
      throw error;
    }
  }

  async #next(
    url: string,
    ms: number,
    signal: AbortSignal,
  ): Promise<{ readonly task?: QueuedTaskRef } | undefined> {
    const seconds = Math.min(MAX_WAIT_SECONDS, Math.floor(ms / 1000));
    if (seconds < 1 || signal.aborted) return undefined;
    try {
      const { Messages } = await this.#sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 1,
          WaitTimeSeconds: seconds,
          VisibilityTimeout: TAKEN_HIDDEN_SECONDS,
        }),
        { abortSignal: signal },
      );
      const message = Messages?.[0];
      if (message === undefined) return undefined;
      const task = taskOf(message.Body);
      return task === undefined ? {} : { task };
    } catch (error) {
      if (signal.aborted) return undefined;
      throw error;
    }
  }
}

const isMissingQueue = (error: unknown) =>
  error instanceof Error &&
  (error.name === 'QueueDoesNotExist' || error.name === 'AWS.SimpleQueueService.NonExistentQueue');

/** The task a wake names; a body that names none still wakes the poll (it reads its queue). */
function taskOf(body: string | undefined): QueuedTaskRef | undefined {
  try {
    const task = JSON.parse(body ?? '') as Partial<QueuedTaskRef>;
    return typeof task.runId === 'string' && typeof task.scheduledEventId === 'number'
      ? (task as QueuedTaskRef)
      : undefined;
  } catch {
    return undefined;
  }
}

function logLostWake(where: string, error: unknown): void {
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  console.error(
    JSON.stringify({
      level: 'warn',
      message: 'task wake failed; polls will find the task',
      where,
      reason,
    }),
  );
}
