/**
 * The outbox is idempotent and a poison record cannot block its shard (docs/architecture.md, "The stream is the outbox"). A
 * finished workflow (a timer, an activity, signals from outside and from the parent, a child workflow)
 * leaves its whole history in the table's stream; delivering every record of it a second time, as
 * Lambda's event source would after a failed batch, through the stream function's handler and the
 * timer function's handler, must leave every item of the table exactly as it was.
 */
import {
  type AttributeValue,
  DescribeTableCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  type Decision,
  type HistoryEvent,
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  RespondActivityTaskCompletedCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import type { DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { awsDeadlineScheduler } from '../../functions/shared/outbox-deps.js';
import { streamBatchHandler } from '../../functions/shared/stream-batch.js';
import { timerBatchHandler } from '../../functions/shared/timer-batch.js';
import { unpackAttribute } from '../../lib/adapters/dynamodb/packed-json.js';
import { dynamoStreamRecords, runChange } from '../../lib/adapters/dynamodb/stream-records.js';
import type { ExecutionState } from '../../lib/core/execution-state.js';
import { outboxEffects } from '../../lib/core/outbox.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { LOCAL_REGION, type LocalService } from '../../lib/local/local-service.js';
import type { OutboxDeps } from '../../lib/operations/outbox.js';
import { parseFire } from '../../lib/operations/timer-messages.js';
import type { DeadlineFire } from '../../lib/ports/deadline-scheduler.js';
import type { PushedTaskEvent } from '../../lib/ports/task-push.js';
import { decide, eventTypes, SwfDriver, single, sleep, uid } from '../support/decider.js';
import {
  lambdaContext,
  lambdaStreamRecord,
  sqsEvent,
  sqsRecord,
  streamEvent,
} from '../support/lambda-events.js';
import { dynamoClient, startTestServer, tableItems } from '../support/local.js';
import { awaitDecision, awaitHistory } from '../support/waiting.js';

const domain = 'replay';
const parentType = { name: 'replay-parent', version: '1' };
const childType = { name: 'replay-child', version: '1' };
const activityType = { name: 'replay-work', version: '1' };
const deadlines = {
  queueUrl: 'https://sqs.us-east-1.amazonaws.com/000000000000/swf-timers',
  queueArn: 'arn:aws:sqs:us-east-1:000000000000:swf-timers',
  scheduleGroup: 'swf-deadlines',
  schedulerRoleArn: 'arn:aws:iam::000000000000:role/swf-scheduler',
};

let service: LocalService;
/** What the function serving the child's decision tasks was handed. */
const childPushes: PushedTaskEvent[] = [];
let swf: SWFClient;
let driver: SwfDriver;
let close: () => Promise<void>;
let dynamo: DynamoDBClient;
let streams: DynamoDBStreamsClient;
const sqs = new SQSClient({ region: LOCAL_REGION });
const scheduler = new SchedulerClient({ region: LOCAL_REGION });
const sqsMock = mockClient(sqs);
const schedulerMock = mockClient(scheduler);

beforeAll(async () => {
  ({ service, swf, close } = await startTestServer({ polling: { maxWaitMs: 2_000 } }));
  driver = new SwfDriver(swf, domain);
  dynamo = dynamoClient();
  streams = new DynamoDBStreamsClient({
    endpoint: service.dynamoEndpoint,
    region: LOCAL_REGION,
    credentials: localCredentials,
  });
  await swf.send(
    new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }),
  );
  const defaults = {
    domain,
    defaultTaskList: { name: 'unused' },
    defaultExecutionStartToCloseTimeout: '3600',
    defaultTaskStartToCloseTimeout: '60',
    defaultChildPolicy: 'TERMINATE' as const,
  };
  await swf.send(new RegisterWorkflowTypeCommand({ ...defaults, ...parentType }));
  await swf.send(new RegisterWorkflowTypeCommand({ ...defaults, ...childType }));
  await swf.send(
    new RegisterActivityTypeCommand({
      domain,
      ...activityType,
      defaultTaskList: { name: 'unused' },
      defaultTaskScheduleToStartTimeout: '60',
      defaultTaskScheduleToCloseTimeout: '120',
      defaultTaskStartToCloseTimeout: '60',
      defaultTaskHeartbeatTimeout: 'NONE',
    }),
  );
});

