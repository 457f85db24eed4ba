/**
 * The golden histories of test/sdk/golden, recorded again through the local service: each scenario's
 * fresh history has the golden's shape (event types and names, in order), and replays to the very
 * decisions it recorded. `UPDATE_GOLDEN=1` writes the fresh recordings as the new goldens.
 */
import { existsSync } from 'node:fs';
import type { SWFClient } from '@aws-sdk/client-swf';
import {
  type HistoryEvent,
  RequestCancelWorkflowExecutionCommand,
  SignalWorkflowExecutionCommand,
  StartWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ActivityWorker,
  activityFunctions,
  DeciderWorker,
  registerTypes,
  startWorkflow,
  type WorkflowDefinition,
} from '../../lib/sdk/index.js';
import { goldenFile, readGolden, shapeOf, writeGolden } from '../sdk/golden/files.js';
import {
  GOLDEN_ACTIVITIES,
  GOLDEN_DECISIONS,
  goldenActivities,
  goldenApproval,
  goldenCancelOrder,
  goldenCancelRequested,
  goldenContinue,
  goldenLambda,
  goldenMarkers,
  goldenOrder,
  goldenParent,
  goldenRetry,
  goldenThrows,
  goldenWorkflows,
} from '../sdk/golden/workflows.js';
import { recordingLogger } from '../sdk/support.js';
import { history, untilEvent } from '../support/code-workflow-service.js';
import { uid } from '../support/decider.js';
import { serveDomain } from '../support/local.js';
import { replayDifferences } from '../support/workflow-replay-check.js';

const domain = 'workflow-golden';
let client: SWFClient;
let close: () => Promise<void>;
const logger = recordingLogger();

interface Scenario {
  readonly name: string;
  readonly workflow: WorkflowDefinition;
  readonly input: unknown;
  /** What the test does while it runs: a signal, a cancel request … */
  readonly drive?: (execution: { workflowId: string; runId: string }) => Promise<void>;
  /** Input given as it is, not encoded (bad input). */
  readonly rawInput?: string;
}

const until = (execution: { workflowId: string; runId: string }, type: string) =>
  untilEvent(client, domain, execution, type);

const signal = (workflowId: string, signalName: string, input: string) =>
  client.send(new SignalWorkflowExecutionCommand({ domain, workflowId, signalName, input }));

/**
 * Waits until the parent has taken the decision task that its `nth` ChildWorkflowExecutionStarted
 * scheduled, then signals that child `go`. GoldenParent decides twice per child (to start it, then
 * on its start), so that task is its `2 * nth`th DecisionTaskCompleted.
 */
async function signalChildOnceItsStartIsDecided(
  execution: { workflowId: string; runId: string },
  nth: number,
): Promise<void> {
  const events = await untilEvent(client, domain, execution, 'DecisionTaskCompleted', 2 * nth);
  const started = events.filter((e) => e.eventType === 'ChildWorkflowExecutionStarted')[nth - 1];
  const child = started?.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
  if (child?.workflowId === undefined) throw new Error(`the parent has no child number ${nth}`);
  await client.send(new SignalWorkflowExecutionCommand({ domain, ...child, signalName: 'go' }));
}

const scenarios: Scenario[] = [
  { name: 'order-valid', workflow: goldenOrder, input: { orderId: 'o-1', card: 'valid' } },
  { name: 'order-declined', workflow: goldenOrder, input: { orderId: 'o-2', card: 'declined' } },
  {
    name: 'cancel-order',
    workflow: goldenCancelOrder,
    input: 'o-3',
    drive: async (execution) => {
      await until(execution, 'ActivityTaskStarted');
      await signal(execution.workflowId, 'CancelOrder', JSON.stringify('changed my mind'));
    },
  },
  {
    name: 'approval-signal',
    workflow: goldenApproval,
    input: 60,
    drive: async (execution) => {
      await until(execution, 'TimerStarted');
      await signal(execution.workflowId, 'Approve', JSON.stringify('alice'));
    },
  },
  { name: 'approval-timeout', workflow: goldenApproval, input: 1 },
  { name: 'markers', workflow: goldenMarkers, input: null },
  {
    name: 'child',
    workflow: goldenParent,
    input: null,
    drive: async (execution) => {
      for (const nth of [1, 2]) await signalChildOnceItsStartIsDecided(execution, nth);
    },
  },
  { name: 'retry', workflow: goldenRetry, input: uid('flaky') },
  { name: 'lambda', workflow: goldenLambda, input: 'shout' },
  {
    name: 'cancel-requested',
    workflow: goldenCancelRequested,
    input: null,
    drive: async (execution) => {
      await until(execution, 'ActivityTaskStarted');
      await client.send(new RequestCancelWorkflowExecutionCommand({ domain, ...execution }));
    },
  },
  { name: 'continue-as-new', workflow: goldenContinue, input: 0 },
  { name: 'throws-error', workflow: goldenThrows, input: 'boom' },
  { name: 'throws-number', workflow: goldenThrows, input: 'number' },
  { name: 'bad-input', workflow: goldenThrows, input: undefined, rawInput: 'not json' },
];

