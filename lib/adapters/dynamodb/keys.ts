import type { RegistrationStatus, TypeKind } from '../../core/registry.js';

/**
 * Key builders for every item in the table. Pure, so they can be unit-tested.
 *
 * Sort keys that hold two names join them with U+0001: identifiers may not contain control characters
 * (swf-api.md §2), and a separator that sorts below every allowed character keeps `name, version`
 * order (`a` < `a b` < `ab`). Names are at most 256 UTF-16 units, so at most 768 bytes of UTF-8: every
 * key stays inside DynamoDB's 2,048-byte partition and 1,024-byte sort key limits.
 */
export const SEPARATOR = '\u0001';

export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

const typePrefix = (kind: TypeKind) => (kind === 'workflow' ? 'WTYPE' : 'ATYPE');

export const keys = {
  /** Account-wide counters (the domain quota). */
  account: (): ItemKey => ({ pk: 'ACCOUNT', sk: 'ACCOUNT' }),
  signingKey: (): ItemKey => ({ pk: 'META', sk: 'SIGNING_KEY' }),

  domain: (name: string): ItemKey => ({ pk: `DOMAIN#${name}`, sk: 'DOMAIN' }),
  /** gsi1: domains by registration status, sorted by name. */
  domainList: (status: RegistrationStatus) => ({ gsi1pk: `DOMAINS#${status}` }),

  type: (kind: TypeKind, domain: string, name: string, version: string): ItemKey => ({
    pk: `DOMAIN#${domain}`,
    sk: `${typePrefix(kind)}#${name}${SEPARATOR}${version}`,
  }),
  /** Prefix of every type of one kind in a domain's partition. */
  typePrefix: (kind: TypeKind) => `${typePrefix(kind)}#`,
  /** gsi1: types of one kind and status in a domain, sorted by name then version. */
  typeList: (kind: TypeKind, domain: string, status: RegistrationStatus) => ({
    gsi1pk: `DOMAIN#${domain}#${typePrefix(kind)}#${status}`,
  }),
  typeSortValue: (name: string, version: string) => `${name}${SEPARATOR}${version}`,
  typeNamePrefix: (name: string) => `${name}${SEPARATOR}`,
} as const;