afterAll(async () => {
  streams.destroy();
  dynamo.destroy();
  sqs.destroy();
  scheduler.destroy();
  await close();
});

beforeEach(() => {
  sqsMock.reset();
  schedulerMock.reset();
  sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm' });
  schedulerMock.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:schedule' });
});

/** The outbox as the stream and timer functions build it on AWS: deadlines go to (mocked) SQS/Scheduler. */
const awsOutbox = (): OutboxDeps => ({
  ...service.outbox,
  scheduler: awsDeadlineScheduler(sqs, scheduler, deadlines, service.outbox.clock),
});

/** Every fire the AWS scheduler was asked to deliver: delayed messages and schedule targets. */
function armedFires(): DeadlineFire[] {
  const bodies = [
    ...sqsMock.commandCalls(SendMessageCommand).map((c) => c.args[0].input.MessageBody ?? ''),
    ...schedulerMock
      .commandCalls(CreateScheduleCommand)
      .map((c) => c.args[0].input.Target?.Input ?? ''),
  ];
  return bodies.map((body) => {
    const fire = parseFire(body);
    if (fire === undefined) throw new Error(`not a fire: ${body}`);
    return fire;
  });
}

describe('replaying the stream of a finished workflow', () => {
  let records: _Record[];
  let history: HistoryEvent[];
  /** The deadline key of the parent's timer: `T:<TimerStarted eventId>`. */
  const timerKey = () => `T:${single(history, 'TimerStarted').eventId}`;

  beforeAll(async () => {
    history = await runFinishedWorkflow();
    records = await settledStream();
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
    expect(childPushes.map((e) => e.kind)).toEqual(['decision', 'decision']);
    // Every change of both runs is in the stream: run items were inserted and modified many times.
    const runRecords = records.filter((r) => r.dynamodb?.NewImage?.entity?.S === 'Run');
    expect(runRecords.length).toBeGreaterThanOrEqual(10);
  });

  it('marks exactly the changes with work for the outbox: the ones the stream function is invoked for', async () => {
    const runRecords = records.filter((r) => r.dynamodb?.NewImage?.entity?.S === 'Run');
    const marks: { work: boolean; marked: boolean | undefined }[] = [];
    for (const record of runRecords) {
      const change = await runChange(record, service.outbox.runs);
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
    const before = await scanTable();
    const stream = streamBatchHandler(awsOutbox, { retryDelayMs: 10 });
    const lambdaRecords = records.map(lambdaStreamRecord);

    // Lambda's batches of 100, in order, as after a failed batch or a shard re-read from its start.
    for (let i = 0; i < lambdaRecords.length; i += 100) {
      const batch = lambdaRecords.slice(i, i + 100);
      const result = await stream(streamEvent(batch), lambdaContext());
      expect(result).toEqual({ batchItemFailures: [] });
    }
    // Replayed records arm their deadlines again; those fires then reach the timer function too.
    const fires = armedFires();
    expect(fires.map((f) => f.key)).toEqual(expect.arrayContaining(['X', timerKey()]));
    const timer = timerBatchHandler(awsOutbox);
    for (let i = 0; i < fires.length; i += 10) {
      const batch = fires.slice(i, i + 10).map((f) => sqsRecord(JSON.stringify(f)));
      expect(await timer(sqsEvent(batch), lambdaContext())).toEqual({ batchItemFailures: [] });
    }
    await sleep(300); // anything the local poller would carry out from a stray write

    const after = await scanTable();
    expect(after.length).toBe(before.length);
    expect(after).toEqual(before);
    expect(childPushes).toHaveLength(2); // no task handed to its function again
    expect(await service.outbox.deadLetters.listDeadLetters()).toEqual([]);
  });

  it('changes nothing through handleStreamRecords and the local scheduler either', async () => {
    const before = await scanTable();
    const { handleStreamRecords } = await import('../../lib/operations/stream-records.js');
    await handleStreamRecords(service.outbox, records, dynamoStreamRecords(service.outbox.runs), {
      retryDelayMs: 10,
    });
    await sleep(300);
    expect(await scanTable()).toEqual(before);
    expect(childPushes).toHaveLength(2);
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
        const stream = streamBatchHandler(awsOutbox, { maxAttempts: 3, retryDelayMs: 5 });

        const result = await stream(streamEvent([poison, good]), lambdaContext());

        expect(result).toEqual({ batchItemFailures: [] });
        // The record behind the poison was carried out: its timer was armed.
        expect(armedFires().map((f) => f.key)).toContain(timerKey());
        const letters = await service.outbox.deadLetters.listDeadLetters();
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
      const aws = awsOutbox();
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
        const deadlinesOfRecord = armedFires().filter((f) => f.runId === runId).length;
        expect(deadlinesOfRecord).toBeGreaterThan(0);
        expect(tries).toBeGreaterThanOrEqual(4);
        expect(tries).toBeLessThanOrEqual(4 + deadlinesOfRecord);
      } finally {
        errors.mockRestore();
      }
      const letter = (await service.outbox.deadLetters.listDeadLetters()).find(
        (l) => l.id === poison.eventID,
      );
      expect(letter?.error).toBe('TypeError: this effect never works');
      expect(armedFires()).toContainEqual(expect.objectContaining({ runId, key: timerKey() }));
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
      sqsMock.on(SendMessageCommand).callsFake((input: { MessageBody?: string }) => {
        if (throttling && parseFire(input.MessageBody ?? '')?.runId === 'throttled-run') {
          throw Object.assign(new Error('Rate exceeded'), {
            name: 'ThrottlingException',
            $retryable: { throttling: true },
            $metadata: { httpStatusCode: 400 },
          });
        }
        return { MessageId: 'sent' };
      });
      const sentFor = (id: string) => armedFires().filter((f) => f.runId === id).length;
      const warnings = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        const stream = streamBatchHandler(awsOutbox, { maxAttempts: 2, retryDelayMs: 5 });

        const result = await stream(streamEvent([first, throttled, behind]), lambdaContext());

        // Lambda checkpoints before the throttled record and delivers it and `behind` again.
        expect(result).toEqual({
          batchItemFailures: [{ itemIdentifier: '900000000000000000002' }],
        });
        const deadlinesOfRecord = sentFor('first-run');
        expect(deadlinesOfRecord).toBeGreaterThan(0);
        // Tried maxAttempts (2) times, plus at most one up-front arming of each of its deadlines.
        const throttledSends = sqsMock
          .commandCalls(SendMessageCommand)
          .filter((c) => parseFire(c.args[0].input.MessageBody ?? '')?.runId === 'throttled-run');
        expect(throttledSends.length).toBeGreaterThanOrEqual(2);
        expect(throttledSends.length).toBeLessThanOrEqual(2 + deadlinesOfRecord);
        expect(sentFor('behind-run')).toBe(0); // not begun
        expect(warnings).toHaveBeenCalledWith(expect.stringContaining('ThrottlingException'));
      } finally {
        warnings.mockRestore();
      }
      const ids = (await service.outbox.deadLetters.listDeadLetters()).map((l) => l.id);
      expect(ids).not.toContain(throttled.eventID);

      // The throttling is over: the records delivered again go through.
      throttling = false;
      const again = streamBatchHandler(awsOutbox, { maxAttempts: 2, retryDelayMs: 5 });
      expect(await again(streamEvent([throttled, behind]), lambdaContext())).toEqual({
        batchItemFailures: [],
      });
      expect(sentFor('behind-run')).toBeGreaterThan(0);
    });
  });
});

