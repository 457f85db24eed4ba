/**
 * The outbox is idempotent and a poison record cannot block its shard (docs/architecture.md, "The
 * stream is the outbox"). A finished workflow (a timer, an activity, signals from outside and from the
 * parent, a child workflow) leaves its whole history in the table's stream; delivering every record of
 * it a second time, as Lambda's event source would after a failed batch, through the stream function's
 * handler and the timer function's handler, must leave every item of the table exactly as it was. The
 * server, its mocked AWS and the finished workflow are test/support/outbox-replay.ts.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { HistoryEvent } from '@aws-sdk/client-swf';
import type { DynamoDBRecord } from 'aws-lambda';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { streamBatchHandler } from '../../functions/shared/stream-batch.js';
import { timerBatchHandler } from '../../functions/shared/timer-batch.js';
import { unpackAttribute } from '../../lib/adapters/dynamodb/packed-json.js';
import { dynamoStreamRecords, runChange } from '../../lib/adapters/dynamodb/stream-records.js';
import type { ExecutionState } from '../../lib/core/execution-state.js';
import { outboxEffects } from '../../lib/core/outbox.js';
import type { OutboxDeps } from '../../lib/operations/outbox.js';
import { parseFire } from '../../lib/operations/timer-messages.js';
import { eventTypes, single, sleep, uid } from '../support/decider.js';
import {
  lambdaContext,
  lambdaStreamRecord,
  sqsEvent,
  sqsRecord,
  streamEvent,
} from '../support/lambda-events.js';
import { outboxReplayForFile } from '../support/outbox-replay.js';

const replay = outboxReplayForFile();

describe('replaying the stream of a finished workflow', () => {
  let records: _Record[];
  let history: HistoryEvent[];
  /** The deadline key of the parent's timer: `T:<TimerStarted eventId>`. */
  const timerKey = () => `T:${single(history, 'TimerStarted').eventId}`;

  beforeAll(async () => {
    history = await replay.runFinishedWorkflow();
    records = await replay.settledStream();
  }, 60_000);

  it('covers a timer, an activity, signals, a child workflow and its close', () => {
    expect(eventTypes(history)).toEqual(
      expect.arrayContaining([
        'TimerFired',
        'ActivityTaskCompleted',
        'WorkflowExecutionSignaled',
        'ExternalWorkflowExecutionSignaled',
        'ChildWorkflowExecutionStarted',
        'ChildWorkflowExecutionCompleted',
        'WorkflowExecutionCompleted',
      ]),
    );
    // The child decided through its function: two decision tasks (before and after the signal).
    expect(replay.childPushes.map((e) => e.kind)).toEqual(['decision', 'decision']);
    // Every change of both runs is in the stream: run items were inserted and modified many times.
    const runRecords = records.filter((r) => r.dynamodb?.NewImage?.entity?.S === 'Run');
    expect(runRecords.length).toBeGreaterThanOrEqual(10);
  });

  it('marks exactly the changes with work for the outbox: the ones the stream function is invoked for', async () => {
    const runRecords = records.filter((r) => r.dynamodb?.NewImage?.entity?.S === 'Run');
    const marks: { work: boolean; marked: boolean | undefined }[] = [];
    for (const record of runRecords) {
      const change = await runChange(record, replay.service.outbox.runs);
      if (change === undefined) throw new Error('a run record without its state');
      const work = outboxEffects(change.before, change.after).length > 0;
      marks.push({ work, marked: record.dynamodb?.NewImage?.fx?.BOOL });
    }
    expect(marks.filter((m) => m.marked !== m.work)).toEqual([]);
    // Starts, closes, signals, the child and the timer have work; most task starts and results none.
    expect(marks.filter((m) => m.work).length).toBeGreaterThan(0);
    expect(marks.filter((m) => !m.work).length).toBeGreaterThan(0);
  });

  it('changes nothing in the table, through the stream and timer functions', async () => {
    const before = await replay.scanTable();
    const stream = streamBatchHandler(replay.awsOutbox, { retryDelayMs: 10 });
    const lambdaRecords = records.map(lambdaStreamRecord);

    // Lambda's batches of 100, in order, as after a failed batch or a shard re-read from its start.
    for (let i = 0; i < lambdaRecords.length; i += 100) {
      const batch = lambdaRecords.slice(i, i + 100);
      const result = await stream(streamEvent(batch), lambdaContext());
      expect(result).toEqual({ batchItemFailures: [] });
    }
    // Replayed records arm their deadlines again; those fires then reach the timer function too.
    const fires = replay.armedFires();
    expect(fires.map((f) => f.key)).toEqual(expect.arrayContaining(['X', timerKey()]));
    const timer = timerBatchHandler(replay.awsOutbox);
    for (let i = 0; i < fires.length; i += 10) {
      const batch = fires.slice(i, i + 10).map((f) => sqsRecord(JSON.stringify(f)));
      expect(await timer(sqsEvent(batch), lambdaContext())).toEqual({ batchItemFailures: [] });
    }
    await sleep(300); // anything the local poller would carry out from a stray write

    const after = await replay.scanTable();
    expect(after.length).toBe(before.length);
    expect(after).toEqual(before);
    expect(replay.childPushes).toHaveLength(2); // no task handed to its function again
    expect(await replay.service.outbox.deadLetters.listDeadLetters()).toEqual([]);
  });

  it('changes nothing through handleStreamRecords and the local scheduler either', async () => {
    const before = await replay.scanTable();
    const { handleStreamRecords } = await import('../../lib/operations/stream-records.js');
    await handleStreamRecords(
      replay.service.outbox,
      records,
      dynamoStreamRecords(replay.service.outbox.runs),
      {
        retryDelayMs: 10,
      },
    );
    await sleep(300);
    expect(await replay.scanTable()).toEqual(before);
    expect(replay.childPushes).toHaveLength(2);
  });

  describe('with a poison record in the batch', () => {
    /** A record of the finished parent that arms its timer: a real effect to see behind the poison. */
    const timerRecord = () => {
      const timers = (image: Record<string, AttributeValue> | undefined) =>
        image?.entity?.S === 'Run'
          ? Object.keys(unpackAttribute<ExecutionState>(image.state)?.timers ?? {}).length
          : 0;
      const record = records.find(
        (r) => timers(r.dynamodb?.NewImage) === 1 && timers(r.dynamodb?.OldImage) === 0,
      );
      if (record === undefined) throw new Error('no record starting the timer');
      return lambdaStreamRecord(record);
    };
    /** A record's run state as JSON text, however the store packed it. */
    const stateText = (record: DynamoDBRecord) =>
      JSON.stringify(unpackAttribute<ExecutionState>(record.dynamodb?.NewImage?.state) ?? {});
    const runIdOf = (record: DynamoDBRecord) =>
      unpackAttribute<ExecutionState>(record.dynamodb?.NewImage?.state)?.execution.runId ?? '';
    const poisoned = (record: DynamoDBRecord, id: string, state: string): DynamoDBRecord => ({
      ...record,
      eventID: id,
      dynamodb: {
        ...record.dynamodb,
        SequenceNumber: `0${record.dynamodb?.SequenceNumber ?? ''}`,
        NewImage: { ...record.dynamodb?.NewImage, state: { S: state } },
      },
    });

    it('dead-letters a run image with corrupt state after bounded retries and goes on', async () => {
      const good = timerRecord();
      const poison = poisoned(good, uid('corrupt'), '{"execution": {"runId": ');
      const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      try {
        const stream = streamBatchHandler(replay.awsOutbox, { maxAttempts: 3, retryDelayMs: 5 });

        const result = await stream(streamEvent([poison, good]), lambdaContext());

        expect(result).toEqual({ batchItemFailures: [] });
        // The record behind the poison was carried out: its timer was armed.
        expect(replay.armedFires().map((f) => f.key)).toContain(timerKey());
        const letters = await replay.service.outbox.deadLetters.listDeadLetters();
        const letter = letters.find((l) => l.id === poison.eventID);
        expect(letter?.error).toMatch(/^SyntaxError: /);
        // The dead letter keeps the record itself, readable for inspection and a manual replay.
        expect(JSON.parse(letter?.record ?? '{}')).toMatchObject({
          eventID: poison.eventID,
          dynamodb: { NewImage: { state: { S: '{"execution": {"runId": ' } } },
        });
        expect(errors).toHaveBeenCalledWith(expect.stringContaining('stream record dead-lettered'));
      } finally {
        errors.mockRestore();
      }
    });

    it('dead-letters a record whose effect always fails, after exactly maxAttempts tries, and goes on', async () => {
      const good = timerRecord();
      const runId = runIdOf(good);
      // The same change, of a run whose deadlines cannot be armed.
      const state = stateText(good).replaceAll(runId, 'poisoned-run');
      const poison = poisoned(good, uid('throws'), state);
      let tries = 0;
      const aws = replay.awsOutbox();
      const failing: OutboxDeps = {
        ...aws,
        scheduler: {
          arm: async (fire) => {
            if (fire.runId !== 'poisoned-run') return aws.scheduler.arm(fire);
            tries++;
            throw new TypeError('this effect never works');
          },
          disarm: (fire, armedAgain) => aws.scheduler.disarm(fire, armedAgain),
        },
      };
      const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      try {
        const stream = streamBatchHandler(() => failing, { maxAttempts: 4, retryDelayMs: 5 });

        const result = await stream(streamEvent([poison, good]), lambdaContext());

        expect(result).toEqual({ batchItemFailures: [] });
        // 4 tries of the record, each failing at its first arm; the handler may also arm a record's
        // deadlines once up front (all of them at once), so at most one more call per deadline.
        const deadlinesOfRecord = replay.armedFires().filter((f) => f.runId === runId).length;
        expect(deadlinesOfRecord).toBeGreaterThan(0);
        expect(tries).toBeGreaterThanOrEqual(4);
        expect(tries).toBeLessThanOrEqual(4 + deadlinesOfRecord);
      } finally {
        errors.mockRestore();
      }
      const letter = (await replay.service.outbox.deadLetters.listDeadLetters()).find(
        (l) => l.id === poison.eventID,
      );
      expect(letter?.error).toBe('TypeError: this effect never works');
      expect(replay.armedFires()).toContainEqual(
        expect.objectContaining({ runId, key: timerKey() }),
      );
    });

    it('does not dead-letter a transient failure: Lambda gets the record back, and what follows it', async () => {
      const good = timerRecord();
      const runId = runIdOf(good);
      const asRun = (id: string, sequenceNumber: string) => {
        const record = poisoned(good, uid(id), stateText(good).replaceAll(runId, id));
        return { ...record, dynamodb: { ...record.dynamodb, SequenceNumber: sequenceNumber } };
      };
      const first = asRun('first-run', '900000000000000000001');
      const throttled = asRun('throttled-run', '900000000000000000002');
      const behind = asRun('behind-run', '900000000000000000003');
      let throttling = true;
      replay.sqsMock.on(SendMessageCommand).callsFake((input: { MessageBody?: string }) => {
        if (throttling && parseFire(input.MessageBody ?? '')?.runId === 'throttled-run') {
          throw Object.assign(new Error('Rate exceeded'), {
            name: 'ThrottlingException',
            $retryable: { throttling: true },
            $metadata: { httpStatusCode: 400 },
          });
        }
        return { MessageId: 'sent' };
      });
      const sentFor = (id: string) => replay.armedFires().filter((f) => f.runId === id).length;
      const warnings = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        const stream = streamBatchHandler(replay.awsOutbox, { maxAttempts: 2, retryDelayMs: 5 });

        const result = await stream(streamEvent([first, throttled, behind]), lambdaContext());

        // Lambda checkpoints before the throttled record and delivers it and `behind` again.
        expect(result).toEqual({
          batchItemFailures: [{ itemIdentifier: '900000000000000000002' }],
        });
        const deadlinesOfRecord = sentFor('first-run');
        expect(deadlinesOfRecord).toBeGreaterThan(0);
        // Tried maxAttempts (2) times, plus at most one up-front arming of each of its deadlines.
        const throttledSends = replay.sqsMock
          .commandCalls(SendMessageCommand)
          .filter((c) => parseFire(c.args[0].input.MessageBody ?? '')?.runId === 'throttled-run');
        expect(throttledSends.length).toBeGreaterThanOrEqual(2);
        expect(throttledSends.length).toBeLessThanOrEqual(2 + deadlinesOfRecord);
        expect(sentFor('behind-run')).toBe(0); // not begun
        expect(warnings).toHaveBeenCalledWith(expect.stringContaining('ThrottlingException'));
      } finally {
        warnings.mockRestore();
      }
      const ids = (await replay.service.outbox.deadLetters.listDeadLetters()).map((l) => l.id);
      expect(ids).not.toContain(throttled.eventID);

      // The throttling is over: the records delivered again go through.
      throttling = false;
      const again = streamBatchHandler(replay.awsOutbox, { maxAttempts: 2, retryDelayMs: 5 });
      expect(await again(streamEvent([throttled, behind]), lambdaContext())).toEqual({
        batchItemFailures: [],
      });
      expect(sentFor('behind-run')).toBeGreaterThan(0);
    });
  });
});
