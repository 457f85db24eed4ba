/**
 * Runs the decider and the worker against $SWF_ENDPOINT (`npx swf-on-dynamo`) until one execution
 * closes, and prints how it closed: `closed COMPLETED Hello, world!`.
 */
import {
  DescribeWorkflowExecutionCommand,
  GetWorkflowExecutionHistoryCommand,
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  StartWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import {
  ActivityWorker,
  createSwfClient,
  DeciderWorker,
  silentLogger,
  sleep,
} from 'swf-on-dynamo/sdk';
import { GREET, greeting } from './decider.js';
import { activities } from './worker.js';

// @ts-expect-error The shipped types are real: a client has no `port` option.
createSwfClient({ port: 1 });

const client = createSwfClient({ endpoint: 'local' });
const domain = 'packaged';
await client.send(
  new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }),
);
await client.send(
  new RegisterWorkflowTypeCommand({
    domain,
    name: 'Greeting',
    version: '1',
    defaultTaskList: { name: 'decisions' },
    defaultChildPolicy: 'TERMINATE',
    defaultExecutionStartToCloseTimeout: '300',
    defaultTaskStartToCloseTimeout: '30',
  }),
);
await client.send(
  new RegisterActivityTypeCommand({
    domain,
    ...GREET,
    defaultTaskList: { name: 'activities' },
    defaultTaskHeartbeatTimeout: '30',
    defaultTaskScheduleToStartTimeout: '60',
    defaultTaskStartToCloseTimeout: '60',
    defaultTaskScheduleToCloseTimeout: '120',
  }),
);
const common = { client, domain, shutdownSignals: [], logger: silentLogger };
const decider = new DeciderWorker({ ...common, taskList: 'decisions', decider: greeting });
const worker = new ActivityWorker({ ...common, taskList: 'activities', activities });
decider.start();
worker.start();
const execution = { workflowId: 'greet-world', runId: '' };
({ runId: execution.runId = '' } = await client.send(
  new StartWorkflowExecutionCommand({
    domain,
    workflowId: execution.workflowId,
    workflowType: { name: 'Greeting', version: '1' },
    input: 'world',
  }),
));
for (let tries = 0; ; tries++) {
  const { executionInfo } = await client.send(
    new DescribeWorkflowExecutionCommand({ domain, execution }),
  );
  if (executionInfo?.executionStatus === 'CLOSED') {
    const { events } = await client.send(
      new GetWorkflowExecutionHistoryCommand({ domain, execution, reverseOrder: true }),
    );
    const result = events?.[0]?.workflowExecutionCompletedEventAttributes?.result;
    console.log(`closed ${executionInfo.closeStatus} ${result}`);
    break;
  }
  if (tries > 120) throw new Error('the execution did not close within a minute');
  await sleep(500);
}
await Promise.all([decider.shutdown(), worker.shutdown()]);
client.destroy();
