import { createHash } from 'node:crypto';
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Clock } from '../../ports/clock.js';
import type { DeadlineFire, DeadlineScheduler } from '../../ports/deadline-scheduler.js';

/** SQS's longest message delay: 15 minutes. */
export const MAX_SQS_DELAY_SECONDS = 900;
/** EventBridge Scheduler fires anywhere in its minute: schedule a minute early, finish on SQS. */
export const SCHEDULE_LEAD_SECONDS = 60;
/**
 * How Scheduler retries a fire it could not put on the timer queue (the queue throttled, or briefly
 * unreachable): its most, 185 tries over a day, backing off as it does. A fire still undelivered then
 * goes to the schedules' dead-letter queue, to be seen (an alarm) and redriven, never dropped.
 */
export const SCHEDULE_RETRY_POLICY = {
  MaximumEventAgeInSeconds: 86_400,
  MaximumRetryAttempts: 185,
} as const;

export interface AwsSchedulerConfig {
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly scheduleGroup: string;
  /** The role EventBridge Scheduler assumes to send to the queue (and to the dead-letter queue). */
  readonly schedulerRoleArn: string;
  /**
   * The SQS queue (its ARN) where Scheduler puts a fire it gave up delivering after its retries.
   * Without one, such a fire is dropped (only Scheduler's InvocationDroppedCount tells).
   */
  readonly scheduleDeadLetterArn?: string | undefined;
}

/**
 * Deadlines on AWS, to the second (docs/architecture.md, "Timers to the second"): within 15 minutes, an SQS message
 * delayed until the deadline; later, a one-time EventBridge schedule a minute early that puts the fire
 * on the same queue, where functions/timer.ts sees it is early and re-queues the remainder with a delay.
 */
export class AwsDeadlineScheduler implements DeadlineScheduler {
  constructor(
    private readonly sqs: SQSClient,
    private readonly scheduler: SchedulerClient,
    private readonly config: AwsSchedulerConfig,
    private readonly clock: Clock,
  ) {}

  async arm(fire: DeadlineFire): Promise<void> {
    const wait = fire.at - this.clock.now() / 1000;
    if (wait <= MAX_SQS_DELAY_SECONDS) {
      await this.sqs.send(
        new SendMessageCommand({
          QueueUrl: this.config.queueUrl,
          MessageBody: JSON.stringify(fire),
          // Rounded up: a fire may come late by under a second, never early by a second.
          DelaySeconds: Math.min(MAX_SQS_DELAY_SECONDS, Math.max(0, Math.ceil(wait))),
        }),
      );
      return;
    }
    try {
      await this.scheduler.send(
        new CreateScheduleCommand({
          Name: scheduleName(fire),
          GroupName: this.config.scheduleGroup,
          ScheduleExpression: `at(${atExpression(fire.at - SCHEDULE_LEAD_SECONDS)})`,
          ScheduleExpressionTimezone: 'UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          ActionAfterCompletion: 'DELETE',
          Target: {
            Arn: this.config.queueArn,
            RoleArn: this.config.schedulerRoleArn,
            Input: JSON.stringify(fire),
            RetryPolicy: { ...SCHEDULE_RETRY_POLICY },
            ...(this.config.scheduleDeadLetterArn === undefined
              ? {}
              : { DeadLetterConfig: { Arn: this.config.scheduleDeadLetterArn } }),
          },
        }),
      );
    } catch (error) {
      // The same deadline armed twice (a replayed stream record) finds its schedule already there.
      if (!(error instanceof ConflictException)) throw error;
    }
  }

  /**
   * Deletes the schedule of a fire still more than its lead away: Scheduler charges for the
   * invocations of schedules, not for creating or deleting them, and a deadline the run outlived would
   * otherwise be invoked, go through SQS twice and run the timer function twice for nothing. A fire
   * that went on SQS (armed within 15 minutes of it) cannot be taken back and has no schedule: the
   * delete finds none. Closer than the lead, the schedule has fired already (nor is the run read).
   */
  async disarm(fire: DeadlineFire, armedAgain: () => Promise<boolean>): Promise<void> {
    if (fire.at - this.clock.now() / 1000 <= SCHEDULE_LEAD_SECONDS) return;
    if (await armedAgain()) return;
    try {
      await this.scheduler.send(
        new DeleteScheduleCommand({
          Name: scheduleName(fire),
          GroupName: this.config.scheduleGroup,
        }),
      );
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
    }
  }
}

/** Schedule names allow 1–64 of [0-9a-zA-Z-_.]: a digest of what identifies the fire. */
export const scheduleName = (fire: DeadlineFire) =>
  `swf-${createHash('sha256').update(`${fire.runId}|${fire.key}|${fire.at}`).digest('hex').slice(0, 56)}`;

/** `yyyy-mm-ddThh:mm:ss` in UTC, as Scheduler's at() expression wants it. */
export const atExpression = (epochSeconds: number) =>
  new Date(Math.floor(epochSeconds) * 1000).toISOString().slice(0, 19);
