import type { TestProject } from 'vitest/node';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { type DynamoDbLocal, startDynamoDbLocal } from '../../lib/local/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/**
 * The run's DynamoDB Local, and how many projects still use it: kept on the process, since each
 * project may load this module anew.
 */
const SHARED = Symbol.for('swf-on-dynamo.test.dynamodb-local');
type Shared = { dynamo: Promise<DynamoDbLocal>; users: number };
const holder = globalThis as { [SHARED]?: Shared | undefined };

/**
 * One DynamoDB Local for every project of a vitest run that needs one (integration, contract, browser,
 * timing), on a free port, stopped when the last of them is done. Each test file makes its own table,
 * so files run in parallel without seeing each other. If Java or DynamoDB Local is missing this fails
 * the run loudly: these tests never skip, and never talk to real AWS.
 */
export default async function setup(project: TestProject) {
  holder[SHARED] ??= { dynamo: startDynamoDbLocal(), users: 0 };
  const current = holder[SHARED];
  current.users++;
  const dynamo = await current.dynamo;
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return async () => {
    current.users--;
    if (current.users > 0) return;
    holder[SHARED] = undefined;
    await dynamo.stop();
  };
}
