import { describe, expect, it } from '@jest/globals';

import { backoffDelayMs } from '../../lib/step/backoff.js';

const OPERATOR = { baseMs: 1_000, maxMs: 100_000, jitterRatio: 0 };

describe('failure backoff: 1 s × 2^(failures−1), capped at 100 s, jittered downwards', () => {
  it.each([
    { name: 'no failure, no wait', failures: 0, expectedMs: 0 },
    { name: 'a negative count, no wait', failures: -3, expectedMs: 0 },
    { name: 'the first failure waits the base', failures: 1, expectedMs: 1_000 },
    { name: 'the second doubles', failures: 2, expectedMs: 2_000 },
    { name: 'the fifth', failures: 5, expectedMs: 16_000 },
    { name: 'the seventh is 64 s', failures: 7, expectedMs: 64_000 },
    { name: 'the eighth hits the cap', failures: 8, expectedMs: 100_000 },
    { name: 'the hundredth stays at the cap', failures: 100, expectedMs: 100_000 },
    { name: 'an absurd count stays finite and capped', failures: 10_000, expectedMs: 100_000 },
  ])('$name', ({ failures, expectedMs }) => {
    expect(backoffDelayMs(failures, OPERATOR, () => 0.5)).toBe(expectedMs);
  });

  it.each([
    { name: 'random 0 keeps the full delay', random: 0, expectedMs: 16_000 },
    { name: 'random 0.5 takes off half the jitter ratio', random: 0.5, expectedMs: 15_200 },
    { name: 'random just below 1 takes off almost the whole ratio', random: 0.999_999, expectedMs: 14_401 },
    { name: 'random out of range is clamped', random: 7, expectedMs: 14_400 },
  ])('jitter shortens, never lengthens: $name', ({ random, expectedMs }) => {
    const policy = { ...OPERATOR, jitterRatio: 0.1 };
    expect(backoffDelayMs(5, policy, () => random)).toBe(expectedMs);
  });

  it('jitter never pushes a capped delay above the cap', () => {
    const policy = { ...OPERATOR, jitterRatio: 0.5 };
    const delays = Array.from({ length: 50 }, (_, i) => backoffDelayMs(30, policy, () => i / 50));
    expect(Math.max(...delays)).toBeLessThanOrEqual(100_000);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(50_000);
  });
});
