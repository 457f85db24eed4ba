/**
 * Workflows as code against the local test server: a domain, fresh task lists, a DeciderWorker for
 * the file's workflows and an ActivityWorker for its activities, and waiting for an execution to
 * close. What the workers report (log lines, observations) is kept for the tests to check.
 */
import {
  DescribeWorkflowExecutionCommand,
  type HistoryEvent,
  type SWFClient,
  type WorkflowExecution,
} from '@aws-sdk/client-swf';
import type { LocalStack } from '../../lib/local/stack.js';
import {
  type ActivityDefinition,
  type ActivityDefinitionOptions,
  type ActivityImplementation,
  ActivityWorker,
  activityFunctions,
  type Decider,
  DeciderWorker,
  defineActivity,
  defineWorkflow,
  registerTypes,
  startWorkflow,
  type WorkflowContext,
  type WorkflowDefinition,
  type WorkflowDefinitionOptions,
  type WorkflowObservation,
  type WorkflowReference,
} from '../../lib/sdk/index.js';
import { recordingLogger } from '../sdk/support.js';
import { uid } from './decider.js';
import { serveDomain } from './local.js';

export interface Closed {
  readonly closeStatus: string;
  readonly events: HistoryEvent[];
  /** The close event's attributes' text: result, reason, details. */
  readonly result: string | undefined;
  readonly reason: string | undefined;
  readonly details: string | undefined;
}

export interface WorkflowRig {
  readonly client: SWFClient;
  readonly domain: string;
  readonly stack: LocalStack;
  readonly decisionList: string;
  readonly activityList: string;
  readonly logger: ReturnType<typeof recordingLogger>;
  readonly observations: WorkflowObservation[];
  /** A workflow on the file's decision list, with defaults to run without registered ones. */
  workflow<I, O>(
    name: string,
    run: (ctx: WorkflowContext, input: I) => Promise<O>,
    options?: WorkflowDefinitionOptions,
  ): WorkflowDefinition<I, O>;
  /** An activity on the file's activity list. */
  activity<I, O>(name: string, options?: ActivityDefinitionOptions): ActivityDefinition<I, O>;
  /** Registers the types and starts the workers (once all the file's definitions exist). */
  serve(
    workflows: readonly WorkflowDefinition[],
    implementations: readonly ActivityImplementation[],
    extra?: { decider?: Record<string, Decider>; maximumPageSize?: number },
  ): Promise<void>;
  start<I>(
    workflow: WorkflowReference<I, unknown>,
    input: I,
    workflowId?: string,
  ): Promise<{ workflowId: string; runId: string }>;
  waitForClose(execution: WorkflowExecution, timeoutMs?: number): Promise<Closed>;
  close(): Promise<void>;
}

export async function workflowRig(domain: string): Promise<WorkflowRig> {
  const server = await serveDomain(domain, { polling: { maxWaitMs: 1_000 } });
  const client = server.swf;
  const decisionList = uid('decisions');
  const activityList = uid('activities');
  const logger = recordingLogger();
  const observations: WorkflowObservation[] = [];
  const workers: { shutdown(): Promise<void> }[] = [];
  const common = { client, domain, logger, shutdownSignals: [] };
  return {
    client,
    domain,
    stack: server.stack,
    decisionList,
    activityList,
    logger,
    observations,
    workflow: (name, run, options = {}) =>
      defineWorkflow(name, '1', run, {
        taskList: decisionList,
        executionStartToCloseTimeout: '10m',
        taskStartToCloseTimeout: '1m',
        childPolicy: 'TERMINATE',
        ...options,
      }),
    activity: (name, options = {}) =>
      defineActivity(name, '1', {
        taskList: activityList,
        scheduleToStartTimeout: '1m',
        startToCloseTimeout: '1m',
        scheduleToCloseTimeout: '2m',
        heartbeatTimeout: '30s',
        ...options,
      }),
    async serve(workflows, implementations, extra = {}) {
      const activities = implementations.map((i) => i.definition);
      await registerTypes(client, domain, { workflows, activities });
      workers.push(
        new DeciderWorker({
          ...common,
          taskList: decisionList,
          workflows,
          observe: (o) => observations.push(o),
          ...extra,
        }).start(),
        new ActivityWorker({
          ...common,
          taskList: activityList,
          activities: activityFunctions(...implementations),
          heartbeatIntervalMs: 200,
        }).start(),
      );
    },
    start: (workflow, input, workflowId = uid(workflow.name)) =>
      startWorkflow(client, { domain, workflow, workflowId, input }),
    waitForClose: (execution, timeoutMs) => waitForClose(client, domain, execution, timeoutMs),
    async close() {
      await Promise.all(workers.map((w) => w.shutdown()));
      await server.close();
    },
  };
}

async function waitForClose(
  client: SWFClient,
  domain: string,
  execution: WorkflowExecution,
  timeoutMs = 20_000,
): Promise<Closed> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await client.send(new DescribeWorkflowExecutionCommand({ domain, execution }));
    const closeStatus = info.executionInfo?.closeStatus;
    if (closeStatus !== undefined) {
      const events = await history(client, domain, execution);
      return { closeStatus, events, ...closeText(events.at(-1)) };
    }
    if (Date.now() > deadline)
      throw new Error(`${execution.workflowId} did not close within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function closeText(e: HistoryEvent | undefined) {
  const completed = e?.workflowExecutionCompletedEventAttributes;
  const failed = e?.workflowExecutionFailedEventAttributes;
  const canceled = e?.workflowExecutionCanceledEventAttributes;
  return {
    result: completed?.result,
    reason: failed?.reason,
    details: failed?.details ?? canceled?.details,
  };
}

export { history } from '../../examples/support.js';

import { history } from '../../examples/support.js';
