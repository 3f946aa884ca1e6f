/**
 * The outcome of a rule, a plan and a step: exactly four, one name each, no boolean "requeue".
 * Combined as fail > retry > wait > complete; among retries the earliest wins (`lib/reconcile/engine/outcome.ts`).
 */

/** Converged: nothing left to do; only the periodic sweep will look again. */
export type CompleteOutcome = { readonly kind: 'complete'; readonly message?: string };

/** Blocked until something announces itself (a watch event); no timer is armed for it. */
export type WaitOutcome = { readonly kind: 'wait'; readonly message: string };

/** Progress made or polling: come back after `afterMs`. Resets the failure counter (a deliberate requeue). */
export type RetryOutcome = { readonly kind: 'retry'; readonly afterMs: number; readonly message: string };

/**
 * Something went wrong. A non-terminal failure backs off (1 s → 100 s) and counts as a failure; a
 * terminal one (invalid spec, malformed input) is not retried until the input changes.
 */
export type FailOutcome = { readonly kind: 'fail'; readonly error: string; readonly terminal: boolean };

/** One of the four outcomes. */
export type Outcome = CompleteOutcome | WaitOutcome | RetryOutcome | FailOutcome;

/** The outcome names, as recorded in summaries, history and metrics. */
export type OutcomeKind = Outcome['kind'];
