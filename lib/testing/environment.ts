/**
 * A test environment: the local service in this process (the real engine over DynamoDB Local), a
 * client, a fresh domain, and workers it starts and stops. With time skipping, its clock jumps to the
 * next deadline whenever nothing could happen before it, so a month-long workflow closes in seconds.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type HistoryEvent,
  RegisterActivityTypeCommand,
  type RegisterActivityTypeInput,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  type RegisterWorkflowTypeInput,
  StartWorkflowExecutionCommand,
  type StartWorkflowExecutionInput,
  type SWFClient,
  type WorkflowExecution,
} from '@aws-sdk/client-swf';
import { localCredentials } from '../local/dynamodb-local.js';
import { LOCAL_REGION, type LocalService, startLocalService } from '../local/local-service.js';
import {
  ActivityWorker,
  type ActivityWorkerOptions,
  createSwfClient,
  DeciderWorker,
  type DeciderWorkerOptions,
  type Logger,
} from '../sdk/index.js';
import { type Duration, durationMs } from './duration.js';
import { type DynamoLease, leaseDynamo } from './dynamo.js';
import {
  type ClosedExecution,
  closedExecution,
  describeExecution,
  fullHistory,
  notClosedMessage,
} from './executions.js';
import { RunBook } from './run-book.js';
import { TimeSkipper } from './time-skipper.js';
import { VirtualClock } from './virtual-clock.js';

export interface TestEnvironmentOptions {
  /**
   * Skip time (default true): whenever nothing could happen before the next timer or timeout, time
   * jumps to it. `false` runs the ordinary real-time service.
   */
  readonly timeSkipping?: boolean;
  /**
   * A DynamoDB Local to keep the environment's table in (its endpoint). By default one is started for
   * the process and shared by its environments, each with a table of its own.
   */
  readonly dynamoEndpoint?: string;
  /** The domain registered for the environment (default: a fresh name, `test-` and 8 characters). */
  readonly domain?: string;
  /**
   * The domain's retention of closed executions in days (default 90, SWF's most). Retention follows
   * the environment's time: a closed execution is gone once time has moved past it.
   */
  readonly retentionDays?: number;
  /** Where the workers the environment starts log (default: their warnings and errors to the console). */
  readonly logger?: Logger;
}

/** The workflow type defaults `registerWorkflowType` fills in. */
export const WORKFLOW_TYPE_DEFAULTS = {
  defaultTaskList: { name: 'decisions' },
  defaultExecutionStartToCloseTimeout: String(365 * 86_400),
  defaultTaskStartToCloseTimeout: '60',
  defaultChildPolicy: 'TERMINATE',
} as const;

/** The activity type defaults `registerActivityType` fills in. */
export const ACTIVITY_TYPE_DEFAULTS = {
  defaultTaskList: { name: 'activities' },
  defaultTaskScheduleToStartTimeout: 'NONE',
  defaultTaskStartToCloseTimeout: '600',
  defaultTaskScheduleToCloseTimeout: 'NONE',
  defaultTaskHeartbeatTimeout: 'NONE',
} as const;

/** How long `awaitClose` waits, in wall-clock time, unless told otherwise. */
export const DEFAULT_AWAIT_CLOSE_MS = 20_000;

/** An error a worker of the environment logged about an execution. */
interface WorkerError {
  readonly message: string;
  readonly fields: Record<string, unknown> | undefined;
}

const warningsToConsole: Logger = {
  debug: () => {},
  info: () => {},
  warn: (message, fields) => console.warn(`[swf-sdk] warn ${message}`, fields ?? ''),
  error: (message, fields) => console.error(`[swf-sdk] error ${message}`, fields ?? ''),
};

type Worker = { shutdown(): Promise<void> };
type TypeName = { readonly name: string; readonly version: string };

export class TestEnvironment {
  readonly client: SWFClient;
  readonly domain: string;
  /** The SWF endpoint of the environment's service, for clients of your own. */
  readonly endpoint: string;
  readonly timeSkipping: boolean;
  readonly logger: Logger;
  readonly #service: LocalService;
  readonly #dynamo: DynamoLease;
  readonly #runs: RunBook;
  readonly #clock: VirtualClock | undefined;
  readonly #skipper: TimeSkipper | undefined;
  readonly #workers = new Set<Worker>();
  readonly #workerErrors = new Set<(error: WorkerError) => void>();
  #closing: Promise<void> | undefined;

