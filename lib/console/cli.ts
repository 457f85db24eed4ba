import { parseArgs } from 'node:util';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import type { Credentials } from '../aws-json/sigv4.js';
import { type RunningProxy, startConsoleProxy } from './proxy.js';
import { CONSOLE_PATH } from './route.js';
import { SIGNING_NAMES, type Signing, SigningError, signingFor } from './signing.js';

// `npm run console -- --endpoint URL`: the console for a deployed stack or Amazon SWF, on 127.0.0.1.

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** How the reader started this: `npm run console`, or the package's command (lib/local/bin.ts). */
const COMMAND = /[\\/](swf-on-dynamo|bin\.js)$/.test(process.argv[1] ?? '')
  ? 'swf-on-dynamo console'
  : 'npm run console --';

export const USAGE = `Usage: ${COMMAND} --endpoint URL [--region R] [--port P] [--service NAME]
  --endpoint URL   the SWF endpoint: a stack's SwfEndpoint output, its function URL, or
                   https://swf.REGION.amazonaws.com (default, with --region: Amazon SWF)
  --region R       the signing region (default: from the endpoint's name, else $AWS_REGION)
  --port P         the console's port on 127.0.0.1 (default 8081)
  --service NAME   the signing name: ${SIGNING_NAMES.join(', ')} (default: from the endpoint's name;
                   execute-api for a custom domain)
Calls are signed with your AWS credentials (the default chain: environment, AWS_PROFILE, SSO,
instance roles); they never reach the browser. The local server (npm start) serves the console
itself at ${CONSOLE_PATH}.`;

const LOCAL_KEYS: Credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export class UsageError extends Error {}

/** The proxy's settings from the command line; a UsageError says what is wrong. */
export function parseConsoleArgs(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): { signing: Signing; port: number } | 'help' {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        endpoint: { type: 'string' },
        region: { type: 'string' },
        port: { type: 'string' },
        service: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) return 'help';
  const port = Number(values.port ?? 8081);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`Not a port number: ${String(values.port)}`);
  const text = (name: string) => {
    const value = values[name];
    return typeof value === 'string' ? { [name]: value } : {};
  };
  try {
    return {
      signing: signingFor({ ...text('endpoint'), ...text('region'), ...text('service') }, env),
      port,
    };
  } catch (error) {
    if (error instanceof SigningError) throw new UsageError(error.message);
    throw error;
  }
}

/** Starts the proxy for the command line's settings; exit code 2 on bad arguments. */
export async function main(args: readonly string[]): Promise<RunningProxy | undefined> {
  let parsed: ReturnType<typeof parseConsoleArgs>;
  try {
    parsed = parseConsoleArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
    return undefined;
  }
  if (parsed === 'help') {
    console.log(USAGE);
    return undefined;
  }
  const { signing, port } = parsed;
  const chain = defaultProvider();
  const proxy = await startConsoleProxy({
    signing,
    port,
    credentials: signing.local ? () => Promise.resolve(LOCAL_KEYS) : () => chain(),
  });
  console.log(`SWF console: ${proxy.url}${CONSOLE_PATH}`);
  console.log(
    `  for ${signing.endpoint.href}, signed as ${signing.service} in ${signing.region}${signing.local ? ' (local keys)' : ' with your AWS credentials'}`,
  );
  console.log('Press Ctrl-C to stop.');
  return proxy;
}
