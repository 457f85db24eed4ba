import type { TestProject } from 'vitest/node';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { DynamoDbLocalPool, servePool } from './dynamodb-pool.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where a test file leases its DynamoDB Local (test/support/dynamodb-lease.ts). */
    dynamoPool: string;
  }
}

/** Files served by one DynamoDB Local before a fresh one takes over (`SWF_TEST_FILES_PER_DYNAMO`). */
const FILES_PER_DYNAMO = Number(process.env.SWF_TEST_FILES_PER_DYNAMO ?? 4);

/**
 * JVM options of the pool's DynamoDB Locals. Each lives for a few files only, so the JIT's optimizing
 * tier and G1's collector threads cost more CPU than they return: on six contract files they took
 * about a fifth more CPU time (the JVM's user time, 2 cores). Not for the timing project, whose
 * figures are held to the JVM `npm start` runs.
 */
const SHORT_LIVED_JVM = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/**
 * DynamoDB Locals for the project's test files, on free ports, stopped when the run ends
 * (test/support/dynamodb-pool.ts). Each test file makes its own table, so files that share one run in
 * parallel without seeing each other. The timing project's files each get a fresh one, started only
 * when the file begins: they measure latency or saturate the store, so nothing may run beside them
 * and nothing earlier may have slowed their store. If Java or DynamoDB Local is missing this fails
 * the run loudly: these tests never skip, and never talk to real AWS.
 */
export default async function setup(project: TestProject) {
  const timing = project.name === 'timing';
  const pool = new DynamoDbLocalPool({
    filesPerDynamo: timing ? 1 : FILES_PER_DYNAMO,
    spare: !timing,
    jvmOptions: timing ? [] : SHORT_LIVED_JVM,
  });
  const served = await servePool(pool);
  project.provide('dynamoPool', served.url);
  return async () => {
    await served.close();
    await pool.stop();
  };
}