  private constructor(parts: {
    service: LocalService;
    dynamo: DynamoLease;
    runs: RunBook;
    clock: VirtualClock | undefined;
    skipper: TimeSkipper | undefined;
    domain: string;
    logger: Logger;
  }) {
    this.#service = parts.service;
    this.#dynamo = parts.dynamo;
    this.#runs = parts.runs;
    this.#clock = parts.clock;
    this.#skipper = parts.skipper;
    this.domain = parts.domain;
    this.logger = parts.logger;
    this.endpoint = parts.service.endpoint;
    this.timeSkipping = parts.skipper !== undefined;
    this.client = createSwfClient({ endpoint: parts.service.endpoint, region: LOCAL_REGION });
  }

  /** Starts the service on a free port over a fresh table, and registers a fresh domain. */
  static async create(options: TestEnvironmentOptions = {}): Promise<TestEnvironment> {
    const dynamo = await leaseDynamo(options.dynamoEndpoint);
    const runs = new RunBook();
    const timeSkipping = options.timeSkipping ?? true;
    const clock = timeSkipping ? new VirtualClock() : undefined;
    const skipper = clock === undefined ? undefined : new TimeSkipper(clock, runs);
    let service: LocalService;
    try {
      service = await startLocalService({
        dynamoEndpoint: dynamo.endpoint,
        tableName: `swf-test-${randomUUID()}`,
        ...(clock === undefined ? {} : { clock }),
        observeCommits: (_before, after) =>
          skipper === undefined ? runs.record(after) : skipper.committed(after),
        ...(skipper === undefined
          ? {}
          : { aroundCall: (call, request) => skipper.aroundCall(call, request) }),
      });
    } catch (error) {
      await dynamo.release();
      throw error;
    }
    skipper?.start(service);
    const env = new TestEnvironment({
      service,
      dynamo,
      runs,
      clock,
      skipper,
      domain: options.domain ?? `test-${randomUUID().slice(0, 8)}`,
      logger: options.logger ?? warningsToConsole,
    });
    try {
      await env.client.send(
        new RegisterDomainCommand({
          name: env.domain,
          workflowExecutionRetentionPeriodInDays: String(options.retentionDays ?? 90),
        }),
      );
    } catch (error) {
      await env.close();
      throw error;
    }
    return env;
  }

  /** The environment's time: virtual with time skipping, the wall clock's otherwise. */
  now(): Date {
    return new Date(this.#clock?.now() ?? Date.now());
  }

  /**
   * Lets `duration` pass. With time skipping it moves time forward by hand, at once: each timer or
   * timeout on the way fires at its own time, in order, after the service has carried out what the one
   * before caused and the deciders have answered the decision tasks they started. Without, it waits.
   */
  async sleep(duration: Duration): Promise<void> {
    const ms = durationMs(duration, 'the sleep duration');
    if (this.#skipper === undefined) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return;
    }
    await this.#skipper.sleep(ms);
  }

  /**
   * Runs `work` with time held: it does not skip by itself meanwhile (`sleep` still moves it). For
   * steps that must happen at one moment of the workflow's time, such as a signal while it waits.
   */
  async holdTime<T>(work: () => Promise<T> | T): Promise<T> {
    const release = this.#skipper?.hold();
    try {
      return await work();
    } finally {
      release?.();
    }
  }

  /** Registers a workflow type in the domain, with test-friendly defaults; an existing one is kept. */
  async registerWorkflowType(
    type: Omit<RegisterWorkflowTypeInput, 'domain'> & TypeName,
  ): Promise<{ name: string; version: string }> {
    await this.#register(
      new RegisterWorkflowTypeCommand({ ...WORKFLOW_TYPE_DEFAULTS, ...type, domain: this.domain }),
    );
    return { name: type.name, version: type.version };
  }

