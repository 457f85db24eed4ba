import { parseArgs } from 'node:util';
import { postingFunction } from '../adapters/in-process/local-lambda.js';
import { postingHandler } from '../adapters/in-process/local-task-push.js';
import { pushTaskLists } from '../composition/push-task-lists.js';
import { CONSOLE_PATH, consoleRoute } from '../console/route.js';
import type { PolicySet } from '../core/principals.js';
import { readAccessPolicies } from './access-policies-file.js';
import { hasJava, JAVA_HINT } from './dynamodb-local.js';
import { localLambdaFunctions } from './lambda-functions-config.js';
import {
  DEFAULT_TABLE,
  LOCAL_REGION,
  type LocalService,
  startLocalService,
} from './local-service.js';

// `npm start`: DynamoDB Local, the table and the SWF endpoint in one process tree, stopped by Ctrl-C.

// The SDK warns once per process that Node 20 support ends in 2027; the service runs on Node 22 in
// Lambda and the warning says nothing to a local user.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** How the reader started this: `npm start`, or the package's command (bin.ts), which imports it. */
const COMMAND = /[\\/](swf-on-dynamo|bin\.js)$/.test(process.argv[1] ?? '')
  ? 'swf-on-dynamo'
  : 'npm start --';

const USAGE = `Usage: ${COMMAND} [--port N] [--data DIR] [--table NAME] [--access-policies FILE] [--audit-log]
  --port N      port of the SWF endpoint on 127.0.0.1 (default: $PORT or 8080)
  --data DIR    keep DynamoDB Local's data in DIR across restarts (default: $SWF_DATA_DIR, else in memory)
  --table NAME  table name (default: ${DEFAULT_TABLE})
  --access-policies FILE
                SWF's IAM access control: FILE is a JSON object from each access key id (the one a
                client signs with, not verified) to its IAM policy document; callers not named are
                denied (default: none, every call allowed)
  --audit-log   print one JSON line per call: caller, action, domain, outcome, request id
Push task lists: $SWF_PUSH_TASK_LISTS, as deployed ([{"kind":"activity","domain":…,"taskList":…,"target":…}]),
  each target being the http:// URL its tasks' events are POSTed to
Lambda functions for ScheduleLambdaFunction: $SWF_LAMBDA_FUNCTIONS ({"name":"http://…"}), each task's
  input POSTed to its function's URL, the answer's body being its result${
    COMMAND === 'swf-on-dynamo'
      ? `
The web console for a deployed stack or Amazon SWF: swf-on-dynamo console --endpoint URL [--region R]
  [--port P] (swf-on-dynamo console --help)`
      : ''
  }`;

/** Bad arguments: the message, and exit code 2, before anything is started. */
class UsageError extends Error {}

function readArguments() {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse().values;
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : error}\n${USAGE}`);
  }
  const port = Number(values.port ?? process.env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`Not a port number: ${values.port ?? process.env.PORT}\n${USAGE}`);
  let access: PolicySet | undefined;
  try {
    access =
      values['access-policies'] === undefined
        ? undefined
        : readAccessPolicies(values['access-policies']);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  return { values, port, access };
}

const parse = () =>
  parseArgs({
    options: {
      port: { type: 'string' },
      data: { type: 'string' },
      table: { type: 'string' },
      'access-policies': { type: 'string' },
      'audit-log': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });

async function main(): Promise<void> {
  let args: ReturnType<typeof readArguments>;
  try {
    args = readArguments();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(error.message);
    process.exitCode = 2;
    return;
  }
  const { values, port, access } = args;
  if (values.help === true) {
    console.log(USAGE);
    return;
  }
  if (!hasJava()) {
    console.error(JAVA_HINT);
    process.exitCode = 1;
    return;
  }
  const pushed = pushTaskLists(process.env).map((list) => ({
    list,
    handler: postingHandler(list.target),
  }));
  const functions = localLambdaFunctions(process.env.SWF_LAMBDA_FUNCTIONS);
  const dataDir = values.data ?? process.env.SWF_DATA_DIR;
  // Listening from the start: a signal while DynamoDB Local starts must stop it too, not leave its JVM
  // running with the data directory open.
  let service: LocalService | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    if (service === undefined) {
      console.log(`\n${signal}: stopping once DynamoDB Local has started...`);
      return;
    }
    console.log(`\n${signal}: stopping the SWF endpoint and DynamoDB Local...`);
    await service.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  service = await startLocalService({
    port,
    dynamoOutlivesInterrupt: true,
    routes: consoleRoute(),
    tableName: values.table ?? DEFAULT_TABLE,
    ...(dataDir === undefined || dataDir === '' ? {} : { dataDir }),
    ...(access === undefined ? {} : { access }),
    ...(values['audit-log'] === true ? { auditLog: (line: string) => console.log(line) } : {}),
    progress: (line) => console.log(line),
    // Its data was in memory, or it will not start again: a process manager sees the exit.
    onStoreLost: (message) => {
      console.error(message);
      stopping = true;
      void (service?.close() ?? Promise.resolve()).finally(() => process.exit(1));
    },
  });
  if (stopping) {
    await service.close();
    process.exit(0);
  }
  for (const [name, url] of functions) {
    service.lambda.register(name, postingFunction(url));
    console.log(`Lambda function: ${name} -> POST ${url}`);
  }
  for (const { list, handler } of pushed) {
    service.push.register(list, handler);
    console.log(
      `Push task list: ${list.kind} ${list.domain}/${list.taskList} -> POST ${list.target}`,
    );
  }
  if (access !== undefined)
    console.log(
      `Access policies: ${access.size} principal(s) from ${values['access-policies']}; callers not named are denied`,
    );
  printBanner(service.endpoint, dataDir);
}

function printBanner(endpoint: string, dataDir: string | undefined): void {
  const storage =
    dataDir === undefined || dataDir === ''
      ? 'in memory (gone when stopped)'
      : `kept in ${dataDir}`;
  console.log(`SWF endpoint: ${endpoint}   (region ${LOCAL_REGION}, data ${storage})`);
  console.log(`Console: ${endpoint}${CONSOLE_PATH}`);
  console.log(
    `AWS SDK: new SWFClient({ endpoint: '${endpoint}', region: '${LOCAL_REGION}', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } })`,
  );
  console.log(
    `AWS CLI: aws swf list-domains --registration-status REGISTERED --endpoint-url ${endpoint} --region ${LOCAL_REGION}`,
  );
  console.log('Press Ctrl-C to stop.');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
