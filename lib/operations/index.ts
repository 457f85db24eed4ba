import type { SwfAction } from '../http/swf-model.js';
import {
  countPendingActivityTasks,
  countPendingDecisionTasks,
  pollForActivityTask,
  recordActivityTaskHeartbeat,
  respondActivityTaskCanceled,
  respondActivityTaskCompleted,
  respondActivityTaskFailed,
} from './activity-task-ops.js';
import type { Operation } from './context.js';
import { pollForDecisionTask, respondDecisionTaskCompleted } from './decision-task-ops.js';
import {
  deprecateDomain,
  describeDomain,
  listDomains,
  registerDomain,
  undeprecateDomain,
} from './domains.js';
import {
  describeWorkflowExecution,
  getWorkflowExecutionHistory,
  requestCancelWorkflowExecution,
  signalWorkflowExecution,
  startWorkflowExecution,
  terminateWorkflowExecution,
} from './executions.js';
import { listTagsForResource, tagResource, untagResource } from './tags.js';
import { typeOperations } from './types.js';
import {
  countClosedWorkflowExecutions,
  countOpenWorkflowExecutions,
  listClosedWorkflowExecutions,
  listOpenWorkflowExecutions,
} from './visibility.js';

/** Every SWF action this service answers, by its X-Amz-Target name. */
export const operations: Partial<Record<SwfAction, Operation>> = {
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
