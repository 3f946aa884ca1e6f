/**
 * Turns an API server error answer into the typed errors the step engine understands, keeping the
 * Status message (it names the object and the reason, e.g. `pods "x" not found`) and the Status
 * itself as `cause`.
 */
import { ConflictError, NotFoundError, TerminalError, TransientError } from '../platform/errors.js';

/** The parts of a `Status` body that matter, kept as the `cause` of every mapped error. */
export class KubeStatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'KubeStatusError';
  }
}

/**
 * Maps an HTTP status ≥ 400: 404 → `NotFoundError`; 409 → `ConflictError` (the message says
 * whether the object already exists or a precondition/resourceVersion failed); 429, 5xx, 401
 * (e.g. an expired token: a fresh one is minted on retry) and 410 (an expired continue token: the
 * sweep restarts) → `TransientError`; everything else (400, 403, 405, 422, …) → `TerminalError`.
 */
export function kubeError(what: string, status: number, text: string): Error {
  const { reason, message } = parseStatus(status, text);
  const cause = new KubeStatusError(status, reason, message);
  if (status === 404) return new NotFoundError(`${what}: not found: ${message}`, { cause });
  if (status === 409) {
    const kindOfConflict = reason === 'AlreadyExists' ? 'already exists' : 'conflict';
    return new ConflictError(`${what}: ${kindOfConflict}: ${message}`, { cause });
  }
  if (status === 429 || status >= 500 || status === 401 || status === 410) {
    return new TransientError(`${what}: ${status} ${reason}: ${message}`, { cause });
  }
  return new TerminalError(`${what}: ${status} ${reason}: ${message}`, { cause });
}

/** True for the `ConflictError` of a create whose name is taken (reason AlreadyExists). */
export function isAlreadyExists(err: unknown): boolean {
  return err instanceof ConflictError && err.cause instanceof KubeStatusError && err.cause.reason === 'AlreadyExists';
}

function parseStatus(status: number, text: string): { reason: string; message: string } {
  try {
    const body = JSON.parse(text) as { kind?: unknown; reason?: unknown; message?: unknown };
    if (body && body.kind === 'Status') {
      return { reason: typeof body.reason === 'string' ? body.reason : 'Unknown', message: typeof body.message === 'string' ? body.message : '' };
    }
  } catch {
    // Not a Status (a proxy or load balancer answered): keep the text.
  }
  return { reason: `HTTP${status}`, message: text.slice(0, 1000) };
}
