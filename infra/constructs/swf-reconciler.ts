import { Duration } from 'aws-cdk-lib';
import {
  type Alarm,
  ComparisonOperator,
  type Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterPattern, MetricFilter, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { LOST_FIRE_LINE } from '../../lib/operations/reconcile.js';
import { ServiceFunction, type ServiceFunctionOptions } from './service-function.js';
import type { SwfOutbox } from './swf-outbox.js';
import type { SwfTable } from './swf-table.js';

export interface SwfReconcilerProps extends ServiceFunctionOptions {
  readonly table: SwfTable;
  /** Where fires are armed: the reconciler arms them as the outbox does. */
  readonly outbox: SwfOutbox;
  /** How often a pass runs: each reads every open run once. @default 1 hour */
  readonly every?: Duration;
  readonly logRetention?: RetentionDays;
}

/** The namespace and name of the count of fires the reconciler had to arm again. */
export const LOST_FIRES_METRIC = { namespace: 'SwfOnDynamo', metricName: 'LostFiresArmedAgain' };

/**
 * The reconciler (lib/operations/reconcile.ts) on a schedule: it reads every open run through the
 * open-execution rows (Queries only, never a Scan) and arms again each fire that is overdue. An alarm
 * goes off for each fire it had to arm again (something lost it: the dead-letter queues and the
 * stream's on-failure queue say what), and when a pass fails.
 */
export class SwfReconciler extends Construct {
  readonly handler: ServiceFunction;
  readonly alarms: readonly Alarm[];

  constructor(scope: Construct, id: string, props: SwfReconcilerProps) {
    super(scope, id);
    this.handler = new ServiceFunction(this, 'Handler', {
      entry: 'reconciler',
      memorySize: 512,
      description: 'SWF reconciler: arms again the fires of open runs that never came',
      // At 16 reads at a time, a pass over a million open runs takes about 5 minutes.
      timeout: Duration.minutes(15),
      environment: props.outbox.armingEnvironment,
      ...(props.tracing === undefined ? {} : { tracing: props.tracing }),
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
    });
    // It reads runs and arms fires; it writes nothing to the table.
    props.table.bindTable(this.handler, 'read');
    props.outbox.grantArming(this.handler);
    new Rule(this, 'Schedule', {
      description: 'Runs the SWF reconciler',
      schedule: Schedule.rate(props.every ?? Duration.hours(1)),
      // A pass missed is made up by the next one.
      targets: [new LambdaFunction(this.handler, { retryAttempts: 0 })],
    });
    const lost = new MetricFilter(this, 'LostFires', {
      logGroup: this.handler.logGroup,
      filterPattern: FilterPattern.allTerms(LOST_FIRE_LINE),
      metricNamespace: LOST_FIRES_METRIC.namespace,
      metricName: LOST_FIRES_METRIC.metricName,
      metricValue: '1',
    });
    const fiveMinutes = { statistic: 'Sum', period: Duration.minutes(5) };
    this.alarms = [
      anyAlarm(this, 'LostFiresAlarm', lost.metric(fiveMinutes), {
        description: 'The reconciler armed again the fire of an open run that never came',
      }),
      anyAlarm(this, 'ErrorsAlarm', this.handler.metricErrors(fiveMinutes), {
        description: 'A reconciler pass failed: lost fires are not being found',
      }),
    ];
  }
}

/** An alarm on any occurrence of `metric` in a period. */
function anyAlarm(scope: Construct, id: string, metric: Metric, options: { description: string }) {
  return metric.createAlarm(scope, id, {
    alarmDescription: options.description,
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}
