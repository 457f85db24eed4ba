/**
 * One Lambda container of the API function, as a child process (see lambda-containers.ts): it builds
 * the function's handler once, as functions/api.ts does at module scope, then serves the invocations
 * its parent sends over IPC (one at a time, or many at once as an execution environment of Lambda
 * Managed Instances serves them, sharing the module's handler and clients). What each invocation did to DynamoDB (requests by
 * operation, consumed capacity as the store reported it, reads of runs' state items and conditional
 * writes to them that lost) goes back with its answer, for the bench.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from 'aws-lambda';
import { createApiHandler } from '../../../functions/shared/api-handler.js';
import { SqsTaskWakes } from '../../../lib/adapters/aws/sqs-task-wakes.js';
import { createDocumentClient } from '../../../lib/adapters/dynamodb/client.js';
import type { DynamoIntercept } from '../../../lib/adapters/dynamodb/doc-client.js';
import { localCredentials } from '../../../lib/local/dynamodb-local.js';
import { lambdaContext } from '../lambda-events.js';
import type {
  ContainerSettings,
  FromContainer,
  InvocationUsage,
  ToContainer,
} from './container-protocol.js';

const settings = JSON.parse(process.env.SWF_CONTAINER_SETTINGS ?? '{}') as ContainerSettings;

/** The usage of the invocation whose work this is: invocations in flight at once count apart. */
const invocationUsage = new AsyncLocalStorage<InvocationUsage>();

function emptyUsage(): InvocationUsage {
  return {
    requests: {},
    readUnits: 0,
    writeUnits: 0,
    stateReads: 0,
    lostStateWrites: 0,
    cpuMs: 0,
  };
}

const CAPACITY_OPS = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactWriteItems',
  'TransactGetItems',
]);

type Capacity = { ReadCapacityUnits?: number; WriteCapacityUnits?: number; CapacityUnits?: number };

const isStateItem = (input: Record<string, unknown>) => {
  const key = (input.Key ?? input.Item) as { sk?: { S?: string } } | undefined;
  return key?.sk?.S === 'STATE';
};

function countCapacity(usage: InvocationUsage, op: string, output: Record<string, unknown>): void {
  const consumed = output.ConsumedCapacity as Capacity | Capacity[] | undefined;
  for (const c of Array.isArray(consumed) ? consumed : consumed === undefined ? [] : [consumed]) {
    const write = /Put|Update|Delete|Write/.test(op);
    const units = c.CapacityUnits ?? (write ? c.WriteCapacityUnits : c.ReadCapacityUnits) ?? 0;
    if (write) usage.writeUnits += units;
    else usage.readUnits += units;
  }
}

/** Counts each request, asking DynamoDB (Local) what it consumed, as the deployed function would be charged. */
const meter: DynamoIntercept = async (op, input, send) => {
  // Work of no invocation (none runs after its answer here) is not billed to any.
  const usage = invocationUsage.getStore() ?? emptyUsage();
  usage.requests[op] = (usage.requests[op] ?? 0) + 1;
  if (CAPACITY_OPS.has(op)) input.ReturnConsumedCapacity ??= 'TOTAL';
  if (op === 'GetItem' && isStateItem(input)) usage.stateReads += 1;
  try {
    const output = await send();
    countCapacity(usage, op, output);
    return output;
  } catch (error) {
    const lost = (error as Error).name === 'ConditionalCheckFailedException';
    if (lost && op === 'PutItem' && isStateItem(input)) usage.lostStateWrites += 1;
    throw error;
  }
};

const doc = createDocumentClient({
  endpoint: settings.dynamoEndpoint,
  region: settings.region,
  credentials: localCredentials,
  intercept: meter,
});

const handler = createApiHandler({
  doc,
  tableName: settings.tableName,
  region: settings.region,
  accountId: settings.accountId,
  polling: settings.polling,
  ...(settings.sqsEndpoint === undefined
    ? {}
    : {
        wakes: new SqsTaskWakes({
          queuePrefix: settings.wakeQueuePrefix ?? 'swf-wake',
          client: {
            endpoint: settings.sqsEndpoint,
            region: settings.region,
            credentials: localCredentials,
          },
        }),
      }),
});

process.on('message', (message: ToContainer) => {
  void invoke(message);
});
// The pool went away (its process ended): so does the container.
process.on('disconnect', () => process.exit(0));

function reply(message: FromContainer): void {
  if (process.connected) process.send?.(message);
}

async function invoke(message: ToContainer): Promise<void> {
  const usage = emptyUsage();
  const context: Context = lambdaContext({
    remainingMs: message.remainingMs,
    name: settings.functionName,
    arn: `arn:aws:lambda:${settings.region}:${settings.accountId}:function:${settings.functionName}`,
  });
  // The process's CPU time while the invocation ran: invocations in flight at once share it.
  const cpu = process.cpuUsage();
  const cpuMs = () => {
    const spent = process.cpuUsage(cpu);
    return (spent.user + spent.system) / 1000;
  };
  try {
    const answer = await invocationUsage.run(usage, () => handler(message.event, context));
    usage.cpuMs = cpuMs();
    reply({ id: message.id, answer, usage });
  } catch (error) {
    usage.cpuMs = cpuMs();
    reply({ id: message.id, error: String((error as Error).stack ?? error), usage });
  }
}

reply({ ready: true });
