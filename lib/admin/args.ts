import { parseArgs } from 'node:util';

/** What an admin command acts on. */
export type AdminCommand =
  | { readonly kind: 'dead-letters list' }
  | {
      readonly kind: 'dead-letters show' | 'dead-letters replay' | 'dead-letters discard';
      readonly id: string;
    }
  | { readonly kind: 'stream redrive'; readonly queueUrl: string }
  | { readonly kind: 'run rearm'; readonly runId: string }
  | { readonly kind: 'run show'; readonly run: RunRef };

export type RunRef =
  | { readonly runId: string }
  | { readonly domain: string; readonly workflowId: string };

/** The table the commands work on: npm start's (through `endpoint`) or a deployed stack's. */
export interface AdminTarget {
  readonly tableName: string;
  readonly region: string;
  /** DynamoDB Local's endpoint; unset: AWS, with the user's default credentials chain. */
  readonly endpoint?: string;
  /** The deployed stack's stream function, whose settings the outbox's effects are carried out with. */
  readonly streamFunction?: string;
}

export interface AdminRequest {
  readonly command: AdminCommand;
  readonly target: AdminTarget;
  readonly dryRun: boolean;
  readonly json: boolean;
}

/** Bad arguments: the CLI prints the message and the usage on stderr and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The local service's table and region (lib/local/local-service.ts DEFAULT_TABLE, LOCAL_REGION). */
export const LOCAL_DEFAULTS = { tableName: 'swf-local', region: 'us-east-1' } as const;

export const USAGE = `Usage: npm run admin -- <command> [options]
Commands:
  dead-letters list              the stream records the outbox gave up on
  dead-letters show <id>         one dead letter: its record and error
  dead-letters replay <id>       carry out its record's effects again; removed once they succeed
  dead-letters discard <id>      remove it without carrying it out
  stream redrive --queue-url URL re-run the stream batches Lambda gave up on (their pointers in the
                                 stream function's on-failure queue), while the stream still holds them
  run show <runId>               a run's stored state, as JSON
  run show --domain D --workflow-id W
                                 the same, of the open run of a workflowId
  run rearm <runId>              arm the run's next deadline (timer or timeout) again
Where:
  --endpoint URL         npm start's DynamoDB Local (its "DynamoDB Local ready on URL" line);
                         table ${LOCAL_DEFAULTS.tableName} and region ${LOCAL_DEFAULTS.region} unless given
  --table NAME --region R
                         a deployed stack's table, with your default AWS credentials
  --stream-function NAME the deployed stream function: replay, redrive and rearm carry out effects
                         with its settings (timer queue, schedule group, ...); not needed locally
Options:
  --dry-run              say what would be done, change nothing
  --json                 print JSON (for scripts) instead of text
  -h, --help             this text
Exit codes: 0 done, 1 could not be done (not found, failed), 2 bad arguments.`;

const OPTIONS = {
  endpoint: { type: 'string' },
  table: { type: 'string' },
  region: { type: 'string' },
  'stream-function': { type: 'string' },
  'queue-url': { type: 'string' },
  domain: { type: 'string' },
  'workflow-id': { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parse>['values'];

const parse = (argv: readonly string[]) =>
  parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });

/** The request the arguments make, or 'help'; throws UsageError on anything else. */
export function parseAdminArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): AdminRequest | 'help' {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help === true) return 'help';
  const command = commandOf(positionals, values);
  for (const value of Object.values(values))
    if (value === '') throw new UsageError('an option was given an empty value');
  const target = targetOf(values, env);
  // npm start's poller has no on-failure queue: it reads a failed batch again until it works.
  if (command.kind === 'stream redrive' && target.endpoint !== undefined)
    throw new UsageError('stream redrive is for a deployed stack (--table NAME --region R)');
  if (
    EFFECT_COMMANDS.includes(command.kind) &&
    target.endpoint === undefined &&
    target.streamFunction === undefined
  )
    throw new UsageError(`${command.kind} on a deployed table needs --stream-function NAME`);
  return { command, target, dryRun: values['dry-run'] === true, json: values.json === true };
}

