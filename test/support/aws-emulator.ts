/**
 * An emulation of the AWS side of the deployed stack, for driving functions/*.ts as Lambda would:
 * the table's DynamoDB stream (read from DynamoDB Local's Streams API, converted to Lambda's JSON
 * records, filtered with the event source mapping's FilterCriteria, batched, batchItemFailures
 * honoured), the SQS timer queue (delays, visibility timeout, partial batch failures, redrive to a
 * DLQ), EventBridge Scheduler one-time schedules (at() in UTC, ActionAfterCompletion DELETE, Conflict
 * on an existing name), and Lambda's asynchronous Invoke of the Lambda-task function and synchronous
 * Invoke of a task's function. Each delivery may be duplicated (at-least-once).
 */
import { randomUUID } from 'node:crypto';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import type {
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  SQSBatchResponse,
  SQSEvent,
} from 'aws-lambda';
import { lambdaContext, lambdaStreamRecord, sqsRecord } from './lambda-events.js';

// ---------- Lambda event filtering (the subset of EventBridge patterns the stack uses) ----------

type Pattern = Record<string, unknown>;

/** Whether `value` matches an event filter `pattern` (Lambda's event filtering rules). */
export function matchesPattern(pattern: Pattern, value: unknown): boolean {
  for (const [key, sub] of Object.entries(pattern)) {
    const field = typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
    if (Array.isArray(sub)) {
      if (!sub.some((rule) => matchesRule(rule, field))) return false;
    } else if (typeof sub === 'object' && sub !== null) {
      if (!matchesPattern(sub as Pattern, field)) return false;
    } else {
      throw new Error(`unsupported pattern value ${JSON.stringify(sub)}`);
    }
  }
  return true;
}

function matchesRule(rule: unknown, field: unknown): boolean {
  if (typeof rule === 'object' && rule !== null) {
    if ('exists' in rule) return Reflect.get(rule, 'exists') === (field !== undefined);
    throw new Error(`unsupported rule ${JSON.stringify(rule)}`);
  }
  // A leaf of an array value matches if any element does; objects never match a literal.
  if (Array.isArray(field)) return field.some((f) => f === rule);
  return field === rule;
}

export const matchesAnyFilter = (patterns: readonly Pattern[], record: unknown) =>
  patterns.some((p) => matchesPattern(p, record));

// ---------- SQS ----------

export interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  visibleAt: number;
  receives: number;
  sentAt: number;
  readonly delaySeconds: number;
}

export class EmulatedQueue {
  readonly messages: QueuedMessage[] = [];
  readonly deadLetters: QueuedMessage[] = [];
  readonly sent: { body: string; delaySeconds: number; at: number }[] = [];
  /** Each message sent goes in twice (SQS standard queues deliver at least once). */
  duplicateOnSend = false;
  constructor(
    readonly visibilityMs: number,
    readonly maxReceiveCount: number,
  ) {}

  send(body: string, delaySeconds = 0): string {
    if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > 900)
      throw Object.assign(new Error(`InvalidParameterValue: DelaySeconds ${delaySeconds}`), {
        name: 'InvalidParameterValue',
      });
    if (Buffer.byteLength(body) > 262_144) throw new Error('message too long');
    const messageId = randomUUID();
    const now = Date.now();
    if (this.duplicateOnSend)
      this.messages.push({
        messageId: randomUUID(),
        body,
        visibleAt: now + delaySeconds * 1000,
        receives: 0,
        sentAt: now,
        delaySeconds,
      });
    this.messages.push({
      messageId,
      body,
      visibleAt: now + delaySeconds * 1000,
      receives: 0,
      sentAt: now,
      delaySeconds,
    });
    this.sent.push({ body, delaySeconds, at: now });
    return messageId;
  }

  /** Up to `max` visible messages, made invisible for the visibility timeout. */
  receive(max: number): QueuedMessage[] {
    const now = Date.now();
    const out: QueuedMessage[] = [];
    for (const m of this.messages) {
      if (out.length >= max) break;
      if (m.visibleAt > now) continue;
      m.receives++;
      if (m.receives > this.maxReceiveCount) {
        this.remove(m.messageId);
        this.deadLetters.push(m);
        continue;
      }
      m.visibleAt = now + this.visibilityMs;
      out.push(m);
    }
    return out;
  }

  remove(messageId: string): void {
    const i = this.messages.findIndex((m) => m.messageId === messageId);
    if (i >= 0) this.messages.splice(i, 1);
  }
}

// ---------- EventBridge Scheduler ----------

export interface EmulatedSchedule {
  readonly name: string;
  readonly group: string;
  readonly expression: string;
  readonly timezone: string | undefined;
  readonly fireAtMs: number;
  readonly input: string;
  readonly targetArn: string;
  readonly roleArn: string;
  readonly actionAfterCompletion: string | undefined;
}

/** `at(yyyy-mm-ddThh:mm:ss)` in the given zone (UTC only) → epoch ms. */
export function parseAt(expression: string, timezone: string | undefined): number {
  const m = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/.exec(expression);
  if (m === null) throw new Error(`ValidationException: bad schedule expression ${expression}`);
  if (timezone !== undefined && timezone !== 'UTC') throw new Error(`zone ${timezone}`);
  return Date.parse(`${m[1]}Z`);
}

// ---------- The stream pump ----------

export interface StreamPumpOptions {
  readonly dynamo: DynamoDBClient;
  readonly streams: DynamoDBStreamsClient;
  readonly tableName: string;
  readonly filters: readonly Pattern[];
  readonly batchSize: number;
  readonly handler: (e: DynamoDBStreamEvent, c: Context) => Promise<DynamoDBBatchResponse>;
  /** Deliver every batch twice (at least once). */
  readonly duplicate: boolean;
}

