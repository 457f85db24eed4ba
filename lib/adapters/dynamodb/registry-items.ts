/** Domains and types as the table's items hold them, and back. */
import type {
  DomainRecord,
  RegistrationStatus,
  ResourceTag,
  TypeRecord,
} from '../../core/registry.js';
import { keys } from './keys.js';

export function mergeTags(
  current: readonly ResourceTag[],
  change: { readonly upsert: readonly ResourceTag[]; readonly removeKeys: readonly string[] },
): ResourceTag[] {
  const byKey = new Map(current.map((t) => [t.key, t]));
  for (const key of change.removeKeys) byKey.delete(key);
  for (const tag of change.upsert) byKey.set(tag.key, tag);
  return [...byKey.values()];
}

export function domainItem(d: DomainRecord): Record<string, unknown> {
  return {
    ...keys.domain(d.name),
    ...keys.domainList(d.status),
    gsi1sk: d.name,
    entity: 'Domain',
    ...d,
  };
}

export function typeItem(t: TypeRecord): Record<string, unknown> {
  return {
    ...keys.type(t.kind, t.domain, t.name, t.version),
    ...keys.typeList(t.kind, t.domain, t.status),
    gsi1sk: keys.typeSortValue(t.name, t.version),
    entity: t.kind === 'workflow' ? 'WorkflowType' : 'ActivityType',
    ...t,
  };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const optStr = (v: unknown) => (typeof v === 'string' ? { value: v } : undefined);
const optNum = (v: unknown) => (typeof v === 'number' ? { value: v } : undefined);
const status = (v: unknown): RegistrationStatus =>
  v === 'DEPRECATED' ? 'DEPRECATED' : 'REGISTERED';

export function toDomain(item: Record<string, unknown>): DomainRecord {
  const description = optStr(item.description);
  const tags = Array.isArray(item.tags) ? (item.tags as ResourceTag[]) : [];
  return {
    name: str(item.name),
    status: status(item.status),
    retentionPeriodInDays: str(item.retentionPeriodInDays),
    tags,
    creationDate: typeof item.creationDate === 'number' ? item.creationDate : 0,
    ...(description === undefined ? {} : { description: description.value }),
  };
}

export function toType(item: Record<string, unknown>): TypeRecord {
  const description = optStr(item.description);
  const deprecationDate = optNum(item.deprecationDate);
  const base = {
    domain: str(item.domain),
    name: str(item.name),
    version: str(item.version),
    status: status(item.status),
    creationDate: typeof item.creationDate === 'number' ? item.creationDate : 0,
    ...(description === undefined ? {} : { description: description.value }),
    ...(deprecationDate === undefined ? {} : { deprecationDate: deprecationDate.value }),
  };
  const configuration =
    typeof item.configuration === 'object' && item.configuration !== null ? item.configuration : {};
  return item.kind === 'workflow'
    ? { ...base, kind: 'workflow', configuration }
    : { ...base, kind: 'activity', configuration };
}
