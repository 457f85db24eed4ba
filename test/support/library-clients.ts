/**
 * Raw HTTP clients that send the headers and JSON of third-party SWF libraries, and the domain their
 * contract files run in (test/contract/library-patterns-*.test.ts).
 */
import { expect } from 'vitest';
import { uid } from './decider.js';
import { serveDomain, servedForFile } from './local.js';

/** How long a poll waits for a task before it answers empty. */
const POLL_WAIT_MS = 1_000;
export const workflowType = { name: 'lib-wf', version: '1' };
export const activityType = { name: 'lib-act', version: '1' };

export type Json = Record<string, unknown>;
export type Event = { eventId: number; eventType: string; eventTimestamp: number } & Json;

/** The headers each client family puts on every call. */
const styles = {
  sdk: (action: string) => ({
    'x-amz-target': `SimpleWorkflowService.${action}`,
    'content-type': 'application/x-amz-json-1.0',
  }),
  // boto/swf/layer1.py make_request
  boto2: (action: string) => ({
    'x-amz-target': `com.amazonaws.swf.service.model.SimpleWorkflowService.${action}`,
    'content-type': 'application/json; charset=UTF-8',
    'content-encoding': 'amz-1.0',
  }),
  // a Go client of the same era (swfReqWithResponse): the legacy target, no Content-Encoding
  goLegacy: (action: string) => ({
    'x-amz-target': `com.amazonaws.swf.service.model.SimpleWorkflowService.${action}`,
    'content-type': 'application/json; charset=UTF-8',
  }),
} as const;

export interface Answer {
  status: number;
  text: string;
  body: Json | undefined;
}

/** A raw client that sends what one library family sends, to the endpoint `endpoint()` names. */
function rawClient(endpoint: () => string, style: keyof typeof styles) {
  const call = async (action: string, body: Json): Promise<Answer> => {
    const response = await fetch(endpoint(), {
      method: 'POST',
      headers: styles[style](action),
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text, body: text === '' ? undefined : JSON.parse(text) };
  };
  const ok = async (action: string, body: Json): Promise<Json> => {
    const answer = await call(action, body);
    expect(answer.status, `${action}: ${answer.text}`).toBe(200);
    return answer.body ?? {};
  };
  return { call, ok };
}

/** boto 2's boto.exception.get_error_name: the fault name after the '#'. */
export const boto2ErrorName = (answer: Answer) =>
  String(answer.body?.__type ?? '')
    .split('#')
    .pop();

export const events = (page: Json) => (page.events ?? []) as Event[];
export const ids = (list: Event[]) => list.map((e) => e.eventId);

/**
 * A test server with a domain of its own for the calling test file, its workflow and activity types
 * registered: clients of each library family for it, and runs started in it.
 */
export function libraryDomainForFile() {
  const domain = uid('libs');
  const server = servedForFile(async () => {
    const served = await serveDomain(domain, { polling: { maxWaitMs: POLL_WAIT_MS } });
    await registerTypes(
      rawClient(() => served.service.endpoint, 'sdk'),
      domain,
    );
    return served;
  });
  /** A raw client that sends what one library family sends. */
  const client = (style: keyof typeof styles) => rawClient(() => server.service.endpoint, style);
  /** Starts a run whose decision tasks go to a list of its own; returns its ids and that list. */
  const startRun = async (extra: Json = {}) => {
    const sdk = client('sdk');
    const workflowId = uid('wf');
    const taskList = uid('deciders');
    const { runId } = await sdk.ok('StartWorkflowExecution', {
      domain,
      workflowId,
      workflowType,
      taskList: { name: taskList },
      ...extra,
    });
    return { workflowId, runId: String(runId), taskList };
  };
  return { domain, client, startRun };
}

async function registerTypes(sdk: ReturnType<typeof rawClient>, domain: string): Promise<void> {
  await sdk.ok('RegisterWorkflowType', {
    domain,
    ...workflowType,
    defaultTaskList: { name: 'lib-deciders' },
    defaultExecutionStartToCloseTimeout: '3600',
    defaultTaskStartToCloseTimeout: '600',
    defaultChildPolicy: 'TERMINATE',
  });
  await sdk.ok('RegisterActivityType', {
    domain,
    ...activityType,
    defaultTaskList: { name: 'lib-workers' },
    defaultTaskScheduleToStartTimeout: 'NONE',
    defaultTaskScheduleToCloseTimeout: 'NONE',
    defaultTaskStartToCloseTimeout: '600',
    defaultTaskHeartbeatTimeout: 'NONE',
  });
}
