/**
 * A test server whose table's stream and outbox the stream and timer functions replay, with the
 * deadlines they arm going to (mocked) SQS and EventBridge Scheduler, and a finished workflow to
 * replay: a timer, an activity, signals from outside and from the parent, and a child workflow whose
 * decision tasks go to a function.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type _Record, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  type Decision,
  type HistoryEvent,
  RespondActivityTaskCompletedCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach } from 'vitest';
import { awsDeadlineScheduler } from '../../functions/shared/outbox-deps.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { LOCAL_REGION, type LocalService } from '../../lib/local/local-service.js';
import type { OutboxDeps } from '../../lib/operations/outbox.js';
import { parseFire } from '../../lib/operations/timer-messages.js';
import type { DeadlineFire } from '../../lib/ports/deadline-scheduler.js';
import type { PushedTaskEvent } from '../../lib/ports/task-push.js';
import { decide, SwfDriver, sleep, uid } from './decider.js';
import {
  dynamoClient,
  registerParentChildTypes,
  servedForFile,
  startTestServer,
  tableItems,
} from './local.js';
import { settledStream } from './table-stream.js';
import { awaitDecision, awaitHistory } from './waiting.js';

const domain = 'replay';
export const parentType = { name: 'replay-parent', version: '1' };
const childType = { name: 'replay-child', version: '1' };
const activityType = { name: 'replay-work', version: '1' };
export const deadlines = {
  queueUrl: 'https://sqs.us-east-1.amazonaws.com/000000000000/swf-timers',
  queueArn: 'arn:aws:sqs:us-east-1:000000000000:swf-timers',
  scheduleGroup: 'swf-deadlines',
  schedulerRoleArn: 'arn:aws:iam::000000000000:role/swf-scheduler',
};

export class OutboxReplayService {
  /** What the function serving the child's decision tasks was handed. */
  readonly childPushes: PushedTaskEvent[] = [];
  readonly driver: SwfDriver;
  readonly dynamo: DynamoDBClient = dynamoClient();
  private readonly streams: DynamoDBStreamsClient;
  private readonly sqs = new SQSClient({ region: LOCAL_REGION });
  private readonly scheduler = new SchedulerClient({ region: LOCAL_REGION });
  readonly sqsMock = mockClient(this.sqs);
  private readonly schedulerMock = mockClient(this.scheduler);

  private constructor(
    readonly service: LocalService,
    private readonly swf: SWFClient,
    private readonly closeServer: () => Promise<void>,
  ) {
    this.driver = new SwfDriver(swf, domain);
    this.streams = new DynamoDBStreamsClient({
      endpoint: service.dynamoEndpoint,
      region: LOCAL_REGION,
      credentials: localCredentials,
    });
  }

  static async serve(): Promise<OutboxReplayService> {
    const { service, swf, close } = await startTestServer({ polling: { maxWaitMs: 2_000 } });
    await registerParentChildTypes(swf, domain, {
      parent: parentType,
      child: childType,
      work: activityType,
    });
    return new OutboxReplayService(service, swf, close);
  }

  async close(): Promise<void> {
    this.streams.destroy();
    this.dynamo.destroy();
    this.sqs.destroy();
    this.scheduler.destroy();
    await this.closeServer();
  }

  /** SQS and the scheduler take every deadline; what they were asked is forgotten. */
  resetAwsMocks(): void {
    this.sqsMock.reset();
    this.schedulerMock.reset();
    this.sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm' });
    this.schedulerMock.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:schedule' });
  }

  /** The outbox as the stream and timer functions build it on AWS: deadlines go to (mocked) SQS/Scheduler. */
  readonly awsOutbox = (): OutboxDeps => ({
    ...this.service.outbox,
    scheduler: awsDeadlineScheduler(this.sqs, this.scheduler, deadlines, this.service.outbox.clock),
  });

  /** Every fire the AWS scheduler was asked to deliver: delayed messages and schedule targets. */
  armedFires(): DeadlineFire[] {
    const bodies = [
      ...this.sqsMock
        .commandCalls(SendMessageCommand)
        .map((c) => c.args[0].input.MessageBody ?? ''),
      ...this.schedulerMock
        .commandCalls(CreateScheduleCommand)
        .map((c) => c.args[0].input.Target?.Input ?? ''),
    ];
    return bodies.map((body) => {
      const fire = parseFire(body);
      if (fire === undefined) throw new Error(`not a fire: ${body}`);
      return fire;
    });
  }

  /** Every item of the table, every attribute, in key order (but the stream poller's checkpoints). */
  scanTable() {
    return tableItems(this.dynamo, this.service.tableName);
  }

  /** The table's whole stream, once the local poller has carried out everything and nothing moves. */
  settledStream(): Promise<_Record[]> {
    return settledStream({
      dynamo: this.dynamo,
      streams: this.streams,
      tableName: this.service.tableName,
    });
  }

  /**
   * Parent: a 1 s timer, an activity and a child, all at once; signals the child once it started and
   * completes when the timer fired, the activity completed, a signal came from outside and the child
   * completed. Child: completes when signaled.
   */
  async runFinishedWorkflow(): Promise<HistoryEvent[]> {
    const ids = {
      activityList: uid('workers'),
      childList: uid('child-deciders'),
      childId: uid('child'),
    };
    const parent = await this.driver.start(parentType);
    const driveParent = async () => {
      for (let step = 0; step < 20; step++) {
        const task = await awaitDecision(this.driver, parent.taskList, 15_000);
        const { decisions, done } = parentDecisions(task.events, ids);
        await this.driver.respond(task.taskToken, decisions);
        if (done) return;
      }
      throw new Error('the parent did not finish in 20 decision tasks');
    };
    this.pushChildDecisions(ids.childList);
    const work = async () => {
      for (let poll = 0; poll < 10; poll++) {
        const task = await this.driver.pollActivity(ids.activityList).catch(() => undefined);
        if (task === undefined) continue; // an empty long poll: the parent has not scheduled it yet
        await this.swf.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken }));
        return;
      }
      throw new Error('the activity was never scheduled');
    };
    const signalFromOutside = async () => {
      await sleep(200);
      await this.driver.signal(parent.execution, 'from-outside', 'hello');
    };
    await Promise.all([driveParent(), work(), signalFromOutside()]);
    return awaitHistory(this.driver, parent.execution, (events) =>
      has(events, 'WorkflowExecutionCompleted'),
    );
  }

  /**
   * The child's decision tasks go to a function (a push task list): the outbox starts each one and
   * hands it over, which a replayed record must not do again.
   */
  private pushChildDecisions(childList: string): void {
    this.service.push.register(
      { kind: 'decision', domain, taskList: childList, target: 'child-decider' },
      async (event) => {
        this.childPushes.push(event);
        const task = event.task as { taskToken: string; events: { eventType: string }[] };
        const signaled = task.events.some((e) => e.eventType === 'WorkflowExecutionSignaled');
        await this.driver.respond(task.taskToken, signaled ? [decide.complete('child done')] : []);
      },
    );
  }
}

