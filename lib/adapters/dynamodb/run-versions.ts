import { randomInt } from 'node:crypto';

/**
 * A state item's `version` is its run's count of commits times VERSION_NONCES plus a random nonce of
 * the commit attempt that wrote it. Each commit is guarded by the version it replaces, as a counter
 * would be; the nonce tells two writers' commits of the same count apart when their bytes are the same
 * (two identical signals, one worker's two polls claiming one task, in the same millisecond), so a
 * retried write whose first try was lost does not take the other's landed commit for its own (see
 * RunCommit.ownCommitIn). It stays one number in the attribute an earlier release reads and writes, so
 * the two serve one table side by side through a rollout (that release writes its version plus one,
 * which this one reads as the same count or the next); a bare count it left reads as a count of its
 * thousands. Three digits of nonce: every byte of the item is paid for on every change of the run.
 */
const VERSION_NONCES = 1_000;

/** How many commits of its run a version counts. */
export const commitCount = (version: number) => Math.floor(version / VERSION_NONCES);

/** The version a commit replacing `base` (undefined: a new run) writes, with a fresh nonce. */
export const nextVersion = (base: number | undefined) =>
  (commitCount(base ?? 0) + 1) * VERSION_NONCES + randomInt(VERSION_NONCES);

/** A state item's version (undefined: not a state item). */
export function versionOf(item: Record<string, unknown> | undefined): number | undefined {
  const version = item?.version;
  return typeof version === 'number' ? version : undefined;
}
