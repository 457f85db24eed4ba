/**
 * What the deployed-path contract tests share: the deployed API over a fresh table, a domain and a
 * workflow type registered through it, SWF clients on its front door closed afterwards.
 */
import {
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { createSwfClient } from '../../../lib/sdk/client.js';
import { dynamoEndpoint, freshTable } from '../local.js';
import { type DeployedApi, type DeployedApiOptions, startDeployedApi } from './deployed-api.js';

export const WORKFLOW_TYPE = { name: 'wf', version: '1' };

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

export async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