const has = (events: readonly HistoryEvent[], type: string) =>
  events.some((e) => e.eventType === type);

/** What the finished workflow's parent decides on `events`, and whether that closes it. */
function parentDecisions(
  events: readonly HistoryEvent[],
  ids: { activityList: string; childList: string; childId: string },
): { decisions: Decision[]; done: boolean } {
  const decisions: Decision[] = [];
  if (!has(events, 'DecisionTaskCompleted'))
    decisions.push(
      decide.startTimer('t1', '1'),
      decide.scheduleActivity({
        activityType,
        activityId: 'a1',
        taskList: { name: ids.activityList },
      }),
      {
        decisionType: 'StartChildWorkflowExecution',
        startChildWorkflowExecutionDecisionAttributes: {
          workflowType: childType,
          workflowId: ids.childId,
          taskList: { name: ids.childList },
        },
      },
    );
  if (
    has(events, 'ChildWorkflowExecutionStarted') &&
    !has(events, 'SignalExternalWorkflowExecutionInitiated')
  )
    decisions.push({
      decisionType: 'SignalExternalWorkflowExecution',
      signalExternalWorkflowExecutionDecisionAttributes: {
        workflowId: ids.childId,
        signalName: 'go',
      },
    });
  const done = [
    'TimerFired',
    'ActivityTaskCompleted',
    'WorkflowExecutionSignaled',
    'ExternalWorkflowExecutionSignaled',
    'ChildWorkflowExecutionCompleted',
  ].every((type) => has(events, type));
  if (done) decisions.push(decide.complete('all done'));
  return { decisions, done };
}

/**
 * The replay service of the calling test file: served before its tests and closed after them, its
 * AWS mocks reset before each test.
 */
export function outboxReplayForFile() {
  const replay = servedForFile(() => OutboxReplayService.serve());
  beforeEach(() => replay.resetAwsMocks());
  return replay;
}
