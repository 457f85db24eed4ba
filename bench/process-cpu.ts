/** CPU time of processes this machine runs, from /proc (Linux): how busy a server is while it idles. */
import { readFileSync } from 'node:fs';

/** Clock ticks per second /proc counts in (USER_HZ: 100 on Linux's every common architecture). */
const TICKS_PER_SECOND = 100;

/** User plus system CPU a process has used so far, in milliseconds. */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: the fields after it follow its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  return ((user + system) * 1000) / TICKS_PER_SECOND;
}

/** The share of one core (0.1 = 10 %) each process used over `ms` from now. */
export async function coreShares(pids: readonly number[], ms: number): Promise<number[]> {
  const before = pids.map(cpuMsOf);
  const began = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const elapsed = performance.now() - began;
  return pids.map((pid, i) => (cpuMsOf(pid) - (before[i] ?? 0)) / elapsed);
}
