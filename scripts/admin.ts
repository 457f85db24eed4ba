/**
 * `npm run admin -- <command>`: the operator's commands (lib/admin). This entry wires them to a
 * deployed stack's outbox, built as its stream function builds it (functions/stream.ts), from that
 * function's own settings.
 */
import { GetFunctionConfigurationCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { functionSigningKeys, loadOutboxConfig } from '../functions/shared/config.js';
import { armingSettings, outboxDeps } from '../functions/shared/outbox-deps.js';
import { AwsLambdaInvoker } from '../lib/adapters/aws/lambda-invoker.js';
import { AwsLambdaTaskRunner } from '../lib/adapters/aws/lambda-tasks.js';
import { AwsTaskPush } from '../lib/adapters/aws/task-push.js';
import { runAdmin } from '../lib/admin/cli.js';
import type { DeployedOutbox } from '../lib/admin/connect.js';
import { rearmRun } from '../lib/operations/reconcile.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** The stream function's outbox: its table, timer queue, schedule group, push lists and keys. */
const deployedOutbox: DeployedOutbox = async (target) => {
  const lambda = new LambdaClient({ region: target.region });
  const answer = await lambda
    .send(new GetFunctionConfigurationCommand({ FunctionName: target.streamFunction }))
    .finally(() => lambda.destroy());
  const config = loadOutboxConfig({
    ...answer.Environment?.Variables,
    AWS_REGION: target.region,
  });
  if (config.tableName !== target.tableName)
    throw new Error(
      `${target.streamFunction} works on table ${config.tableName}, not ${target.tableName}`,
    );
  // No metrics: the CLI's output is for its reader (EMF lines would go to stdout).
  const { metrics: _metrics, ...arming } = armingSettings(config);
  return outboxDeps({
    ...arming,
    lambda: new AwsLambdaInvoker(),
    lambdaTasks: new AwsLambdaTaskRunner(config.lambdaTaskFunction),
    push: new AwsTaskPush(config.pushTaskLists, config.apiFunction),
    signingKeys: functionSigningKeys(config),
  })({ invokedFunctionArn: answer.FunctionArn ?? '' } as Parameters<
    ReturnType<typeof outboxDeps>
  >[0]);
};

process.exitCode = await runAdmin(
  process.argv.slice(2),
  {
    out: (text) => console.log(text),
    err: (text) => console.error(text),
    env: process.env,
  },
  { deployedOutbox, rearmRun },
);
