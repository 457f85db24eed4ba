/** The bench table's verdicts: each row judged on the figure its target names. */
import { describe, expect, it } from 'vitest';
import { buildTable } from '../../../bench/report.js';

const distribution = (p99: number) => ({ count: 60, p50: p99 / 2, p99, max: p99, mean: p99 / 2 });

describe('the bench table', () => {
  it("judges idle polls on the service's own CPU, with DynamoDB Local's beside it", () => {
    const row = (serviceCore: number) =>
      buildTable({ idle: { polls: 1_000, serviceCore, dynamoCore: 0.4, windowMs: 10_000 } })[0];
    expect(row(0.079)).toMatchObject({
      verdict: 'met',
      measured: 'service 7.9 % of a core; DynamoDB Local 40.0 % of a core',
    });
    expect(row(0.1)?.verdict).toBe('MISSED');
  });

  it('judges a replay on its wall time, as its target says, whatever its CPU time', () => {
    const row = (wallP99: number, cpuP99: number) =>
      buildTable({
        replay: {
          sizes: [
            {
              events: 10_000,
              steps: 2_000,
              ms: distribution(wallP99),
              cpuMs: distribution(cpuP99),
              heapUsedMb: 40,
            },
          ],
        },
      })[0]?.verdict;
    expect(row(30, 12)).toBe('met');
    expect(row(80, 12)).toBe('MISSED');
  });
});
