/**
 * Control-plane rules that span several actions: deprecating a domain
 * deprecates every type in it, what still works in a deprecated domain, and the account's quota of
 * 100 domains (registered and deprecated) → LimitExceededFault.
 */
import {
  DeprecateDomainCommand,
  DeprecateWorkflowTypeCommand,
  DescribeActivityTypeCommand,
  DescribeDomainCommand,
  DescribeWorkflowTypeCommand,
  DomainAlreadyExistsFault,
  GetWorkflowExecutionHistoryCommand,
  LimitExceededFault,
  ListActivityTypesCommand,
  ListDomainsCommand,
  ListWorkflowTypesCommand,
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  SignalWorkflowExecutionCommand,
  StartWorkflowExecutionCommand,
  type SWFClient,
  TypeDeprecatedFault,
  UndeprecateDomainCommand,
  UndeprecateWorkflowTypeCommand,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFault, unique } from '../support/contract.js';
import { serverForFile, startTestServer } from '../support/local.js';

const server = serverForFile();

async function newDomain(prefix = 'cp'): Promise<string> {
  const name = unique(prefix);
  await server.swf.send(
    new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1' }),
  );
  return name;
}

const workflowDefaults = {
  defaultTaskList: { name: 'deciders' },
  defaultChildPolicy: 'TERMINATE',
  defaultExecutionStartToCloseTimeout: '600',
  defaultTaskStartToCloseTimeout: '30',
} as const;

async function statusesOf(domain: string, kind: 'workflow' | 'activity') {
  const statuses: Record<string, string> = {};
  for (const registrationStatus of ['REGISTERED', 'DEPRECATED'] as const) {
    let nextPageToken: string | undefined;
    do {
      const page =
        kind === 'workflow'
          ? await server.swf.send(
              new ListWorkflowTypesCommand({ domain, registrationStatus, nextPageToken }),
            )
          : await server.swf.send(
              new ListActivityTypesCommand({ domain, registrationStatus, nextPageToken }),
            );
      for (const info of page.typeInfos ?? []) {
        const ref = 'workflowType' in info ? info.workflowType : info.activityType;
        statuses[`${ref?.name}@${ref?.version}`] = info.status ?? '';
        expect(info.status).toBe(registrationStatus);
      }
      nextPageToken = page.nextPageToken;
    } while (nextPageToken !== undefined);
  }
  return statuses;
}

describe('DeprecateDomain', () => {
  it('deprecates every workflow and activity type of the domain, and no other domain’s', async () => {
    const domain = await newDomain();
    const bystander = await newDomain('bystander');
    for (let i = 0; i < 12; i++) {
      await server.swf.send(
        new RegisterWorkflowTypeCommand({ domain, name: `wf-${i}`, version: '1' }),
      );
      await server.swf.send(
        new RegisterActivityTypeCommand({ domain, name: `act-${i}`, version: '1' }),
      );
    }
    await server.swf.send(
      new RegisterWorkflowTypeCommand({ domain: bystander, name: 'wf-0', version: '1' }),
    );
    const since = Date.now();

    await server.swf.send(new DeprecateDomainCommand({ name: domain }));

    const workflows = await statusesOf(domain, 'workflow');
    const activities = await statusesOf(domain, 'activity');
    expect(Object.keys(workflows)).toHaveLength(12);
    expect(Object.keys(activities)).toHaveLength(12);
    expect(new Set([...Object.values(workflows), ...Object.values(activities)])).toStrictEqual(
      new Set(['DEPRECATED']),
    );
    const described = await server.swf.send(
      new DescribeActivityTypeCommand({ domain, activityType: { name: 'act-3', version: '1' } }),
    );
    expect(described.typeInfo?.deprecationDate?.getTime()).toBeGreaterThanOrEqual(since - 2000);
    expect(await statusesOf(bystander, 'workflow')).toStrictEqual({ 'wf-0@1': 'REGISTERED' });
  });

  it('keeps a type deprecated before the domain with its own deprecation date', async () => {
    const domain = await newDomain();
    const workflowType = { name: 'early', version: '1' };
    await server.swf.send(new RegisterWorkflowTypeCommand({ domain, ...workflowType }));
    await server.swf.send(new DeprecateWorkflowTypeCommand({ domain, workflowType }));
    const first = await server.swf.send(new DescribeWorkflowTypeCommand({ domain, workflowType }));
    await new Promise((resolve) => setTimeout(resolve, 20));

    await server.swf.send(new DeprecateDomainCommand({ name: domain }));

    const after = await server.swf.send(new DescribeWorkflowTypeCommand({ domain, workflowType }));
    expect(after.typeInfo?.deprecationDate).toStrictEqual(first.typeInfo?.deprecationDate);
  });

  it('refuses new executions of its types; running executions go on; reads keep working', async () => {
    const domain = await newDomain();
    const workflowType = { name: 'order', version: '1' };
    await server.swf.send(
      new RegisterWorkflowTypeCommand({ domain, ...workflowType, ...workflowDefaults }),
    );
    const workflowId = unique('running');
    const { runId = '' } = await server.swf.send(
      new StartWorkflowExecutionCommand({ domain, workflowId, workflowType }),
    );

    await server.swf.send(new DeprecateDomainCommand({ name: domain }));

    await expectFault(
      server.swf.send(
        new StartWorkflowExecutionCommand({ domain, workflowId: unique('new'), workflowType }),
      ),
      TypeDeprecatedFault,
      'WorkflowType=[name=order, version=1]',
    );
    await server.swf.send(
      new SignalWorkflowExecutionCommand({ domain, workflowId, signalName: 'still' }),
    );
    const history = await server.swf.send(
      new GetWorkflowExecutionHistoryCommand({ domain, execution: { workflowId, runId } }),
    );
    expect(history.events?.map((e) => e.eventType)).toContain('WorkflowExecutionSignaled');
    const described = await server.swf.send(new DescribeDomainCommand({ name: domain }));
    expect(described.domainInfo?.status).toBe('DEPRECATED');
  });

  it('leaves the types deprecated when the domain is undeprecated; each can be restored', async () => {
    const domain = await newDomain();
    const workflowType = { name: 'restorable', version: '1' };
    await server.swf.send(
      new RegisterWorkflowTypeCommand({ domain, ...workflowType, ...workflowDefaults }),
    );
    await server.swf.send(new DeprecateDomainCommand({ name: domain }));

    await server.swf.send(new UndeprecateDomainCommand({ name: domain }));

    const still = await server.swf.send(new DescribeWorkflowTypeCommand({ domain, workflowType }));
    expect(still.typeInfo?.status).toBe('DEPRECATED');
    await server.swf.send(new UndeprecateWorkflowTypeCommand({ domain, workflowType }));
    const { runId } = await server.swf.send(
      new StartWorkflowExecutionCommand({ domain, workflowId: unique('again'), workflowType }),
    );
    expect(runId).toEqual(expect.any(String));
  });
});

