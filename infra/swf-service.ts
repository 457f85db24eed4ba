import { Annotations, type Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { WarmThroughput } from 'aws-cdk-lib/aws-dynamodb';
import { type Grant, type IGrantable, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import { type IKey, Key } from 'aws-cdk-lib/aws-kms';
import { type IFunction, Function as LambdaFunction, Tracing } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { DEFAULT_METRICS_NAMESPACE } from '../lib/adapters/aws/emf-metrics.js';
import { checkPushTaskLists } from '../lib/composition/push-task-lists.js';
import type { PushTaskList } from '../lib/ports/task-push.js';
import { DEFAULT_CANCEL_GRACE_MS } from '../lib/sdk/activity/start-task.js';
import { REPORT_MARGIN_MS } from '../lib/sdk/lambda.js';
import type { ApiManagedInstances } from './constructs/api-managed-instances.js';
import { SwfAlarms, tableErrorMetrics } from './constructs/swf-alarms.js';
import { type FrontDoor, SwfApi } from './constructs/swf-api.js';
import { SwfDashboard } from './constructs/swf-dashboard.js';
import { type OutboxConcurrency, SwfOutbox } from './constructs/swf-outbox.js';
import { SwfReconciler } from './constructs/swf-reconciler.js';
import { SwfTable, type SwfTableProps } from './constructs/swf-table.js';
import { SwfWakes } from './constructs/swf-wakes.js';

export interface SwfServiceProps {
  /** @default RETAIN: deleting the stack keeps the table and every workflow in it. */
  readonly tableRemovalPolicy?: RemovalPolicy;
  readonly logRetention?: RetentionDays;
  /**
   * Roles ScheduleLambdaFunction tasks may run as (see SwfOutboxProps): the only roles the service
   * will ever assume. @default none: ScheduleLambdaFunction is not offered
   * (LAMBDA_SERVICE_NOT_AVAILABLE_IN_REGION)
   */
  readonly lambdaTaskRoleArns?: readonly string[];
  /** SWF's access policies by principal ARN (see SwfApiProps). @default none: all is allowed */
  readonly accessPolicies?: Readonly<Record<string, unknown>>;
  /** The API functions' audit line per call (see SwfApiProps). @default true */
  readonly auditLog?: boolean;
  /** The HTTP API or the API function's own URL (see SwfApiProps). @default 'http-api' */
  readonly frontDoor?: FrontDoor;
  /** How long a long poll waits (see SwfApiProps: at most 25 s behind the HTTP API). @default 20 s */
  readonly pollMaxWait?: Duration;
  /** How often a waiting long poll looks at its queue again (see SwfApiProps). @default 1 s */
  readonly pollRecheck?: Duration;
  /** Concurrency reserved for the API function (see SwfApiProps). @default 400 */
  readonly apiReservedConcurrency?: number;
  /** The most long polls waiting at once (see SwfApiProps). @default apiReservedConcurrency - 100 */
  readonly maxWaitingPolls?: number;
  /** The API function's memory in MB (see SwfApiProps.memorySize). @default 512 */
  readonly apiMemorySize?: number;
  /**
   * Run the API function on Lambda Managed Instances in your subnets (see SwfApiProps and
   * docs/dispatch-on-aws.md; `-c managedInstanceSubnets=… -c managedInstanceSecurityGroups=…`). @default Lambda's default compute
   */
  readonly apiManagedInstances?: ApiManagedInstances;
  /**
   * How often the reconciler reads every open run to arm again a fire that never came; each pass
   * costs about one read unit per open run (docs/operations.md). @default 1 hour
   */
  readonly reconcileEvery?: Duration;
  /**
   * Task lists served by Lambda functions instead of pollers (see addPushTaskList). A function passed
   * here is necessarily of another stack: it may call the API, but gets no SWF_ENDPOINT.
   */
  readonly pushTaskLists?: readonly PushTaskListProps[];
  /**
   * Where every alarm of the service notifies, on ALARM and on OK. @default the topic of
   * `alarmTopicArn`, else one made for `alarmEmail`, else none (the alarms notify nobody)
   */
  readonly alarmTopic?: ITopic;
  /** An existing SNS topic's ARN for the alarms (`-c alarmTopicArn=`). */
  readonly alarmTopicArn?: string;
  /** Without a topic: a topic is made with this address subscribed (`-c alarmEmail=`). */
  readonly alarmEmail?: string;
  /** The CloudWatch namespace of SWF's metrics (`-c metricsNamespace=`). @default SwfOnDynamo */
  readonly metricsNamespace?: string;
  /** Concurrency reserved for the outbox's functions (see SwfOutboxProps). */
  readonly reservedConcurrency?: OutboxConcurrency;
  /** The account's concurrent executions that raise the alarm (see SwfAlarmsProps). @default 800 */
  readonly concurrencyAlarmThreshold?: number;
  /** ThrottlingException answers a minute that raise the alarm. @default 10 */
  readonly throttledAnswersAlarmThreshold?: number;
  /** DynamoDB refuses to delete the table while on (see SwfTableProps). @default true */
  readonly tableDeletionProtection?: boolean;
  /** A customer-managed KMS key for the table and its stream (see SwfTableProps). */
  readonly tableEncryptionKey?: IKey;
  /** The same as a key's ARN (`-c tableKmsKeyArn=`). */
  readonly tableKmsKeyArn?: string;
  /** Throughput the new on-demand table takes at once (see SwfTableProps). @default none */
  readonly tableWarmThroughput?: WarmThroughput;
  /** X-Ray active tracing of every function of the service (`-c tracing=on`). @default false */
  readonly tracing?: boolean;
  /**
   * Wake waiting long polls through SQS (a queue per task list) instead of having each re-read its
   * queue every `pollRecheck` (docs/dispatch-on-aws.md; `-c wakeChannel=off`). @default true
   */
  readonly wakeChannel?: boolean;
}

/** A task list served by a Lambda function instead of pollers (lib/ports/task-push.ts). */
export interface PushTaskListProps {
  readonly kind: 'activity' | 'decision';
  readonly domain: string;
  readonly taskList: string;
  /** Invoked asynchronously with each task of the list; it responds through the API as a worker. */
  readonly function: IFunction;
}

/**
 * The SWF-compatible service, to add to a stack of your own: HTTP API (IAM auth), or the function's
 * own URL → api Lambda → one DynamoDB table, whose stream runs the outbox (stream function), with
 * deadlines on SQS and EventBridge Scheduler (timer function). Clients call `endpoint`, signing as
 * `signingName`; `grantInvoke` lets a role call it; `addPushTaskList` serves a task list with a
 * function of yours.
 */
export class SwfService extends Construct {
  readonly table: SwfTable;
  readonly api: SwfApi;
  readonly outbox: SwfOutbox;
  /** The SQS wake channel of waiting polls, unless `wakeChannel` is false. */
  readonly wakes: SwfWakes | undefined;
  /** Finds open runs whose armed fire never came, and arms it again. */
  readonly reconciler: SwfReconciler;
  /** The alarms on what the service depends on, and the topic every alarm of it tells. */
  readonly monitoring: SwfAlarms;
  readonly dashboard: SwfDashboard;
  /**
   * The HMAC key of page and task tokens, generated by Secrets Manager: readable by the service's
   * functions only, never stored in the table (a copy of the table cannot forge tokens). Rotate it
   * with a new value (put-secret-value): tokens signed with the previous one stay valid.
   */
  readonly signingKey: Secret;
  readonly #pushTaskLists: PushTaskListProps[] = [];
  #invokePushed: PolicyStatement | undefined;

  constructor(scope: Construct, id: string, props: SwfServiceProps = {}) {
    super(scope, id);
    // Checked before anything is built (and bundled).
    checkPushTaskLists((props.pushTaskLists ?? []).map(asConfigured), 'pushTaskLists');
    const tracing = props.tracing === true ? { tracing: Tracing.ACTIVE } : {};
    this.table = new SwfTable(this, 'Table', tableProps(this, props));
    this.api = new SwfApi(this, 'Api', {
      ...tracing,
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
      ...(props.frontDoor === undefined ? {} : { frontDoor: props.frontDoor }),
      ...(props.pollMaxWait === undefined ? {} : { pollMaxWait: props.pollMaxWait }),
      ...(props.pollRecheck === undefined ? {} : { pollRecheck: props.pollRecheck }),
      ...(props.accessPolicies === undefined ? {} : { accessPolicies: props.accessPolicies }),
      ...(props.auditLog === undefined ? {} : { auditLog: props.auditLog }),
      ...(props.apiReservedConcurrency === undefined
        ? {}
        : { reservedConcurrency: props.apiReservedConcurrency }),
      ...(props.maxWaitingPolls === undefined ? {} : { maxWaitingPolls: props.maxWaitingPolls }),
      ...(props.apiMemorySize === undefined ? {} : { memorySize: props.apiMemorySize }),
      ...(props.apiManagedInstances === undefined
        ? {}
        : { managedInstances: props.apiManagedInstances }),
    });
    const lambdaTaskRoles = props.lambdaTaskRoleArns ?? [];
    for (const fn of [this.api.handler, this.api.directHandler]) {
      this.table.bindTable(fn);
      // Domain ARNs carry the account id; the function could read it from its ARN, this saves the parse.
      fn.addEnvironment('ACCOUNT_ID', Stack.of(this).account);
      // ScheduleLambdaFunction is offered only where some role may run its tasks.
      if (lambdaTaskRoles.length > 0)
        fn.addEnvironment('SWF_LAMBDA_TASK_ROLES', JSON.stringify(lambdaTaskRoles));
    }
    const namespace = props.metricsNamespace;
    this.outbox = new SwfOutbox(this, 'Outbox', {
      ...tracing,
      table: this.table,
      ...(namespace === undefined ? {} : { environment: { SWF_METRICS_NAMESPACE: namespace } }),
      ...(props.reservedConcurrency === undefined
        ? {}
        : { reservedConcurrency: props.reservedConcurrency }),
      lambdaTaskRoleArns: lambdaTaskRoles,
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
    });
    this.reconciler = new SwfReconciler(this, 'Reconciler', {
      ...tracing,
      table: this.table,
      outbox: this.outbox,
      ...(props.reconcileEvery === undefined ? {} : { every: props.reconcileEvery }),
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
    });
    this.wakes = props.wakeChannel === false ? undefined : this.wakeChannel();
    this.signingKey = new Secret(this, 'SigningKey', {
      description: 'HMAC key of the SWF service page and task tokens (AWSPREVIOUS still verifies)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });
    for (const fn of this.serviceFunctions) {
      this.signingKey.grantRead(fn);
      fn.addEnvironment('SWF_SIGNING_KEY_SECRET', this.signingKey.secretArn);
    }
    if (namespace !== undefined)
      for (const fn of [this.api.handler, this.api.directHandler])
        fn.addEnvironment('SWF_METRICS_NAMESPACE', namespace);
    this.monitoring = this.alarmsOf(props, namespace ?? DEFAULT_METRICS_NAMESPACE);
    const alarms = [
      ...this.api.alarms,
      ...this.outbox.alarms,
      ...this.reconciler.alarms,
      ...this.monitoring.alarms,
    ];
    this.monitoring.notifyAll(alarms);
    this.dashboard = this.dashboardOf(namespace ?? DEFAULT_METRICS_NAMESPACE, alarms);
    for (const list of props.pushTaskLists ?? []) this.addPushTaskList(list);
  }

  /** The endpoint SWF clients are pointed at (a token until deployment). */
  get endpoint(): string {
    return this.api.url;
  }

  /** The SigV4 service name clients sign with: `execute-api`, or `lambda` behind a function URL. */
  get signingName(): 'execute-api' | 'lambda' {
    return this.api.signingName;
  }

  /**
   * Lets `grantee` call the SWF endpoint (`execute-api:Invoke` on `POST /`, or the function URL's
   * invoke permissions). What it may do there is then up to `accessPolicies`.
   */
  grantInvoke(grantee: IGrantable): Grant {
    return this.api.grantInvoke(grantee);
  }

  /**
   * Serves a task list with a function: its tasks are never queued; the service function that commits
   * a task's scheduling (api, stream, timer or Lambda-task) invokes the function asynchronously with it (they may
   * invoke exactly the pushed functions), and the function may call the API. A `lambda.Function` gets `SWF_SIGNING_NAME`, and `SWF_ENDPOINT` when it is of
   * this stack behind the HTTP API (elsewhere that is a dependency cycle: a warning says so). Every
   * function of the service reads the lists from `SWF_PUSH_TASK_LISTS` (JSON, targets being ARNs).
   */
  addPushTaskList(list: PushTaskListProps): void {
    const lists = [...this.#pushTaskLists, list];
    const configured = checkPushTaskLists(lists.map(asConfigured), 'pushTaskLists');
    const isNewFunction = this.#pushTaskLists.every((l) => l.function !== list.function);
    this.#pushTaskLists.push(list);
    const value = Stack.of(this).toJsonString(configured);
    for (const fn of this.serviceFunctions) fn.addEnvironment('SWF_PUSH_TASK_LISTS', value);
    // Pushed events name the function workers call directly (it knows its own name).
    for (const fn of this.serviceFunctions.filter((f) => f !== this.api.directHandler))
      fn.addEnvironment('SWF_API_FUNCTION', this.api.directHandler.functionName);
    if (isNewFunction) this.bindPushedFunction(list.function, lists.length);
    if (list.kind === 'activity') warnOfShortTimeout(list.function);
  }

  private alarmsOf(props: SwfServiceProps, metricsNamespace: string): SwfAlarms {
    return new SwfAlarms(this, 'Alarms', {
      ...alarmTopic(this, props),
      table: this.table.table,
      scheduleGroup: this.outbox.scheduleGroup,
      lambdaTaskHandler: this.outbox.lambdaTaskHandler,
      metricsNamespace,
      ...(props.concurrencyAlarmThreshold === undefined
        ? {}
        : { concurrencyAlarmThreshold: props.concurrencyAlarmThreshold }),
      ...(props.throttledAnswersAlarmThreshold === undefined
        ? {}
        : { throttledAnswersAlarmThreshold: props.throttledAnswersAlarmThreshold }),
    });
  }

  private dashboardOf(metricsNamespace: string, alarms: readonly Alarm[]): SwfDashboard {
    const [throttled, systemErrors] = tableErrorMetrics(this.table.table);
    return new SwfDashboard(this, 'Dashboard', {
      metricsNamespace,
      alarms,
      streamHandler: this.outbox.streamHandler,
      functions: {
        api: this.api.handler,
        direct: this.api.directHandler,
        stream: this.outbox.streamHandler,
        timer: this.outbox.timerHandler,
        lambdaTask: this.outbox.lambdaTaskHandler,
        reconciler: this.reconciler.handler,
      },
      deadLetterQueues: {
        timer: this.outbox.timerDeadLetters,
        stream: this.outbox.streamFailures,
        schedules: this.outbox.scheduleDeadLetters,
      },
      tableErrors: { 'Table throttled requests': throttled, 'Table system errors': systemErrors },
    });
  }

  /** The functions that commit changes of runs: each may schedule a task on a push task list. */
  private wakeChannel(): SwfWakes {
    const committers = this.serviceFunctions;
    const wakes = new SwfWakes(this, 'Wakes', { pollers: this.api.handler, committers });
    for (const fn of committers) fn.addEnvironment('SWF_WAKE_QUEUE_PREFIX', wakes.queuePrefix);
    return wakes;
  }

  private get serviceFunctions() {
    return [
      this.api.handler,
      this.api.directHandler,
      this.outbox.streamHandler,
      this.outbox.timerHandler,
      this.outbox.lambdaTaskHandler,
    ];
  }

  private bindPushedFunction(fn: IFunction, n: number): void {
    if (this.#invokePushed === undefined) {
      // Whichever function commits a change that schedules a task on the list invokes the function.
      this.#invokePushed = new PolicyStatement({ actions: ['lambda:InvokeFunction'] });
      for (const handler of this.serviceFunctions) handler.addToRolePolicy(this.#invokePushed);
    }
    this.#invokePushed.addResources(fn.functionArn);
    // A policy of this stack attached to the function's role: the function (and its stack) then does
    // not depend on the API, whose function depends on it through SWF_PUSH_TASK_LISTS.
    if (fn.role === undefined) {
      warn(fn, 'Role', 'The pushed function has no known role: let it call the SWF API yourself');
    } else {
      const role = Role.fromRoleArn(this, `PushedFunctionRole${n}`, fn.role.roleArn);
      this.api.grantInvoke(role);
      // The handlers call the function the event names directly: no API Gateway request. That one
      // answers only what task tokens authorize; the front door's function is invoked by it alone.
      this.api.grantDirectInvoke(role);
    }
    if (!(fn instanceof LambdaFunction)) return;
    fn.addEnvironment('SWF_SIGNING_NAME', this.api.signingName);
    const cycle =
      Stack.of(fn) !== Stack.of(this)
        ? `it is in another stack than ${Stack.of(this).stackName}`
        : this.api.frontDoor === 'function-url'
          ? 'the function URL depends on the api function, which depends on this function'
          : undefined;
    if (cycle === undefined) fn.addEnvironment('SWF_ENDPOINT', this.api.url);
    else
      warn(
        fn,
        'Endpoint',
        `SWF_ENDPOINT is not set on this pushed function: ${cycle}, so that would be a dependency cycle. Give it the endpoint another way (a client, a custom domain).`,
      );
  }
}

const warn = (fn: IFunction, id: string, message: string) =>
  Annotations.of(fn).addWarningV2(`swf:pushedFunction${id}`, message);

/**
 * activityTaskHandler shuts an activity down cancelGraceMs + 2 s before the function's time limit: a
 * function whose timeout is no longer than that (Lambda's default is 3 s) cancels every activity as it
 * starts.
 */
function warnOfShortTimeout(fn: IFunction): void {
  if (!(fn instanceof LambdaFunction)) return;
  const timeoutMs = (fn.timeout?.toSeconds() ?? LAMBDA_DEFAULT_TIMEOUT_SECONDS) * 1000;
  const marginMs = DEFAULT_CANCEL_GRACE_MS + REPORT_MARGIN_MS;
  if (timeoutMs > marginMs) return;
  warn(
    fn,
    'Timeout',
    `This function serves an activity task list with a timeout of ${timeoutMs / 1000} s: activityTaskHandler cancels an activity cancelGraceMs + 2 s (${marginMs / 1000} s by default) before the time limit, so every activity would be cancelled as it starts. Give it a timeout above the activity's longest run plus that margin.`,
  );
}

/** Lambda's timeout when a function sets none. */
const LAMBDA_DEFAULT_TIMEOUT_SECONDS = 3;

/** The table's props from the service's. */
function tableProps(scope: Construct, props: SwfServiceProps): SwfTableProps {
  const key =
    props.tableEncryptionKey ??
    (props.tableKmsKeyArn === undefined
      ? undefined
      : Key.fromKeyArn(scope, 'TableKey', props.tableKmsKeyArn));
  return {
    ...(props.tableRemovalPolicy === undefined ? {} : { removalPolicy: props.tableRemovalPolicy }),
    ...(props.tableDeletionProtection === undefined
      ? {}
      : { deletionProtection: props.tableDeletionProtection }),
    ...(key === undefined ? {} : { encryptionKey: key }),
    ...(props.tableWarmThroughput === undefined
      ? {}
      : { warmThroughput: props.tableWarmThroughput }),
  };
}

/** The alarms' topic: given, imported by its ARN, or made for an address. */
function alarmTopic(scope: Construct, props: SwfServiceProps): { topic?: ITopic; email?: string } {
  if (props.alarmTopic !== undefined) return { topic: props.alarmTopic };
  if (props.alarmTopicArn !== undefined)
    return { topic: Topic.fromTopicArn(scope, 'AlarmTopic', props.alarmTopicArn) };
  return props.alarmEmail === undefined ? {} : { email: props.alarmEmail };
}

const asConfigured = (list: PushTaskListProps): PushTaskList => ({
  kind: list.kind,
  domain: list.domain,
  taskList: list.taskList,
  target: list.function.functionArn,
});
