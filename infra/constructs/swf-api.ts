import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import {
  type Alarm,
  ComparisonOperator,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import {
  type CapacityProvider,
  type FunctionUrl,
  FunctionUrlAuthType,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { PolicyError } from '../../lib/core/iam-policy.js';
import { parseAccessPolicies } from '../../lib/core/principals.js';
import {
  type ApiManagedInstances,
  MANAGED_INSTANCES_MEMORY_MB,
  managedInstancesConcurrency,
  runOnManagedInstances,
} from './api-managed-instances.js';
import { ServiceFunction, type ServiceFunctionOptions } from './service-function.js';

/**
 * What clients reach the function through. `http-api` (the default front door): API Gateway's HTTP
 * API with IAM authorization, clients signing for `execute-api`. `function-url`: the function's own
 * URL with IAM authorization, clients signing for `lambda`: no API Gateway request charge ($1 per
 * million, five calls per activity round trip) and no 30 s limit on a request.
 */
export type FrontDoor = 'http-api' | 'function-url';

export interface SwfApiProps extends ServiceFunctionOptions {
  /** @default 'http-api' */
  readonly frontDoor?: FrontDoor;
  /**
   * How long a long poll (PollFor*Task) may wait before it answers an empty task, as SWF does after
   * 60 s. Behind the HTTP API it must end well under API Gateway's 30 s limit (at most 25 s); a
   * function URL allows SWF's 60 s. @default 20 s
   */
  readonly pollMaxWait?: Duration;
  /**
   * How often a waiting long poll looks at its task list's queue again: a task scheduled while
   * pollers wait is handed out within this time (docs/swf-differences.md, "Dispatch on AWS"). Each look reads the
   * list's four queue partitions (half a read unit each), so a waiting poller reads 2 units per look:
   * at 1 s about $0.0009 an hour, at 100 ms $0.009, beside $0.024 of its Lambda time (from 50 ms up
   * to pollMaxWait, whole milliseconds). @default 1 s
   */
  readonly pollRecheck?: Duration;
  readonly logRetention?: RetentionDays;
  /**
   * Concurrency reserved for the API function, and its most: every call of the API, waiting long
   * polls included, runs in it, and nothing else of the account takes it. @default 400
   */
  readonly reservedConcurrency?: number;
  /**
   * The most long polls that wait at once across the service (each holds a container while it
   * waits), kept in the table by leases: what is reserved above it is left for every other call
   * (responds, starts, signals), which polls can then never starve. A poll over it gets a
   * ThrottlingException its client retries. @default reservedConcurrency - 100
   */
  readonly maxWaitingPolls?: number;
  /**
   * SWF's access control: each principal's IAM policies (an IAM user's or role's ARN; an assumed
   * role's sessions get their role's), as one policy document or a list of them. Callers not named
   * are denied. A policy IAM would refuse fails the synth, naming the principal and the statement.
   * @default none: every caller the front door lets in may do everything
   */
  readonly accessPolicies?: Readonly<Record<string, unknown>>;
  /**
   * One JSON line per call in the API functions' logs (caller, action, domain, outcome, request
   * id): about $0.20 of CloudWatch Logs ingestion per million calls. @default true
   */
  readonly auditLog?: boolean;
  /**
   * Runs the API function on Lambda Managed Instances (EC2 instances of a capacity provider in your
   * subnets, each environment serving many invocations at once) instead of Lambda's default compute:
   * a waiting poll no longer holds a container of its own. Its concurrency is then the environments'
   * (maxEnvironments × perEnvironmentConcurrency), not `reservedConcurrency`, which must be unset.
   * @default none: Lambda's default compute
   */
  readonly managedInstances?: ApiManagedInstances;
  /**
   * The API function's memory on Lambda's default compute, in MB (128 to 10,240). A waiting poll
   * holds its container for its whole wait, so its cost an hour is this size's: $0.024 at 512 MB,
   * $0.0075 at 160 MB (Arm). Below 1,769 MB Lambda gives a function that share of a vCPU, so every
   * call's CPU work takes longer at a smaller size, but costs no more (docs/dispatch-on-aws.md). The
   * function push-task-list workers invoke keeps the default. @default 512
   */
  readonly memorySize?: number;
}

/** The file the access policies are bundled as, beside the API functions' code. */
const ACCESS_POLICIES_FILE = 'access-policies.json';

/** The API function's memory by default (the bench's cost model prices the same). */
export const API_MEMORY_MB = 512;
/** The sizes Lambda's default compute offers a function, in whole MB. */
export const LAMBDA_MEMORY_MB = { least: 128, most: 10_240 } as const;
/** Longest poll behind API Gateway, whose integrations end at 30 s. */
const HTTP_API_MAX_POLL_SECONDS = 25;
/** SWF's own long poll. */
const SWF_MAX_POLL_SECONDS = 60;
/** The most often a waiting poll may look at its queue (each look is four Queries). */
const MIN_POLL_RECHECK_MS = 50;
/** The API function's reserved concurrency when the stack is not told. */
export const DEFAULT_API_CONCURRENCY = 400;
/** What the defaults keep of the API function's concurrency for calls other than waiting polls. */
export const DEFAULT_CALL_HEADROOM = 100;
/** The least the API function's concurrency must keep for other calls beside waiting polls. */
export const MIN_CALL_HEADROOM = 10;

/**
 * The SWF endpoint: functions/api.ts behind an HTTP API whose only route, `POST /` (every awsJson1_0
 * action), needs SigV4 credentials (IAM authorization), or behind its own function URL with IAM
 * authorization. Alarms watch the function and the front door's 5xx answers.
 */
export class SwfApi extends Construct {
  readonly frontDoor: FrontDoor;
  /** The HTTP API, when it is the front door. */
  readonly httpApi: HttpApi | undefined;
  /** The function URL, when it is the front door. */
  readonly functionUrl: FunctionUrl | undefined;
  readonly handler: ServiceFunction;
  /**
   * The same code for push-task-list workers to invoke directly (Lambda Invoke, no front door). It
   * trusts no caller its events name: only what a task token authorizes (responds, heartbeats, the
   * next page of the pushed task's history). Only the front door may invoke `handler`, whose events
   * carry the caller its IAM authorization authenticated.
   */
  readonly directHandler: ServiceFunction;
  /** The HTTP API stage's access log (http-api front door only). */
  readonly accessLogs: LogGroup | undefined;
  /** The capacity provider the API function runs on, with `managedInstances`. */
  readonly capacityProvider: CapacityProvider | undefined;
  /** Errors, throttles and 5xx answers; add actions to them (e.g. an SNS topic) in the stack. */
  readonly alarms: readonly Alarm[];

  constructor(scope: Construct, id: string, props: SwfApiProps = {}) {
    super(scope, id);
    this.frontDoor = props.frontDoor ?? 'http-api';
    const pollMaxWait = props.pollMaxWait ?? Duration.seconds(20);
    const maxPoll =
      this.frontDoor === 'http-api' ? HTTP_API_MAX_POLL_SECONDS : SWF_MAX_POLL_SECONDS;
    if (pollMaxWait.toSeconds() < 1 || pollMaxWait.toSeconds() > maxPoll)
      throw new Error(
        `pollMaxWait must be from 1 to ${maxPoll} s behind a ${this.frontDoor} (got ${pollMaxWait.toSeconds()} s)`,
      );
    const pollRecheck = props.pollRecheck ?? Duration.seconds(1);
    const recheckMs = pollRecheck.toMilliseconds();
    if (recheckMs < MIN_POLL_RECHECK_MS || recheckMs > pollMaxWait.toMilliseconds())
      throw new Error(
        `pollRecheck must be from ${MIN_POLL_RECHECK_MS} ms to pollMaxWait (${pollMaxWait.toMilliseconds()} ms) (got ${recheckMs} ms)`,
      );
    const concurrency = apiConcurrency(props);
    const memorySize = apiMemorySize(props);
    const files = accessPolicyFiles(props.accessPolicies);
    const common = {
      entry: 'api' as const,
      // A call mostly waits on DynamoDB (15-25 ms) and spends about 1.3 ms of a core with the lean
      // clients; a long poll only waits. Half the default size halves what each costs, for ~2 ms more
      // CPU time per call (bench/scenarios/cost.ts prices it so).
      memorySize: API_MEMORY_MB,
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
      ...(props.tracing === undefined ? {} : { tracing: props.tracing }),
      ...(files === undefined ? {} : { files }),
    };
    const environment = {
      ...(props.auditLog === false ? { SWF_AUDIT_LOG: 'off' } : {}),
      ...(files === undefined ? {} : { SWF_ACCESS_POLICIES_FILE: ACCESS_POLICIES_FILE }),
    };
    this.handler = new ServiceFunction(this, 'Handler', {
      ...common,
      description: `SWF API: awsJson1_0 actions through its ${this.frontDoor}`,
      // A poll's longest wait and a few seconds to answer it; behind API Gateway, under its 30 s
      // integration limit, so a late request still gets an SWF-shaped answer.
      timeout: Duration.seconds(this.frontDoor === 'http-api' ? 28 : pollMaxWait.toSeconds() + 8),
      // On the instances, the environments bound the function's invocations at once instead.
      ...(props.managedInstances === undefined
        ? { reservedConcurrentExecutions: concurrency.reserved, memorySize }
        : { memorySize: MANAGED_INSTANCES_MEMORY_MB }),
      environment: {
        ...environment,
        POLL_MAX_WAIT_MS: String(pollMaxWait.toMilliseconds()),
        POLL_RECHECK_MS: String(recheckMs),
        SWF_MAX_WAITING_POLLS: String(concurrency.maxWaitingPolls),
      },
    });
    this.capacityProvider =
      props.managedInstances === undefined
        ? undefined
        : runOnManagedInstances(this, this.handler, props.managedInstances);
    this.directHandler = new ServiceFunction(this, 'DirectHandler', {
      ...common,
      description: 'SWF API for push-task-list workers (direct Invoke): task-token calls only',
      // No long polls here: a pushed decider's next history page, a response, a heartbeat.
      timeout: Duration.seconds(28),
      environment: { ...environment, SWF_API_CALLERS: 'direct-invoke' },
    });
    const functionAlarms = [
      this.alarmOn('HandlerErrors', this.handler.metricErrors(), 'The SWF API function failed'),
      this.alarmOn(
        'HandlerThrottles',
        this.handler.metricThrottles(),
        'The SWF API function was throttled',
      ),
      this.alarmOn(
        'DirectHandlerErrors',
        this.directHandler.metricErrors(),
        'The SWF API function push-task-list workers invoke failed',
      ),
    ];
    if (this.frontDoor === 'http-api') {
      this.functionUrl = undefined;
      this.httpApi = new HttpApi(this, 'HttpApi', {
        description: 'Amazon SWF-compatible endpoint (awsJson1_0, SigV4)',
        createDefaultStage: false,
      });
      this.accessLogs = new LogGroup(this, 'AccessLogs', {
        retention: props.logRetention ?? RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      new HttpStage(this, 'DefaultStage', {
        httpApi: this.httpApi,
        stageName: '$default',
        autoDeploy: true,
        accessLogSettings: {
          destination: new LogGroupLogDestination(this.accessLogs),
          format: ACCESS_LOG_FORMAT,
        },
      });
      this.httpApi.addRoutes({
        path: '/',
        methods: [HttpMethod.POST],
        integration: new HttpLambdaIntegration('Integration', this.handler),
        authorizer: new HttpIamAuthorizer(),
      });
      // The handler answers internal failures as 500s instead of failing, so Errors alone misses them.
      this.alarms = [
        ...functionAlarms,
        this.alarmOn('ServerErrors', this.httpApi.metricServerError(), 'The SWF API answered 5xx'),
      ];
    } else {
      this.httpApi = undefined;
      this.accessLogs = undefined;
      this.functionUrl = this.handler.addFunctionUrl({ authType: FunctionUrlAuthType.AWS_IAM });
      const url5xx = new Metric({
        namespace: 'AWS/Lambda',
        metricName: 'Url5xxCount',
        dimensionsMap: { FunctionName: this.handler.functionName },
      });
      this.alarms = [
        ...functionAlarms,
        this.alarmOn('ServerErrors', url5xx, 'The SWF API answered 5xx'),
      ];
    }
  }

  /** The endpoint SWF clients are pointed at. */
  get url(): string {
    if (this.functionUrl !== undefined) return this.functionUrl.url;
    if (this.httpApi !== undefined) return this.httpApi.apiEndpoint;
    throw new Error('SwfApi has no front door');
  }

  /** The SigV4 signing name clients use for the front door. */
  get signingName(): 'execute-api' | 'lambda' {
    return this.frontDoor === 'http-api' ? 'execute-api' : 'lambda';
  }

  /**
   * Lets `grantee` call the SWF endpoint: `execute-api:Invoke` on `POST /` of the HTTP API, or
   * `lambda:InvokeFunctionUrl` and `lambda:InvokeFunction` (through the URL) on the function.
   */
  grantInvoke(grantee: IGrantable): Grant {
    if (this.functionUrl !== undefined) return this.handler.grantInvokeUrl(grantee);
    if (this.httpApi === undefined) throw new Error('SwfApi has no front door');
    return Grant.addToPrincipal({
      grantee,
      actions: ['execute-api:Invoke'],
      resourceArns: [this.httpApi.arnForExecuteApi('POST', '/')],
    });
  }

  /** Lets `grantee` (a pushed function's role) invoke the function workers call directly. */
  grantDirectInvoke(grantee: IGrantable): Grant {
    return this.directHandler.grantInvoke(grantee);
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

/**
 * The HTTP API stage's access log, one JSON line per request: who (the IAM caller API Gateway
 * authenticated), from where, the status and the latencies. API Gateway's logs cannot read a request
 * header, so the SWF action (X-Amz-Target) is in the API function's audit line, whose
 * `invocationId` is this line's `integrationRequestId`.
 */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    integrationRequestId: '$context.integration.requestId',
    time: '$context.requestTime',
    caller: '$context.identity.userArn',
    accountId: '$context.identity.accountId',
    sourceIp: '$context.identity.sourceIp',
    route: '$context.routeKey',
    status: '$context.status',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    responseLength: '$context.responseLength',
    error: '$context.error.message',
  }),
);

/** The access policies as the file bundled with the API functions, checked first (synth fails). */
function accessPolicyFiles(
  policies: Readonly<Record<string, unknown>> | undefined,
): Record<string, string> | undefined {
  if (policies === undefined) return undefined;
  try {
    parseAccessPolicies(policies, 'accessPolicies');
  } catch (error) {
    if (error instanceof PolicyError) throw new Error(error.message);
    throw error;
  }
  return { [ACCESS_POLICIES_FILE]: JSON.stringify(policies) };
}

/** The API function's memory on Lambda's default compute, checked. */
export function apiMemorySize(props: SwfApiProps): number {
  const size = props.memorySize;
  if (size === undefined) return API_MEMORY_MB;
  if (props.managedInstances !== undefined)
    throw new Error(
      `memorySize does not apply on Lambda Managed Instances: each environment has ${MANAGED_INSTANCES_MEMORY_MB} MB`,
    );
  const { least, most } = LAMBDA_MEMORY_MB;
  if (!Number.isInteger(size) || size < least || size > most)
    throw new Error(
      `memorySize must be a whole number of MB from ${least} to ${most} (got ${size})`,
    );
  return size;
}

/**
 * The API function's reserved concurrency and the cap on waiting polls under it: at least
 * MIN_CALL_HEADROOM containers are always left for calls that are no waiting poll.
 */
export function apiConcurrency(props: SwfApiProps): { reserved: number; maxWaitingPolls: number } {
  if (props.managedInstances !== undefined && props.reservedConcurrency !== undefined)
    throw new Error(
      'reservedConcurrency does not apply on Lambda Managed Instances: size managedInstances.maxEnvironments and perEnvironmentConcurrency instead',
    );
  const reserved =
    props.managedInstances === undefined
      ? (props.reservedConcurrency ?? DEFAULT_API_CONCURRENCY)
      : managedInstancesConcurrency(props.managedInstances);
  if (props.managedInstances !== undefined && reserved < MIN_CALL_HEADROOM + 1)
    throw new Error(
      `managedInstances: maxEnvironments × perEnvironmentConcurrency must be at least ${MIN_CALL_HEADROOM + 1} (got ${reserved})`,
    );
  if (!Number.isInteger(reserved) || reserved < MIN_CALL_HEADROOM + 1)
    throw new Error(
      `reservedConcurrency must be a whole number of at least ${MIN_CALL_HEADROOM + 1} (got ${reserved})`,
    );
  const maxWaitingPolls =
    props.maxWaitingPolls ??
    reserved -
      Math.max(MIN_CALL_HEADROOM, Math.min(DEFAULT_CALL_HEADROOM, Math.ceil(reserved / 2)));
  const most = reserved - MIN_CALL_HEADROOM;
  if (!Number.isInteger(maxWaitingPolls) || maxWaitingPolls < 1 || maxWaitingPolls > most)
    throw new Error(
      `maxWaitingPolls must be from 1 to ${most} (reservedConcurrency ${reserved} less ${MIN_CALL_HEADROOM} for other calls) (got ${maxWaitingPolls})`,
    );
  return { reserved, maxWaitingPolls };
}
