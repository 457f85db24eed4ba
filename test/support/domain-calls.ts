/**
 * The domain calls of the domain contract files: over one file's server, read at each call (once the
 * server has started).
 */
import {
  DescribeDomainCommand,
  type DomainInfo,
  ListDomainsCommand,
  RegisterDomainCommand,
  type RegisterDomainCommandInput,
  type RegistrationStatus,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { expect } from 'vitest';

export const arnOf = (name: string) => `arn:aws:swf:us-east-1:000000000000:/domain/${name}`;

export const namesOf = (infos: readonly DomainInfo[]) => infos.map((d) => d.name ?? '');

/** The domain calls over a file's server. */
export function domainCalls(server: { readonly swf: SWFClient }) {
  const register = (name: string, extra: Partial<RegisterDomainCommandInput> = {}) =>
    server.swf.send(
      new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1', ...extra }),
    );

  const describeDomain = (name: string) => server.swf.send(new DescribeDomainCommand({ name }));

  /** Every page of ListDomains, concatenated, checking that only the last page lacks a token. */
  async function listAll(
    registrationStatus: RegistrationStatus,
    options: { maximumPageSize?: number; reverseOrder?: boolean } = {},
  ): Promise<{ infos: DomainInfo[]; pages: number }> {
    const infos: DomainInfo[] = [];
    let nextPageToken: string | undefined;
    let pages = 0;
    do {
      const page = await server.swf.send(
        new ListDomainsCommand({ registrationStatus, nextPageToken, ...options }),
      );
      pages++;
      if (options.maximumPageSize !== undefined && options.maximumPageSize > 0) {
        expect(page.domainInfos?.length).toBeLessThanOrEqual(options.maximumPageSize);
      }
      if (page.nextPageToken !== undefined) expect(page.domainInfos?.length).toBeGreaterThan(0);
      infos.push(...(page.domainInfos ?? []));
      nextPageToken = page.nextPageToken;
    } while (nextPageToken !== undefined);
    return { infos, pages };
  }

  /** Every stored domain, both statuses: bad requests must leave this unchanged. */
  async function snapshot() {
    const registered = await listAll('REGISTERED');
    const deprecated = await listAll('DEPRECATED');
    return { registered: registered.infos, deprecated: deprecated.infos };
  }

  /** Asserts that a request was refused and that no domain appeared or changed because of it. */
  async function expectRefusedWithoutChange(
    call: () => Promise<unknown>,
    assertError: (call: Promise<unknown>) => Promise<unknown>,
  ) {
    const before = await snapshot();
    await assertError(call());
    expect(await snapshot()).toStrictEqual(before);
  }
  return { register, describeDomain, listAll, snapshot, expectRefusedWithoutChange };
}
