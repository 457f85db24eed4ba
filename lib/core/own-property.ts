/**
 * A record's own member `key`, never one it inherits: ids and names come from clients, and an activity
 * id may well be `constructor` or `__proto__`.
 */
export const ownProperty = <T>(record: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;