describe('the timer function over the table', () => {
  it('puts an early fire back, fires a due one once, and a duplicate changes nothing', async () => {
    const run = await driver.start(parentType);
    await driver.decide(run.taskList, () => [decide.startTimer('long', '600')]);
    const history = await driver.history(run.execution);
    const started = single(history, 'TimerStarted');
    const at = (started.eventTimestamp?.getTime() ?? 0) / 1000 + 600;
    const message = JSON.stringify({ runId: run.execution.runId, key: `T:${started.eventId}`, at });
    const timerAt = (offsetMs: number) =>
      timerBatchHandler(() => ({
        ...awsOutbox(),
        clock: { now: () => Date.now() + offsetMs },
      }));

    // Now: ten minutes early. Back on the queue for the rest (under SQS's 15-minute limit).
    expect(await timerAt(0)(sqsEvent([sqsRecord(message)]), lambdaContext())).toEqual({
      batchItemFailures: [],
    });
    const [requeued] = sqsMock.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
    expect(requeued?.MessageBody).toBe(message);
    expect(requeued?.DelaySeconds).toBeGreaterThanOrEqual(590);
    expect(requeued?.DelaySeconds).toBeLessThanOrEqual(601);
    expect(await driver.history(run.execution)).toEqual(history);

    // Ten minutes later: the timer fires.
    const later = timerAt(601_000);
    expect(await later(sqsEvent([sqsRecord(message)]), lambdaContext())).toEqual({
      batchItemFailures: [],
    });
    const fired = await driver.history(run.execution);
    expect(eventTypes(fired).slice(history.length)).toEqual([
      'TimerFired',
      'DecisionTaskScheduled',
    ]);
    expect(single(fired, 'TimerFired').timerFiredEventAttributes).toEqual({
      timerId: 'long',
      startedEventId: started.eventId,
    });

    // The same fire again, twice in one batch: nothing changes anywhere in the table.
    await sleep(300);
    const before = await scanTable();
    expect(
      await later(sqsEvent([sqsRecord(message), sqsRecord(message)]), lambdaContext()),
    ).toEqual({ batchItemFailures: [] });
    expect(await scanTable()).toEqual(before);
  });
});

