/**
 * The domain, workflow types and steps of the child-workflow contract files.
 */
import {
  type Decision,
  DeprecateWorkflowTypeCommand,
  type HistoryEvent,
  RegisterWorkflowTypeCommand,
  type StartChildWorkflowExecutionDecisionAttributes,
  type WorkflowExecution,
} from '@aws-sdk/client-swf';
import { type SwfDriver, single, uid } from './decider.js';
import { serveDomain } from './local.js';

export const domain = 'children';
export const parentType = { name: 'parent', version: '1' };
export const childType = { name: 'child', version: '1' };
export const abandonType = { name: 'abandoning-child', version: '1' };
export const bareType = { name: 'bare', version: '1' };
export const oldType = { name: 'old', version: '1' };

/** Serves the domain with a parent, a child, an abandoning child, a bare and a deprecated type. */
export async function serveChildren() {
  const served = await serveDomain(domain, { polling: { maxWaitMs: 5_000 } });
  const { swf } = served;
  const defaults = {
    defaultTaskList: { name: 'unused' },
    defaultExecutionStartToCloseTimeout: '3600',
    defaultTaskStartToCloseTimeout: '60',
  };
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...parentType,
      ...defaults,
      defaultChildPolicy: 'TERMINATE',
    }),
  );
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...childType,
      ...defaults,
      defaultChildPolicy: 'TERMINATE',
      defaultTaskPriority: '3',
    }),
  );
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...abandonType,
      ...defaults,
      defaultChildPolicy: 'ABANDON',
    }),
  );
  await swf.send(new RegisterWorkflowTypeCommand({ domain, ...bareType }));
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...oldType,
      ...defaults,
      defaultChildPolicy: 'TERMINATE',
    }),
  );
  await swf.send(new DeprecateWorkflowTypeCommand({ domain, workflowType: oldType }));
  return served;
}

export type Execution = WorkflowExecution & { workflowId: string; runId: string };

export const startChild = (
  attributes: StartChildWorkflowExecutionDecisionAttributes,
): Decision => ({
  decisionType: 'StartChildWorkflowExecution',
  startChildWorkflowExecutionDecisionAttributes: attributes,
});

export interface Family {
  parent: Execution;
  parentTaskList: string;
  child: Execution;
  childTaskList: string;
  /** The parent's StartChildWorkflowExecutionInitiated and ChildWorkflowExecutionStarted event ids. */
  initiatedEventId: number;
  startedEventId: number;
  /** The parent's history when it went idle after learning the child started. */
  parentEvents: HistoryEvent[];
}

/**
 * A parent that starts one child and then waits (no decision task open), and the child with its first
 * decision task still to poll.
 */
export async function family(
  driver: SwfDriver,
  child: Partial<StartChildWorkflowExecutionDecisionAttributes> = {},
  parentOptions: Parameters<SwfDriver['start']>[1] = {},
): Promise<Family> {
  const parent = await driver.start(parentType, parentOptions);
  const childTaskList = child.taskList?.name ?? uid('child-deciders');
  const workflowId = child.workflowId ?? uid('child');
  await driver.decide(parent.taskList, () => [
    startChild({
      workflowType: childType,
      ...child,
      workflowId,
      taskList: { name: childTaskList },
    }),
  ]);
  const task = await driver.pollDecision(parent.taskList);
  await driver.respond(task.taskToken, []);
  const started = single(task.events, 'ChildWorkflowExecutionStarted');
  const attributes = started.childWorkflowExecutionStartedEventAttributes;
  const runId = attributes?.workflowExecution?.runId ?? '';
  return {
    parent: parent.execution,
    parentTaskList: parent.taskList,
    child: { workflowId, runId },
    childTaskList,
    initiatedEventId: attributes?.initiatedEventId ?? -1,
    startedEventId: started.eventId ?? -1,
    parentEvents: task.events,
  };
}
