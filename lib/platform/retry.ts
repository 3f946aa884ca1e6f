/**
 * Retrying a remote call inside one step: bounded attempts, full-jitter exponential backoff
 * (AWS's "full jitter": a uniformly random wait in [0, min(cap, base·2^n)]), a server's
 * `Retry-After` honoured as the least wait, and never a sleep that would end past the caller's
 * deadline. Sleeps are on the injected `Clock` and jitter comes from the injected `random`, so a
 * simulation stays on virtual time and repeats for a seed. What may be retried is the caller's
 * call (`RetryCall.isRetryable`): reads on any transient failure, writes only when repeating them
 * is safe (see the Kubernetes and component clients).
 */
import type { Clock } from './clock.js';

/** How hard to try: `attempts` in all (the first included), waits from `baseMs` doubling up to `capMs`. */
export type RetryPolicy = { readonly attempts: number; readonly baseMs: number; readonly capMs: number };

/**
 * The default: 8 attempts, 100 ms doubling to at most 3 s (at most about 9 s of waiting, well inside
 * a step's budget). At a 30 % failure rate the chance that all eight fail is under 0.01 %, so a step
 * of some twenty calls almost never loses one; the expected wait per call stays well under a second.
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 8, baseMs: 100, capMs: 3_000 };

/** A policy that never retries (one attempt). */
export const NO_RETRY: RetryPolicy = { attempts: 1, baseMs: 0, capMs: 0 };

/** What a retry loop runs on: its clock, its randomness and the time by which it must have given up. */
export type RetryContext = {
  readonly policy: RetryPolicy;
  readonly clock: Clock;
  /** Uniform in [0, 1); seeded in simulations. */
  readonly random: () => number;
  /** No wait may end after this (on `clock`); undefined means no deadline. */
  readonly deadlineAtMs?: number;
};

/** How one call is retried: whether a failure may be retried, and the wait the server asked for. */
export type RetryCall = {
  readonly isRetryable: (err: unknown) => boolean;
  /** The server's Retry-After in milliseconds, when the failure carries one. */
  readonly retryAfterMs?: (err: unknown) => number | undefined;
  /**
   * Whether a retryable failure is repeated at once, with no wait (and no draw of the jitter): for
   * a failure that says nothing about time, only about where the request went.
   */
  readonly repeatAtOnce?: (err: unknown) => boolean;
};

/**
 * The wait before retry number `retry` (0 for the first retry): full jitter over
 * `min(capMs, baseMs·2^retry)`, and at least `retryAfterMs` when the server asked for it (a server
 * that says when to come back knows better than our backoff).
 */
export function retryDelayMs(policy: RetryPolicy, retry: number, random: () => number, retryAfterMs?: number): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, retry));
  const jittered = Math.floor(Math.min(Math.max(random(), 0), 1 - Number.EPSILON) * ceiling);
  return retryAfterMs !== undefined && retryAfterMs > jittered ? retryAfterMs : jittered;
}

/**
 * Runs `attempt` until it succeeds, fails with an error `call` does not retry, runs out of
 * attempts, or the next wait would end past the deadline; then throws the last error unchanged.
 * `attempt` gets the attempt number (0 first), so a caller can tell a first try from a repeat.
 */
export async function withRetries<T>(ctx: RetryContext, call: RetryCall, attempt: (n: number) => Promise<T>): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      if (n + 1 >= ctx.policy.attempts || !call.isRetryable(err)) throw err;
      if (call.repeatAtOnce?.(err) === true) continue;
      const waitMs = retryDelayMs(ctx.policy, n, ctx.random, call.retryAfterMs?.(err));
      if (ctx.deadlineAtMs !== undefined && ctx.clock.nowMs() + waitMs >= ctx.deadlineAtMs) throw err;
      await ctx.clock.sleep(waitMs);
    }
  }
}

/** Parses an HTTP `Retry-After` given in seconds (the form the API server sends); else undefined. */
export function parseRetryAfterSeconds(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value.trim());
}
