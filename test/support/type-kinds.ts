/**
 * The two kinds of registered types (workflow types and activity types) behind one shape, so that the
 * type contract files run every test for both, with the helpers those files share.
 */
import {
  DeleteActivityTypeCommand,
  DeleteWorkflowTypeCommand,
  DeprecateActivityTypeCommand,
  DeprecateWorkflowTypeCommand,
  DescribeActivityTypeCommand,
  DescribeWorkflowTypeCommand,
  ListActivityTypesCommand,
  ListWorkflowTypesCommand,
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  type RegistrationStatus,
  type SWFClient,
  UndeprecateActivityTypeCommand,
  UndeprecateWorkflowTypeCommand,
} from '@aws-sdk/client-swf';
import { expect } from 'vitest';
import { unique } from './contract.js';

/** The test server a kind calls, read at each call (once the file's server has started). */
interface TypeServer {
  readonly swf: SWFClient;
}

export interface TypeRef {
  name: string;
  version: string;
}

export interface TypeInfoOut {
  status?: string | undefined;
  description?: string | undefined;
  creationDate?: Date | undefined;
  deprecationDate?: Date | undefined;
  ref?: TypeRef | undefined;
}

/** The six actions of one kind, behind one shape, so every test runs for both kinds. */
export interface Kind {
  readonly wire: 'WorkflowType' | 'ActivityType';
  readonly member: 'workflowType' | 'activityType';
  register(domain: string, ref: TypeRef, extra?: Record<string, unknown>): Promise<unknown>;
  describe(
    domain: string,
    ref: TypeRef,
  ): Promise<{ typeInfo: TypeInfoOut; configuration: Record<string, unknown> }>;
  list(input: {
    domain: string;
    registrationStatus: RegistrationStatus;
    name?: string | undefined;
    maximumPageSize?: number | undefined;
    reverseOrder?: boolean | undefined;
    nextPageToken?: string | undefined;
  }): Promise<{ infos: TypeInfoOut[]; nextPageToken?: string }>;
  deprecate(domain: string, ref: TypeRef): Promise<unknown>;
  undeprecate(domain: string, ref: TypeRef): Promise<unknown>;
  remove(domain: string, ref: TypeRef): Promise<unknown>;
  /** Defaults that every member of the kind's configuration can hold. */
  readonly fullConfiguration: Record<string, unknown>;
}

export const toRef = (t: { name?: string | undefined; version?: string | undefined }): TypeRef => ({
  name: t.name ?? '',
  version: t.version ?? '',
});

export const refText = (kind: Kind, ref: TypeRef) =>
  `${kind.wire}=[name=${ref.name}, version=${ref.version}]`;
export const unknownText = (kind: Kind, ref: TypeRef) => `Unknown type: ${refText(kind, ref)}`;

/** Every page of a listing, checking page sizes and that only the last page lacks a token. */
export async function listAll(
  kind: Kind,
  input: { domain: string; registrationStatus: RegistrationStatus; name?: string },
  options: { maximumPageSize?: number; reverseOrder?: boolean } = {},
): Promise<{ refs: TypeRef[]; pages: number }> {
  const refs: TypeRef[] = [];
  let nextPageToken: string | undefined;
  let pages = 0;
  do {
    const page = await kind.list({ ...input, ...options, nextPageToken });
    pages++;
    if (options.maximumPageSize !== undefined) {
      expect(page.infos.length).toBeLessThanOrEqual(options.maximumPageSize);
    }
    if (page.nextPageToken !== undefined) expect(page.infos.length).toBeGreaterThan(0);
    refs.push(...page.infos.map((i) => i.ref ?? { name: '', version: '' }));
    nextPageToken = page.nextPageToken;
  } while (nextPageToken !== undefined);
  return { refs, pages };
}

/** Both listings of a domain: a refused call must leave them unchanged. */
export async function snapshot(kind: Kind, domain: string) {
  const registered = await kind.list({ domain, registrationStatus: 'REGISTERED' });
  const deprecated = await kind.list({ domain, registrationStatus: 'DEPRECATED' });
  return { registered: registered.infos, deprecated: deprecated.infos };
}

