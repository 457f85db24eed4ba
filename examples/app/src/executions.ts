/** Starting an onboarding and reading how it ended: what the start script and the test share. */
import {
  DescribeWorkflowExecutionCommand,
  GetWorkflowExecutionHistoryCommand,
  StartWorkflowExecutionCommand,
  type WorkflowExecution,
} from '@aws-sdk/client-swf';
import { type SWFClient, sleep } from 'swf-on-dynamo/sdk';
import { DOMAIN, WORKFLOW } from './workflow.js';

/** Starts one onboarding of `email`; its workflowId is the email, so one runs per customer. */
export async function startOnboarding(
  client: SWFClient,
  email: string,
): Promise<WorkflowExecution> {
  const workflowId = `onboarding-${email}`;
  const { runId } = await client.send(
    new StartWorkflowExecutionCommand({
      domain: DOMAIN,
      workflowId,
      workflowType: WORKFLOW,
      input: email,
    }),
  );
  return { workflowId, runId };
}

export interface Outcome {
  /** COMPLETED, FAILED, TIMED_OUT, ... */
  readonly closeStatus: string;
  /** The result of a completed run, or the reason a failed one gives. */
  readonly result: string | undefined;
}

/** Waits for the execution to close (up to `timeoutMs`) and says how it ended. */
export async function waitForClose(
  client: SWFClient,
  execution: WorkflowExecution,
  timeoutMs = 60_000,
): Promise<Outcome> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { executionInfo } = await client.send(
      new DescribeWorkflowExecutionCommand({ domain: DOMAIN, execution }),
    );
    if (executionInfo?.executionStatus === 'CLOSED') {
      const { events } = await client.send(
        new GetWorkflowExecutionHistoryCommand({ domain: DOMAIN, execution, reverseOrder: true }),
      );
      const last = events?.[0];
      return {
        closeStatus: executionInfo.closeStatus ?? 'UNKNOWN',
        result:
          last?.workflowExecutionCompletedEventAttributes?.result ??
          last?.workflowExecutionFailedEventAttributes?.reason,
      };
    }
    if (Date.now() > deadline) throw new Error(`${execution.workflowId} is still open`);
    await sleep(500);
  }
}
