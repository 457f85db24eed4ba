import type { Context } from 'aws-lambda';
import { AwsLambdaInvoker } from '../lib/adapters/aws/lambda-invoker.js';
import { LOST_FIRE_LINE, reconcileDeadlines } from '../lib/operations/reconcile.js';
import { loadOutboxConfig } from './shared/config.js';
import { armingSettings, outboxDeps } from './shared/outbox-deps.js';

/**
 * The reconciler, run on a schedule: open runs whose one armed fire is overdue (lost on its way) get
 * it armed again, found through the open-execution rows with Queries only (lib/operations/reconcile.ts).
 * Each fire armed again is logged as a warning: a lost fire is a fault to look into, and the stack
 * alarms on the line.
 */
const config = loadOutboxConfig(process.env);

// Module scope: one set of clients per container, reused by every warm invocation.
const depsFor = outboxDeps({
  ...armingSettings(config),
  // It commits nothing and so never starts a Lambda task: the invoker only completes the deps.
  lambda: new AwsLambdaInvoker(),
});

export async function handler(_event: unknown, context: Context) {
  const report = await reconcileDeadlines(depsFor(context));
  for (const fire of report.rearmed)
    console.warn(JSON.stringify({ level: 'WARN', message: LOST_FIRE_LINE, ...fire }));
  const summary = { examined: report.examined, rearmed: report.rearmed.length };
  console.log(JSON.stringify({ level: 'INFO', message: 'reconciled', ...summary }));
  return summary;
}
