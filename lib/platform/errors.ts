/**
 * Typed errors thrown by adapters. The step engine is the one place that turns them into outcomes:
 * `ConflictError` and `TransientError` retry, `TerminalError` does not, `NotFoundError` is usually a
 * fact to act on. Each keeps the underlying `cause`.
 */

/** Base class: `retryable` tells the engine whether backing off and trying again can help. */
export abstract class ReconcilerError extends Error {
  abstract readonly retryable: boolean;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The object (or PD member/store) does not exist. */
export class NotFoundError extends ReconcilerError {
  readonly retryable = true;
}

/** A write lost a race: stale resourceVersion, lease held by another step, condition failed. */
export class ConflictError extends ReconcilerError {
  readonly retryable = true;
}

/** The remote end failed in a way that may pass: timeout, 5xx, 429, connection reset. */
export class TransientError extends ReconcilerError {
  readonly retryable = true;
}

/** Retrying cannot help until the input changes: invalid spec, malformed message, bad request. */
export class TerminalError extends ReconcilerError {
  readonly retryable = false;
  /** The field the problem is about, e.g. `spec.pd.replicas`, when there is one. */
  readonly field: string | undefined;
  constructor(message: string, options?: { cause?: unknown; field?: string }) {
    super(message, options);
    this.field = options?.field;
  }
}