/**
 * Parent: a 1 s timer, an activity and a child, all at once; signals the child once it started and
 * completes when the timer fired, the activity completed, a signal came from outside and the child
 * completed. Child: completes when signaled.
 */
async function runFinishedWorkflow(): Promise<HistoryEvent[]> {
  const activityList = uid('workers');
  const childList = uid('child-deciders');
  const childId = uid('child');
  const parent = await driver.start(parentType);
  const has = (events: HistoryEvent[], type: string) => events.some((e) => e.eventType === type);

  const driveParent = async () => {
    for (let step = 0; step < 20; step++) {
      const task = await awaitDecision(driver, parent.taskList, 15_000);
      const events = task.events;
      const decisions: Decision[] = [];
      if (!has(events, 'DecisionTaskCompleted')) {
        decisions.push(
          decide.startTimer('t1', '1'),
          decide.scheduleActivity({
            activityType,
            activityId: 'a1',
            taskList: { name: activityList },
          }),
          {
            decisionType: 'StartChildWorkflowExecution',
            startChildWorkflowExecutionDecisionAttributes: {
              workflowType: childType,
              workflowId: childId,
              taskList: { name: childList },
            },
          },
        );
      }
      if (
        has(events, 'ChildWorkflowExecutionStarted') &&
        !has(events, 'SignalExternalWorkflowExecutionInitiated')
      ) {
        decisions.push({
          decisionType: 'SignalExternalWorkflowExecution',
          signalExternalWorkflowExecutionDecisionAttributes: {
            workflowId: childId,
            signalName: 'go',
          },
        });
      }
      const done = [
        'TimerFired',
        'ActivityTaskCompleted',
        'WorkflowExecutionSignaled',
        'ExternalWorkflowExecutionSignaled',
        'ChildWorkflowExecutionCompleted',
      ].every((type) => has(events, type));
      if (done) decisions.push(decide.complete('all done'));
      await driver.respond(task.taskToken, decisions);
      if (done) return;
    }
    throw new Error('the parent did not finish in 20 decision tasks');
  };

  // The child's decision tasks go to a function (a push task list): the outbox starts each one and
  // hands it over, which a replayed record must not do again.
  service.push.register(
    { kind: 'decision', domain, taskList: childList, target: 'child-decider' },
    async (event) => {
      childPushes.push(event);
      const task = event.task as { taskToken: string; events: { eventType: string }[] };
      const signaled = task.events.some((e) => e.eventType === 'WorkflowExecutionSignaled');
      await driver.respond(task.taskToken, signaled ? [decide.complete('child done')] : []);
    },
  );

  const work = async () => {
    for (let poll = 0; poll < 10; poll++) {
      const task = await driver.pollActivity(activityList).catch(() => undefined);
      if (task === undefined) continue; // an empty long poll: the parent has not scheduled it yet
      await swf.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken }));
      return;
    }
    throw new Error('the activity was never scheduled');
  };

  const signalFromOutside = async () => {
    await sleep(200);
    await driver.signal(parent.execution, 'from-outside', 'hello');
  };

  await Promise.all([driveParent(), work(), signalFromOutside()]);
  return awaitHistory(driver, parent.execution, (events) =>
    has(events, 'WorkflowExecutionCompleted'),
  );
}

