/**
 * Histories kept in files: a run recorded once (a golden history), replayed by the tests ever after,
 * so a change to a decider or a workflow's code that would decide a recorded run differently is
 * caught before it meets the runs in flight.
 */
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HistoryEvent, WorkflowExecution, WorkflowType } from '@aws-sdk/client-swf';
import type { ClosedExecution } from './executions.js';
import { History } from './history-builder.js';

/** What a history file holds: the run's ids and type, and its events as SWF answered them. */
export interface RecordedRun {
  readonly workflowExecution: WorkflowExecution;
  readonly workflowType: WorkflowType | undefined;
  readonly events: readonly HistoryEvent[];
}

/** The environment variable that makes `goldenHistory` record its runs again. */
export const UPDATE_GOLDEN = 'SWF_UPDATE_GOLDEN';

type Recordable = ClosedExecution | History | readonly HistoryEvent[];

const pathOf = (file: string | URL) => (typeof file === 'string' ? file : fileURLToPath(file));

function recordedRun(run: Recordable): RecordedRun {
  const events = run instanceof History || 'closeStatus' in run ? run.events : run;
  const execution =
    run instanceof History
      ? run.workflowExecution
      : 'closeStatus' in run
        ? run.execution
        : undefined;
  return {
    workflowExecution: execution ?? { workflowId: 'workflow-1', runId: 'run-1' },
    workflowType: events[0]?.workflowExecutionStartedEventAttributes?.workflowType,
    events,
  };
}

/** Writes a run's history to `file` as JSON (its directories made as needed). */
export async function saveHistory(file: string | URL, run: Recordable): Promise<void> {
  const path = pathOf(file);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(recordedRun(run), null, 2)}\n`);
}

/** Reads a history `saveHistory` wrote (or any file of that shape). */
export async function loadHistory(file: string | URL): Promise<History> {
  const path = pathOf(file);
  const run = JSON.parse(await readFile(path, 'utf8')) as Partial<RecordedRun>;
  if (!Array.isArray(run.events))
    throw new Error(`${path} holds no history: it has no "events" list`);
  const events = run.events.map((e) => ({
    ...e,
    ...(e.eventTimestamp === undefined ? {} : { eventTimestamp: new Date(e.eventTimestamp) }),
  }));
  const execution = run.workflowExecution;
  return History.recorded(
    events,
    execution?.workflowId === undefined || execution.runId === undefined
      ? undefined
      : { workflowId: execution.workflowId, runId: execution.runId },
  );
}

/**
 * The golden history in `file`: read from it when it exists, else recorded by `record` (a run in a
 * TestEnvironment, say) and written there. With SWF_UPDATE_GOLDEN=1 the run is recorded again.
 */
export async function goldenHistory(
  file: string | URL,
  record: () => Promise<Recordable>,
): Promise<History> {
  const exists = await access(pathOf(file)).then(
    () => true,
    () => false,
  );
  if (!exists || process.env[UPDATE_GOLDEN] === '1') await saveHistory(file, await record());
  return loadHistory(file);
}
