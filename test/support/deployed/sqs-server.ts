/**
 * Amazon SQS's JSON protocol on a local port, for the functions' own SQS clients (AWS_ENDPOINT_URL_SQS):
 * the standard-queue actions the service uses, with SQS's semantics where they matter to it. A long
 * poll (WaitTimeSeconds) waits until a message is sent and gets it; each message goes to one receiver
 * and is then invisible for the visibility timeout; messages older than the retention period are gone;
 * a receiver whose connection closed while it waited gets nothing. Counts every request by action, as
 * SQS bills them.
 */
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const ACCOUNT = '000000000000';

interface Message {
  readonly id: string;
  readonly body: string;
  readonly sentAt: number;
  visibleAt: number;
  receives: number;
}

interface Waiter {
  readonly max: number;
  readonly visibilityMs: number;
  readonly deliver: (messages: Message[]) => void;
}

interface Queue {
  readonly name: string;
  readonly attributes: Record<string, string>;
  readonly messages: Message[];
  readonly waiters: Waiter[];
}

type Body = Record<string, unknown>;

class SqsFault extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export class SqsServer {
  readonly #queues = new Map<string, Queue>();
  readonly requests: Record<string, number> = {};
  #url = '';
  #server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const action = String(req.headers['x-amz-target'] ?? '').replace(/^AmazonSQS\./, '');
      this.requests[action] = (this.requests[action] ?? 0) + 1;
      const closed = new AbortController();
      res.on('close', () => closed.abort());
      let input: Body;
      try {
        input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Body;
      } catch {
        return answer(res, 400, fault('InvalidParameterValue', 'malformed JSON'));
      }
      this.#handle(action, input, closed.signal).then(
        (output) => answer(res, 200, output),
        (error: unknown) =>
          error instanceof SqsFault
            ? answer(res, 400, fault(error.type, error.message))
            : answer(res, 500, fault('InternalError', String(error))),
      );
    });
  });

  /** The endpoint (AWS_ENDPOINT_URL_SQS). */
  get url(): string {
    return this.#url;
  }

  async start(): Promise<this> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const queue of this.#queues.values())
      for (const w of queue.waiters.splice(0)) w.deliver([]);
    this.#server.closeAllConnections();
    this.#server.close();
  }

  /** Queue names created so far. */
  queueNames(): string[] {
    return [...this.#queues.keys()];
  }

  /** When each message of a queue was sent, and when it is (or was) visible again. */
  messagesOf(name: string): { sentAt: number; visibleAt: number }[] {
    return (this.#queues.get(name)?.messages ?? []).map(({ sentAt, visibleAt }) => ({
      sentAt,
      visibleAt,
    }));
  }

  resetCounters(): void {
    for (const key of Object.keys(this.requests)) delete this.requests[key];
  }

  /** Requests of all actions since the last reset. */
  get requestCount(): number {
    return Object.values(this.requests).reduce((n, c) => n + c, 0);
  }

  async #handle(action: string, input: Body, closed: AbortSignal): Promise<Body> {
    switch (action) {
      case 'CreateQueue':
        return this.#create(String(input.QueueName ?? ''), (input.Attributes ?? {}) as Body);
      case 'GetQueueUrl':
        return { QueueUrl: this.#urlOf(this.#named(String(input.QueueName ?? '')).name) };
      case 'SendMessage':
        return this.#send(this.#queue(input), String(input.MessageBody ?? ''));
      case 'SendMessageBatch': {
        const queue = this.#queue(input);
        const entries = (input.Entries ?? []) as { Id: string; MessageBody: string }[];
        if (entries.length === 0 || entries.length > 10)
          throw new SqsFault('TooManyEntriesInBatchRequest', 'a batch holds 1 to 10 entries');
        return {
          Successful: entries.map((e) => ({ Id: e.Id, ...this.#send(queue, e.MessageBody) })),
          Failed: [],
        };
      }
      case 'ReceiveMessage':
        return { Messages: (await this.#receive(this.#queue(input), input, closed)).map(wire) };
      case 'DeleteMessage': {
        const queue = this.#queue(input);
        const at = queue.messages.findIndex((m) => m.id === input.ReceiptHandle);
        if (at >= 0) queue.messages.splice(at, 1);
        return {};
      }
      default:
        throw new SqsFault('InvalidAction', `The action ${action} is not valid for this endpoint.`);
    }
  }

  #create(name: string, attributes: Body): Body {
    if (!/^[\w-]{1,80}$/.test(name)) throw new SqsFault('InvalidParameterValue', `name ${name}`);
    const wanted = Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, String(v)]));
    const existing = this.#queues.get(name);
    if (existing !== undefined) {
      const differs = Object.entries(wanted).some(([k, v]) => existing.attributes[k] !== v);
      if (differs)
        throw new SqsFault('QueueNameExists', `A queue named ${name} has other attributes`);
    } else this.#queues.set(name, { name, attributes: wanted, messages: [], waiters: [] });
    return { QueueUrl: this.#urlOf(name) };
  }

  #urlOf(name: string): string {
    return `${this.#url}/${ACCOUNT}/${name}`;
  }

  #named(name: string): Queue {
    const queue = this.#queues.get(name);
    if (queue === undefined)
      throw new SqsFault('QueueDoesNotExist', 'The specified queue does not exist.');
    return queue;
  }

  #queue(input: Body): Queue {
    return this.#named(
      String(input.QueueUrl ?? '')
        .split('/')
        .pop() ?? '',
    );
  }

  #send(queue: Queue, body: string): Body {
    const now = Date.now();
    const message = { id: randomUUID(), body, sentAt: now, visibleAt: now, receives: 0 };
    queue.messages.push(message);
    this.#serveWaiters(queue);
    return { MessageId: message.id, MD5OfMessageBody: md5(body) };
  }

  /** Waiting receivers, in the order they came, each get what is visible now. */
  #serveWaiters(queue: Queue): void {
    while (queue.waiters.length > 0) {
      const messages = this.#take(
        queue,
        queue.waiters[0]?.max ?? 1,
        queue.waiters[0]?.visibilityMs,
      );
      if (messages.length === 0) return;
      queue.waiters.shift()?.deliver(messages);
    }
  }

  #take(queue: Queue, max: number, visibilityMs = 30_000): Message[] {
    const now = Date.now();
    const retentionMs = Number(queue.attributes.MessageRetentionPeriod ?? 345_600) * 1000;
    for (let i = queue.messages.length - 1; i >= 0; i--)
      if ((queue.messages[i]?.sentAt ?? now) + retentionMs <= now) queue.messages.splice(i, 1);
    const taken = queue.messages.filter((m) => m.visibleAt <= now).slice(0, max);
    for (const m of taken) {
      m.visibleAt = now + visibilityMs;
      m.receives += 1;
    }
    return taken;
  }

  #receive(queue: Queue, input: Body, closed: AbortSignal): Promise<Message[]> {
    const max = Number(input.MaxNumberOfMessages ?? 1);
    const visibilityMs =
      Number(input.VisibilityTimeout ?? queue.attributes.VisibilityTimeout ?? 30) * 1000;
    const waitMs =
      Number(input.WaitTimeSeconds ?? queue.attributes.ReceiveMessageWaitTimeSeconds ?? 0) * 1000;
    const now = this.#take(queue, max, visibilityMs);
    if (now.length > 0 || waitMs <= 0) return Promise.resolve(now);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        max,
        visibilityMs,
        deliver: (messages) => {
          clearTimeout(timer);
          resolve(messages);
        },
      };
      const leave = () => {
        const at = queue.waiters.indexOf(waiter);
        if (at >= 0) queue.waiters.splice(at, 1);
        waiter.deliver([]);
      };
      const timer = setTimeout(leave, waitMs);
      closed.addEventListener('abort', leave, { once: true });
      queue.waiters.push(waiter);
    });
  }
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

const wire = (m: Message) => ({
  MessageId: m.id,
  ReceiptHandle: m.id,
  MD5OfBody: md5(m.body),
  Body: m.body,
});

const fault = (type: string, message: string) => ({
  __type: `com.amazonaws.sqs#${type}`,
  message,
});

function answer(res: ServerResponse, status: number, body: Body): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'x-amzn-requestid': randomUUID(),
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}
