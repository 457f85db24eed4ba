import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { FilterPattern, MetricFilter, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { outboxRecords } from '../../lib/adapters/dynamodb/table-schema.js';
import { ServiceFunction, type ServiceFunctionOptions } from './service-function.js';
import type { SwfTable } from './swf-table.js';
import { thresholdAlarm } from './threshold-alarm.js';

/**
 * The Lambda-task function's memory: it waits on one function at a time (up to 900 s), doing next to
 * nothing meanwhile.
 */
export const LAMBDA_TASK_MEMORY_MB = 256;

/**
 * The stream and timer functions' memory (the bench's cost model prices the same). Like the API
 * function they mostly wait: on DynamoDB, SQS, Scheduler and the Invokes they make (the service's
 * whole side, its outbox included, spends about 1.3 ms of a core per SWF call: docs/performance.md),
 * so half the default size about halves what they cost.
 */
export const OUTBOX_MEMORY_MB = 512;

/** The metric the stream function's "stream record dead-lettered" log lines count into. */
export const DEAD_LETTER_METRIC = { namespace: 'SwfOnDynamo', metricName: 'DeadLetteredRecords' };

export interface SwfOutboxProps extends ServiceFunctionOptions {
  readonly table: SwfTable;
  /**
   * Roles the Lambda-task function may assume to run ScheduleLambdaFunction tasks (each execution names
   * its own `lambdaRole`, which must also trust that function's role): the only roles the service will
   * ever assume. Empty: it may assume none (the stack then does not offer ScheduleLambdaFunction).
   * @default none
   */
  readonly lambdaTaskRoleArns?: readonly string[];
  /** Tries of one stream record inside the function before it is dead-lettered in the table. @default 5 */
  readonly streamMaxAttempts?: number;
  readonly logRetention?: RetentionDays;
  /**
   * Concurrency reserved for the stream, timer and Lambda-task functions each: a flood of long polls
   * (the API function's) cannot starve the outbox, nor the outbox the API. The timer queue's pollers
   * are held to the timer function's share. @default DEFAULT_OUTBOX_CONCURRENCY
   */
  readonly reservedConcurrency?: OutboxConcurrency;
  /** Environment every function of the outbox gets besides its own (SWF's metrics namespace). */
  readonly environment?: Readonly<Record<string, string>>;
}

/** Concurrency reserved for each function of the outbox (SwfOutboxProps.reservedConcurrency). */
export interface OutboxConcurrency {
  readonly stream?: number;
  readonly timer?: number;
  readonly lambdaTask?: number;
}

/**
 * What is reserved when the stack is not told (170 of a new account's 1,000). The stream function
 * runs up to 10 batches per stream shard side by side: 100 serve 10 shards at full speed. The timer
 * function handles 10 fires per invocation in milliseconds each. A Lambda task holds its instance
 * for as long as the user's function runs: 50 run at once, more wait in Lambda's queue.
 */
export const DEFAULT_OUTBOX_CONCURRENCY = { stream: 100, timer: 20, lambdaTask: 50 } as const;

/** SQS event sources take from 2 to 1,000 concurrent pollers (MaximumConcurrency). */
const MIN_SQS_MAX_CONCURRENCY = 2;

/**
 * Everything that happens later or elsewhere (docs/architecture.md, "The stream is the outbox"): the stream function reads the
 * table's DynamoDB stream and carries out effects; deadlines wait on an SQS queue (up to 15 minutes) or
 * in EventBridge Scheduler one-time schedules that send to the same queue; the timer function takes the
 * fires. Every failure path ends somewhere visible, and each has an alarm.
 */
export class SwfOutbox extends Construct {
  readonly timerQueue: Queue;
  readonly timerDeadLetters: Queue;
  /**
   * Where EventBridge Scheduler puts a deadline fire it gave up delivering to the timer queue (after
   * a day of retries): the run waits on that fire until it is redriven.
   */
  readonly scheduleDeadLetters: Queue;
  /** Where Lambda puts the position of stream batches it gave up on (retries or age exhausted). */
  readonly streamFailures: Queue;
  readonly scheduleGroup: ScheduleGroup;
  /** Assumed by EventBridge Scheduler; may only send messages to the timer queue. */
  readonly schedulerRole: Role;
  readonly streamHandler: ServiceFunction;
  readonly timerHandler: ServiceFunction;
  /** Runs the ScheduleLambdaFunction tasks the stream function starts, one invocation each. */
  readonly lambdaTaskHandler: ServiceFunction;
  readonly alarms: readonly Alarm[];
  /** What a function that arms deadlines reads: the timer queue, the schedule group, the role. */
  readonly armingEnvironment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: SwfOutboxProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const logRetention = {
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
      ...(props.tracing === undefined ? {} : { tracing: props.tracing }),
    };
    const reserved = { ...DEFAULT_OUTBOX_CONCURRENCY, ...props.reservedConcurrency };

    const timerTimeout = Duration.seconds(30);
    this.timerDeadLetters = new Queue(this, 'TimerDeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.timerQueue = new Queue(this, 'TimerQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Lambda's advice for an SQS event source: six times the function's timeout.
      visibilityTimeout: Duration.seconds(timerTimeout.toSeconds() * 6),
      retentionPeriod: Duration.days(14),
      deadLetterQueue: { queue: this.timerDeadLetters, maxReceiveCount: 5 },
    });
    this.streamFailures = new Queue(this, 'StreamFailures', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.scheduleDeadLetters = new Queue(this, 'ScheduleDeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });

    this.scheduleGroup = new ScheduleGroup(this, 'ScheduleGroup', {
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.schedulerRole = new Role(this, 'SchedulerRole', {
      description: 'Assumed by EventBridge Scheduler to put deadline fires on the timer queue',
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          // Only schedules of this group may use it (Scheduler's confused-deputy guard).
          StringEquals: {
            'aws:SourceAccount': stack.account,
            'aws:SourceArn': this.scheduleGroup.scheduleGroupArn,
          },
        },
      }),
    });
    // The fire itself, and the fires it gave up delivering (the schedules' dead-letter queue).
    this.schedulerRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['sqs:SendMessage'],
        resources: [this.timerQueue.queueArn, this.scheduleDeadLetters.queueArn],
      }),
    );

    const environment = {
      TIMER_QUEUE_URL: this.timerQueue.queueUrl,
      TIMER_QUEUE_ARN: this.timerQueue.queueArn,
      SCHEDULE_GROUP: this.scheduleGroup.scheduleGroupName,
      SCHEDULER_ROLE_ARN: this.schedulerRole.roleArn,
      SCHEDULE_DEAD_LETTER_ARN: this.scheduleDeadLetters.queueArn,
      ACCOUNT_ID: stack.account,
      ...props.environment,
    };
    this.armingEnvironment = environment;
    this.streamHandler = new ServiceFunction(this, 'StreamHandler', {
      entry: 'stream',
      memorySize: OUTBOX_MEMORY_MB,
      description:
        'SWF outbox: DynamoDB stream records → deadlines, task queues, cross-execution effects',
      // A slow effect ends the batch 15 s early and checkpoints it (Lambda tasks run elsewhere).
      timeout: Duration.minutes(5),
      reservedConcurrentExecutions: reserved.stream,
      environment: {
        ...environment,
        ...(props.streamMaxAttempts === undefined
          ? {}
          : { STREAM_MAX_ATTEMPTS: String(props.streamMaxAttempts) }),
      },
      ...logRetention,
    });
    this.timerHandler = new ServiceFunction(this, 'TimerHandler', {
      entry: 'timer',
      memorySize: OUTBOX_MEMORY_MB,
      description: 'SWF deadlines: fires from the timer queue → timers and timeouts',
      timeout: timerTimeout,
      reservedConcurrentExecutions: reserved.timer,
      environment,
      ...logRetention,
    });
    for (const fn of [this.streamHandler, this.timerHandler]) {
      // Both change runs (the stream through effects, the timer through fires) and both arm deadlines.
      props.table.bindTable(fn, 'readWrite');
      this.grantArming(fn);
    }
    // The stream function carries out changes' effects, disarming the schedules of alarms a run
    // outlived (only the invocations of schedules are charged, not their creation or deletion).
    this.streamHandler.addToRolePolicy(
      new PolicyStatement({
        actions: ['scheduler:DeleteSchedule'],
        resources: [this.scheduleArns()],
      }),
    );
    // Lambda tasks: the stream function starts each and hands it to this function (an asynchronous
    // Invoke), which waits on the task's function up to its start-to-close timeout (900 s at most)
    // and records the outcome. The stream never waits on a user's function. Not retried: a function
    // is invoked at most once per task, and the task's timeout closes it if this function fails.
    // Lambda may still deliver an event twice, or late (it holds a throttled one up to its maximum
    // age): the function claims the task before invoking and skips one past its timeout, and an
    // event older than the longest task (900 s) is dropped.
    this.lambdaTaskHandler = new ServiceFunction(this, 'LambdaTaskHandler', {
      entry: 'lambda-task',
      memorySize: LAMBDA_TASK_MEMORY_MB,
      description:
        'SWF Lambda tasks: invokes a ScheduleLambdaFunction task and records its outcome',
      timeout: Duration.minutes(15),
      reservedConcurrentExecutions: reserved.lambdaTask,
      environment: { ACCOUNT_ID: stack.account, ...props.environment },
      ...logRetention,
    });
    this.lambdaTaskHandler.configureAsyncInvoke({
      retryAttempts: 0,
      maxEventAge: Duration.minutes(15),
    });
    props.table.bindTable(this.lambdaTaskHandler, 'readWrite');
    this.lambdaTaskHandler.grantInvoke(this.streamHandler);
    this.streamHandler.addEnvironment('LAMBDA_TASK_FUNCTION', this.lambdaTaskHandler.functionName);
    const lambdaTaskRoles = props.lambdaTaskRoleArns ?? [];
    if (lambdaTaskRoles.length > 0) {
      // Invokes with the execution's lambdaRole assumed, never with its own role.
      this.lambdaTaskHandler.addToRolePolicy(
        new PolicyStatement({ actions: ['sts:AssumeRole'], resources: [...lambdaTaskRoles] }),
      );
    }

    this.streamHandler.addEventSource(
      // Table's optional tableStreamArn fails ITable's under exactOptionalPropertyTypes; it has a stream.
      new DynamoEventSource(props.table.table as ITable, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(0),
        // Lambda keeps each partition key's records in order (a run's changes share its pk): runs
        // are carried out side by side, and one run's slow Lambda task holds up only that run.
        parallelizationFactor: 10,
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        // Retried until the batch's oldest record is 6 hours old, however many tries that takes: a
        // failure that lasts (the table throttled, a dependency down) is waited out, not given up on
        // after a count. The failure queue then holds the batch's position, with 18 of the stream's
        // 24 hours left to redrive it.
        retryAttempts: -1,
        maxRecordAge: Duration.hours(6),
        onFailure: new SqsDlq(this.streamFailures),
        // Only changes of a run's state item carry effects (lib/operations/stream-records.ts
        // runChange), and most have none: the writer marks those that do (lib/core/outbox.ts
        // outboxEffects of the replaced and the new state). Items written before the mark existed
        // lack it and are let through. Records filtered out cost no invocation.
        filters: [
          FilterCriteria.filter({
            dynamodb: {
              NewImage: {
                [outboxRecords.entityAttribute]: { S: FilterRule.isEqual(outboxRecords.entity) },
                [outboxRecords.workAttribute]: { BOOL: [true] },
              },
            },
          }),
          FilterCriteria.filter({
            dynamodb: {
              NewImage: {
                [outboxRecords.entityAttribute]: { S: FilterRule.isEqual(outboxRecords.entity) },
                [outboxRecords.workAttribute]: { BOOL: FilterRule.notExists() },
              },
            },
          }),
        ],
      }),
    );
    this.timerHandler.addEventSource(
      new SqsEventSource(this.timerQueue, {
        batchSize: 10,
        reportBatchItemFailures: true,
        // No more concurrent batches than the function may run: fires are not taken only to be
        // throttled and put back (each such return counts toward the queue's dead-lettering).
        maxConcurrency: Math.max(MIN_SQS_MAX_CONCURRENCY, reserved.timer),
      }),
    );

    const deadLettered = new MetricFilter(this, 'DeadLetteredRecords', {
      logGroup: this.streamHandler.logGroup,
      // A phrase, not a JSON selector: the line is the `message` string of Lambda's JSON log event
      // (and would start with its time, request id and level in the text format).
      filterPattern: FilterPattern.allTerms('stream record dead-lettered'),
      metricNamespace: DEAD_LETTER_METRIC.namespace,
      metricName: DEAD_LETTER_METRIC.metricName,
      metricValue: '1',
    });

    this.alarms = [
      alarm(this, 'TimerDeadLettersAlarm', queueDepth(this.timerDeadLetters), {
        description: 'Deadline fires kept failing and were dead-lettered (timer queue DLQ)',
      }),
      alarm(this, 'ScheduleDeadLettersAlarm', queueDepth(this.scheduleDeadLetters), {
        description:
          'EventBridge Scheduler gave up delivering deadline fires (a day of retries): their runs wait on them',
      }),
      alarm(this, 'StreamFailuresAlarm', queueDepth(this.streamFailures), {
        description: 'Lambda gave up on DynamoDB stream batches (retries or record age exhausted)',
      }),
      alarm(
        this,
        'DeadLetteredRecordsAlarm',
        deadLettered.metric({ statistic: 'Sum', period: Duration.minutes(1) }),
        { description: 'A stream record was dead-lettered in the table (a poison record)' },
      ),
      alarm(
        this,
        'StreamIteratorAgeAlarm',
        this.streamHandler.metric('IteratorAge', {
          statistic: 'Maximum',
          period: Duration.minutes(1),
        }),
        {
          description: 'The outbox lags the table by over a minute: effects and timers are late',
          threshold: 60_000,
          evaluationPeriods: 5,
          datapointsToAlarm: 3,
        },
      ),
      alarm(this, 'StreamErrorsAlarm', sum(this.streamHandler.metricErrors()), {
        description: 'The stream function failed',
      }),
      alarm(this, 'TimerErrorsAlarm', sum(this.timerHandler.metricErrors()), {
        description: 'The timer function failed',
      }),
      alarm(this, 'LambdaTaskErrorsAlarm', sum(this.lambdaTaskHandler.metricErrors()), {
        description: 'The Lambda-task function failed: a Lambda task ended by its timeout',
      }),
    ];
  }

  /** Every schedule of the group: `arn:…:scheduler:<region>:<account>:schedule/<group>/*`. */
  private scheduleArns(): string {
    return Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.scheduleGroup.scheduleGroupName}/*`,
    });
  }

  /**
   * Arming a deadline: a delayed message on the timer queue, or a one-time schedule in the group that
   * Scheduler runs as the scheduler role. Schedules delete themselves after firing; the role may be
   * passed to Scheduler and nothing else.
   */
  grantArming(fn: ServiceFunction): void {
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.timerQueue.queueArn] }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['scheduler:CreateSchedule'],
        resources: [this.scheduleArns()],
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['iam:PassRole'],
        resources: [this.schedulerRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
  }
}

const queueDepth = (queue: Queue) =>
  queue.metricApproximateNumberOfMessagesVisible({
    statistic: 'Maximum',
    period: Duration.minutes(1),
  });

const sum = (metric: Metric) => metric.with({ statistic: 'Sum', period: Duration.minutes(1) });

const alarm = thresholdAlarm;
