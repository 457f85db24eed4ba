import {
  DomainDeprecatedFault,
  faultText,
  LimitExceededFault,
  TypeAlreadyExistsFault,
  TypeDeprecatedFault,
  TypeNotDeprecatedFault,
  UnknownResourceFault,
} from '../core/faults.js';
import {
  type ActivityTypeConfiguration,
  type RegistrationStatus,
  registryLimits,
  type TypeId,
  type TypeKind,
  type TypeRecord,
  type WorkflowTypeConfiguration,
} from '../core/registry.js';
import { epochSeconds } from '../ports/clock.js';
import { authorizePassRole } from './access.js';
import { type Operation, type OperationDeps, operation } from './context.js';
import { requireDomain } from './domains.js';
import { nextPageToken, type PagingInput, pageRequest } from './paging.js';

// Workflow types and activity types behave alike in all six actions; each action below is one function
// over the kind, bound twice at the bottom of the file.

const wireKind = (kind: TypeKind) => (kind === 'workflow' ? 'WorkflowType' : 'ActivityType');
const typeMember = (kind: TypeKind) => (kind === 'workflow' ? 'workflowType' : 'activityType');
const actionName = (verb: string, kind: TypeKind) =>
  `${verb}${wireKind(kind)}${verb === 'List' ? 's' : ''}`;

const configKeys = {
  workflow: [
    'defaultTaskStartToCloseTimeout',
    'defaultExecutionStartToCloseTimeout',
    'defaultTaskList',
    'defaultTaskPriority',
    'defaultChildPolicy',
    'defaultLambdaRole',
  ],
  activity: [
    'defaultTaskStartToCloseTimeout',
    'defaultTaskHeartbeatTimeout',
    'defaultTaskList',
    'defaultTaskPriority',
    'defaultTaskScheduleToStartTimeout',
    'defaultTaskScheduleToCloseTimeout',
  ],
} as const;

interface RegisterTypeInput extends WorkflowTypeConfiguration, ActivityTypeConfiguration {
  domain: string;
  name: string;
  version: string;
  description?: string;
}

const typeRef = (id: TypeId) => faultText.typeRef(wireKind(id.kind), id.name, id.version);
const unknownType = (id: TypeId) =>
  new UnknownResourceFault(faultText.unknownType(wireKind(id.kind), id.name, id.version));

function pickConfiguration(kind: TypeKind, input: RegisterTypeInput): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of configKeys[kind]) {
    if (input[key] !== undefined) picked[key] = input[key];
  }
  return picked;
}

const registerType = (kind: TypeKind) =>
  operation<RegisterTypeInput>(async (input, deps, request) => {
    // A type's default lambdaRole is passed by whoever registers it: its executions run with it.
    if (kind === 'workflow') authorizePassRole(deps, request, input.defaultLambdaRole);
    const id: TypeId = { kind, domain: input.domain, name: input.name, version: input.version };
    const base = {
      domain: input.domain,
      name: input.name,
      version: input.version,
      status: 'REGISTERED' as const,
      creationDate: epochSeconds(deps.clock),
      ...(input.description === undefined ? {} : { description: input.description }),
    };
    const configuration = pickConfiguration(kind, input);
    const record: TypeRecord =
      kind === 'workflow' ? { ...base, kind, configuration } : { ...base, kind, configuration };
    const outcome = await deps.registry.createType(record, registryLimits.typesPerDomain);
    switch (outcome) {
      case 'created':
        return undefined;
      case 'exists':
        throw new TypeAlreadyExistsFault(typeRef(id));
      case 'domain-missing':
        throw new UnknownResourceFault(faultText.unknownDomain(input.domain));
      case 'domain-deprecated':
        throw new DomainDeprecatedFault(
          `Domain is deprecated, no types can be registered in it: ${input.domain}`,
        );
      case 'limit-exceeded':
        throw new LimitExceededFault(
          `The limit of ${registryLimits.typesPerDomain} ${wireKind(kind)}s in domain ${input.domain} has been reached`,
        );
    }
  });

