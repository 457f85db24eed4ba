/**
 * Workflows as code against the local test server: a domain, fresh task lists, a DeciderWorker for
 * the file's workflows and an ActivityWorker for its activities, and waiting for an execution to
 * close. What the workers report (log lines, observations) is kept for the tests to check.
 */
import {
  DescribeWorkflowExecutionCommand,
  type HistoryEvent,
  SignalWorkflowExecutionCommand,
  type SWFClient,
  type WorkflowExecution,
} from '@aws-sdk/client-swf';
import type { LocalService } from '../../lib/local/local-service.js';
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

type DeciderExtras = {
  readonly decider?: Record<string, Decider>;
  readonly maximumPageSize?: number;
  readonly identity?: string;
  readonly concurrency?: number;
  /** Another decision task list than the file's. */
  readonly taskList?: string;
};

export interface CodeWorkflowService {
  readonly client: SWFClient;
  readonly domain: string;
  readonly service: LocalService;
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
    extra?: DeciderExtras,
  ): Promise<void>;
  /** Starts a DeciderWorker on the file's decision list (serve starts one). */
  decider(workflows: readonly WorkflowDefinition[], extra?: DeciderExtras): DeciderWorker;
  start<I>(
    workflow: WorkflowReference<I, unknown>,
    input: I,
    workflowId?: string,
  ): Promise<{ workflowId: string; runId: string }>;
  waitForClose(execution: WorkflowExecution, timeoutMs?: number): Promise<Closed>;
  /** The history once it has `count` events of this type. */
  untilEvent(execution: Execution, eventType: string, count?: number): Promise<HistoryEvent[]>;
  /** SignalWorkflowExecution, with `input` as it is (encode it for a workflow's codec). */
  signal(workflowId: string, signalName: string, input?: string): Promise<unknown>;
  close(): Promise<void>;
}

export async function startCodeWorkflowService(domain: string): Promise<CodeWorkflowService> {
  const server = await serveDomain(domain, { polling: { maxWaitMs: 1_000 } });
  const client = server.swf;
  const decisionList = uid('decisions');
  const activityList = uid('activities');
  const logger = recordingLogger();
  const observations: WorkflowObservation[] = [];
  const workers: { shutdown(): Promise<void> }[] = [];
  const common = { client, domain, logger, shutdownSignals: [] };
  const codeService: CodeWorkflowService = {
    client,
    domain,
    service: server.service,
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
      if (workflows.length > 0) codeService.decider(workflows, extra);
      workers.push(
        new ActivityWorker({
          ...common,
          taskList: activityList,
          activities: activityFunctions(...implementations),
          heartbeatIntervalMs: 200,
        }).start(),
      );
    },
    decider(workflows, extra = {}) {
      const worker = new DeciderWorker({
        ...common,
        taskList: decisionList,
        workflows,
        observe: (o) => observations.push(o),
        ...extra,
      }).start();
      workers.push(worker);
      return worker;
    },
    start: (workflow, input, workflowId = uid(workflow.name)) =>
      startWorkflow(client, { domain, workflow, workflowId, input }),
    waitForClose: (execution, timeoutMs) => waitForClose(client, domain, execution, timeoutMs),
    untilEvent: (execution, eventType, count) =>
      untilEvent(client, domain, execution, eventType, count),
    signal: (workflowId, signalName, input) =>
      client.send(
        new SignalWorkflowExecutionCommand({
          domain,
          workflowId,
          signalName,
          ...(input === undefined ? {} : { input }),
        }),
      ),
    async close() {
      await Promise.all(workers.map((w) => w.shutdown()));
      await server.close();
    },
  };
  return codeService;
}

type Execution = { readonly workflowId: string; readonly runId: string };

/** Reads the history until it has `count` events of `eventType` (15 s at most). */
export async function untilEvent(
  client: SWFClient,
  domain: string,
  execution: Execution,
  eventType: string,
  count = 1,
): Promise<HistoryEvent[]> {
  for (let i = 0; i < 300; i++) {
    const events = await history(client, domain, execution);
    if (events.filter((e) => e.eventType === eventType).length >= count) return events;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${execution.workflowId} has no ${count} ${eventType} events`);
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
