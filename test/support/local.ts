import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import {
  type ActivityType,
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  SWFClient,
  type WorkflowType,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, expect } from 'vitest';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import {
  LOCAL_REGION,
  type LocalService,
  startLocalService,
} from '../../lib/local/local-service.js';
import { ensureTable } from '../../lib/local/table.js';
import { SwfDriver } from './decider.js';
import { answersProblems, isEmptyPoll, recordAnswers, unexcused } from './output-shapes.js';

/** A table name no other test file uses. */
export const uniqueTableName = (prefix = 'test') => `${prefix}-${randomUUID()}`;

let leasedEndpoint: string | undefined;

/** This test file's DynamoDB Local (set by test/support/dynamodb-lease.ts, a setup file). */
export function useDynamoEndpoint(endpoint: string): void {
  leasedEndpoint = endpoint;
}

/** The endpoint of this test file's DynamoDB Local. */
export function dynamoEndpoint(): string {
  if (leasedEndpoint === undefined)
    throw new Error('no DynamoDB Local: run this file in a project with dynamodb-lease.ts');
  return leasedEndpoint;
}

/** A raw DynamoDB client on this file's DynamoDB Local. */
export function dynamoClient(): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: dynamoEndpoint(),
    region: LOCAL_REGION,
    credentials: localCredentials,
  });
}

/** A fresh table on this file's DynamoDB Local, with a document client for it. */
export async function freshTable(prefix?: string) {
  const tableName = uniqueTableName(prefix);
  const client = dynamoClient();
  await ensureTable(client, tableName);
  const doc = createDocumentClient({
    endpoint: dynamoEndpoint(),
    region: LOCAL_REGION,
    credentials: localCredentials,
  });
  return { tableName, doc, client };
}

export type FreshTable = Awaited<ReturnType<typeof freshTable>>;

/** A fresh table for the calling test file: made before its tests, its clients closed after them. */
export function tableForFile(prefix: string): () => FreshTable {
  let table: FreshTable | undefined;
  beforeAll(async () => {
    table = await freshTable(prefix);
  });
  afterAll(() => {
    table?.doc.destroy();
    table?.client.destroy();
  });
  return () => {
    if (table === undefined) throw new Error('the table is made before the tests');
    return table;
  };
}

/**
 * Whether the calling test file's answers are held to the service model: those of every contract
 * file (SWF_CHECK_ANSWERS=1), and of the contract files the timing project runs for their latency
 * bounds (SWF_CHECK_ANSWERS_OF, vitest.config.ts's `latencyBounds`).
 */
function checksAnswers(): boolean {
  if (process.env.SWF_CHECK_ANSWERS === '1') return true;
  const file = expect.getState().testPath ?? '';
  const listed = (process.env.SWF_CHECK_ANSWERS_OF ?? '').split(',');
  return listed.some((path) => path !== '' && file.endsWith(path));
}

/** The local SWF server on a free port over a fresh table, and an official SDK client pointed at it. */
export async function startTestServer(
  options: Parameters<typeof startLocalService>[0] = {},
): Promise<{
  service: LocalService;
  swf: SWFClient;
  close: () => Promise<void>;
}> {
  const service = await startLocalService({
    dynamoEndpoint: dynamoEndpoint(),
    tableName: uniqueTableName('swf'),
    ...options,
  });
  const swf = swfClient(service.endpoint);
  // checksAnswers(): every raw answer the
  // client is given, 200 or error, is held to the service model (test/support/output-shapes.ts), and
  // closing the server fails on any that strays; the empty tasks of long polls that timed out, and
  // the named exceptions (KNOWN_DIFFERENCES), are excused, as in output-shapes.test.ts.
  const answers = checksAnswers() ? recordAnswers(swf) : undefined;
  return {
    service,
    swf,
    close: async () => {
      const checked = answers?.filter((answer) => !isEmptyPoll(answer)) ?? [];
      const problems = unexcused(answersProblems(checked), new Map());
      swf.destroy();
      await service.close();
      // This file's DynamoDB Local serves other files too: drop this file's table (and its stream)
      // so the store does not slow down as files pile up.
      if (options.dynamoEndpoint === undefined) {
        const client = dynamoClient();
        await client
          .send(new DeleteTableCommand({ TableName: service.tableName }))
          .catch(() => {})
          .finally(() => client.destroy());
      }
      if (problems.length > 0)
        throw new Error(`answers outside the service model:\n${problems.join('\n')}`);
    },
  };
}