/** The commands that carry out the outbox's effects: on AWS, with the stream function's settings. */
const EFFECT_COMMANDS: readonly AdminCommand['kind'][] = [
  'dead-letters replay',
  'stream redrive',
  'run rearm',
];

function commandOf(positionals: readonly string[], values: Values): AdminCommand {
  const [group, verb, ...rest] = positionals;
  if (group === undefined) throw new UsageError('no command given');
  const name = `${group} ${verb ?? ''}`.trim();
  const only = (allowed: readonly (keyof Values)[]) => refuseOptions(name, values, allowed);
  switch (name) {
    case 'dead-letters list':
      only([]);
      return { kind: name, ...noneLeft(name, rest) };
    case 'dead-letters show':
    case 'dead-letters replay':
    case 'dead-letters discard':
      only([]);
      return { kind: name, id: oneArgument(name, 'a dead letter id', rest) };
    case 'stream redrive': {
      only(['queue-url']);
      const queueUrl = values['queue-url'];
      if (queueUrl === undefined) throw new UsageError('stream redrive needs --queue-url URL');
      return { kind: name, queueUrl, ...noneLeft(name, rest) };
    }
    case 'run rearm':
      only([]);
      return { kind: name, runId: oneArgument(name, 'a run id', rest) };
    case 'run show':
      only(['domain', 'workflow-id']);
      return { kind: name, run: runRefOf(values, rest) };
    default:
      throw new UsageError(`unknown command: ${name}`);
  }
}

/** Options that name what a command acts on, refused by the commands they mean nothing to. */
const COMMAND_OPTIONS = ['queue-url', 'domain', 'workflow-id'] as const;

function refuseOptions(name: string, values: Values, allowed: readonly (keyof Values)[]): void {
  for (const option of COMMAND_OPTIONS)
    if (values[option] !== undefined && !allowed.includes(option))
      throw new UsageError(`${name} takes no --${option}`);
}

function noneLeft(name: string, rest: readonly string[]): object {
  if (rest.length > 0) throw new UsageError(`${name}: unexpected argument ${rest[0]}`);
  return {};
}

function oneArgument(name: string, what: string, rest: readonly string[]): string {
  const [value, extra] = rest;
  if (value === undefined || value === '') throw new UsageError(`${name} needs ${what}`);
  if (extra !== undefined) throw new UsageError(`${name}: unexpected argument ${extra}`);
  return value;
}

function runRefOf(values: Values, rest: readonly string[]): RunRef {
  const { domain, 'workflow-id': workflowId } = values;
  if (domain === undefined && workflowId === undefined)
    return { runId: oneArgument('run show', 'a run id, or --domain D --workflow-id W', rest) };
  if (rest.length > 0)
    throw new UsageError('run show takes a run id or --domain D --workflow-id W, not both');
  if (domain === undefined || workflowId === undefined)
    throw new UsageError('run show needs both --domain D and --workflow-id W');
  return { domain, workflowId };
}

function targetOf(values: Values, env: Readonly<Record<string, string | undefined>>): AdminTarget {
  const streamFunction = values['stream-function'];
  const withFunction = streamFunction === undefined ? {} : { streamFunction };
  if (values.endpoint !== undefined) {
    if (!/^https?:\/\/[^/\s]+/.test(values.endpoint))
      throw new UsageError(`--endpoint is not an http(s) URL: ${values.endpoint}`);
    return {
      endpoint: values.endpoint,
      tableName: values.table ?? LOCAL_DEFAULTS.tableName,
      region: values.region ?? LOCAL_DEFAULTS.region,
      ...withFunction,
    };
  }
  if (values.table === undefined)
    throw new UsageError(
      'say which table: --endpoint URL (npm start) or --table NAME --region R (deployed)',
    );
  const region = values.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (region === undefined || region === '')
    throw new UsageError('--table needs --region R (or AWS_REGION)');
  return { tableName: values.table, region, ...withFunction };
}