export class StreamPump {
  #stopped = false;
  #iterators = new Map<string, string | undefined>();
  #pending: DynamoDBRecord[] = [];
  readonly delivered: DynamoDBRecord[] = [];
  readonly filteredOut: DynamoDBRecord[] = [];
  readonly failures: string[] = [];
  readonly errors: unknown[] = [];
  #loop: Promise<void> | undefined;
  #idle = true;

  constructor(readonly options: StreamPumpOptions) {}

  start(): void {
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop;
  }

  get idle(): boolean {
    return this.#idle && this.#pending.length === 0;
  }

  async #run(): Promise<void> {
    const { Table } = await this.options.dynamo.send(
      new DescribeTableCommand({ TableName: this.options.tableName }),
    );
    const streamArn = Table?.LatestStreamArn;
    if (streamArn === undefined) throw new Error('no stream');
    while (!this.#stopped) {
      try {
        const { StreamDescription } = await this.options.streams.send(
          new DescribeStreamCommand({ StreamArn: streamArn }),
        );
        for (const shard of StreamDescription?.Shards ?? []) {
          const id = shard.ShardId ?? '';
          if (!this.#iterators.has(id)) {
            const { ShardIterator } = await this.options.streams.send(
              new GetShardIteratorCommand({
                StreamArn: streamArn,
                ShardId: id,
                ShardIteratorType: 'TRIM_HORIZON',
              }),
            );
            this.#iterators.set(id, ShardIterator);
          }
        }
        let got = 0;
        for (const [id, iterator] of this.#iterators) {
          if (iterator === undefined) continue;
          const out = await this.options.streams.send(
            new GetRecordsCommand({ ShardIterator: iterator }),
          );
          this.#iterators.set(id, out.NextShardIterator);
          const records = (out.Records ?? []) as _Record[];
          got += records.length;
          for (const r of records) this.#pending.push(lambdaStreamRecord(r));
        }
        if (this.#pending.length > 0) {
          this.#idle = false;
          await this.#deliverPending();
        }
        this.#idle = got === 0 && this.#pending.length === 0;
      } catch (error) {
        this.errors.push(error);
      }
      await new Promise((r) => setTimeout(r, 30));
    }
  }

  async #deliverPending(): Promise<void> {
    // Filtering happens before batching, as Lambda's does.
    const passing: DynamoDBRecord[] = [];
    for (const r of this.#pending) {
      if (matchesAnyFilter(this.options.filters, r)) passing.push(r);
      else this.filteredOut.push(r);
    }
    this.#pending = [];
    let queue = passing;
    let tries = 0;
    while (queue.length > 0) {
      const batch = queue.slice(0, this.options.batchSize);
      const result = await this.options.handler(
        { Records: batch },
        lambdaContext({ remainingMs: 300_000, name: 'swf-stream' }),
      );
      if (this.options.duplicate) {
        await this.options.handler(
          { Records: batch },
          lambdaContext({ remainingMs: 300_000, name: 'swf-stream' }),
        );
      }
      const failed = result?.batchItemFailures ?? [];
      if (failed.length === 0) {
        this.delivered.push(...batch);
        queue = queue.slice(batch.length);
        tries = 0;
        continue;
      }
      const seq = failed[0]?.itemIdentifier;
      this.failures.push(String(seq));
      const at = batch.findIndex((r) => r.dynamodb?.SequenceNumber === seq);
      if (at < 0) throw new Error(`batchItemFailures names ${seq}, not in the batch`);
      this.delivered.push(...batch.slice(0, at));
      queue = queue.slice(at);
      if (++tries > 10) throw new Error('stream batch kept failing');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

// ---------- The timer pump ----------

export class TimerPump {
  #stopped = false;
  #loop: Promise<void> | undefined;
  readonly errors: unknown[] = [];
  readonly invocations: { ids: string[]; failed: string[] }[] = [];
  inFlight = 0;

  constructor(
    readonly queue: EmulatedQueue,
    readonly handler: (e: SQSEvent, c: Context) => Promise<SQSBatchResponse>,
    readonly schedules: Map<string, EmulatedSchedule>,
    readonly duplicate: boolean,
  ) {}

  start(): void {
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      try {
        // Scheduler: due schedules put their input on their target queue and delete themselves.
        for (const [key, s] of this.schedules) {
          if (s.fireAtMs <= Date.now()) {
            this.queue.send(s.input, 0);
            if (s.actionAfterCompletion === 'DELETE') this.schedules.delete(key);
          }
        }
        const batch = this.queue.receive(10);
        if (batch.length > 0) {
          this.inFlight++;
          const event: SQSEvent = {
            Records: batch.map((m) => {
              const r = sqsRecord(m.body, m.messageId);
              return {
                ...r,
                attributes: { ...r.attributes, ApproximateReceiveCount: String(m.receives) },
              };
            }),
          };
          const result = await this.handler(event, lambdaContext({ remainingMs: 30_000 }));
          const failed = (result?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
          this.invocations.push({ ids: batch.map((m) => m.messageId), failed });
          for (const m of batch) if (!failed.includes(m.messageId)) this.queue.remove(m.messageId);
          if (this.duplicate) {
            // At-least-once: the same messages once more, as a second consumer might get them.
            await this.handler(event, lambdaContext({ remainingMs: 30_000 }));
          }
          this.inFlight--;
        }
      } catch (error) {
        this.errors.push(error);
        this.inFlight = 0;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
