/** What the examples share: registering what they need and waiting for an execution to close. */
import { randomUUID } from 'node:crypto';
import {
  DescribeWorkflowExecutionCommand,
  type HistoryEvent,
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  type SWFClient,
  type WorkflowExecution,
} from '@aws-sdk/client-swf';
import { type Logger, sleep } from '../lib/sdk/index.js';
import { fullHistory } from '../lib/testing/index.js';

export interface ExampleOptions {
  readonly client: SWFClient;
  /** Domain to use (created if missing; default `sdk-examples`). */
  readonly domain?: string;
  /** Where the example prints what happened (default console.log). */
  readonly print?: (line: string) => void;
  /** The SDK's logger for the workers (default: warnings and errors to the console). */
  readonly logger?: Logger;
  /**
   * For the examples that start a service of their own: the DynamoDB Local to keep its table in
   * (default: one they start).
   */
  readonly dynamoEndpoint?: string;
}

export const DEFAULT_DOMAIN = 'sdk-examples';

/** A task list name no other run uses, so examples never pick up each other's tasks. */
export const freshTaskList = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

const alreadyThere = (error: unknown) =>
  error instanceof Error &&
  (error.name === 'DomainAlreadyExistsFault' || error.name === 'TypeAlreadyExistsFault');

async function idempotent(call: Promise<unknown>): Promise<void> {
  await call.catch((error: unknown) => {
    if (!alreadyThere(error)) throw error;
  });
}

/** Registers the domain, a workflow type and activity types; what exists already is kept. */
export async function register(
  client: SWFClient,
  domain: string,
  workflowType: { name: string; version: string },
  activityTypes: readonly string[],
): Promise<void> {
  await idempotent(
    client.send(
      new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }),
    ),
  );
  await idempotent(
    client.send(
      new RegisterWorkflowTypeCommand({
        domain,
        ...workflowType,
        defaultTaskList: { name: 'sdk-examples' },
        defaultExecutionStartToCloseTimeout: '600',
        defaultTaskStartToCloseTimeout: '30',
        defaultChildPolicy: 'TERMINATE',
      }),
    ),
  );
  for (const name of activityTypes) {
    await idempotent(
      client.send(
        new RegisterActivityTypeCommand({
          domain,
          name,
          version: '1',
          defaultTaskList: { name: 'sdk-examples' },
          defaultTaskHeartbeatTimeout: '30',
          defaultTaskScheduleToStartTimeout: '60',
          defaultTaskStartToCloseTimeout: '300',
          defaultTaskScheduleToCloseTimeout: '360',
        }),
      ),
    );
  }
}

/** Waits until the execution is closed and returns its close status and full history. */
export async function waitForClose(
  client: SWFClient,
  domain: string,
  execution: WorkflowExecution,
  timeoutMs = 60_000,
): Promise<{ closeStatus: string; events: HistoryEvent[] }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const info = await client.send(new DescribeWorkflowExecutionCommand({ domain, execution }));
    const closeStatus = info.executionInfo?.closeStatus;
    if (closeStatus !== undefined)
      return { closeStatus, events: await history(client, domain, execution) };
    await sleep(200);
  }
  throw new Error(`execution ${execution.workflowId} did not close within ${timeoutMs} ms`);
}

/** The whole history of an execution, every page. */
export const history = fullHistory;

/** The result of WorkflowExecutionCompleted, if the history has one. */
export const completedResult = (events: readonly HistoryEvent[]) =>
  events.find((e) => e.eventType === 'WorkflowExecutionCompleted')
    ?.workflowExecutionCompletedEventAttributes?.result;

/** Fails the example with a clear message. */
export function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`example check failed: ${message}`);
}

/** Waits until an activity of this type has been started by a worker. */
export async function waitForActivityStart(
  client: SWFClient,
  domain: string,
  execution: WorkflowExecution,
  activityTypeName: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const events = await history(client, domain, execution);
    const scheduled = events.find(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activityTypeName,
    );
    const started = events.some(
      (e) => e.activityTaskStartedEventAttributes?.scheduledEventId === scheduled?.eventId,
    );
    if (scheduled !== undefined && started) return;
    await sleep(100);
  }
  throw new Error(`${activityTypeName} never started`);
}
