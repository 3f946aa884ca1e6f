/**
 * Tying an adapter call to the step's time budget. The clients carry their own per-call timeout and
 * the invocation's deadline; the step's `signal` additionally ends a call when the step's work budget
 * runs out (the engine keeps a safety margin of the budget for its commit), so no read or write of a
 * step outlives the part of the invocation it was given.
 */

import { ReconcilerError, TransientError } from '../platform/errors.js';

/**
 * Settles like `promise`, unless `signal` aborts first: then it rejects with the abort's reason (a
 * `TransientError` from the step budget), or a `TransientError` naming `what` when the reason is not
 * one of ours. A call already aborted is not started (`start` is not called).
 */
export async function withinBudget<T>(signal: AbortSignal, what: string, start: () => Promise<T>): Promise<T> {
  if (signal.aborted) throw abortError(signal, what);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(abortError(signal, what));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([start(), aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/** The error a budget abort surfaces as. */
export function abortError(signal: AbortSignal, what: string): ReconcilerError {
  const reason: unknown = signal.reason;
  if (reason instanceof ReconcilerError) return reason;
  return new TransientError(`${what} abandoned: the step's time budget ran out`, { cause: reason });
}
