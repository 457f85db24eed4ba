/**
 * The API function as deployed, over a DynamoDB (Local) table: API Gateway's HTTP API in front
 * (api-front-door.ts), each invocation in a Lambda container that is a child process of its own
 * (lambda-containers.ts) running the function's handler, and, when the function has a wake channel,
 * a local SQS (sqs-server.ts) for it. Nothing is woken in-process: polls wait as they do on AWS.
 */
import { startApiFrontDoor } from './api-front-door.js';
import type { ContainerSettings } from './container-protocol.js';
import { actionOf, LambdaContainers } from './lambda-containers.js';
import { SqsServer } from './sqs-server.js';

/** The API function's timeout behind the HTTP API (infra/constructs/swf-api.ts). */
export const API_TIMEOUT_MS = 28_000;

export interface DeployedApiOptions {
  readonly dynamoEndpoint: string;
  readonly tableName: string;
  readonly region?: string;
  readonly accountId?: string;
  readonly polling: ContainerSettings['polling'];
  /** Give the function its SQS wake channel (the stack's default); else polls re-read their queue. */
  readonly wakes: boolean;
  readonly reservedConcurrency?: number;
  /**
   * Invocations one container serves at once: above 1, the function runs on Lambda Managed Instances
   * (see LambdaContainersOptions). @default 1
   */
  readonly perContainerConcurrency?: number;
  /** Each container's share of one CPU (LambdaContainersOptions.cpuShare); unlimited by default. */
  readonly cpuShare?: number;
}

export interface DeployedApi {
  /** The front door's URL: the endpoint SWF clients are given. */
  readonly endpoint: string;
  readonly containers: LambdaContainers;
  /** The wake channel's SQS, when the function has one. */
  readonly sqs: SqsServer | undefined;
  close(): Promise<void>;
}

export async function startDeployedApi(options: DeployedApiOptions): Promise<DeployedApi> {
  const sqs = options.wakes ? await new SqsServer().start() : undefined;
  const containers = new LambdaContainers({
    timeoutMs: API_TIMEOUT_MS,
    ...(options.reservedConcurrency === undefined
      ? {}
      : { reservedConcurrency: options.reservedConcurrency }),
    ...(options.perContainerConcurrency === undefined
      ? {}
      : { perContainerConcurrency: options.perContainerConcurrency }),
    ...(options.cpuShare === undefined ? {} : { cpuShare: options.cpuShare }),
    settings: {
      functionName: 'SwfStack-ApiHandler',
      dynamoEndpoint: options.dynamoEndpoint,
      tableName: options.tableName,
      region: options.region ?? 'us-east-1',
      accountId: options.accountId ?? '000000000000',
      polling: options.polling,
      ...(sqs === undefined ? {} : { sqsEndpoint: sqs.url, wakeQueuePrefix: 'swf-wake' }),
    },
  });
  const frontDoor = await startApiFrontDoor((event) => containers.invoke(event, actionOf(event)));
  return {
    endpoint: frontDoor.url,
    containers,
    sqs,
    close: async () => {
      await frontDoor.close();
      await containers.close();
      await sqs?.close();
    },
  };
}
