import { fileURLToPath } from 'node:url';
import { Duration } from 'aws-cdk-lib';
import { HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import {
  type Alarm,
  ComparisonOperator,
  type Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { HouseFunction } from './house-function.js';

const apiEntry = fileURLToPath(new URL('../../functions/api.ts', import.meta.url));

export interface SwfApiProps {
  /**
   * How long a long poll (PollFor*Task) may wait. API Gateway ends every request at 30 s, so this stays
   * well under it; the poll then answers an empty task, as SWF does after 60 s. @default 20 s
   */
  readonly pollMaxWait?: Duration;
  readonly logRetention?: RetentionDays;
}

/**
 * The SWF endpoint: an HTTP API whose only route, `POST /` (every awsJson1_0 action), needs SigV4
 * credentials (IAM authorization) and runs functions/api.ts. Alarms watch the function and the API.
 */
export class SwfApi extends Construct {
  readonly httpApi: HttpApi;
  readonly handler: HouseFunction;
  /** Errors, throttles and 5xx answers; add actions to them (e.g. an SNS topic) in the stack. */
  readonly alarms: readonly Alarm[];

  constructor(scope: Construct, id: string, props: SwfApiProps = {}) {
    super(scope, id);
    const pollMaxWait = props.pollMaxWait ?? Duration.seconds(20);
    this.handler = new HouseFunction(this, 'Handler', {
      entry: apiEntry,
      description: 'SWF API: awsJson1_0 actions from API Gateway',
      // Under API Gateway's 30 s integration limit, so a late request still gets an SWF-shaped answer.
      timeout: Duration.seconds(28),
      environment: { POLL_MAX_WAIT_MS: String(pollMaxWait.toMilliseconds()) },
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
    });
    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'Amazon SWF-compatible endpoint (awsJson1_0, SigV4)',
    });
    this.httpApi.addRoutes({
      path: '/',
      methods: [HttpMethod.POST],
      integration: new HttpLambdaIntegration('Integration', this.handler),
      authorizer: new HttpIamAuthorizer(),
    });
    this.alarms = [
      this.alarmOn('HandlerErrors', this.handler.metricErrors(), 'The SWF API function failed'),
      this.alarmOn(
        'HandlerThrottles',
        this.handler.metricThrottles(),
        'The SWF API function was throttled',
      ),
      // The handler answers internal failures as 500s instead of failing, so Errors alone misses them.
      this.alarmOn('ServerErrors', this.httpApi.metricServerError(), 'The SWF API answered 5xx'),
    ];
  }

  /** The endpoint SWF clients are pointed at. */
  get url(): string {
    return this.httpApi.apiEndpoint;
  }

  private alarmOn(id: string, metric: Metric, description: string): Alarm {
    return metric.with({ period: Duration.minutes(1), statistic: 'Sum' }).createAlarm(this, id, {
      alarmDescription: description,
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
