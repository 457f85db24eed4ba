/** The small parts of workflows as code: durations, retry waits, codecs, the seeded generator. */
import { describe, expect, it } from 'vitest';
import {
  ActivityFailedError,
  ActivityTimedOutError,
  CanceledError,
  durationSeconds,
  jsonCodec,
  PayloadError,
  textCodec,
} from '../../lib/sdk/index.js';
import { decodePayload, encodePayload } from '../../lib/sdk/workflow/codec.js';
import { SeededRandom } from '../../lib/sdk/workflow/random.js';
import { checkRetryPolicy, retryDelaySeconds, shouldRetry } from '../../lib/sdk/workflow/retry.js';

describe('durations', () => {
  it('take seconds, or a number with a unit; a fraction rounds up', () => {
    expect(
      [5, 1.2, '90', '90s', '5m', '1.5h', '2d', '0'].map((d) => durationSeconds(d as never)),
    ).toEqual([5, 2, 90, 90, 300, 5400, 172800, 0]);
  });

  it('refuse anything else, saying what', () => {
    expect(() => durationSeconds(-1, 'the sleep duration')).toThrow(
      /the sleep duration must be a duration of 0 seconds or more, not -1/,
    );
    expect(() => durationSeconds('5 minutes' as never)).toThrow(/such as '5m', not '5 minutes'/);
    expect(() => durationSeconds(Number.NaN)).toThrow(RangeError);
  });
});

describe('retry policies', () => {
  const type = { name: 'A', version: '1' };
  const failed = (reason: string) => new ActivityFailedError('1', type, 9, reason, undefined);

  it('wait initialInterval × coefficient^(attempt-1), at most maximumInterval, in whole seconds', () => {
    const policy = { initialInterval: 1, backoffCoefficient: 2, maximumInterval: 5 };
    expect([1, 2, 3, 4, 5].map((n) => retryDelaySeconds(policy, n))).toEqual([1, 2, 4, 5, 5]);
    expect(retryDelaySeconds({ initialInterval: '1.5s', backoffCoefficient: 1.5 }, 2)).toBe(3);
  });

  it('retry failures and timeouts until maximumAttempts, not cancellations or non-retryable reasons', () => {
    const policy = { maximumAttempts: 3, nonRetryableReasons: ['Fatal'] };
    expect(shouldRetry(policy, failed('Busy'), 1)).toBe(true);
    expect(shouldRetry(policy, failed('Busy'), 3)).toBe(false);
    expect(shouldRetry(policy, failed('Fatal'), 1)).toBe(false);
    expect(
      shouldRetry(policy, new ActivityTimedOutError('1', type, 9, 'START_TO_CLOSE', undefined), 1),
    ).toBe(true);
    expect(
      shouldRetry(
        { ...policy, retryTimeouts: false },
        new ActivityTimedOutError('1', type, 9, 'HEARTBEAT', undefined),
        1,
      ),
    ).toBe(false);
    expect(shouldRetry(policy, new CanceledError('activity A'), 1)).toBe(false);
    expect(shouldRetry({}, failed('Busy'), 4)).toBe(true);
    expect(shouldRetry({}, failed('Busy'), 5)).toBe(false);
  });

  it('are checked when defined', () => {
    expect(() => checkRetryPolicy({ maximumAttempts: 0 })).toThrow(
      /maximumAttempts must be a whole number of 1 or more/,
    );
    expect(() => checkRetryPolicy({ backoffCoefficient: 0.5 })).toThrow(
      /backoffCoefficient must be 1 or more/,
    );
  });
});

describe('codecs', () => {
  it('JSON both ways, no value as no text; text as it is', () => {
    expect(jsonCodec.encode({ a: [1] })).toBe('{"a":[1]}');
    expect(jsonCodec.encode(undefined)).toBeUndefined();
    expect(jsonCodec.decode(undefined)).toBeUndefined();
    expect(textCodec.encode('plain')).toBe('plain');
    expect(textCodec.encode({ a: 1 })).toBe('{"a":1}');
    expect(textCodec.decode('plain')).toBe('plain');
  });

  it("refuse a payload over SWF's limit, or one that cannot be read, naming it", () => {
    expect(() => encodePayload(jsonCodec, 'x'.repeat(32_767), 'the input of activity A')).toThrow(
      new PayloadError(
        'the input of activity A',
        'is 32769 characters encoded; SWF takes at most 32768',
      ),
    );
    expect(encodePayload(jsonCodec, 'x'.repeat(32_766), 'ok')).toHaveLength(32_768);
    expect(() => decodePayload(jsonCodec, '{', 'the result of activity A')).toThrow(
      /^The result of activity A cannot be decoded: /,
    );
    expect(() => encodePayload(jsonCodec, 10n, 'a value')).toThrow(/^A value cannot be encoded: /);
  });
});

describe('the seeded generator', () => {
  it('gives the same numbers for the same seed, and others for another', () => {
    const draw = (seed: string) => {
      const r = new SeededRandom(seed);
      return [r.next(), r.next(), r.uuid()];
    };
    expect(draw('wf/run-1')).toEqual(draw('wf/run-1'));
    expect(draw('wf/run-1')).not.toEqual(draw('wf/run-2'));
  });

  it('spreads its numbers over [0, 1)', () => {
    const r = new SeededRandom('spread');
    const buckets = new Array(10).fill(0);
    for (let i = 0; i < 10_000; i++) buckets[Math.floor(r.next() * 10)]++;
    for (const count of buckets) expect(count).toBeGreaterThan(850);
  });
});
