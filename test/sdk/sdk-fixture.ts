/**
 * A fixture for the SDK's contract tests: a local server with an SDK client, one domain with a workflow
 * type and an activity type, executions whose decisions the test makes by hand (through the SDK's
 * own replay), and recording of what activity tasks became.
 */
import { randomUUID } from 'node:crypto';
import {
  type Decision,
  DescribeWorkflowExecutionCommand,
  GetWorkflowExecutionHistoryCommand,
  type HistoryEvent,
  PollForDecisionTaskCommand,
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  RespondDecisionTaskCompletedCommand,
  SignalWorkflowExecutionCommand,
  StartWorkflowExecutionCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import {
  type Activity,
  ActivityWorker,
  type ActivityWorkerOptions,
  createSwfClient,
  decide,
  type TaskEnd,
  type WorkflowState,
  workflowState,
} from '../../lib/sdk/index.js';
import { startTestServer } from '../support/local.js';
import { recordingLogger } from './support.js';

export const WF = { name: 'sdk-wf', version: '1' };
export const ACTIVITY = { name: 'work', version: '1' };
export const uid = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

export interface Execution {
  readonly workflowId: string;
  readonly runId: string;
  readonly decisions: string;
}

export class SdkFixture {
  constructor(
    readonly client: SWFClient,
    readonly domain: string,
    readonly close: () => Promise<void>,
    readonly endpoint: string,
  ) {}

  static async start(polling = { maxWaitMs: 2_000 }): Promise<SdkFixture> {
    const server = await startTestServer({ polling });
    const client = createSwfClient({ endpoint: server.service.endpoint, maxAttempts: 1 });
    const domain = uid('sdk');
    await client.send(
      new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }),
    );
    await client.send(
      new RegisterWorkflowTypeCommand({
        domain,
        ...WF,
        defaultTaskList: { name: 'unused' },
        defaultExecutionStartToCloseTimeout: '600',
        defaultTaskStartToCloseTimeout: '60',
        defaultChildPolicy: 'TERMINATE',
      }),
    );
    await client.send(
      new RegisterActivityTypeCommand({
        domain,
        ...ACTIVITY,
        defaultTaskList: { name: 'unused' },
        defaultTaskHeartbeatTimeout: '60',
        defaultTaskScheduleToStartTimeout: '300',
        defaultTaskStartToCloseTimeout: '300',
        defaultTaskScheduleToCloseTimeout: '600',
      }),
    );
    return new SdkFixture(
      client,
      domain,
      async () => {
        client.destroy();
        await server.close();
      },
      server.service.endpoint,
    );
  }

  /**
   * Starts an ActivityWorker running `activity` as the activity type `work` on a task list of its own,
   * listening to no process signal, with a logger that keeps its lines and a record of its task ends.
   */
  startWorker(activity: Activity, options: Partial<ActivityWorkerOptions> = {}) {
    const taskList = uid('activities');
    const logger = recordingLogger();
    const ends = taskEnds();
    const w = new ActivityWorker({
      client: this.client,
      domain: this.domain,
      taskList,
      activities: { work: activity },
      shutdownSignals: [],
      logger,
      onTaskEnd: ends.onTaskEnd,
      ...options,
    }).start();
    return { w, taskList: options.taskList ?? taskList, logger, ends };
  }

  /** Starts an execution whose decision tasks go to `decisions`. */
  async startExecution(
    decisions: string,
    input?: string,
    options: { executionTimeout?: number } = {},
  ): Promise<Execution> {
    const workflowId = uid('wf');
    const { runId } = await this.client.send(
      new StartWorkflowExecutionCommand({
        domain: this.domain,
        workflowId,
        workflowType: WF,
        taskList: { name: decisions },
        ...(input === undefined ? {} : { input }),
        ...(options.executionTimeout === undefined
          ? {}
          : { executionStartToCloseTimeout: String(options.executionTimeout) }),
      }),
    );
    return { workflowId, runId: runId ?? '', decisions };
  }

  /** Starts an execution and schedules `count` activities (ids a0, a1, …) on `activityList`. */
  async startWithActivities(
    activityList: string,
    count = 1,
    options: { executionTimeout?: number; input?: string } = {},
  ): Promise<Execution> {
    const execution = await this.startExecution(uid('decisions'), undefined, options);
    await this.decideOnce(execution, () =>
      Array.from({ length: count }, (_, i) =>
        decide.scheduleActivityTask({
          activityId: `a${i}`,
          activityType: ACTIVITY,
          taskList: { name: activityList },
          ...(options.input === undefined ? {} : { input: options.input }),
        }),
      ),
    );
    return execution;
  }

  /** Polls the execution's next decision task and answers with what `decider` returns. */
  async decideOnce(
    execution: Execution,
    decider: (state: WorkflowState) => Decision[],
  ): Promise<WorkflowState> {
    for (let i = 0; i < 30; i++) {
      const task = await this.client.send(
        new PollForDecisionTaskCommand({
          domain: this.domain,
          taskList: { name: execution.decisions },
        }),
      );
      if (!task.taskToken) continue;
      const state = workflowState({
        ...task,
        taskToken: task.taskToken,
        events: task.events ?? [],
      });
      await this.client.send(
        new RespondDecisionTaskCompletedCommand({
          taskToken: task.taskToken,
          decisions: decider(state),
        }),
      );
      return state;
    }
    throw new Error(`no decision task for ${execution.workflowId}`);
  }

  /** Signals the execution so a decision task is scheduled, then answers it with `decisions`. */
  async decideNow(execution: Execution, decisions: Decision[]): Promise<void> {
    await this.client.send(
      new SignalWorkflowExecutionCommand({
        domain: this.domain,
        workflowId: execution.workflowId,
        runId: execution.runId,
        signalName: 'wake',
      }),
    );
    await this.decideOnce(execution, () => decisions);
  }

  async history(execution: Execution): Promise<HistoryEvent[]> {
    const events: HistoryEvent[] = [];
    let nextPageToken: string | undefined;
    do {
      const page = await this.client.send(
        new GetWorkflowExecutionHistoryCommand({
          domain: this.domain,
          execution,
          ...(nextPageToken === undefined ? {} : { nextPageToken }),
        }),
      );
      events.push(...(page.events ?? []));
      nextPageToken = page.nextPageToken;
    } while (nextPageToken);
    return events;
  }

  async closeStatus(execution: Execution): Promise<string | undefined> {
    const info = await this.client.send(
      new DescribeWorkflowExecutionCommand({ domain: this.domain, execution }),
    );
    return info.executionInfo?.closeStatus;
  }
}

/** Collects TaskEnds; `wait(n)` resolves once n have arrived. */
export function taskEnds() {
  const ends: TaskEnd[] = [];
  return {
    ends,
    onTaskEnd: (end: TaskEnd) => {
      ends.push(end);
    },
    of: (workflowId: string) => ends.filter((e) => e.workflowId === workflowId),
  };
}

export const types = (events: readonly HistoryEvent[]) => events.map((e) => e.eventType);
