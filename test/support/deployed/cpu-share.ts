/**
 * Lambda gives a function a share of one vCPU in proportion to its memory. A container process can
 * be held to such a share with a CPU cgroup's bandwidth limit, so that what the harness measures
 * (call latency, billed duration) is what a function of that size would see, not what a full core
 * gives. It needs a cgroup CPU controller this process may write (v1 `cpu` or v2 `cpu.max`), as
 * root has on a machine that mounts one; `cpuShareSupported` tells.
 */
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

/**
 * The bandwidth period. Lambda does not document its own; a shorter one lets a short call burst
 * less, so this errs towards slower calls.
 */
export const CPU_PERIOD_US = 20_000;

type Layout = { readonly root: string; readonly version: 1 | 2 };

const V1: Layout = { root: '/sys/fs/cgroup/cpu', version: 1 };
const V2: Layout = { root: '/sys/fs/cgroup', version: 2 };

/** Where CPU groups can be made: v1's `cpu` hierarchy, or v2's root with `cpu` enabled for children. */
function cpuLayout(): Layout | undefined {
  if (existsSync(join(V1.root, 'cpu.cfs_quota_us'))) return V1;
  const v2Controllers = join(V2.root, 'cgroup.subtree_control');
  if (existsSync(v2Controllers) && readFileSync(v2Controllers, 'utf8').split(/\s+/).includes('cpu'))
    return V2;
  return undefined;
}

function writableLayout(): Layout | undefined {
  const layout = cpuLayout();
  if (layout === undefined) return undefined;
  try {
    accessSync(layout.root, constants.W_OK);
    return layout;
  } catch {
    return undefined;
  }
}

/** Whether this machine lets the harness hold processes to a share of a CPU. */
export const cpuShareSupported = () => writableLayout() !== undefined;

/** The folder CPU groups are made in, where the machine lets the harness make them. */
export const cpuGroupsRoot = () => writableLayout()?.root;

/** A CPU cgroup holding the processes moved into it to `share` of one CPU. */
export class CpuShareGroup {
  private constructor(private readonly path: string) {}

  /** Makes the group, or throws saying why it cannot. */
  static create(name: string, share: number): CpuShareGroup {
    if (!(share > 0 && share <= 1)) throw new RangeError(`a CPU share is in (0, 1], not ${share}`);
    const layout = writableLayout();
    if (layout === undefined) throw new Error('no writable cgroup CPU controller on this machine');
    const path = join(layout.root, name);
    mkdirSync(path, { recursive: true });
    // The kernel takes no quota under 1 ms.
    const quota = Math.max(1_000, Math.round(share * CPU_PERIOD_US));
    if (layout.version === 1) {
      writeFileSync(join(path, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
      writeFileSync(join(path, 'cpu.cfs_quota_us'), String(quota));
    } else {
      writeFileSync(join(path, 'cpu.max'), `${quota} ${CPU_PERIOD_US}`);
    }
    return new CpuShareGroup(path);
  }

  /** Moves a process, all its threads, into the group. */
  add(pid: number): void {
    writeFileSync(join(this.path, 'cgroup.procs'), String(pid));
  }

  /** Removes the group once its processes have ended. */
  remove(): void {
    try {
      rmdirSync(this.path);
    } catch {
      // A process not yet reaped keeps the group busy; an empty group left behind holds nothing.
    }
  }
}
