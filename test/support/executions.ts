/**
 * The domain and types of the workflow-execution contract files.
 */
import {
  DeprecateWorkflowTypeCommand,
  RegisterActivityTypeCommand,
  RegisterWorkflowTypeCommand,
} from '@aws-sdk/client-swf';
import { serveDomain } from './local.js';

export const domain = 'executions';
export const full = { name: 'full', version: '1' };
export const bare = { name: 'bare', version: '1' };
export const old = { name: 'old', version: '1' };
export const act = { name: 'act', version: '1' };
export const lambdaRole = 'arn:aws:iam::000000000000:role/swf-lambda';

/** Serves the domain with a type with every default, one with none, a deprecated one and an activity. */
export async function serveExecutions() {
  const served = await serveDomain(domain, { polling: { maxWaitMs: 1_000 } });
  const { swf } = served;
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...full,
      defaultTaskList: { name: 'full-defaults' },
      defaultExecutionStartToCloseTimeout: '3600',
      defaultTaskStartToCloseTimeout: '45',
      defaultChildPolicy: 'ABANDON',
      defaultTaskPriority: '7',
      defaultLambdaRole: lambdaRole,
    }),
  );
  await swf.send(new RegisterWorkflowTypeCommand({ domain, ...bare }));
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...old,
      defaultTaskList: { name: 'old' },
      defaultExecutionStartToCloseTimeout: '60',
      defaultTaskStartToCloseTimeout: '10',
      defaultChildPolicy: 'TERMINATE',
    }),
  );
  await swf.send(new DeprecateWorkflowTypeCommand({ domain, workflowType: old }));
  await swf.send(
    new RegisterActivityTypeCommand({
      domain,
      ...act,
      defaultTaskList: { name: 'act-defaults' },
      defaultTaskScheduleToStartTimeout: 'NONE',
      defaultTaskScheduleToCloseTimeout: 'NONE',
      defaultTaskStartToCloseTimeout: '600',
      defaultTaskHeartbeatTimeout: 'NONE',
    }),
  );
  return served;
}

/** What a start of the type without defaults must give. */
export const bareConfig = {
  taskList: { name: 'bare-list' },
  executionStartToCloseTimeout: '120',
  taskStartToCloseTimeout: '20',
  childPolicy: 'TERMINATE' as const,
};
