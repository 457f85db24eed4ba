import type { TestProject } from 'vitest/node';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { startDynamoDbLocal } from '../../lib/local/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/**
 * One DynamoDB Local per test project, on a free port, stopped when the run ends. Each test file makes
 * its own table, so files run in parallel without seeing each other. If Java or DynamoDB Local is
 * missing this fails the run loudly: these tests never skip, and never talk to real AWS.
 */
export default async function setup(project: TestProject) {
  const dynamo = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return async () => {
    await dynamo.stop();
  };
}