export type TestServer = Awaited<ReturnType<typeof startTestServer>>;

/**
 * What `serve` starts (a test server, with whatever it registers), for the calling test file: started
 * before its tests and closed after them. Its members are read once the tests run; reading one while
 * the file is still being collected throws, as the server is not up yet. `startTimeoutMs` is for a
 * `serve` that runs a workload longer than a hook's default timeout.
 */
export function servedForFile<Served extends { close: () => Promise<void> }>(
  serve: () => Promise<Served>,
  startTimeoutMs?: number,
): Readonly<Omit<Served, 'close'>> {
  let served: Served | undefined;
  beforeAll(async () => {
    served = await serve();
  }, startTimeoutMs);
  afterAll(() => served?.close());
  // A stand-in whose members are the served value's: the value exists only once beforeAll has run.
  return new Proxy({} as Omit<Served, 'close'>, {
    get(_standIn, member) {
      if (served === undefined)
        throw new Error(`read ${String(member)} of the file's server before it was started`);
      return Reflect.get(served, member);
    },
  });
}

/**
 * The test server of the calling test file (startTestServer), with whatever `prepare` registers on it
 * first: started before its tests, closed after them. Its members are read once the tests run.
 */
export function serverForFile(
  options: Parameters<typeof startTestServer>[0] = {},
  prepare: (server: TestServer) => Promise<unknown> = async () => {},
) {
  const server = servedForFile(async () => {
    const started = await startTestServer(options);
    await prepare(started);
    return started;
  });
  return {
    get swf(): SWFClient {
      return server.swf;
    },
    get service(): LocalService {
      return server.service;
    },
    /** The SWF endpoint, for raw HTTP calls. */
    get endpoint(): string {
      return server.service.endpoint;
    },
  };
}

/**
 * A test server with `domain` registered (retention 1 day), and a SwfDriver for that domain: what most
 * contract files start from.
 */
export async function serveDomain(
  domain: string,
  options: Parameters<typeof startTestServer>[0] = {},
): Promise<Awaited<ReturnType<typeof startTestServer>> & { driver: SwfDriver }> {
  const server = await startTestServer(options);
  await registerDomain(server.swf, domain);
  return { ...server, driver: new SwfDriver(server.swf, domain) };
}

/**
 * The calling test file's served domain (serveDomain), with whatever `prepare` registers or starts on
 * it first: started before the file's tests, closed after them (servedForFile).
 */
export function domainForFile(
  domain: string,
  options: Parameters<typeof startTestServer>[0] = {},
  prepare: (served: ServedDomain) => Promise<unknown> = async () => {},
): Readonly<Omit<ServedDomain, 'close'>> {
  return servedForFile(async () => {
    const served = await serveDomain(domain, options);
    await prepare(served);
    return served;
  });
}

export type ServedDomain = Awaited<ReturnType<typeof serveDomain>>;

/** Registers a domain with a retention of 1 day. */
export async function registerDomain(swf: SWFClient, name: string): Promise<void> {
  await swf.send(new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1' }));
}

/**
 * Registers a workflow type with every default: decision tasks on `defaultTaskList`, runs of an hour,
 * decision tasks of 5 minutes, children terminated with their parent.
 */
export async function registerWorkflowType(
  swf: SWFClient,
  domain: string,
  type: WorkflowType,
  defaultTaskList = 'tl',
): Promise<void> {
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      name: type.name,
      version: type.version,
      defaultTaskList: { name: defaultTaskList },
      defaultExecutionStartToCloseTimeout: '3600',
      defaultTaskStartToCloseTimeout: '300',
      defaultChildPolicy: 'TERMINATE',
    }),
  );
}

