/** Fakes and helpers of the SDK's heartbeat tests: SWF calls that fail, hang or answer. */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Heartbeater, type HeartbeatOptions } from '../../lib/sdk/activity/heartbeat.js';
import { runActivityTask, type TaskCalls } from '../../lib/sdk/activity/run-task.js';
import { type Activity, type ActivityContext, sleep } from '../../lib/sdk/index.js';
import { recordingLogger } from './support.js';

export const fault = (name: string, status: number, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(name), {
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status },
    ...extra,
  });
export const network = (code: string) => Object.assign(new Error(`connect ${code}`), { code });

export const RETRYABLE = [
  fault('ThrottlingException', 400),
  fault('InternalFailure', 500),
  fault('ServiceUnavailable', 503),
  network('ECONNRESET'),
  network('ECONNREFUSED'),
  Object.assign(new Error('socket timed out'), { name: 'TimeoutError' }),
  // undici's timeouts, bare and wrapped by fetch
  Object.assign(new Error('Headers Timeout Error'), {
    name: 'HeadersTimeoutError',
    code: 'UND_ERR_HEADERS_TIMEOUT',
  }),
  Object.assign(new Error('Body Timeout Error'), { code: 'UND_ERR_BODY_TIMEOUT' }),
  Object.assign(new TypeError('fetch failed'), { cause: network('UND_ERR_CONNECT_TIMEOUT') }),
];

export function calls(heartbeat: TaskCalls['heartbeat']) {
  const reports: string[] = [];
  const heartbeats: (string | undefined)[] = [];
  const swf: TaskCalls = {
    heartbeat: (details) => {
      heartbeats.push(details);
      return heartbeat(details);
    },
    completed: async (result) => reports.push(`completed ${result}`),
    failed: async (reason) => reports.push(`failed ${reason}`),
    canceled: async (details) => reports.push(`canceled ${details}`),
  };
  return { swf, reports, heartbeats };
}

export function run(
  activity: Activity,
  swf: TaskCalls,
  options: {
    cancelGraceMs?: number;
    heartbeatIntervalMs?: number;
    heartbeatTimeout?: Promise<string | undefined>;
  } = {},
) {
  const logger = recordingLogger();
  const task = runActivityTask({
    task: {
      taskToken: 't',
      activityId: 'a',
      activityType: { name: 'x', version: '1' },
      startedEventId: 2,
      workflowExecution: { workflowId: 'w', runId: 'r' },
    },
    activity,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 20,
    heartbeatTimeout: options.heartbeatTimeout,
    cancelGraceMs: options.cancelGraceMs ?? 2_000,
    shuttingDown: new AbortController().signal,
    logger,
    swf,
  });
  return { task, logger };
}

/** Runs until told to stop, noting its context; honours the signal. */
export function waiting() {
  const box: { ctx?: ActivityContext; stop: AbortController } = { stop: new AbortController() };
  const activity: Activity = async (_input, ctx) => {
    box.ctx = ctx;
    await Promise.race([sleep(30_000, ctx.signal), sleep(30_000, box.stop.signal)]);
    if (ctx.signal.aborted) throw ctx.signal.reason;
    return 'finished';
  };
  return { box, activity };
}

/** A call that never answers: it rejects only when its signal aborts (given up, or stopped). */
export const hangs = (signal: AbortSignal | undefined) =>
  new Promise<boolean>((_resolve, reject) =>
    signal?.addEventListener('abort', () => reject(signal.reason)),
  );

/** A Heartbeater sending through `send`, with nothing to do on what its beats answer. */
export const quietHeartbeater = (
  options: Pick<HeartbeatOptions, 'send' | 'intervalMs' | 'callTimeoutMs'>,
) =>
  new Heartbeater({
    ...options,
    details: () => undefined,
    onCancelRequested: () => {},
    onTaskGone: () => {},
    logger: recordingLogger(),
  });

/** V8's garbage collector, called at once (for tests of what a collection may take). */
export function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
