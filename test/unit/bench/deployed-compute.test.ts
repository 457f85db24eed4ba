import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  computeText,
  deployedCompute,
  deployedMemoryMb,
} from '../../../bench/scenarios/deployed-compute.js';
import {
  CpuShareGroup,
  cpuGroupsRoot,
  cpuShareSupported,
} from '../../support/deployed/cpu-share.js';
import { LambdaContainers } from '../../support/deployed/lambda-containers.js';

describe('the deployed scenario’s compute', () => {
  it('measures the stack’s memory size unless told another, and refuses a size Lambda has not', () => {
    expect(deployedMemoryMb(undefined)).toBe(512);
    expect(deployedMemoryMb('')).toBe(512);
    expect(deployedMemoryMb('128')).toBe(128);
    for (const bad of ['64', '10241', '200.5', 'lots'])
      expect(() => deployedMemoryMb(bad)).toThrow(/BENCH_API_MEMORY_MB must be a whole number/);
  });

  it('has the bench exit 2 with the reason on a size Lambda has not, before it starts anything', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'bench/run.ts', '--only', 'deployed'],
      {
        env: { ...process.env, BENCH_API_MEMORY_MB: '100' },
        encoding: 'utf8',
      },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      "BENCH_API_MEMORY_MB must be a whole number of megabytes from 128 to 10240, not '100'",
    );
    expect(run.stderr).toContain('usage: npm run bench');
  });

  it('holds a container to the share of a vCPU Lambda gives its size, and prices its milliseconds', () => {
    const small = deployedCompute(128, true);
    expect(small.cpuShare).toBeCloseTo(128 / 1_769);
    // 1,000 ms at 0.125 GB on Arm.
    expect(small.dollarsPerMs * 1_000).toBeCloseTo(0.125 * 0.0000133334, 12);
    expect(deployedCompute(3_008, true).cpuShare).toBe(1);
    expect(computeText(deployedCompute(512, true))).toBe('512 MB, CPU held to 28.9 % of a vCPU');
    const unheld = deployedCompute(512, false);
    expect(unheld.cpuShare).toBeUndefined();
    expect(computeText(unheld)).toBe('512 MB, CPU not held to its share: no writable cgroup');
  });
});

/** CPU milliseconds a busy child process gets in one second of wall-clock time, in `group` if given. */
async function busySecond(group?: CpuShareGroup): Promise<number> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `process.stdin.once('data', () => {
        const start = process.cpuUsage(); const end = Date.now() + 1000;
        while (Date.now() < end);
        const used = process.cpuUsage(start);
        process.stdout.write(String((used.user + used.system) / 1000)); process.exit(0);
      });`,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  if (group !== undefined && child.pid !== undefined) group.add(child.pid);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stdin.write('go\n');
  await once(child, 'exit');
  return Number(out);
}

describe('holding a process to a share of a CPU', () => {
  it('gives a busy process about its share where the machine allows, and says so where not', async () => {
    if (!cpuShareSupported()) {
      expect(() => CpuShareGroup.create(`swf-test-${process.pid}`, 0.1)).toThrow(
        'no writable cgroup CPU controller on this machine',
      );
      return;
    }
    const group = CpuShareGroup.create(`swf-test-${process.pid}`, 0.1);
    try {
      const held = await busySecond(group);
      const free = await busySecond();
      expect(held).toBeLessThan(200);
      // Beside the other suites a free process may get only a third of a core: twice the held
      // one's time still tells a limit from a busy machine.
      expect(free).toBeGreaterThan(2 * held);
    } finally {
      group.remove();
    }
  });

  it('refuses a share outside (0, 1]', () => {
    for (const share of [0, -0.5, 1.5, Number.NaN])
      expect(() => CpuShareGroup.create('swf-test-never', share)).toThrow(/a CPU share is in/);
  });
});

describe('a Lambda container held to its share', () => {
  const containers = () =>
    new LambdaContainers({
      timeoutMs: 1_000,
      cpuShare: 0.25,
      settings: {
        functionName: 'held',
        dynamoEndpoint: 'http://127.0.0.1:9',
        tableName: 'none',
        region: 'us-east-1',
        accountId: '000000000000',
        polling: {},
      },
    });

  it('is moved into a group of its own once started, which goes when it exits', async () => {
    const root = cpuGroupsRoot();
    const held = containers();
    try {
      if (root === undefined) {
        await expect(held.warm(1)).rejects.toThrow('no writable cgroup CPU controller');
        return;
      }
      const ours = () =>
        readdirSync(root).filter((n) => n.startsWith(`swf-lambda-${process.pid}-`));
      await held.warm(1);
      const [group, ...others] = ours();
      expect(others).toEqual([]);
      const pids = readFileSync(join(root, group ?? 'none', 'cgroup.procs'), 'utf8').trim();
      expect(group).toBe(`swf-lambda-${process.pid}-${pids}`);
      await held.close();
      expect(ours()).toEqual([]);
    } finally {
      await held.close();
    }
  });
});
