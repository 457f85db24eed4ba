import type { RegistrationStatus, TypeKind } from '../../core/registry.js';
import type { QueuedTaskRef, TaskKind } from '../../core/task-queue.js';
import {
  MAX_VISIBILITY_MS,
  type VisibilityFilter,
  type VisibilityList,
  visibilityMillis,
} from '../../core/visibility.js';
import type { LeaseSpace } from '../../ports/poller-leases.js';

/**
 * Key builders for every item in the table. Pure, so they can be unit-tested.
 *
 * Sort keys that hold two names join them with U+0001: identifiers may not contain control characters,
 * and a separator that sorts below every allowed character keeps `name, version`
 * order (`a` < `a b` < `ab`). Names are at most 256 UTF-16 units, so at most 768 bytes of UTF-8: every
 * key stays inside DynamoDB's 2,048-byte partition and 1,024-byte sort key limits.
 *
 * Execution keys join names with `|`, which the identifier rule forbids in domains, workflowIds and
 * task lists; runIds are ours (base64url). A run's partition holds its state, its history chunks and
 * its activities' latest heartbeats.
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
  /** How far the local stream poller has handled a shard of the table's stream (lib/local). */
  streamCheckpoint: (shardId: string): ItemKey => ({ pk: 'META', sk: `STREAM#${shardId}` }),

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
  /**
   * Every version of one type name registered while versions were recorded in one item (deleted ones
   * too): what a visibility filter by type name covers, with the typeVersion items written since. Not
   * under the type prefix, so type queries never meet it. Read, no longer written.
   */
  typeVersions: (kind: TypeKind, domain: string, name: string): ItemKey => ({
    pk: `DOMAIN#${domain}`,
    sk: `VERSIONS#${typePrefix(kind)}#${name}`,
  }),
  /**
   * One version ever registered of one type name, an item of its own: the versions of a name are
   * unbounded (deleting a type frees its place in the domain's quota, not here), so they cannot share
   * one item (400 KB). Not under the type prefix, nor under typeVersions' key: `VERSIONS#` + kind +
   * name + U+0001 + version, read by that prefix.
   */
  typeVersion: (kind: TypeKind, domain: string, name: string, version: string): ItemKey => ({
    pk: `DOMAIN#${domain}`,
    sk: `VERSIONS#${typePrefix(kind)}#${name}${SEPARATOR}${version}`,
  }),
  typeVersionPrefix: (kind: TypeKind, name: string) =>
    `VERSIONS#${typePrefix(kind)}#${name}${SEPARATOR}`,
  typeSortValue: (name: string, version: string) => `${name}${SEPARATOR}${version}`,
  typeNamePrefix: (name: string) => `${name}${SEPARATOR}`,

  runPartition: (runId: string) => `RUN|${runId}`,
  /** The run whose partition `pk` is. */
  runIdOf: (pk: string) => pk.slice('RUN|'.length),
  runState: (runId: string): ItemKey => ({ pk: `RUN|${runId}`, sk: 'STATE' }),
  /** A chunk of history: the events one commit appended, keyed by the first one's id. */
  historyChunk: (runId: string, firstEventId: number): ItemKey => ({
    pk: `RUN|${runId}`,
    sk: `H|${padId(firstEventId)}`,
  }),
  historyChunkSort: (eventId: number) => `H|${padId(eventId)}`,
  /**
   * A part of a run state too big for the run's item, written by the commit attempt `ref` names (the
   * item names its parts by that ref: two writers of one version never share parts).
   */
  statePart: (runId: string, ref: string, index: number): ItemKey => ({
    pk: `RUN|${runId}`,
    sk: `S|${ref}|${String(index).padStart(4, '0')}`,
  }),
  statePartPrefix: (ref: string) => `S|${ref}|`,
  /** The mark of a Lambda task whose function was invoked (see LambdaTaskClaims.claimLambdaTask). */
  lambdaClaim: (runId: string, scheduledEventId: number): ItemKey => ({
    pk: `RUN|${runId}`,
    sk: `LT|${padId(scheduledEventId)}`,
  }),
  heartbeat: (runId: string, scheduledEventId: number): ItemKey => ({
    pk: `RUN|${runId}`,
    sk: `HB|${padId(scheduledEventId)}`,
  }),
  /** Stream records the outbox gave up on: one partition, newest last. */
  deadLetter: (at: number, id: string): ItemKey => ({
    pk: 'DEADLETTER',
    sk: `${String(at).padStart(13, '0')}|${id}`,
  }),
  deadLetterPartition: 'DEADLETTER',
  /** The open run of a workflowId: its existence is the "one open run per workflowId" guard. */
  openRun: (domain: string, workflowId: string): ItemKey => ({
    pk: `OPEN|${domain}|${workflowId}`,
    sk: 'OPEN',
  }),
  /** A task list's queue partition, one of `shards` so that a hot list is not capped by one key. */
  queuePartition: (kind: TaskKind, domain: string, taskList: string, shard: number) =>
    `Q|${kind === 'decision' ? 'D' : 'A'}|${domain}|${taskList}|${shard}`,
  queueEntry: (task: QueuedTaskRef, shards: number): ItemKey => ({
    pk: keys.queuePartition(task.kind, task.domain, task.taskList, shardOf(task.runId, shards)),
    sk: queueSort(task),
  }),
  /**
   * The poller slots of a task list (`L|…`) or of the whole service (`POLLERS`): one partition per
   * space, an item per slot held (sort keys `0000` … `0999`).
   */
  pollerSpace: (space: LeaseSpace): string =>
    space.scope === 'service'
      ? 'POLLERS'
      : `L|${space.kind === 'decision' ? 'D' : 'A'}|${space.domain}|${space.taskList}`,
  pollerSlot: (slot: number): string => String(slot).padStart(4, '0'),
  /**
   * A visibility row's partition: one listing of one filter value in a domain. Every filter but a
   * workflowId (whose rows are few) is spread over `shards` partitions, so a busy domain's lists have
   * no hot key; a list reads all of them and merges.
   */
  visibilityPartition: (
    list: VisibilityList,
    domain: string,
    filter: VisibilityFilter,
    shard: number,
  ): string => {
    const prefix = `V|${VISIBILITY_LIST[list]}|${domain}|${visibilityFilterKey(filter)}`;
    return filter.kind === 'workflowId' ? prefix : `${prefix}|${shard}`;
  },
  /** Rows sort by time (milliseconds, zero-padded), then runId: a time range is a key range. */
  visibilitySort: (time: number, runId: string) => `${visibilityTime(time)}|${runId}`,
  /** Sort-key bounds of an inclusive time range (epoch seconds): every row in it sorts between them. */
  visibilityRange: (oldest: number, latest: number | undefined) => ({
    low: `${visibilityTime(oldest, 'up')}|`,
    high: `${visibilityTime(latest ?? MAX_VISIBILITY_MS / 1000, 'down')}|~`,
  }),
} as const;

