/**
 * `npm run example -- wait-for-signal-as-code`: wait for a signal, but not forever, as code. The
 * workflow waits for the signal Approve with a timeout: a timer runs beside the wait, and whichever
 * comes first decides (the timer is cancelled when the signal wins). Runs both cases.
 */
import { randomUUID } from 'node:crypto';
import { DeciderWorker, defineWorkflow, startWorkflow } from '../lib/sdk/index.js';
import {
  completedResult,
  DEFAULT_DOMAIN,
  type ExampleOptions,
  freshTaskList,
  register,
} from './support.js';
import { approveOneIgnoreOther } from './wait-for-signal.js';

/** Waits `waitSeconds` for the signal Approve. */
export const approvalAsCode = defineWorkflow(
  'ApprovalAsCode',
  '1',
  async (ctx, waitSeconds: number) => {
    const approval = await ctx.waitForSignal<string>('Approve', { timeout: waitSeconds });
    return approval === undefined ? 'timed out waiting for approval' : `approved: ${approval}`;
  },
);

export async function main(options: ExampleOptions): Promise<void> {
  const { client } = options;
  const domain = options.domain ?? DEFAULT_DOMAIN;
  await register(client, domain, approvalAsCode, []);
  const taskList = freshTaskList('approval-decisions');
  const decider = new DeciderWorker({
    client,
    domain,
    taskList,
    workflows: [approvalAsCode],
    shutdownSignals: [],
    ...(options.logger ? { logger: options.logger } : {}),
  }).start();
  const start = (waitSeconds: number) =>
    startWorkflow(client, {
      domain,
      workflow: approvalAsCode,
      workflowId: `approval-${randomUUID().slice(0, 6)}`,
      input: waitSeconds,
      taskList,
    });
  try {
    // The workflow's codec is JSON: the signal's input is JSON too.
    await approveOneIgnoreOther(options, domain, start, JSON.stringify('by alice'), (events) =>
      JSON.parse(completedResult(events) ?? 'null'),
    );
  } finally {
    await decider.shutdown();
  }
}