/** The kinds over one file's server, and a fresh domain there for each test. */
export function typeKinds(server: TypeServer) {
  async function newDomain(prefix = 'types'): Promise<string> {
    const name = unique(prefix);
    await server.swf.send(
      new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1' }),
    );
    return name;
  }

  const workflowKind: Kind = {
    wire: 'WorkflowType',
    member: 'workflowType',
    register: (domain, ref, extra = {}) =>
      server.swf.send(new RegisterWorkflowTypeCommand({ domain, ...ref, ...extra })),
    describe: async (domain, ref) => {
      const out = await server.swf.send(
        new DescribeWorkflowTypeCommand({ domain, workflowType: ref }),
      );
      const { workflowType, ...info } = out.typeInfo ?? {};
      return {
        typeInfo: { ...info, ...(workflowType === undefined ? {} : { ref: toRef(workflowType) }) },
        configuration: { ...out.configuration },
      };
    },
    list: async (input) => {
      const out = await server.swf.send(new ListWorkflowTypesCommand(input));
      return {
        infos: (out.typeInfos ?? []).map(({ workflowType, ...info }) => ({
          ...info,
          ...(workflowType === undefined ? {} : { ref: toRef(workflowType) }),
        })),
        ...(out.nextPageToken === undefined ? {} : { nextPageToken: out.nextPageToken }),
      };
    },
    deprecate: (domain, ref) =>
      server.swf.send(new DeprecateWorkflowTypeCommand({ domain, workflowType: ref })),
    undeprecate: (domain, ref) =>
      server.swf.send(new UndeprecateWorkflowTypeCommand({ domain, workflowType: ref })),
    remove: (domain, ref) =>
      server.swf.send(new DeleteWorkflowTypeCommand({ domain, workflowType: ref })),
    fullConfiguration: {
      defaultTaskStartToCloseTimeout: '30',
      defaultExecutionStartToCloseTimeout: '3600',
      defaultTaskList: { name: 'deciders' },
      defaultTaskPriority: '-7',
      defaultChildPolicy: 'REQUEST_CANCEL',
      defaultLambdaRole: 'arn:aws:iam::123456789012:role/swf-lambda',
    },
  };

  const activityKind: Kind = {
    wire: 'ActivityType',
    member: 'activityType',
    register: (domain, ref, extra = {}) =>
      server.swf.send(new RegisterActivityTypeCommand({ domain, ...ref, ...extra })),
    describe: async (domain, ref) => {
      const out = await server.swf.send(
        new DescribeActivityTypeCommand({ domain, activityType: ref }),
      );
      const { activityType, ...info } = out.typeInfo ?? {};
      return {
        typeInfo: { ...info, ...(activityType === undefined ? {} : { ref: toRef(activityType) }) },
        configuration: { ...out.configuration },
      };
    },
    list: async (input) => {
      const out = await server.swf.send(new ListActivityTypesCommand(input));
      return {
        infos: (out.typeInfos ?? []).map(({ activityType, ...info }) => ({
          ...info,
          ...(activityType === undefined ? {} : { ref: toRef(activityType) }),
        })),
        ...(out.nextPageToken === undefined ? {} : { nextPageToken: out.nextPageToken }),
      };
    },
    deprecate: (domain, ref) =>
      server.swf.send(new DeprecateActivityTypeCommand({ domain, activityType: ref })),
    undeprecate: (domain, ref) =>
      server.swf.send(new UndeprecateActivityTypeCommand({ domain, activityType: ref })),
    remove: (domain, ref) =>
      server.swf.send(new DeleteActivityTypeCommand({ domain, activityType: ref })),
    fullConfiguration: {
      defaultTaskStartToCloseTimeout: '300',
      defaultTaskHeartbeatTimeout: 'NONE',
      defaultTaskList: { name: 'workers' },
      defaultTaskPriority: '2147483647',
      defaultTaskScheduleToStartTimeout: '60',
      defaultTaskScheduleToCloseTimeout: '360',
    },
  };

  const kinds = [
    ['workflow types', workflowKind],
    ['activity types', activityKind],
  ] as const;
  return { newDomain, workflowKind, activityKind, kinds };
}
