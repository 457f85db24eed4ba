import {
  Annotations,
  CfnOutput,
  type Duration,
  type RemovalPolicy,
  Stack,
  type StackProps,
} from 'aws-cdk-lib';
import { PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import { type IFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { checkPushTaskLists } from '../lib/composition/push-task-lists.js';
import type { PushTaskList } from '../lib/ports/task-push.js';
import { DEFAULT_CANCEL_GRACE_MS } from '../lib/sdk/activity/start-task.js';
import { REPORT_MARGIN_MS } from '../lib/sdk/lambda.js';
import { type FrontDoor, SwfApi } from './constructs/swf-api.js';
import { SwfOutbox } from './constructs/swf-outbox.js';
import { SwfTable } from './constructs/swf-table.js';

export interface SwfStackProps extends StackProps {
  /** @default RETAIN: deleting the stack keeps the table and every workflow in it. */
  readonly tableRemovalPolicy?: RemovalPolicy;
  readonly logRetention?: RetentionDays;
  /** Roles ScheduleLambdaFunction tasks may run as (see SwfOutboxProps). @default this account's */
  readonly lambdaTaskRoleArns?: readonly string[];
  /** The HTTP API or the API function's own URL (see SwfApiProps). @default 'http-api' */
  readonly frontDoor?: FrontDoor;
  /** How long a long poll waits (see SwfApiProps: at most 25 s behind the HTTP API). @default 20 s */
  readonly pollMaxWait?: Duration;
  /** How often a waiting long poll looks at its queue again (see SwfApiProps). @default 1 s */
  readonly pollRecheck?: Duration;
  /**
   * Task lists served by Lambda functions instead of pollers (see addPushTaskList). A function passed
   * here is necessarily of another stack: it may call the API, but gets no SWF_ENDPOINT.
   */
  readonly pushTaskLists?: readonly PushTaskListProps[];
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
 * The SWF-compatible service: HTTP API (IAM auth), or the function's own URL → api Lambda → one
 * DynamoDB table, whose stream runs
 * the outbox (stream function), with deadlines on SQS and EventBridge Scheduler (timer function).
 */
export class SwfStack extends Stack {
  readonly table: SwfTable;
  readonly api: SwfApi;
  readonly outbox: SwfOutbox;
  readonly #pushTaskLists: PushTaskListProps[] = [];
  #invokePushed: PolicyStatement | undefined;

  constructor(scope: Construct, id: string, props: SwfStackProps = {}) {
    super(scope, id, props);
    // Checked before anything is built (and bundled).
    checkPushTaskLists((props.pushTaskLists ?? []).map(asConfigured), 'pushTaskLists');
    this.table = new SwfTable(
      this,
      'Table',
      props.tableRemovalPolicy === undefined ? {} : { removalPolicy: props.tableRemovalPolicy },
    );
    this.api = new SwfApi(this, 'Api', {
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
      ...(props.frontDoor === undefined ? {} : { frontDoor: props.frontDoor }),
      ...(props.pollMaxWait === undefined ? {} : { pollMaxWait: props.pollMaxWait }),
      ...(props.pollRecheck === undefined ? {} : { pollRecheck: props.pollRecheck }),
    });
    this.table.bindTable(this.api.handler);
    // Domain ARNs carry the account id; the function could read it from its ARN, this saves the parse.
    this.api.handler.addEnvironment('ACCOUNT_ID', this.account);
    this.outbox = new SwfOutbox(this, 'Outbox', {
      table: this.table,
      ...(props.lambdaTaskRoleArns === undefined
        ? {}
        : { lambdaTaskRoleArns: props.lambdaTaskRoleArns }),
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
    });
    new CfnOutput(this, 'SwfEndpoint', {
      description:
        this.api.frontDoor === 'http-api'
          ? 'Point SWF clients here (SigV4 as execute-api; execute-api:Invoke on POST /)'
          : 'Point SWF clients here (SigV4 as lambda; lambda:InvokeFunctionUrl and lambda:InvokeFunction)',
      value: this.api.url,
    });
    new CfnOutput(this, 'SwfSigningName', {
      description: "The SigV4 service name SWF clients sign with (createSwfClient's signingName)",
      value: this.api.signingName,
    });
    for (const list of props.pushTaskLists ?? []) this.addPushTaskList(list);
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
    const value = this.toJsonString(configured);
    for (const fn of this.serviceFunctions) fn.addEnvironment('SWF_PUSH_TASK_LISTS', value);
    // Pushed events name the API function, for their workers to call directly (the API function
    // knows its own name).
    for (const fn of this.serviceFunctions.filter((f) => f !== this.api.handler))
      fn.addEnvironment('SWF_API_FUNCTION', this.api.handler.functionName);
    if (isNewFunction) this.bindPushedFunction(list.function, lists.length);
    if (list.kind === 'activity') warnOfShortTimeout(list.function);
  }

  /** The functions that commit changes of runs: each may schedule a task on a push task list. */
  private get serviceFunctions() {
    return [
      this.api.handler,
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
      // The handlers call the API function the event names directly: no API Gateway request.
      this.api.handler.grantInvoke(role);
    }
    if (!(fn instanceof LambdaFunction)) return;
    fn.addEnvironment('SWF_SIGNING_NAME', this.api.signingName);
    const cycle =
      Stack.of(fn) !== this
        ? `it is in another stack than ${this.stackName}`
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

const asConfigured = (list: PushTaskListProps): PushTaskList => ({
  kind: list.kind,
  domain: list.domain,
  taskList: list.taskList,
  target: list.function.functionArn,
});