describe('the domain quota', () => {
  let quota: { swf: SWFClient; close: () => Promise<void> };

  beforeAll(async () => {
    // A server of its own: its table starts with no domains at all.
    quota = await startTestServer();
  });

  afterAll(async () => {
    await quota.close();
  });

  it('allows 100 domains, deprecated ones included, and refuses the 101st with LimitExceededFault', async () => {
    const names = Array.from({ length: 100 }, (_, i) => `quota-${String(i).padStart(3, '0')}`);
    for (let i = 0; i < names.length; i += 10) {
      await Promise.all(
        names
          .slice(i, i + 10)
          .map((name) =>
            quota.swf.send(
              new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1' }),
            ),
          ),
      );
    }
    for (const name of names.slice(0, 5)) {
      await quota.swf.send(new DeprecateDomainCommand({ name }));
    }

    await expectFault(
      quota.swf.send(
        new RegisterDomainCommand({
          name: 'quota-100',
          workflowExecutionRetentionPeriodInDays: '1',
        }),
      ),
      LimitExceededFault,
    );
    // An existing name is still reported as such, not as the quota.
    await expectFault(
      quota.swf.send(
        new RegisterDomainCommand({
          name: 'quota-000',
          workflowExecutionRetentionPeriodInDays: '1',
        }),
      ),
      DomainAlreadyExistsFault,
      'quota-000',
    );

    const registered = await quota.swf.send(
      new ListDomainsCommand({ registrationStatus: 'REGISTERED' }),
    );
    const deprecated = await quota.swf.send(
      new ListDomainsCommand({ registrationStatus: 'DEPRECATED' }),
    );
    expect(registered.domainInfos).toHaveLength(95);
    expect(deprecated.domainInfos).toHaveLength(5);
    expect(registered.domainInfos?.map((d) => d.name)).not.toContain('quota-100');
  });

  it('lets concurrent registrations at the edge take exactly the free places', async () => {
    const extra = await startTestServer();
    try {
      const names = Array.from({ length: 95 }, (_, i) => `edge-${i}`);
      for (let i = 0; i < names.length; i += 10) {
        await Promise.all(
          names
            .slice(i, i + 10)
            .map((name) =>
              extra.swf.send(
                new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1' }),
              ),
            ),
        );
      }
      const racers = Array.from({ length: 12 }, (_, i) => `racer-${i}`);

      const outcomes = await Promise.allSettled(
        racers.map((name) =>
          extra.swf.send(
            new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1' }),
          ),
        ),
      );

      const won = outcomes.filter((o) => o.status === 'fulfilled').length;
      const refused = outcomes.filter(
        (o) => o.status === 'rejected' && o.reason instanceof LimitExceededFault,
      ).length;
      expect([won, refused]).toStrictEqual([5, 7]);
      const listed = await extra.swf.send(
        new ListDomainsCommand({ registrationStatus: 'REGISTERED' }),
      );
      expect(listed.domainInfos).toHaveLength(100);
    } finally {
      await extra.close();
    }
  });
});
