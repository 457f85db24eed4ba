import { assertNever } from '../core/assert-never.js';
import { type AdminCommand, type AdminRequest, parseAdminArgs, USAGE, UsageError } from './args.js';
import { type AdminConnection, connect, type DeployedOutbox } from './connect.js';
import { discardLetters, lettersOf, replayLetter } from './dead-letters.js';
import {
  describeDiscard,
  describeLetters,
  describeRearm,
  describeRedrive,
  describeReplay,
  type Report,
  showLetters,
} from './reports.js';
import { type RearmRun, rearm, showRun } from './runs.js';
import { redriveStream } from './stream-redrive.js';

export interface AdminIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface AdminWiring {
  readonly deployedOutbox: DeployedOutbox;
  readonly rearmRun: RearmRun;
  /** Overrides how the table is reached (tests). */
  readonly connect?: (request: AdminRequest) => AdminConnection;
}

/** `npm run admin -- <command>`: the exit code (0 done, 1 not done, 2 bad arguments). */
export async function runAdmin(
  argv: readonly string[],
  io: AdminIo,
  wiring: AdminWiring,
): Promise<number> {
  let request: AdminRequest | 'help';
  try {
    request = parseAdminArgs(argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (request === 'help') {
    io.out(USAGE);
    return 0;
  }
  const connection = wiring.connect?.(request) ?? connect(request.target, wiring.deployedOutbox);
  try {
    const report = await execute(request, connection, wiring.rearmRun);
    print(report, request.json, io);
    return report.exitCode;
  } catch (error) {
    io.err(`${request.command.kind} failed: ${error instanceof Error ? error.message : error}`);
    return 1;
  } finally {
    connection.close();
  }
}

/** Carries out one command over the connection, and says what came of it. */
export async function execute(
  request: Pick<AdminRequest, 'command' | 'dryRun'>,
  connection: AdminConnection,
  rearmRun: RearmRun,
): Promise<Report> {
  const { command, dryRun } = request;
  switch (command.kind) {
    case 'dead-letters list':
      return describeLetters(await connection.deadLetters.letters.listDeadLetters());
    case 'dead-letters show':
      return showLetters(command.id, await lettersOf(connection.deadLetters, command.id));
    case 'dead-letters replay': {
      const outcome = await replayLetter(connection.deadLetters, command.id, dryRun);
      return describeReplay(outcome, connection.handedToLocalService);
    }
    case 'dead-letters discard':
      return describeDiscard(await discardLetters(connection.deadLetters, command.id, dryRun));
    case 'stream redrive':
      return describeRedrive(await redriveStream(connection.redrive(command.queueUrl), dryRun));
    case 'run show':
      return showRunReport(connection, command);
    case 'run rearm': {
      const outcome = await rearm(await connection.outbox(), rearmRun, command.runId, dryRun);
      return describeRearm(outcome, connection.handedToLocalService);
    }
    default:
      return assertNever(command);
  }
}

async function showRunReport(
  connection: AdminConnection,
  command: Extract<AdminCommand, { kind: 'run show' }>,
): Promise<Report> {
  const shown = await showRun(connection.runs, command.run);
  if (shown.outcome === 'not-found')
    return { exitCode: 1, json: shown, text: [], problems: [shown.reason] };
  return { exitCode: 0, json: shown.run, text: [JSON.stringify(shown.run, null, 2)], problems: [] };
}

function print(report: Report, json: boolean, io: AdminIo): void {
  if (json) io.out(JSON.stringify(report.json, null, 2));
  else if (report.text.length > 0) io.out(report.text.join('\n'));
  if (!json && report.problems.length > 0) io.err(report.problems.join('\n'));
}
