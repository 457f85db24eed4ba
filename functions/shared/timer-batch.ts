import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { OutboxDeps } from '../../lib/operations/outbox.js';
import { handleFire, parseFire } from '../../lib/operations/timer-messages.js';

/**
 * The timer function: deadline fires from the SQS queue, put there with a delay by the deadline
 * scheduler or by an EventBridge Scheduler one-time schedule. Each fire re-checks the run's state, so a
 * stale or duplicate fire changes nothing, and one that comes early goes back on the queue for the rest
 * of its wait. A fire that fails is reported in `batchItemFailures`: only it comes back (after the
 * queue's visibility timeout) and, failing again and again, ends in the queue's dead-letter queue.
 */
export function timerBatchHandler(depsFor: (context: Context) => OutboxDeps) {
  const handle = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const deps = depsFor(context);
    const outcomes = await Promise.allSettled(
      event.Records.map(async (record) => {
        const fire = parseFire(record.body);
        if (fire === undefined) {
          // Not a fire: no retry would make it one, so it is dropped (and logged) rather than retried.
          log('warn', 'not a deadline fire; dropped', {
            messageId: record.messageId,
            body: record.body.slice(0, 256),
          });
          return;
        }
        await handleFire(deps, fire);
      }),
    );
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const [index, outcome] of outcomes.entries()) {
      if (outcome.status === 'fulfilled') continue;
      const record = event.Records[index];
      if (record === undefined) continue;
      log('error', 'deadline fire failed; it will come again', {
        messageId: record.messageId,
        error:
          outcome.reason instanceof Error
            ? `${outcome.reason.name}: ${outcome.reason.message}`
            : String(outcome.reason),
      });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
    return { batchItemFailures };
  };
  return middy(handle, { timeoutEarlyInMillis: 0 });
}

function log(level: 'warn' | 'error', message: string, fields: Record<string, unknown>): void {
  const line = JSON.stringify({ level, message, ...fields });
  if (level === 'error') console.error(line);
  else console.warn(line);
}
