/**
 * `npm run example -- wait-for-signal`: wait for a signal, but not forever (SWF developer guide).
 * The decider starts a timer; if the signal Approve arrives first it cancels the timer and completes
 * with the approval, if the timer fires first it completes as timed out. Runs both cases.
 */
import { randomUUID } from 'node:crypto';
import {
  type HistoryEvent,
  SignalWorkflowExecutionCommand,
  StartWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { type Decider, DeciderWorker, decide, sleep } from '../lib/sdk/index.js';
import {
  check,
  completedResult,
  DEFAULT_DOMAIN,
  type ExampleOptions,
  freshTaskList,
  register,
  waitForClose,
} from './support.js';

export const APPROVAL_WORKFLOW = { name: 'ApprovalWorkflow', version: '1' };

/** Waits `input` seconds for the signal Approve; whichever event came first decides. */
export const approvalDecider: Decider = (state) => {
  const timer = state.timers.get('deadline');
  const approval = state.signals.find((s) => s.signalName === 'Approve');
  if (timer === undefined) return [decide.startTimer('deadline', Number(state.input ?? '5'))];
  const signalFirst =
    approval !== undefined &&
    (timer.status !== 'fired' || approval.eventId < (timer.closedEventId ?? 0));
  if (signalFirst) {
    const cancel = timer.status === 'started' ? [decide.cancelTimer('deadline')] : [];
    return [...cancel, decide.completeWorkflowExecution(`approved: ${approval.input ?? ''}`)];
  }
  if (timer.status === 'fired')
    return [decide.completeWorkflowExecution('timed out waiting for approval')];
  return [];
};

export async function main(options: ExampleOptions): Promise<void> {
  const { client } = options;
  const domain = options.domain ?? DEFAULT_DOMAIN;
  await register(client, domain, APPROVAL_WORKFLOW, []);
  const taskList = freshTaskList('approval-decisions');
  const decider = new DeciderWorker({
    client,
    domain,
    taskList,
    decider: approvalDecider,
    shutdownSignals: [],
    ...(options.logger ? { logger: options.logger } : {}),
  }).start();
  const start = async (waitSeconds: number) => {
    const workflowId = `approval-${randomUUID().slice(0, 6)}`;
    const { runId } = await client.send(
      new StartWorkflowExecutionCommand({
        domain,
        workflowId,
        workflowType: APPROVAL_WORKFLOW,
        taskList: { name: taskList },
        input: String(waitSeconds),
      }),
    );
    return { workflowId, runId: runId ?? '' };
  };
  try {
    await approveOneIgnoreOther(options, domain, start, 'by alice', completedResult);
  } finally {
    await decider.shutdown();
  }
}

/**
 * Starts two waits for approval (30 s and 2 s), approves the first with `approval` as the signal's
 * input, and checks that it was approved and the other timed out.
 */
export async function approveOneIgnoreOther(
  options: ExampleOptions,
  domain: string,
  start: (waitSeconds: number) => Promise<{ workflowId: string; runId: string }>,
  approval: string,
  resultOf: (events: HistoryEvent[]) => string | undefined,
): Promise<void> {
  const { client } = options;
  const print = options.print ?? console.log;
  const approved = await start(30);
  const ignored = await start(2);
  await sleep(1_000);
  await client.send(
    new SignalWorkflowExecutionCommand({
      domain,
      workflowId: approved.workflowId,
      signalName: 'Approve',
      input: approval,
    }),
  );
  for (const [execution, expected] of [
    [approved, 'approved: by alice'],
    [ignored, 'timed out waiting for approval'],
  ] as const) {
    const closed = await waitForClose(client, domain, execution);
    const result = resultOf(closed.events);
    const types = closed.events.map((e) => e.eventType);
    print(
      `${execution.workflowId}: ${closed.closeStatus}, result "${result}", timer ${types.includes('TimerFired') ? 'fired' : 'canceled'}`,
    );
    check(
      result === expected,
      `${execution.workflowId} result "${result}", expected "${expected}"`,
    );
  }
}
