/**
 * Building and combining outcomes. As TiDB Operator v2's task results: fail > retry > wait >
 * complete; unlike v2 (which keeps the *longest* requeue), among retries the *earliest* wins, as the
 * kube-rs scheduler does — a rule that needs to look again in 5 s must not be delayed by one that is
 * content with 60 s.
 */

import { briefDuration } from '../../platform/duration.js';
import type { CompleteOutcome, FailOutcome, Outcome, RetryOutcome, WaitOutcome } from '../../model/outcome.js';

/** Converged. */
export function complete(message?: string): CompleteOutcome {
  return message === undefined ? { kind: 'complete' } : { kind: 'complete', message };
}

/** Blocked until an event; no timer. */
export function wait(message: string): WaitOutcome {
  return { kind: 'wait', message };
}

/**
 * The look-again of a rule that just changed what it acts on (a failure mark written, a member
 * deleted, replicas raised with more to come): the next step runs at once, as nothing else has to
 * happen before it can go on — no watch event's flush window, no poll interval.
 */
export const AT_ONCE_MS = 0;

/** Come back after `afterMs` (negative values count as 0). */
export function retry(afterMs: number, message: string): RetryOutcome {
  return { kind: 'retry', afterMs: Math.max(0, afterMs), message };
}

/** Failed; `terminal` failures are not retried. */
export function fail(error: string, terminal = false): FailOutcome {
  return { kind: 'fail', error, terminal };
}

const RANK: Record<Outcome['kind'], number> = { complete: 0, wait: 1, retry: 2, fail: 3 };

/**
 * Combines outcomes into one. Guarantees: the strongest kind wins (fail > retry > wait > complete);
 * two retries give the earlier `afterMs` with its message; two failures give one failure whose error
 * lists both and which is terminal only if both are (a retryable failure still deserves its retry).
 * Two waits or two completes keep the first. An empty list is `complete`.
 */
export function combineOutcomes(outcomes: readonly Outcome[]): Outcome {
  let combined: Outcome = complete();
  for (const next of outcomes) combined = combineTwo(combined, next);
  return combined;
}

function combineTwo(a: Outcome, b: Outcome): Outcome {
  if (RANK[a.kind] !== RANK[b.kind]) return RANK[a.kind] > RANK[b.kind] ? a : b;
  if (a.kind === 'retry' && b.kind === 'retry') return b.afterMs < a.afterMs ? b : a;
  if (a.kind === 'fail' && b.kind === 'fail') {
    return fail(`${a.error}; ${b.error}`, a.terminal && b.terminal);
  }
  // complete/complete keeps a message if either has one; wait/wait keeps the first reason.
  if (a.kind === 'complete' && a.message === undefined) return b;
  return a;
}

/** A one-line description for logs: `retry in 5s: waiting for PD`, `fail (terminal): …`. */
export function describeOutcome(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'complete':
      return outcome.message === undefined ? 'complete' : `complete: ${outcome.message}`;
    case 'wait':
      return `wait: ${outcome.message}`;
    case 'retry':
      return `retry in ${briefDuration(outcome.afterMs)}: ${outcome.message}`;
    case 'fail':
      return `fail${outcome.terminal ? ' (terminal)' : ''}: ${outcome.error}`;
    default: {
      const never: never = outcome;
      return String(never);
    }
  }
}
