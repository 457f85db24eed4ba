import { Duration, Stack } from 'aws-cdk-lib';
import {
  type Alarm,
  type IMetric,
  MathExpression,
  Metric,
  type MetricOptions,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { type ThresholdAlarmOptions, thresholdAlarm } from './threshold-alarm.js';

export interface SwfAlarmsProps {
  /** Where every alarm of the service notifies, on ALARM and on OK. */
  readonly topic?: ITopic;
  /** Without a topic: one is made with this address subscribed (it confirms by mail first). */
  readonly email?: string;
  readonly table: Table;
  readonly scheduleGroup: IScheduleGroup;
  readonly lambdaTaskHandler: IFunction;
  /** The namespace SWF's metrics are published in (ThrottledEvents is alarmed on). */
  readonly metricsNamespace: string;
  /**
   * The account's concurrent executions in the region at which the alarm fires: 80 % of a new
   * account's limit of 1,000 by default. Set it to about 80 % of yours. @default 800
   */
  readonly concurrencyAlarmThreshold?: number;
  /** ThrottlingException answers a minute (both scopes) at which the alarm fires. @default 10 */
  readonly throttledAnswersAlarmThreshold?: number;
}

/** The account's concurrency alarm threshold when none is given (80 % of 1,000). */
export const DEFAULT_CONCURRENCY_ALARM_THRESHOLD = 800;
/** ThrottlingException answers a minute that raise the alarm when no threshold is given. */
export const DEFAULT_THROTTLED_ANSWERS_ALARM_THRESHOLD = 10;

/** The table operations the service makes (lib/adapters/dynamodb), whose metrics are summed. */
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
];

/**
 * The alarms on what the service depends on (the table, Scheduler, Lambda's limits) and on the
 * throttled answers it gives, and the topic every alarm of the service tells (`notifyAll`).
 */
export class SwfAlarms extends Construct {
  readonly topic: ITopic | undefined;
  readonly alarms: readonly Alarm[];

  constructor(scope: Construct, id: string, props: SwfAlarmsProps) {
    super(scope, id);
    this.topic =
      props.topic ?? (props.email === undefined ? undefined : this.emailTopic(props.email));
    const group = props.scheduleGroup;
    const [throttled, systemErrors] = tableErrorMetrics(props.table);
    this.alarms = [
      this.alarm('TableThrottledRequests', throttled, {
        description: 'DynamoDB throttled requests to the table: calls answer ThrottlingException',
      }),
      this.alarm('TableSystemErrors', systemErrors, {
        description: 'DynamoDB answered 500s for the table: calls and effects are retried',
      }),
      this.alarm('SchedulerTargetErrors', group.metricTargetErrors(perMinute), {
        description: 'Scheduler could not put deadline fires on the timer queue (it retries them)',
      }),
      this.alarm('SchedulerDroppedInvocations', group.metricDropped(perMinute), {
        description: 'Scheduler gave up deadline fires: see the schedules dead-letter queue',
      }),
      this.alarm(
        'SchedulerDeadLetterFailures',
        group.metricFailedToBeSentToDLQ(undefined, perMinute),
        {
          description: 'Scheduler could not put given-up fires in their dead-letter queue: lost',
        },
      ),
      this.alarm('LambdaTaskAsyncEventsDropped', asyncEventsDropped(props.lambdaTaskHandler), {
        description: 'Lambda dropped Lambda-task events: those tasks end by their timeouts',
      }),
      this.concurrencyAlarm(props.concurrencyAlarmThreshold),
      this.alarm('ThrottledAnswers', throttledAnswers(props.metricsNamespace), {
        description: 'The service answered ThrottlingException (400s the 5xx alarm misses)',
        threshold:
          props.throttledAnswersAlarmThreshold ?? DEFAULT_THROTTLED_ANSWERS_ALARM_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
      }),
    ];
  }

  /** Every alarm notifies the topic when it fires and when it is OK again. */
  notifyAll(alarms: readonly Alarm[]): void {
    if (this.topic === undefined) return;
    const action = new SnsAction(this.topic);
    for (const alarm of alarms) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
  }

  private concurrencyAlarm(threshold = DEFAULT_CONCURRENCY_ALARM_THRESHOLD): Alarm {
    if (!Number.isInteger(threshold) || threshold < 1)
      throw new Error(
        `concurrencyAlarmThreshold must be a positive whole number (got ${threshold})`,
      );
    return this.alarm('AccountConcurrencyNearLimit', accountConcurrency(), {
      description: `The account's Lambda concurrency reached ${threshold}: near its limit, functions are throttled`,
      threshold,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });
  }

  private emailTopic(email: string): Topic {
    const topic = new Topic(this, 'Topic', { displayName: `${Stack.of(this).stackName} alarms` });
    topic.addSubscription(new EmailSubscription(email));
    return topic;
  }

  private alarm(id: string, metric: IMetric, options: ThresholdAlarmOptions): Alarm {
    return thresholdAlarm(this, id, metric, options);
  }
}

const perMinute: MetricOptions = { period: Duration.minutes(1), statistic: 'Sum' };

/** The table's ThrottledRequests and SystemErrors, each summed over the service's operations. */
export function tableErrorMetrics(table: Table): [IMetric, IMetric] {
  const operations = { operations: TABLE_OPERATIONS, ...perMinute };
  return [
    table.metricThrottledRequestsForOperations({ ...operations, label: 'ThrottledRequests' }),
    table.metricSystemErrorsForOperations({ ...operations, label: 'SystemErrors' }),
  ];
}

const asyncEventsDropped = (fn: IFunction) => fn.metric('AsyncEventsDropped', perMinute);

/** The account's concurrent executions in the region (the metric without a dimension). */
const accountConcurrency = () =>
  new Metric({
    namespace: 'AWS/Lambda',
    metricName: 'ConcurrentExecutions',
    statistic: 'Maximum',
    period: Duration.minutes(1),
  });

/**
 * SWF's ThrottledEvents of both scopes: the roll-up by ThrottlingScope alone that the service
 * publishes beside the per-API series (an alarm cannot sum over a dimension's values).
 */
function throttledAnswers(namespace: string): IMetric {
  const scope = (value: 'Account' | 'Workflow') =>
    new Metric({
      namespace,
      metricName: 'ThrottledEvents',
      dimensionsMap: { ThrottlingScope: value },
      ...perMinute,
    });
  return new MathExpression({
    expression: 'FILL(account, 0) + FILL(workflow, 0)',
    usingMetrics: { account: scope('Account'), workflow: scope('Workflow') },
    label: 'ThrottlingException answers',
    period: Duration.minutes(1),
  });
}
