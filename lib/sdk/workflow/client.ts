/** Registering the types of definitions, and starting a workflow, from a client. */
import {
  RegisterActivityTypeCommand,
  RegisterWorkflowTypeCommand,
  StartWorkflowExecutionCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { encodePayload } from './codec.js';
import type { ActivityDefinition, WorkflowReference } from './definitions.js';
import { type ChildOptions, optional, priorityOf, runSettings, taskListOf } from './requests.js';

const alreadyRegistered = (error: unknown) =>
  error instanceof Error && error.name === 'TypeAlreadyExistsFault';

/**
 * Registers the workflow and activity types of these definitions, their options as the types'
 * defaults. A type registered already is left as it is.
 */
export async function registerTypes(
  client: SWFClient,
  domain: string,
  types: {
    readonly workflows?: readonly WorkflowReference[];
    readonly activities?: readonly ActivityDefinition[];
  },
): Promise<void> {
  const commands = [
    ...(types.workflows ?? []).map((w) => registerWorkflowCommand(domain, w)),
    ...(types.activities ?? []).map((a) => registerActivityCommand(domain, a)),
  ];
  for (const command of commands)
    await client.send(command).catch((error: unknown) => {
      if (!alreadyRegistered(error)) throw error;
    });
}

function registerWorkflowCommand(domain: string, w: WorkflowReference) {
  const o = w.options;
  return new RegisterWorkflowTypeCommand({
    domain,
    name: w.name,
    version: w.version,
    description: o.description,
    defaultTaskList: taskListOf(o.taskList),
    defaultTaskPriority: priorityOf(o.taskPriority),
    defaultExecutionStartToCloseTimeout: optional(
      o.executionStartToCloseTimeout,
      'executionStartToCloseTimeout',
    ),
    defaultTaskStartToCloseTimeout: optional(o.taskStartToCloseTimeout, 'taskStartToCloseTimeout'),
    defaultChildPolicy: o.childPolicy,
    defaultLambdaRole: o.lambdaRole,
  });
}

function registerActivityCommand(domain: string, a: ActivityDefinition) {
  const o = a.options;
  return new RegisterActivityTypeCommand({
    domain,
    name: a.name,
    version: a.version,
    description: o.description,
    defaultTaskList: taskListOf(o.taskList),
    defaultTaskPriority: priorityOf(o.taskPriority),
    defaultTaskScheduleToStartTimeout: optional(o.scheduleToStartTimeout, 'scheduleToStartTimeout'),
    defaultTaskStartToCloseTimeout: optional(o.startToCloseTimeout, 'startToCloseTimeout'),
    defaultTaskScheduleToCloseTimeout: optional(o.scheduleToCloseTimeout, 'scheduleToCloseTimeout'),
    defaultTaskHeartbeatTimeout: optional(o.heartbeatTimeout, 'heartbeatTimeout'),
  });
}

/** Starts an execution of `workflow` with `input` encoded by its codec; its options as defaults. */
export async function startWorkflow<I>(
  client: SWFClient,
  start: {
    readonly domain: string;
    readonly workflow: WorkflowReference<I, unknown>;
    readonly workflowId: string;
    readonly input?: I;
  } & Omit<ChildOptions, 'workflowId' | 'control'>,
): Promise<{ workflowId: string; runId: string }> {
  const { domain, workflow, workflowId } = start;
  const o = { ...workflow.options, ...start };
  const answer = await client.send(
    new StartWorkflowExecutionCommand({
      domain,
      workflowId,
      workflowType: { name: workflow.name, version: workflow.version },
      input: encodePayload(workflow.codec, start.input, `the input of workflow ${workflow.name}`),
      ...runSettings(o),
    }),
  );
  return { workflowId, runId: answer.runId ?? '' };
}
