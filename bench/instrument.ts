import { AsyncLocalStorage } from 'node:async_hooks';
import {
  MAX_SQS_DELAY_SECONDS,
  SCHEDULE_LEAD_SECONDS,
} from '../lib/adapters/aws/deadline-scheduler.js';
import type { DynamoIntercept } from '../lib/adapters/dynamodb/doc-client.js';
import { isOutboxImage } from '../lib/adapters/dynamodb/stream-records.js';
import { tableSchema } from '../lib/adapters/dynamodb/table-schema.js';
import type { LocalService } from '../lib/local/local-service.js';
import type { DeadlineFire } from '../lib/ports/deadline-scheduler.js';
import type { SwfCall } from '../lib/sdk/index.js';
import { DynamoMeter } from './metering/dynamo-meter.js';

type Wire = Record<string, unknown>;
const isRecord = (value: unknown): value is Wire =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Which side of the service made a DynamoDB request: an SWF API call, or the outbox (stream, timers). */
const origin = new AsyncLocalStorage<'outbox'>();

/** Whether the code running now is the outbox's (see tagOutbox), not an SWF API call's. */
export const inOutbox = (): boolean => origin.getStore() === 'outbox';

/**
 * Lambda time is priced at nominal in-region DynamoDB latencies (ms per request) rather than at what
 * this machine measured: the bench shares 2 cores with DynamoDB Local, so its latencies say more about
 * the machine than about Lambda. The measured figures are kept in the JSON beside them.
 */
export const NOMINAL_DYNAMO_MS: Readonly<Record<string, number>> = {
  GetItem: 4,
  Query: 5,
  PutItem: 6,
  DeleteItem: 6,
  UpdateItem: 6,
  BatchWriteItem: 10,
  TransactGetItems: 8,
  TransactWriteItems: 12,
};
export const nominalMsOf = (op: string) => NOMINAL_DYNAMO_MS[op] ?? 5;

/**
 * One SWF call's wait on DynamoDB at nominal latencies. A function waits for requests it sends side by
 * side (a poll's look at its queue's partitions) once, for the slowest: a request that starts while
 * another of the same call is still out adds only what it takes beyond the one waited for already.
 */
export class CallWaits {
  private outstanding = 0;
  /** The nominal latency of the requests out together now (the longest of them). */
  private together = 0;

  /** The nominal milliseconds a request of `op` starting now adds to the call's wait. */
  start(op: string): number {
    const ms = nominalMsOf(op);
    this.outstanding += 1;
    if (this.outstanding === 1) {
      this.together = ms;
      return ms;
    }
    const added = Math.max(0, ms - this.together);
    this.together = Math.max(this.together, ms);
    return added;
  }

  end(): void {
    this.outstanding -= 1;
  }
}

const call = new AsyncLocalStorage<CallWaits>();

/** Runs one SWF call the local server answers in a context of its own (LocalServiceOptions.aroundCall). */
export const aroundCall = <T>(run: () => Promise<T>): Promise<T> => call.run(new CallWaits(), run);

const CAPACITY_OPS = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactWriteItems',
  'TransactGetItems',
]);

/** Everything counted on the DynamoDB side: the meter plus request latency by origin. */
export class DynamoCounters {
  readonly meter = new DynamoMeter(tableSchema);
  apiMs = 0;
  /**
   * The API side's wait on DynamoDB at nominal latencies, requests of one call sent side by side
   * counted once (CallWaits); requests outside any call's context count one after another.
   */
  apiNominalMs = 0;
  outboxMs = 0;
  outboxRequests = 0;
  /** Requests by origin and operation (to price Lambda time at nominal DynamoDB latencies). */
  byOrigin: { api: Record<string, number>; outbox: Record<string, number> } = {
    api: {},
    outbox: {},
  };
  /**
   * Write requests that changed a run's state item with work for the outbox: the stream function's
   * invocations. The deployed event source filters the stream on `entity = Run` and the writer's mark
   * (infra/constructs/swf-outbox.ts), so the records of other items (chunks, queue entries,
   * visibility rows) and of changes with nothing for the outbox never invoke it.
   */
  writeBatches = 0;
  /**
   * Only count requests (no sizes, units or ReturnConsumedCapacity): the throughput run, where the
   * meter's own work would take CPU from the service it measures.
   */
  requestsOnly = false;
  /** The first requests whose metered units differ from DynamoDB Local's report (for diagnosis). */
  mismatches: { op: string; metered: number; reported: number; input: string }[] = [];