const recorded = new Map<string, { events: HistoryEvent[]; workflowId: string; runId: string }>();

beforeAll(async () => {
  const server = await serveDomain(domain, { polling: { maxWaitMs: 1_000 } });
  client = server.swf;
  server.service.lambda.register('golden-upper', async (input) =>
    JSON.stringify(String(JSON.parse(input ?? '""')).toUpperCase()),
  );
  await registerTypes(client, domain, {
    workflows: goldenWorkflows,
    activities: goldenActivities.map((a) => a.definition),
  });
  const common = { client, domain, logger, shutdownSignals: [] };
  const decider = new DeciderWorker({
    ...common,
    taskList: GOLDEN_DECISIONS,
    workflows: goldenWorkflows,
    concurrency: 4,
  }).start();
  const worker = new ActivityWorker({
    ...common,
    taskList: GOLDEN_ACTIVITIES,
    activities: activityFunctions(...goldenActivities),
    heartbeatIntervalMs: 200,
  }).start();
  close = async () => {
    await Promise.all([decider.shutdown(), worker.shutdown()]);
    await server.close();
  };
  await Promise.all(scenarios.map(record));
}, 90_000);
afterAll(() => close());

async function record(s: Scenario): Promise<void> {
  const workflowId = uid(`golden-${s.name}`);
  const execution =
    s.rawInput === undefined
      ? await startWorkflow(client, { domain, workflow: s.workflow, workflowId, input: s.input })
      : await startRaw(s.workflow, workflowId, s.rawInput);
  await s.drive?.(execution);
  await until(execution, closeEventOf(s.name));
  recorded.set(s.name, { ...execution, events: await history(client, domain, execution) });
}

const closeEventOf = (name: string) =>
  name === 'continue-as-new'
    ? 'WorkflowExecutionContinuedAsNew'
    : name.startsWith('cancel')
      ? 'WorkflowExecutionCanceled'
      : name.startsWith('throws') || name === 'bad-input'
        ? 'WorkflowExecutionFailed'
        : 'WorkflowExecutionCompleted';

async function startRaw(workflow: WorkflowDefinition, workflowId: string, input: string) {
  const { name, version } = workflow;
  const answer = await client.send(
    new StartWorkflowExecutionCommand({
      domain,
      workflowId,
      workflowType: { name, version },
      input,
    }),
  );
  return { workflowId, runId: answer.runId ?? '' };
}

describe.each(scenarios)('golden history $name', (s) => {
  it('replays to the decisions it recorded, and has the golden shape', async () => {
    const fresh = recorded.get(s.name);
    if (fresh === undefined) throw new Error(`${s.name} was not recorded`);
    const run = {
      workflowExecution: { workflowId: fresh.workflowId, runId: fresh.runId },
      workflowType: { name: s.workflow.name, version: s.workflow.version },
      events: fresh.events,
    };
    expect(await replayDifferences(s.workflow, run)).toEqual([]);
    const file = goldenFile(s.name);
    if (process.env.UPDATE_GOLDEN === '1' && (await needsUpdate(s, file, fresh.events)))
      writeGolden(s.name, run);
    else if (!existsSync(file))
      throw new Error(`no golden history ${s.name}: record it with UPDATE_GOLDEN=1`);
    expect(shapeOf(fresh.events)).toEqual(shapeOf(readGolden(s.name).events));
  });
});

/** A golden is written again only when it is missing, changed shape, or no longer replays. */
async function needsUpdate(
  s: Scenario,
  file: URL,
  fresh: readonly HistoryEvent[],
): Promise<boolean> {
  if (!existsSync(file)) return true;
  const golden = readGolden(s.name);
  if (JSON.stringify(shapeOf(golden.events)) !== JSON.stringify(shapeOf(fresh))) return true;
  return (await replayDifferences(s.workflow, golden)).length > 0;
}

it('the workers reported no error while recording', () => {
  expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
});