/**
 * Registers the two types the task and engine contract files run on: `workflow`, its decision tasks on
 * `wf-defaults` (of `decisionTaskTimeout` seconds), runs of an hour, children terminated; `activity`,
 * its tasks on `act-defaults`, 10 minutes to run and no other timeout.
 */
export async function registerTaskTypes(
  swf: SWFClient,
  domain: string,
  types: { workflow: WorkflowType; activity: ActivityType; decisionTaskTimeout: string },
): Promise<void> {
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...types.workflow,
      defaultTaskList: { name: 'wf-defaults' },
      defaultExecutionStartToCloseTimeout: '3600',
      defaultTaskStartToCloseTimeout: types.decisionTaskTimeout,
      defaultChildPolicy: 'TERMINATE',
    }),
  );
  await swf.send(
    new RegisterActivityTypeCommand({
      domain,
      ...types.activity,
      defaultTaskList: { name: 'act-defaults' },
      defaultTaskScheduleToStartTimeout: 'NONE',
      defaultTaskScheduleToCloseTimeout: 'NONE',
      defaultTaskStartToCloseTimeout: '600',
      defaultTaskHeartbeatTimeout: 'NONE',
    }),
  );
}

/**
 * Registers the domain (retention 1 day) and the three types a parent-and-child workflow runs on:
 * both workflow types with runs of an hour and decision tasks of 60 s, children terminated with
 * their parent, and `lambdaRole` when given; the activity type with 60 s to start, 120 s in all and
 * 60 s to run. Every default task list is `unused`: the tests name each task list they poll.
 */
export async function registerParentChildTypes(
  swf: SWFClient,
  domain: string,
  types: { parent: WorkflowType; child: WorkflowType; work: ActivityType; lambdaRole?: string },
): Promise<void> {
  await registerDomain(swf, domain);
  const defaults = {
    domain,
    defaultTaskList: { name: 'unused' },
    defaultExecutionStartToCloseTimeout: '3600',
    defaultTaskStartToCloseTimeout: '60',
    defaultChildPolicy: 'TERMINATE' as const,
    ...(types.lambdaRole === undefined ? {} : { defaultLambdaRole: types.lambdaRole }),
  };
  await swf.send(new RegisterWorkflowTypeCommand({ ...defaults, ...types.parent }));
  await swf.send(new RegisterWorkflowTypeCommand({ ...defaults, ...types.child }));
  await swf.send(
    new RegisterActivityTypeCommand({
      domain,
      ...types.work,
      defaultTaskList: { name: 'unused' },
      defaultTaskScheduleToStartTimeout: '60',
      defaultTaskScheduleToCloseTimeout: '120',
      defaultTaskStartToCloseTimeout: '60',
      defaultTaskHeartbeatTimeout: 'NONE',
    }),
  );
}

/**
 * Every item of a table, every attribute, as JSON with object keys sorted, in key order: two scans
 * compare item by item, attribute by attribute. The local stream poller's checkpoints are left out:
 * they record how far it has read the stream, and move as it reads on (saved once a second).
 */
export async function tableItems(client: DynamoDBClient, tableName: string): Promise<string[]> {
  const items: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        ConsistentRead: true,
        ...(start === undefined ? {} : { ExclusiveStartKey: start as never }),
      }),
    );
    for (const item of page.Items ?? [])
      if (item.entity?.S !== 'StreamCheckpoint') items.push(canonical(item));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return items.sort();
}

/** JSON with object keys sorted (binary values as base64). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value instanceof Uint8Array) return JSON.stringify(Buffer.from(value).toString('base64'));
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function swfClient(endpoint: string): SWFClient {
  return new SWFClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
}
