/** Domains and registered types: what the control plane stores, as plain data. */

export const RegistrationStatus = { REGISTERED: 'REGISTERED', DEPRECATED: 'DEPRECATED' } as const;
export type RegistrationStatus = (typeof RegistrationStatus)[keyof typeof RegistrationStatus];

export interface ResourceTag {
  readonly key: string;
  readonly value?: string;
}

export interface DomainRecord {
  readonly name: string;
  readonly status: RegistrationStatus;
  readonly description?: string;
  /** Kept as the string registered: DescribeDomain echoes it back unchanged. */
  readonly retentionPeriodInDays: string;
  readonly tags: readonly ResourceTag[];
  /** Epoch seconds. */
  readonly creationDate: number;
}

export const TypeKind = { workflow: 'workflow', activity: 'activity' } as const;
export type TypeKind = (typeof TypeKind)[keyof typeof TypeKind];

export interface TaskList {
  readonly name: string;
}

/** Defaults of a workflow type, as registered (only the members that were given). */
export interface WorkflowTypeConfiguration {
  readonly defaultTaskStartToCloseTimeout?: string;
  readonly defaultExecutionStartToCloseTimeout?: string;
  readonly defaultTaskList?: TaskList;
  readonly defaultTaskPriority?: string;
  readonly defaultChildPolicy?: string;
  readonly defaultLambdaRole?: string;
}

/** Defaults of an activity type, as registered (only the members that were given). */
export interface ActivityTypeConfiguration {
  readonly defaultTaskStartToCloseTimeout?: string;
  readonly defaultTaskHeartbeatTimeout?: string;
  readonly defaultTaskList?: TaskList;
  readonly defaultTaskPriority?: string;
  readonly defaultTaskScheduleToStartTimeout?: string;
  readonly defaultTaskScheduleToCloseTimeout?: string;
}

interface TypeRecordBase {
  readonly domain: string;
  readonly name: string;
  readonly version: string;
  readonly status: RegistrationStatus;
  readonly description?: string;
  readonly creationDate: number;
  readonly deprecationDate?: number;
}

export interface WorkflowTypeRecord extends TypeRecordBase {
  readonly kind: 'workflow';
  readonly configuration: WorkflowTypeConfiguration;
}

export interface ActivityTypeRecord extends TypeRecordBase {
  readonly kind: 'activity';
  readonly configuration: ActivityTypeConfiguration;
}

export type TypeRecord = WorkflowTypeRecord | ActivityTypeRecord;

export interface TypeId {
  readonly kind: TypeKind;
  readonly domain: string;
  readonly name: string;
  readonly version: string;
}

/** SWF's documented quotas for the control plane. */
export const registryLimits = {
  domainsPerAccount: 100,
  typesPerDomain: 10_000,
  tagsPerDomain: 50,
} as const;
