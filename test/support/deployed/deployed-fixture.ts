/**
 * What the deployed-path contract tests share: the deployed API over a fresh table, a domain and a
 * workflow type registered through it, SWF clients on its front door closed afterwards, and pollers
 * that wait on it as a crowd of workers does.
 */
import {
  PollForDecisionTaskCommand,
  type PollForDecisionTaskCommandOutput,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { createSwfClient } from '../../../lib/sdk/client.js';
import { dynamoEndpoint, freshTable, servedForFile } from '../local.js';
import { type DeployedApi, type DeployedApiOptions, startDeployedApi } from './deployed-api.js';

export const WORKFLOW_TYPE = { name: 'wf', version: '1' };

/** How long the polls wait, and how often they re-read their queue: only a wake brings a task sooner. */
export const POLL_WAIT_MS = 20_000;
/** Far below the polls' wait: only a wake hands a task out this soon. */
export const HANDED_OUT_WITHIN_MS = 3_000;

export interface DeployedFixture {
  readonly api: DeployedApi;
  /** A client for the test's own calls. */
  readonly swf: SWFClient;
  /** A client of its own (a poller's), closed with the fixture. */
  client(): SWFClient;
  close(): Promise<void>;
}

export async function startDeployedFixture(
  domain: string,
  options: Omit<DeployedApiOptions, 'dynamoEndpoint' | 'tableName'>,
): Promise<DeployedFixture> {
  const table = await freshTable(domain);
  const api = await startDeployedApi({
    dynamoEndpoint: dynamoEndpoint(),
    tableName: table.tableName,
    ...options,
  });
  const clients: SWFClient[] = [];
  const client = () => {
    const c = createSwfClient({ endpoint: api.endpoint, maxAttempts: 1 });
    clients.push(c);
    return c;
  };
  const swf = client();
  await swf.send(
    new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }),
  );
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...WORKFLOW_TYPE,
      defaultExecutionStartToCloseTimeout: '3600',
      defaultTaskStartToCloseTimeout: '600',
      defaultChildPolicy: 'TERMINATE',
    }),
  );
  return {
    api,
    swf,
    client,
    close: async () => {
      for (const c of clients) c.destroy();
      await api.close();
    },
  };
}

/**
 * The deployed fixture of the calling test file, as the stack deploys the function (with its wake
 * channel; polls that wait POLL_WAIT_MS and re-read their queue only then): started before its
 * tests, with containers warm for `warm` invocations at once, and closed after them.
 */
export function deployedFixtureForFile(
  domain: string,
  options: { readonly warm: number; readonly perContainerConcurrency?: number },
): Readonly<Omit<DeployedFixture, 'close'>> {
  const { warm, ...api } = options;
  return servedForFile(async () => {
    const fixture = await startDeployedFixture(domain, {
      polling: { maxWaitMs: POLL_WAIT_MS, recheckMs: POLL_WAIT_MS },
      wakes: true,
      ...api,
    });
    await fixture.api.containers.warm(warm);
    return fixture;
  }, 180_000);
}

/** A decision task one of the pollers got, and when. */
export interface Handed {
  readonly task: PollForDecisionTaskCommandOutput;
  readonly at: number;
}

/**
 * `count` pollers, each with a client of its own, polling `taskList` for decision tasks again and
 * again until `stop` fires; every task any of them got, in order, and their end.
 */
export function startPollers(
  fixture: Pick<DeployedFixture, 'client'>,
  where: { readonly domain: string; readonly taskList: { name: string }; readonly count: number },
  stop: AbortSignal,
): { readonly handed: Handed[]; readonly done: Promise<unknown> } {
  const handed: Handed[] = [];
  const { domain, taskList } = where;
  const loops = Array.from({ length: where.count }, async () => {
    const client = fixture.client();
    while (!stop.aborted) {
      const task = await client
        .send(new PollForDecisionTaskCommand({ domain, taskList }), { abortSignal: stop })
        .catch(() => undefined);
      if (task?.taskToken !== undefined) handed.push({ task, at: Date.now() });
    }
  });
  return { handed, done: Promise.all(loops) };
}

export async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