  /** Registers an activity type in the domain, with test-friendly defaults; an existing one is kept. */
  async registerActivityType(
    type: Omit<RegisterActivityTypeInput, 'domain'> & TypeName,
  ): Promise<{ name: string; version: string }> {
    await this.#register(
      new RegisterActivityTypeCommand({ ...ACTIVITY_TYPE_DEFAULTS, ...type, domain: this.domain }),
    );
    return { name: type.name, version: type.version };
  }

  /** Starts a DeciderWorker on the environment's domain; `close` stops it. */
  startDecider(options: Omit<DeciderWorkerOptions, 'client' | 'domain'>): DeciderWorker {
    return this.#track(new DeciderWorker(this.#workerOptions(options)).start());
  }

  /** Starts an ActivityWorker on the environment's domain; `close` stops it. */
  startActivityWorker(options: Omit<ActivityWorkerOptions, 'client' | 'domain'>): ActivityWorker {
    return this.#track(new ActivityWorker(this.#workerOptions(options)).start());
  }

  /** Starts an execution in the domain (a fresh workflowId unless one is given). */
  async startWorkflow(
    start: Omit<StartWorkflowExecutionInput, 'domain' | 'workflowId'> & { workflowId?: string },
  ): Promise<WorkflowExecution & { workflowId: string; runId: string }> {
    const workflowId =
      start.workflowId ?? `${start.workflowType?.name ?? 'workflow'}-${randomUUID()}`;
    const { runId } = await this.client.send(
      new StartWorkflowExecutionCommand({ ...start, domain: this.domain, workflowId }),
    );
    return { workflowId, runId: runId ?? '' };
  }

  /**
   * Waits until the execution closes (time skips meanwhile, if it may) and returns how it closed and
   * its whole history. Fails after `timeoutMs` of wall-clock time (default 20 s), saying what the
   * execution still waits on, and at once when a worker of the environment logs an error about the
   * execution (a decider that throws, an activity type no worker has) unless `workerErrors` is
   * `'ignore'`.
   */
  async awaitClose(
    execution: WorkflowExecution,
    options: { readonly timeoutMs?: number; readonly workerErrors?: 'fail' | 'ignore' } = {},
  ): Promise<ClosedExecution> {
    const runId = execution.runId ?? '';
    const timeoutMs = options.timeoutMs ?? DEFAULT_AWAIT_CLOSE_MS;
    const closing = this.#runs.closed(runId);
    let timer: NodeJS.Timeout | undefined;
    let listener: (error: WorkerError) => void = () => {};
    const given = new Promise<Error>((resolve) => {
      timer = setTimeout(() => resolve(this.#notClosed(execution, timeoutMs)), timeoutMs);
      listener = (error) => {
        if (error.fields?.workflowId !== execution.workflowId) return;
        resolve(
          new Error(
            `${describeExecution(execution)}: a worker logged "${error.message}" ${JSON.stringify(error.fields)}`,
          ),
        );
      };
      if (options.workerErrors !== 'ignore') this.#workerErrors.add(listener);
    });
    const state = await Promise.race([closing.done, given]).finally(() => {
      clearTimeout(timer);
      this.#workerErrors.delete(listener);
      closing.cancel();
    });
    if (state instanceof Error) throw state;
    // Read at the time of the close (a skip meanwhile could take it past retention), once the outbox
    // has carried the close out: listings show it, a parent has heard of it.
    return this.holdTime(async () => {
      await this.#service.streamCaughtUp();
      return closedExecution(
        state,
        await this.history({ workflowId: execution.workflowId, runId }),
      );
    });
  }

  #notClosed(execution: WorkflowExecution, timeoutMs: number): Error {
    const held = (this.#skipper?.held ?? false) ? ' Time skipping is held (holdTime).' : '';
    const state = this.#runs.state(execution.runId ?? '');
    return new Error(`${notClosedMessage(execution, state, timeoutMs)}${held}`);
  }

  /** An execution's whole history, every page, oldest first. */
  history(execution: WorkflowExecution): Promise<HistoryEvent[]> {
    return fullHistory(this.client, this.domain, execution);
  }

  /** Stops the workers, the service and its table. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    await Promise.all([...this.#workers].map((w) => w.shutdown()));
    await this.#skipper?.stop();
    this.client.destroy();
    await this.#service.close();
    const dynamo = new DynamoDBClient({
      endpoint: this.#dynamo.endpoint,
      region: LOCAL_REGION,
      credentials: localCredentials,
    });
    // The DynamoDB Local may serve others: the table (and its stream) must not pile up there.
    await dynamo
      .send(new DeleteTableCommand({ TableName: this.#service.tableName }))
      .catch(() => {})
      .finally(() => dynamo.destroy());
    await this.#dynamo.release();
  }

  /**
   * A worker's options on this environment: its client and domain, no process signals, and a logger
   * whose errors `awaitClose` hears of.
   */
  #workerOptions<O extends { readonly logger?: Logger }>(options: O) {
    const logger = options.logger ?? this.logger;
    const error = (message: string, fields?: Record<string, unknown>) => {
      logger.error(message, fields);
      for (const listener of [...this.#workerErrors]) listener({ message, fields });
    };
    return {
      shutdownSignals: [],
      ...options,
      logger: { ...logger, error },
      client: this.client,
      domain: this.domain,
    };
  }

  #track<W extends Worker>(worker: W): W {
    this.#workers.add(worker);
    return worker;
  }

  async #register(command: RegisterWorkflowTypeCommand | RegisterActivityTypeCommand) {
    try {
      await this.client.send(command as RegisterWorkflowTypeCommand);
    } catch (error) {
      if (!(error instanceof Error && error.name === 'TypeAlreadyExistsFault')) throw error;
    }
  }
}