  reset(): void {
    this.mismatches = [];
    this.meter.reset();
    this.apiMs = 0;
    this.apiNominalMs = 0;
    this.outboxMs = 0;
    this.outboxRequests = 0;
    this.byOrigin = { api: {}, outbox: {} };
    this.writeBatches = 0;
  }
}

/**
 * The meter, around every request of the service's DynamoDB client: each asks for
 * ReturnConsumedCapacity (to cross-check the meter against DynamoDB Local) and is charged, in the wire
 * form it was sent and answered in, when it ends.
 */
export function meterDynamo(counters: DynamoCounters): DynamoIntercept {
  return async (op, input, send) => {
    if (counters.requestsOnly) {
      counters.meter.count(op);
      return send();
    }
    if (CAPACITY_OPS.has(op)) input.ReturnConsumedCapacity ??= 'INDEXES';
    const fromOutbox = origin.getStore() === 'outbox';
    const waits = fromOutbox ? undefined : call.getStore();
    if (!fromOutbox)
      counters.apiNominalMs += waits === undefined ? nominalMsOf(op) : waits.start(op);
    const started = performance.now();
    const account = (output: Wire | undefined) => {
      waits?.end();
      const ms = performance.now() - started;
      if (fromOutbox) {
        counters.outboxMs += ms;
        counters.outboxRequests += 1;
      } else counters.apiMs += ms;
      const side = counters.byOrigin[fromOutbox ? 'outbox' : 'api'];
      side[op] = (side[op] ?? 0) + 1;
      const charge = counters.meter.record(op, input, output);
      if (output !== undefined && invokesStreamFunction(input)) counters.writeBatches += 1;
      const metered = charge.readUnits + charge.writeUnits;
      if (
        charge.reported !== undefined &&
        charge.reported !== metered &&
        counters.mismatches.length < 20
      )
        counters.mismatches.push({
          op,
          metered,
          reported: charge.reported,
          input: JSON.stringify(input).slice(0, 1500),
        });
    };
    try {
      const output = await send();
      account(output);
      return output;
    } catch (error) {
      account(undefined);
      throw error;
    }
  };
}

/**
 * Tags the outbox's DynamoDB requests and pushed tasks: the service hands the stream poller and the timer
 * heap one deps object, and its stores and task push are wrapped here so their calls run inside the
 * `outbox` context. Returns what turns the context's hooks off again once the service is closed.
 */
