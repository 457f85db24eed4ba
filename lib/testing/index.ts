/**
 * The testing kit (`swf-on-dynamo/testing`): a test environment whose time skips, a mock activity
 * context, and histories written by hand or recorded, to test activities, deciders and whole
 * workflows. See docs/testing.md.
 */
export { type DynamoDbLocal, startDynamoDbLocal } from '../local/dynamodb-local.js';
export type { Duration } from './duration.js';
export {
  ACTIVITY_TYPE_DEFAULTS,
  DEFAULT_AWAIT_CLOSE_MS,
  TestEnvironment,
  type TestEnvironmentOptions,
  WORKFLOW_TYPE_DEFAULTS,
} from './environment.js';
export { type ClosedExecution, fullHistory } from './executions.js';
export {
  goldenHistory,
  loadHistory,
  type RecordedRun,
  saveHistory,
  UPDATE_GOLDEN,
} from './golden.js';
export {
  DEFAULT_HISTORY_START,
  decisionTaskAt,
  History,
  type HistoryStep,
  historyOf,
} from './history-builder.js';
export { events } from './history-events.js';
export {
  type ActivityOutcome,
  type LoggedLine,
  MockActivityContext,
  type MockActivityTask,
} from './mock-activity-context.js';
export { type ReplayOptions, replayHistory } from './replay.js';
