import type { TestProject } from 'vitest/node';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { DynamoDbLocalPool, servePool } from './dynamodb-pool.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where a test file leases its DynamoDB Local (test/support/dynamodb-lease.ts). */
    dynamoPool: string;
  }
}

/**
 * Each file on a database of its own in a shared JVM (DynamoDbLocalPool's `databasePerFile`);
 * `SWF_TEST_DATABASE_PER_FILE=0` gives files that share a JVM one database, as before.
 */
const DATABASE_PER_FILE = process.env.SWF_TEST_DATABASE_PER_FILE !== '0';

/**
 * Files served by one DynamoDB Local before a fresh one takes over (`SWF_TEST_FILES_PER_DYNAMO`). On
 * one shared database a file ran twice as slow after eight others; on databases of their own, files
 * kept their speed, so a JVM serves many and few JVM starts are paid.
 */
const FILES_PER_DYNAMO = Number(
  process.env.SWF_TEST_FILES_PER_DYNAMO ?? (DATABASE_PER_FILE ? 16 : 4),
);

/**
 * JVM options of the pool's DynamoDB Locals. Each lives for a few files only, so the JIT's optimizing
 * tier and G1's collector threads cost more CPU than they return: on six contract files they took
 * about a fifth more CPU time (the JVM's user time, 2 cores). Not for the timing phase's projects:
 * the `timing` figures are held to the JVM `npm start` runs.
 */
const SHORT_LIVED_JVM = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/** How each project's pool serves its files; the timing phase's projects are named. */
function poolOptions(project: string) {
  // These files measure latency, so nothing may run or start beside them: each file gets a DynamoDB
  // Local of its own, started as the file begins. Not one JVM holding the databases of the files
  // before: idle, such a JVM keeps working on them (about 5 % of a core for 25 databases, under 1 %
  // for one), and in a run with it the 1,000 idle polls' last answer came 1,022 ms after their 60 s,
  // past the 1 s allowed.
  if (project === 'timing') return { filesPerDynamo: 1, spare: false, jvmOptions: [] };
  // Each file saturates a DynamoDB Local by itself; the next one starts while files run, since
  // these files measure no latency. The JVM `npm start` runs, as these files always ran on (the
  // lighter one was not measured on their loads).
  if (project === 'timing-loads') return { filesPerDynamo: 1, spare: true, jvmOptions: [] };
  return {
    filesPerDynamo: FILES_PER_DYNAMO,
    spare: true,
    jvmOptions: SHORT_LIVED_JVM,
    databasePerFile: DATABASE_PER_FILE,
  };
}

/**
 * DynamoDB Locals for the project's test files, on free ports, stopped when the run ends
 * (test/support/dynamodb-pool.ts). Each test file makes its own table, so files that share one run in
 * parallel without seeing each other. The timing phase's files each get a fresh one (poolOptions).
 * If Java or DynamoDB Local is missing this fails the run loudly: these tests never skip, and never
 * talk to real AWS.
 */
export default async function setup(project: TestProject) {
  const pool = new DynamoDbLocalPool(poolOptions(project.name));
  const served = await servePool(pool);
  project.provide('dynamoPool', served.url);
  return async () => {
    await served.close();
    await pool.stop();
  };
}
