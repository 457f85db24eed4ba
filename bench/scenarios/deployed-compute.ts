/**
 * The compute the `deployed` scenario's API function runs on: the stack's memory size (or
 * BENCH_API_MEMORY_MB's, to weigh another), and the share of a vCPU Lambda gives that size, to
 * which each container is held where the machine allows (test/support/deployed/cpu-share.ts).
 * Without that hold a container runs on a full core, and its calls are faster than Lambda's.
 */
import { LAMBDA_MEMORY_MB } from '../../infra/constructs/swf-api.js';
import { cpuShareSupported } from '../../test/support/deployed/cpu-share.js';
import { apiMemoryMb, gbSecondPrice, vcpuShare } from '../metering/cost-model.js';
import { US_EAST_1 } from '../metering/prices.js';
import { DEPLOYED_LAMBDA } from './cost.js';

export interface DeployedCompute {
  readonly memoryMb: number;
  /** The share of one vCPU each container is held to; undefined where the machine cannot hold it. */
  readonly cpuShare: number | undefined;
  /** Dollars per millisecond of one invocation at this size. */
  readonly dollarsPerMs: number;
}

/** The memory size to measure: the stack's, unless `override` (BENCH_API_MEMORY_MB) names another. */
export function deployedMemoryMb(override: string | undefined): number {
  if (override === undefined || override === '') return apiMemoryMb(DEPLOYED_LAMBDA);
  const mb = Number(override);
  const { least, most } = LAMBDA_MEMORY_MB;
  if (!Number.isInteger(mb) || mb < least || mb > most)
    throw new RangeError(
      `BENCH_API_MEMORY_MB must be a whole number of megabytes from ${least} to ${most}, not '${override}'`,
    );
  return mb;
}

export function deployedCompute(memoryMb: number, holdCpu = cpuShareSupported()): DeployedCompute {
  return {
    memoryMb,
    cpuShare: holdCpu ? vcpuShare(memoryMb) : undefined,
    dollarsPerMs: ((memoryMb / 1024) * gbSecondPrice(US_EAST_1, DEPLOYED_LAMBDA)) / 1000,
  };
}

/** How the report names the compute: its memory, and the CPU it was held to or not. */
export const computeText = (c: DeployedCompute) =>
  c.cpuShare === undefined
    ? `${c.memoryMb} MB, CPU not held to its share: no writable cgroup`
    : `${c.memoryMb} MB, CPU held to ${(c.cpuShare * 100).toFixed(1)} % of a vCPU`;
