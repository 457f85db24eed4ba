import {
  type ActivityTask,
  RecordActivityTaskHeartbeatCommand,
  RespondActivityTaskCanceledCommand,
  RespondActivityTaskCompletedCommand,
  RespondActivityTaskFailedCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import type { Logger } from '../logger.js';
import type { Activity } from './context.js';
import { type RunningTask, runActivityTask, type TaskCalls } from './run-task.js';

export const DEFAULT_HEARTBEAT_INTERVAL_MS = 1_000;
export const DEFAULT_CANCEL_GRACE_MS = 10_000;

/** What running an activity task needs, whoever got the task: a poller or a pushed function. */
export interface ActivityRunOptions {
  readonly client: SWFClient;
  readonly activities: Readonly<Record<string, Activity>>;
  readonly heartbeatIntervalMs?: number | undefined;
  readonly cancelGraceMs?: number | undefined;
  readonly logger: Logger;
}

/**
 * Starts one activity task: its activity, heartbeats and report through `client`, bound to its token.
 * `heartbeatTimeout` is the task's (seconds, or NONE), when it can be known.
 */
export function startActivityTask(
  o: ActivityRunOptions,
  task: ActivityTask & { taskToken: string },
  shuttingDown: AbortSignal,
  heartbeatTimeout?: Promise<string | undefined>,
): RunningTask {
  return runActivityTask({
    task,
    activity: activityNamed(o.activities, task.activityType?.name ?? ''),
    heartbeatIntervalMs: o.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS,
    heartbeatTimeout,
    cancelGraceMs: o.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS,
    shuttingDown,
    logger: o.logger,
    swf: taskCalls(o.client, task.taskToken),
  });
}

/** The activity registered under `name`; none for a name it only inherits (`constructor`). */
const activityNamed = (activities: Readonly<Record<string, Activity>>, name: string) =>
  Object.hasOwn(activities, name) ? activities[name] : undefined;

/** RecordActivityTaskHeartbeat and the RespondActivityTask* calls of one task. */
export function taskCalls(client: SWFClient, taskToken: string): TaskCalls {
  return {
    heartbeat: async (details, signal) => {
      const status = await client.send(
        new RecordActivityTaskHeartbeatCommand({
          taskToken,
          ...(details === undefined ? {} : { details }),
        }),
        signal === undefined ? {} : { abortSignal: signal },
      );
      return status.cancelRequested === true;
    },
    completed: (result) =>
      client.send(
        new RespondActivityTaskCompletedCommand({
          taskToken,
          ...(result === undefined ? {} : { result }),
        }),
      ),
    failed: (reason, details) =>
      client.send(new RespondActivityTaskFailedCommand({ taskToken, reason, details })),
    canceled: (details) =>
      client.send(
        new RespondActivityTaskCanceledCommand({
          taskToken,
          ...(details === undefined ? {} : { details }),
        }),
      ),
  };
}
