import {
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { apiConcurrency } from '../infra/constructs/swf-api.js';
import { SqsTaskWakes } from '../lib/adapters/aws/sqs-task-wakes.js';
import { localCredentials } from '../lib/local/dynamodb-local.js';
import { LOCAL_REGION, type LocalService, startLocalService } from '../lib/local/local-service.js';
import type { PollingConfig } from '../lib/operations/context.js';
import { createSwfClient } from '../lib/sdk/index.js';
import { SqsServer } from '../test/support/deployed/sqs-server.js';
import {
  aroundCall,
  countDeadlines,
  DeadlineCounters,
  DynamoCounters,
  meterDynamo,
  SwfCounters,
  swfObserver,
  tagOutbox,
} from './instrument.js';

export const DOMAIN = 'bench';
export const WORKFLOW = { name: 'sequence', version: '1' };
export const ACTIVITY = { name: 'step', version: '1' };
export const LONG_ACTIVITY = { name: 'long', version: '1' };

/** The local service under test, with every counter attached. */
export interface BenchEnv {
  readonly service: LocalService;
  readonly dynamo: DynamoCounters;
  readonly swf: SwfCounters;
  readonly deadlines: DeadlineCounters;
  /** Tasks pushed to the functions of push task lists: all, and those the outbox's functions pushed. */
  readonly pushes: { count: number; byOutbox: number };
  /**
   * The wake channel's SQS-compatible server, where requests kept apart wake polls as deployed: it
   * counts every request by action, as SQS bills them.
   */
  readonly sqs: SqsServer | undefined;
  /** A new SDK client on the service, counted (one per worker, so pollers never share sockets). */
  client(): SWFClient;
  resetCounters(): void;
  close(): Promise<void>;
}

/** The stack's default cap on polls waiting at once, as its API construct derives it. */
const DEPLOYED_MAX_WAITING_POLLS = apiConcurrency({}).maxWaitingPolls;

export interface BenchEnvOptions {
  /** The table's name, on a DynamoDB Local of the env's own (default swf-bench). */
  readonly tableName?: string;
  /**
   * Serve requests as the deployed API's Lambda containers do (see LocalServiceOptions.requestsApart),
   * waiting polls taking their leases in the table under the stack's default cap (tableLeases).
   */
  readonly requestsApart?: boolean;
  readonly polling?: Partial<PollingConfig>;
  /** Wake polls through an SQS wake channel, as the deployed stack does by default (requests apart). */
  readonly wakeChannel?: boolean;
  /**
   * Tell the outbox's DynamoDB requests from the API's, and one SWF call's from another's (for the cost
   * model). It runs the outbox and each call inside an AsyncLocalStorage context, which on Node 20 hooks every promise of the process: only the cost
   * scenario, which needs it, pays for it.
   */
  readonly attributeOrigin?: boolean;
}

export async function startBenchEnv(options: BenchEnvOptions = {}): Promise<BenchEnv> {
  const dynamo = new DynamoCounters();
  const swf = new SwfCounters();
  const deadlines = new DeadlineCounters();
  const pushes = { count: 0, byOutbox: 0 };
  const sqs = options.wakeChannel === true ? await new SqsServer().start() : undefined;
  const service = await startLocalService({
    ...(sqs === undefined ? {} : { wakes: wakesOn(sqs) }),
    tableName: options.tableName ?? 'swf-bench',
    ...(options.requestsApart === true
      ? { requestsApart: true, tableLeases: { maxWaitingPolls: DEPLOYED_MAX_WAITING_POLLS } }
      : {}),
    ...(options.polling === undefined ? {} : { polling: options.polling }),
    dynamoIntercept: meterDynamo(dynamo),
    // Each call's requests sent side by side are one wait of its function (CallWaits).
    ...(options.attributeOrigin === true ? { aroundCall } : {}),
  });
  const untag = options.attributeOrigin === true ? tagOutbox(service) : () => {};
  countDeadlines(service, deadlines);
  const clients: SWFClient[] = [];
  const client = () => {
    const c = createSwfClient({
      endpoint: service.endpoint,
      maxAttempts: 1,
      observe: swfObserver(swf),
    });
    clients.push(c);
    return c;
  };
  await register(client());
  return {
    service,
    dynamo,
    swf,
    deadlines,
    pushes,
    sqs,
    client,
    resetCounters: () => {
      sqs?.resetCounters();
      dynamo.reset();
      swf.reset();
      deadlines.reset();
      pushes.count = 0;
      pushes.byOutbox = 0;
    },
    close: async () => {
      for (const c of clients) c.destroy();
      await service.close();
      await sqs?.close();
      untag();
    },
  };
}

/** The stack's SQS wake channel, on the local server. */
const wakesOn = (sqs: SqsServer) =>
  new SqsTaskWakes({
    queuePrefix: 'swf-bench-wake',
    client: { endpoint: sqs.url, region: LOCAL_REGION, credentials: localCredentials },
  });

async function register(swf: SWFClient): Promise<void> {
  await swf.send(
    new RegisterDomainCommand({ name: DOMAIN, workflowExecutionRetentionPeriodInDays: '1' }),
  );
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain: DOMAIN,
      ...WORKFLOW,
      defaultChildPolicy: 'TERMINATE',
      defaultExecutionStartToCloseTimeout: '3600',
      defaultTaskStartToCloseTimeout: '30',
    }),
  );
  for (const type of [ACTIVITY, LONG_ACTIVITY]) {
    await swf.send(
      new RegisterActivityTypeCommand({
        domain: DOMAIN,
        ...type,
        defaultTaskScheduleToStartTimeout: '60',
        defaultTaskStartToCloseTimeout: '60',
        defaultTaskScheduleToCloseTimeout: '120',
        defaultTaskHeartbeatTimeout: 'NONE',
      }),
    );
  }
}

/** Milliseconds since the epoch of an SDK event timestamp. */
export const ms = (timestamp: Date | undefined) => timestamp?.getTime() ?? Number.NaN;

let ids = 0;
export const uniqueId = (prefix: string) =>
  `${prefix}-${Date.now().toString(36)}-${(ids++).toString(36)}`;
