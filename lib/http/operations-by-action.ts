import {
  countPendingActivityTasks,
  countPendingDecisionTasks,
  pollForActivityTask,
  recordActivityTaskHeartbeat,
  respondActivityTaskCanceled,
  respondActivityTaskCompleted,
  respondActivityTaskFailed,
} from '../operations/activity-task-ops.js';
import type { Operation } from '../operations/context.js';
import {
  pollForDecisionTask,
  respondDecisionTaskCompleted,
} from '../operations/decision-task-ops.js';
import {
  deprecateDomain,
  describeDomain,
  listDomains,
  registerDomain,
  undeprecateDomain,
} from '../operations/domains.js';
import {
  describeWorkflowExecution,
  getWorkflowExecutionHistory,
  requestCancelWorkflowExecution,
  signalWorkflowExecution,
  startWorkflowExecution,
  terminateWorkflowExecution,
} from '../operations/executions.js';
import { typeOperations } from '../operations/registered-types.js';
import { listTagsForResource, tagResource, untagResource } from '../operations/tags.js';
import {
  countClosedWorkflowExecutions,
  countOpenWorkflowExecutions,
  listClosedWorkflowExecutions,
  listOpenWorkflowExecutions,
} from '../operations/visibility.js';
import type { SwfAction } from './swf-model.js';

/** Every SWF action this service answers, by its X-Amz-Target name. */
export const operationsByAction: Partial<Record<SwfAction, Operation>> = {
  RegisterDomain: registerDomain,
  DescribeDomain: describeDomain,
  ListDomains: listDomains,
  DeprecateDomain: deprecateDomain,
  UndeprecateDomain: undeprecateDomain,
  ...typeOperations,
  TagResource: tagResource,
  UntagResource: untagResource,
  ListTagsForResource: listTagsForResource,
  StartWorkflowExecution: startWorkflowExecution,
  SignalWorkflowExecution: signalWorkflowExecution,
  RequestCancelWorkflowExecution: requestCancelWorkflowExecution,
  TerminateWorkflowExecution: terminateWorkflowExecution,
  DescribeWorkflowExecution: describeWorkflowExecution,
  GetWorkflowExecutionHistory: getWorkflowExecutionHistory,
  PollForDecisionTask: pollForDecisionTask,
  RespondDecisionTaskCompleted: respondDecisionTaskCompleted,
  PollForActivityTask: pollForActivityTask,
  RecordActivityTaskHeartbeat: recordActivityTaskHeartbeat,
  RespondActivityTaskCompleted: respondActivityTaskCompleted,
  RespondActivityTaskFailed: respondActivityTaskFailed,
  RespondActivityTaskCanceled: respondActivityTaskCanceled,
  CountPendingActivityTasks: countPendingActivityTasks,
  CountPendingDecisionTasks: countPendingDecisionTasks,
  ListOpenWorkflowExecutions: listOpenWorkflowExecutions,
  ListClosedWorkflowExecutions: listClosedWorkflowExecutions,
  CountOpenWorkflowExecutions: countOpenWorkflowExecutions,
  CountClosedWorkflowExecutions: countClosedWorkflowExecutions,
};
