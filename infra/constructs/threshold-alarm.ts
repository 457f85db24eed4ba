import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';

export interface ThresholdAlarmOptions {
  readonly description: string;
  /** @default 1 */
  readonly threshold?: number;
  /** @default 1 */
  readonly evaluationPeriods?: number;
  readonly datapointsToAlarm?: number;
}

/**
 * The stack's kind of alarm: it fires when the metric reaches the threshold, and a period without
 * data is no breach (most of these metrics are only published when something happens).
 */
export function thresholdAlarm(
  scope: Construct,
  id: string,
  metric: IMetric,
  options: ThresholdAlarmOptions,
): Alarm {
  return new Alarm(scope, id, {
    metric,
    alarmDescription: options.description,
    threshold: options.threshold ?? 1,
    evaluationPeriods: options.evaluationPeriods ?? 1,
    ...(options.datapointsToAlarm === undefined
      ? {}
      : { datapointsToAlarm: options.datapointsToAlarm }),
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}