type TypeInput = { domain: string } & Record<
  'workflowType' | 'activityType',
  { name: string; version: string } | undefined
>;

function typeIdOf(kind: TypeKind, input: TypeInput): TypeId {
  const ref = input[typeMember(kind)];
  // The validator has checked that the member this action requires is present.
  return { kind, domain: input.domain, name: ref?.name ?? '', version: ref?.version ?? '' };
}

async function requireType(deps: OperationDeps, id: TypeId): Promise<TypeRecord> {
  await requireDomain(deps, id.domain);
  const type = await deps.registry.getType(id);
  if (type === undefined) throw unknownType(id);
  return type;
}

function typeInfo(type: TypeRecord) {
  return {
    [typeMember(type.kind)]: { name: type.name, version: type.version },
    status: type.status,
    ...(type.description === undefined ? {} : { description: type.description }),
    creationDate: type.creationDate,
    ...(type.deprecationDate === undefined ? {} : { deprecationDate: type.deprecationDate }),
  };
}

const describeType = (kind: TypeKind) =>
  operation<TypeInput>(async (input, deps) => {
    const type = await requireType(deps, typeIdOf(kind, input));
    return { typeInfo: typeInfo(type), configuration: type.configuration };
  });

interface ListTypesInput extends PagingInput {
  domain: string;
  name?: string;
  registrationStatus: RegistrationStatus;
}

const listTypes = (kind: TypeKind) =>
  operation<ListTypesInput>(async (input, deps) => {
    const action = actionName('List', kind);
    await requireDomain(deps, input.domain);
    const args = {
      domain: input.domain,
      name: input.name,
      registrationStatus: input.registrationStatus,
      reverseOrder: input.reverseOrder === true,
    };
    const page = await deps.registry.listTypes(
      kind,
      input.domain,
      input.registrationStatus,
      input.name,
      await pageRequest(deps, action, args, input),
    );
    return {
      typeInfos: page.items.map(typeInfo),
      ...(await nextPageToken(deps, action, args, page.next)),
    };
  });

const changeTypeStatus = (kind: TypeKind, to: RegistrationStatus) =>
  operation<TypeInput>(async (input, deps) => {
    const id = typeIdOf(kind, input);
    await requireDomain(deps, id.domain);
    const outcome = await deps.registry.setTypeStatus(id, to, epochSeconds(deps.clock));
    if (outcome === 'missing') throw unknownType(id);
    if (outcome === 'already') {
      throw to === 'DEPRECATED'
        ? new TypeDeprecatedFault(typeRef(id))
        : new TypeAlreadyExistsFault(typeRef(id));
    }
    return undefined;
  });

const deleteType = (kind: TypeKind) =>
  operation<TypeInput>(async (input, deps) => {
    const id = typeIdOf(kind, input);
    await requireDomain(deps, id.domain);
    const outcome = await deps.registry.deleteType(id);
    if (outcome === 'missing') throw unknownType(id);
    if (outcome === 'not-deprecated') {
      throw new TypeNotDeprecatedFault(
        'The type is currently registered and cannot be deleted in its current state',
      );
    }
    return undefined;
  });

export const typeOperations: Record<string, Operation> = {
  RegisterWorkflowType: registerType('workflow'),
  RegisterActivityType: registerType('activity'),
  DescribeWorkflowType: describeType('workflow'),
  DescribeActivityType: describeType('activity'),
  ListWorkflowTypes: listTypes('workflow'),
  ListActivityTypes: listTypes('activity'),
  DeprecateWorkflowType: changeTypeStatus('workflow', 'DEPRECATED'),
  DeprecateActivityType: changeTypeStatus('activity', 'DEPRECATED'),
  UndeprecateWorkflowType: changeTypeStatus('workflow', 'REGISTERED'),
  UndeprecateActivityType: changeTypeStatus('activity', 'REGISTERED'),
  DeleteWorkflowType: deleteType('workflow'),
  DeleteActivityType: deleteType('activity'),
};
