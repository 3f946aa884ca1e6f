/**
 * Per-key failure backoff, as TiDB Operator's rate limiter (1 s → 100 s), with jitter.
 */

import type { BackoffPolicy } from '../model/config.js';

/**
 * The wait after the `failures`-th consecutive failure: `baseMs · 2^(failures−1)` capped at `maxMs`,
 * then shortened by `random() · jitterRatio` of itself. Guarantees: 0 for `failures ≤ 0`; never above
 * `maxMs`; never below `(1 − jitterRatio)` of the un-jittered value; a whole number of milliseconds.
 * Jitter only shortens, so the cap holds and keys that failed together spread out.
 */
export function backoffDelayMs(failures: number, policy: BackoffPolicy, random: () => number): number {
  if (!(failures > 0)) return 0;
  // 2^52 already exceeds any cap; bounding the exponent keeps the arithmetic finite.
  const exponent = Math.min(failures - 1, 52);
  const cappedMs = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
  const jitterMs = cappedMs * policy.jitterRatio * Math.min(Math.max(random(), 0), 1);
  return Math.ceil(cappedMs - jitterMs);
}