/** The table's whole stream, once the local poller has carried out everything and nothing moves. */
async function settledStream(): Promise<_Record[]> {
  let last = -1;
  for (let round = 0; round < 40; round++) {
    const records = await readStream();
    if (records.length === last) return records;
    last = records.length;
    await sleep(750);
  }
  throw new Error('the stream kept growing');
}

async function readStream(): Promise<_Record[]> {
  const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: service.tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (streamArn === undefined) throw new Error('the table has no stream');
  const shards: Shard[] = [];
  let exclusiveStartShardId: string | undefined;
  do {
    const { StreamDescription } = await streams.send(
      new DescribeStreamCommand({
        StreamArn: streamArn,
        ...(exclusiveStartShardId === undefined
          ? {}
          : { ExclusiveStartShardId: exclusiveStartShardId }),
      }),
    );
    shards.push(...(StreamDescription?.Shards ?? []));
    exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
  } while (exclusiveStartShardId !== undefined);

  const records: _Record[] = [];
  for (const shard of parentsFirst(shards)) {
    let { ShardIterator: iterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shard.ShardId,
        ShardIteratorType: 'TRIM_HORIZON',
      }),
    );
    while (iterator !== undefined) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      const got = page.Records ?? [];
      records.push(...got);
      if (got.length === 0) break;
      iterator = page.NextShardIterator;
    }
  }
  return records;
}

/** A shard's records come before its children's. */
function parentsFirst(shards: readonly Shard[]): Shard[] {
  const ids = new Set(shards.map((s) => s.ShardId));
  const ordered: Shard[] = [];
  const placed = new Set<string | undefined>();
  let rest = [...shards];
  while (rest.length > 0) {
    const ready = rest.filter(
      (s) =>
        s.ParentShardId === undefined || !ids.has(s.ParentShardId) || placed.has(s.ParentShardId),
    );
    if (ready.length === 0) throw new Error('shard parents form a cycle');
    for (const s of ready) {
      ordered.push(s);
      placed.add(s.ShardId);
    }
    rest = rest.filter((s) => !ready.includes(s));
  }
  return ordered;
}

/** Every item of the table, every attribute, in key order (but the stream poller's checkpoints). */
const scanTable = () => tableItems(dynamo, service.tableName);
