/**
 * The output-shape oracle's service (test/contract/output-shapes.test.ts): one domain whose answers are
 * recorded raw, Lambda functions for each way a Lambda task ends, a decider refused markers, and the
 * check of the recorded answers against the service model's output shapes, which remembers the event
 * types and known differences it met.
 */
import type { Decision, SWFClient } from '@aws-sdk/client-swf';
import { expect, vi } from 'vitest';
import { parseAccessPolicies } from '../../lib/core/principals.js';
import type { LocalService } from '../../lib/local/local-service.js';
import { decide, type SwfDriver } from './decider.js';
import { serveDomain } from './local.js';
import {
  answersProblems,
  isEmptyPoll,
  KNOWN_DIFFERENCES,
  type RawAnswer,
  recordAnswers,
  unexcused,
} from './output-shapes.js';

export const domain = 'output-shapes';
export const wf = { name: 'shapes-wf', version: '1' };
export const act = { name: 'shapes-act', version: '1' };
export const ghost = { name: 'shapes-ghost', version: '1' };
export const lambdaRole = 'arn:aws:iam::000000000000:role/shapes';

/**
 * The workload's client may do everything; a decider signing as `no-markers` may do everything but
 * record markers, so that RecordMarkerFailed (whose only cause is such a refusal) is seen too.
 */
const everything = { Effect: 'Allow', Action: '*', Resource: '*' };
const access = parseAccessPolicies(
  {
    test: { Statement: everything },
    'no-markers': {
      Statement: [everything, { Effect: 'Deny', Action: 'swf:RecordMarker', Resource: '*' }],
    },
  },
  'output-shapes',
);

/**
 * The names of the known differences (test/support/output-shapes.ts) that error answers show, or those
 * that the others show: output-shapes-listings-errors.test.ts meets the first, output-shapes.test.ts
 * the second, so that between them each is met.
 */
export const knownDifferences = (inErrors: boolean): string[] =>
  KNOWN_DIFFERENCES.map((d) => d.name).filter(
    (name) => name.endsWith('-in-deprecated-domain') === inErrors,
  );

/** Checks recorded answers against their output shapes, keeping what the checks met. */
export class ShapesCheck {
  readonly seenEventTypes = new Set<string>();
  readonly excusedDifferences = new Map<string, number>();
  emptyPolls = 0;

  constructor(readonly answers: RawAnswer[]) {}

  /** The answers since the last check conform to their output shapes (empty polls excused). */
  expectConforming(): void {
    const batch = this.answers.splice(0);
    for (const answer of batch) this.noteEvents(answer);
    const checked = batch.filter((answer) => {
      const excused = isEmptyPoll(answer);
      if (excused) this.emptyPolls++;
      return !excused;
    });
    expect(unexcused(answersProblems(checked), this.excusedDifferences)).toEqual([]);
    expect(checked.filter((answer) => answer.status === 200).length).toBeGreaterThan(0);
  }

  private noteEvents(answer: RawAnswer): void {
    if (answer.status !== 200 || !answer.text.includes('"events"')) return;
    const body: unknown = JSON.parse(answer.text);
    const events: unknown =
      typeof body === 'object' && body !== null && Reflect.get(body, 'events');
    if (!Array.isArray(events)) return;
    for (const event of events) {
      const type: unknown = typeof event === 'object' && event !== null && event.eventType;
      if (typeof type === 'string') this.seenEventTypes.add(type);
    }
  }
}

export interface ShapesService {
  readonly swf: SWFClient;
  readonly driver: SwfDriver;
  readonly service: LocalService;
  readonly close: () => Promise<void>;
  readonly shapes: ShapesCheck;
}

/** Serves the domain with its types and Lambda functions, recording every answer raw. */
export async function serveShapes(): Promise<ShapesService> {
  const served = await serveDomain(domain, { polling: { maxWaitMs: 300 }, access });
  const { swf, driver, service } = served;
  const shapes = new ShapesCheck(recordAnswers(swf));
  await driver.registerTypes(wf, act);
  service.lambda.register('upper', async (input) => input?.toUpperCase());
  service.lambda.register('boom', async () => {
    throw Object.assign(new Error('it went wrong'), { name: 'Boom' });
  });
  service.lambda.register('held', () => new Promise<string>(() => {}));
  service.lambda.register('huge', async () => 'x'.repeat(40_000));
  service.lambda.register('long-failure', async () => {
    throw Object.assign(new Error('m'.repeat(40_000)), { name: 'N'.repeat(300) });
  });
  // A function Lambda refuses to start (the role cannot be assumed): what the AWS invoker reports.
  const invoke = service.lambda.invoke.bind(service.lambda);
  vi.spyOn(service.lambda, 'invoke').mockImplementation(async (request) =>
    request.name === 'unstartable'
      ? { kind: 'start-failed', cause: 'ASSUME_ROLE_FAILED', message: 'cannot assume the role' }
      : invoke(request),
  );
  return { ...served, shapes };
}

export const lambda = (id: string, name: string, startToCloseTimeout?: string): Decision => ({
  decisionType: 'ScheduleLambdaFunction',
  scheduleLambdaFunctionDecisionAttributes: {
    id,
    name,
    input: 'in',
    ...(startToCloseTimeout === undefined ? {} : { startToCloseTimeout }),
  },
});
export const activity = (activityId: string, taskList: string, extra: object = {}) =>
  decide.scheduleActivity({
    activityType: act,
    activityId,
    taskList: { name: taskList },
    ...extra,
  });
export const child = (workflowId: string, taskList: string, extra: object = {}): Decision => ({
  decisionType: 'StartChildWorkflowExecution',
  startChildWorkflowExecutionDecisionAttributes: {
    workflowType: wf,
    workflowId,
    taskList: { name: taskList },
    input: 'child input',
    tagList: ['child'],
    ...extra,
  },
});
export const signalExternal = (workflowId: string): Decision => ({
  decisionType: 'SignalExternalWorkflowExecution',
  signalExternalWorkflowExecutionDecisionAttributes: {
    workflowId,
    signalName: 'from-parent',
    input: 'sig',
    control: 'c',
  },
});
export const cancelExternal = (workflowId: string): Decision => ({
  decisionType: 'RequestCancelExternalWorkflowExecution',
  requestCancelExternalWorkflowExecutionDecisionAttributes: { workflowId, control: 'c' },
});
/** A listing's first page of one item, then its next page by the token the first gave. */
export async function twoPages(
  list: (page: { maximumPageSize?: number; nextPageToken?: string }) => Promise<{
    nextPageToken?: string | undefined;
  }>,
): Promise<void> {
  const { nextPageToken } = await list({ maximumPageSize: 1 });
  expect(nextPageToken).toBeDefined();
  await list({ ...(nextPageToken === undefined ? {} : { nextPageToken }) });
}

export const has =
  (...types: string[]) =>
  (events: { eventType?: string | undefined }[]) =>
    types.every((type) => events.some((e) => e.eventType === type));
