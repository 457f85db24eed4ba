/**
 * The README's "A first workflow" sample runs as printed: after the domain and types
 * are registered as its AWS CLI lines register them, its code (the ```ts block that starts the
 * Greeting workflow) is run against the local test server, and the execution closes with
 * `Hello, world!` as its result. The block is taken from the README itself, so an edit that breaks
 * it fails here; only its imports are served by the test (the SDK's workers recorded, to stop them
 * afterwards, and its client pointed at the test server).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as swfSdk from '@aws-sdk/client-swf';
import {
  DescribeWorkflowExecutionCommand,
  GetWorkflowExecutionHistoryCommand,
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as sdk from '../../lib/sdk/index.js';
import { recordingLogger, until } from '../sdk/support.js';
import { startTestServer } from '../support/local.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The README's ```ts block that holds `marker`. */
function readmeBlock(marker: string): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const block = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)]
    .map((m) => m[1] ?? '')
    .find((code) => code.includes(marker));
  if (block === undefined) throw new Error(`README.md has no ts block with ${marker}`);
  return block;
}

let client: SWFClient;
let runId: string | undefined;
let close: () => Promise<void>;
const workers: { shutdown(): Promise<void> }[] = [];

beforeAll(async () => {
  const server = await startTestServer({ polling: { maxWaitMs: 2_000 } });
  client = sdk.createSwfClient({
    endpoint: server.service.endpoint,
    // The run the sample starts (it keeps no answer of StartWorkflowExecution).
    observe: ({ action, output }) => {
      if (action === 'StartWorkflowExecution' && typeof output?.runId === 'string')
        runId = output.runId;
    },
  });
  close = server.close;
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.shutdown()));
  client.destroy();
  await close();
});

it("runs the README's greeting to Hello, world!", async () => {
  // What the README's AWS CLI lines register.
  await client.send(
    new RegisterDomainCommand({ name: 'greetings', workflowExecutionRetentionPeriodInDays: '1' }),
  );
  await client.send(
    new RegisterWorkflowTypeCommand({
      domain: 'greetings',
      name: 'Greeting',
      version: '1',
      defaultTaskList: { name: 'greeting-decisions' },
      defaultChildPolicy: 'TERMINATE',
      defaultExecutionStartToCloseTimeout: '3600',
      defaultTaskStartToCloseTimeout: '30',
    }),
  );
  await client.send(
    new RegisterActivityTypeCommand({
      domain: 'greetings',
      name: 'Greet',
      version: '1',
      defaultTaskList: { name: 'greeting-activities' },
      defaultTaskHeartbeatTimeout: '30',
      defaultTaskScheduleToStartTimeout: '300',
      defaultTaskStartToCloseTimeout: '300',
      defaultTaskScheduleToCloseTimeout: '600',
    }),
  );

  // The README's block, as CommonJS in an async function (it awaits at its top level), its imports
  // served from here: the workers keep no process signals and are kept to be stopped.
  const logger = recordingLogger();
  class DeciderWorker extends sdk.DeciderWorker {
    constructor(options: sdk.DeciderWorkerOptions) {
      super({ ...options, shutdownSignals: [], logger });
      workers.push(this);
    }
  }
  class ActivityWorker extends sdk.ActivityWorker {
    constructor(options: sdk.ActivityWorkerOptions) {
      super({ ...options, shutdownSignals: [], logger });
      workers.push(this);
    }
  }
  const modules: Record<string, unknown> = {
    '@aws-sdk/client-swf': swfSdk,
    // The package's entry point, as a reader who installed it imports the SDK.
    'swf-on-dynamo/sdk': { ...sdk, DeciderWorker, ActivityWorker, createSwfClient: () => client },
  };
  const js = ts.transpileModule(readmeBlock("workflowId: 'greet-world'"), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
  const require = (name: string) => {
    if (!(name in modules)) throw new Error(`the README's sample imports ${name}`);
    return modules[name];
  };
  await new AsyncFunction('require', 'exports', js)(require, {});
  expect(workers).toHaveLength(2);
  expect(runId).toBeDefined();

  // The README: the run ends with `Hello, world!` as the execution's result.
  const closedEvent = async () => {
    const { events } = await client.send(
      new GetWorkflowExecutionHistoryCommand({
        domain: 'greetings',
        execution: { workflowId: 'greet-world', runId: runId ?? '' },
      }),
    );
    return events?.find((e) => e.eventType === 'WorkflowExecutionCompleted');
  };
  await until(
    async () => (await closedEvent()) !== undefined,
    'the greeting to close',
    20_000,
    100,
  );
  expect((await closedEvent())?.workflowExecutionCompletedEventAttributes?.result).toBe(
    'Hello, world!',
  );
  const described = await client.send(
    new DescribeWorkflowExecutionCommand({
      domain: 'greetings',
      execution: { workflowId: 'greet-world', runId: runId ?? '' },
    }),
  );
  expect(described.executionInfo?.executionStatus).toBe('CLOSED');
  expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
}, 30_000);