export function tagOutbox(service: LocalService): () => void {
  for (const name of [
    'runs',
    'taskQueues',
    'heartbeats',
    'lambdaTaskClaims',
    'deadLetters',
    'visibility',
    'registry',
    'push',
  ] as const) {
    const target: object = service.outbox[name];
    const wrapped = new Proxy(target, {
      get(t, property, receiver) {
        const value: unknown = Reflect.get(t, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => origin.run('outbox', () => Reflect.apply(value, t, args));
      },
    });
    Reflect.set(service.outbox, name, wrapped);
  }
  return () => origin.disable();
}

/** Per SWF action: calls, summed latency (billed ms, each rounded up), and polls that came back empty. */
export interface ActionTotals {
  calls: number;
  billedMs: number;
  emptyPolls: number;
  emptyPollMs: number;
  latencies: number[];
}

export class SwfCounters {
  byAction: Record<string, ActionTotals> = {};
  /** Calls that reached the service by its API function's Invoke (pushed workers), not its front door. */
  directCalls = 0;
  /** Successful RespondDecisionTaskCompleted calls, by task token (to learn that a close committed). */
  readonly onDecisionResponded = new Map<string, () => void>();

  reset(): void {
    this.byAction = {};
    this.directCalls = 0;
  }

  calls(): Record<string, { calls: number; billedMs: number }> {
    const out: Record<string, { calls: number; billedMs: number }> = {};
    for (const [action, t] of Object.entries(this.byAction)) {
      out[action] = { calls: t.calls - t.emptyPolls, billedMs: t.billedMs - t.emptyPollMs };
    }
    return out;
  }
}

/**
 * Counts every SWF call a client makes, its latency, and whether a poll returned a task; `direct`:
 * the client calls the API function by Lambda Invoke.
 */
export function swfObserver(counters: SwfCounters, direct = false): (call: SwfCall) => void {
  return ({ action, input, output, durationMs }) => {
    if (direct) counters.directCalls += 1;
    const empty = action.startsWith('PollFor') && output !== undefined && !output.taskToken;
    const t = counters.byAction[action] ?? {
      calls: 0,
      billedMs: 0,
      emptyPolls: 0,
      emptyPollMs: 0,
      latencies: [],
    };
    counters.byAction[action] = t;
    t.calls += 1;
    t.billedMs += Math.ceil(durationMs);
    t.latencies.push(durationMs);
    if (empty) {
      t.emptyPolls += 1;
      t.emptyPollMs += Math.ceil(durationMs);
    }
    if (action === 'RespondDecisionTaskCompleted' && output !== undefined && isRecord(input)) {
      const token = String(input.taskToken ?? '');
      counters.onDecisionResponded.get(token)?.();
      counters.onDecisionResponded.delete(token);
    }
  };
}

/**
 * Deadlines the outbox armed: those an SQS delay covers, and those that need a Scheduler schedule; the
 * schedules it disarmed before they fired (AwsDeadlineScheduler deletes them); and the requests all
 * that takes on AWS (SendMessage, CreateSchedule, DeleteSchedule), which the stream function waits for.
 */
export class DeadlineCounters {
  sqs = 0;
  scheduled = 0;
  disarmed = 0;
  requests = 0;
  /** When each deadline armed since the reset fires (epoch seconds), unless it was disarmed. */
  readonly pending = new Map<string, number>();
  reset(): void {
    this.sqs = 0;
    this.scheduled = 0;
    this.disarmed = 0;
    this.requests = 0;
    this.pending.clear();
  }
  /**
   * Deadlines armed in the run that fire after it: their fires' work (the timer function reads the
   * run and finds nothing due) is not in the run's counts.
   */
  unseen(nowSeconds = Date.now() / 1000): number {
    return [...this.pending.values()].filter((at) => at > nowSeconds).length;
  }
}

export function countDeadlines(service: LocalService, counters: DeadlineCounters): void {
  const scheduler = service.scheduler;
  const arm = scheduler.arm.bind(scheduler);
  // The same deadline may be armed more than once (on commit and again from the stream); on AWS the
  // second SendMessage would be a real request, but the design arms each once: count distinct ones.
  const seen = new Set<string>();
  const schedules = new Set<string>();
  const idOf = (fire: DeadlineFire) => `${fire.runId}|${fire.key}|${fire.at}`;
  Reflect.set(scheduler, 'arm', (fire: DeadlineFire) => {
    const id = idOf(fire);
    if (seen.has(id)) return arm(fire);
    seen.add(id);
    counters.requests += 1;
    counters.pending.set(id, fire.at);
    const wait = fire.at - Date.now() / 1000;
    if (wait <= MAX_SQS_DELAY_SECONDS) counters.sqs += 1;
    else {
      counters.scheduled += 1;
      schedules.add(id);
    }
    return arm(fire);
  });
  const disarm = scheduler.disarm.bind(scheduler);
  // What AwsDeadlineScheduler.disarm does: for a fire beyond the schedule's lead, read whether the run
  // set it again (the read is metered as the outbox's), and if not, one DeleteSchedule.
  Reflect.set(
    scheduler,
    'disarm',
    async (fire: DeadlineFire, armedAgain: () => Promise<boolean>) => {
      if (fire.at - Date.now() / 1000 <= SCHEDULE_LEAD_SECONDS) return disarm(fire, armedAgain);
      const again = await armedAgain();
      if (!again) {
        counters.requests += 1;
        const id = idOf(fire);
        if (schedules.delete(id)) counters.disarmed += 1;
        counters.pending.delete(id);
        // Armed again later (the alarm came back to it), it is a new schedule.
        seen.delete(id);
      }
      return disarm(fire, async () => again);
    },
  );
}

/** Whether a write request (in wire form) invokes the stream function: a change of a run's state item that the event filter passes. */
export function invokesStreamFunction(input: Record<string, unknown>): boolean {
  const isState = (request: unknown): boolean => {
    if (!isRecord(request)) return false;
    // A put: what the event filter lets through (a run's state item unless its writer marked it as
    // having no work for the outbox), as the local stream poller selects it.
    if (isRecord(request.Item)) return isOutboxImage(request.Item);
    const key = request.Key;
    return (
      isRecord(key) && isRecord(key.sk) && key.sk.S === 'STATE' && 'UpdateExpression' in request
    );
  };
  if (Array.isArray(input.TransactItems))
    return input.TransactItems.some((t) => isRecord(t) && (isState(t.Put) || isState(t.Update)));
  return isState(input);
}