const VISIBILITY_LIST: Record<VisibilityList, string> = {
  open: 'O',
  'closed-by-start': 'CS',
  'closed-by-close': 'CC',
};
/** Epoch seconds as 16-digit milliseconds (see visibilityMillis). */
const visibilityTime = (seconds: number, round: 'up' | 'down' = 'up'): string =>
  String(visibilityMillis(seconds, round)).padStart(16, '0');

/**
 * Names never contain `|` (the identifier rule); a tag may, so tags come last and the shard is always
 * the last segment: keys stay unambiguous.
 */
function visibilityFilterKey(filter: VisibilityFilter): string {
  switch (filter.kind) {
    case 'all':
      return 'A';
    case 'workflowId':
      return `W|${filter.workflowId}`;
    case 'type':
      return `N|${filter.name}`;
    case 'typeVersion':
      return `NV|${filter.name}|${filter.version}`;
    case 'closeStatus':
      return `S|${filter.status}`;
    case 'tag':
      return `G|${filter.tag}`;
  }
}

const padId = (id: number) => String(id).padStart(8, '0');

/**
 * Queue order: higher taskPriority first (the priority is inverted into an unsigned 10-digit number),
 * then older first, then a stable tiebreak.
 */
function queueSort(task: QueuedTaskRef): string {
  const inverted = String(2_147_483_647 - Number(task.taskPriority)).padStart(10, '0');
  const at = String(Math.round(task.scheduledAt * 1000)).padStart(13, '0');
  return `${inverted}|${at}|${task.runId}|${padId(task.scheduledEventId)}`;
}

/** FNV-1a over the runId: a run's tasks always land in the same shard. */
export function shardOf(runId: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < runId.length; i++) {
    hash ^= runId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}
