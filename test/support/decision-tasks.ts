/**
 * The domain and types of the decision-task contract files, and the steps they share.
 */
import {
  CountPendingDecisionTasksCommand,
  type Decision,
  DeprecateActivityTypeCommand,
  DeprecateWorkflowTypeCommand,
  RegisterActivityTypeCommand,
  RegisterWorkflowTypeCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import type { SwfDriver } from './decider.js';
import { serveDomain } from './local.js';

export const domain = 'decisions';
export const wf = { name: 'wf', version: '1' };
export const wf2 = { name: 'wf', version: '2' };
export const wf3 = { name: 'wf', version: '3' };
export const bareWf = { name: 'bare-wf', version: '1' };
export const act = { name: 'act', version: '1' };
export const bareAct = { name: 'bare-act', version: '1' };
export const oldAct = { name: 'old-act', version: '1' };
export const POLL_WAIT_MS = 1_000;

/** Serves the domain with the workflow and activity types the decision-task files use. */
export async function serveDecisionTasks() {
  const served = await serveDomain(domain, { polling: { maxWaitMs: POLL_WAIT_MS } });
  const { swf } = served;
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...wf,
      defaultTaskList: { name: 'wf-defaults' },
      defaultExecutionStartToCloseTimeout: '3600',
      defaultTaskStartToCloseTimeout: '30',
      defaultChildPolicy: 'TERMINATE',
    }),
  );
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...wf2,
      defaultTaskList: { name: 'wf2-defaults' },
      defaultExecutionStartToCloseTimeout: '7200',
      defaultTaskStartToCloseTimeout: '40',
      defaultChildPolicy: 'ABANDON',
      defaultTaskPriority: '4',
    }),
  );
  await swf.send(
    new RegisterActivityTypeCommand({
      domain,
      ...act,
      defaultTaskList: { name: 'act-defaults' },
      defaultTaskScheduleToStartTimeout: '300',
      defaultTaskScheduleToCloseTimeout: '900',
      defaultTaskStartToCloseTimeout: '600',
      defaultTaskHeartbeatTimeout: 'NONE',
      defaultTaskPriority: '2',
    }),
  );
  await swf.send(new RegisterWorkflowTypeCommand({ domain, ...bareWf }));
  await swf.send(
    new RegisterWorkflowTypeCommand({ domain, ...wf3, defaultTaskList: { name: 'x' } }),
  );
  await swf.send(new DeprecateWorkflowTypeCommand({ domain, workflowType: wf3 }));
  await swf.send(new RegisterActivityTypeCommand({ domain, ...bareAct }));
  await swf.send(
    new RegisterActivityTypeCommand({ domain, ...oldAct, defaultTaskList: { name: 'x' } }),
  );
  await swf.send(new DeprecateActivityTypeCommand({ domain, activityType: oldAct }));
  return served;
}

export const countDecisions = async (swf: SWFClient, taskList: string) =>
  (await swf.send(new CountPendingDecisionTasksCommand({ domain, taskList: { name: taskList } })))
    .count;

/** Starts an execution and answers its first decision task with `decisions`. */
export async function startAndDecide(
  driver: SwfDriver,
  decisions: Decision[],
  options: Parameters<SwfDriver['start']>[1] = {},
) {
  const started = await driver.start(wf, options);
  const task = await driver.pollDecision(started.taskList);
  await driver.respond(task.taskToken, decisions);
  return started;
}

/** Signals the execution and polls the decision task that follows. */
export async function nextTask(
  driver: SwfDriver,
  execution: { workflowId: string; runId: string },
  taskList: string,
) {
  await driver.signal(execution);
  return driver.pollDecision(taskList);
}
