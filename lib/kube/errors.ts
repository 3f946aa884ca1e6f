/**
 * Turns an API server error answer into the typed errors the step engine understands, keeping the
 * Status message (it names the object and the reason, e.g. `pods "x" not found`) and the Status
 * itself as `cause`.
 */
import { clipForEcho } from '../model/echo.js';
import { ConflictError, NotFoundError, ReconcilerError, TerminalError, TransientError } from '../platform/errors.js';

/** The parts of a `Status` body that matter, kept as the `cause` of every mapped error. */
export class KubeStatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    /** How long the server asked the client to wait (its `Retry-After`), when it did. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'KubeStatusError';
  }
}

/**
 * Maps an HTTP status ≥ 400: 404 → `NotFoundError`; 409 → `ConflictError` (the message says
 * whether the object already exists or a precondition/resourceVersion failed); 429, 5xx and 410
 * (an expired continue token: the listing restarts) → `TransientError`; 401 → `TerminalError`
 * saying the credentials were refused (`KubeHttp` has already dropped a cached EKS token and
 * retried once with a fresh one, `credentialsRefreshed`); everything else (400, 403, 405, 422, …)
 * → `TerminalError`.
 */
export function kubeError(what: string, status: number, text: string, retryAfterSeconds?: number, credentialsRefreshed = false): Error {
  const { reason, message, detailsRetryAfterSeconds } = parseStatus(status, text);
  const retryAfter = retryAfterSeconds ?? detailsRetryAfterSeconds;
  const cause = new KubeStatusError(status, reason, message, retryAfter === undefined ? undefined : retryAfter * 1000);
  if (status === 404) return new NotFoundError(`${what}: not found: ${message}`, { cause });
  if (status === 409) {
    const kindOfConflict = reason === 'AlreadyExists' ? 'already exists' : 'conflict';
    return new ConflictError(`${what}: ${kindOfConflict}: ${message}`, { cause });
  }
  if (status === 401) {
    const tried = credentialsRefreshed ? ', a freshly minted token too (check the IAM role and its EKS access entry)' : '';
    return new TerminalError(`${what}: 401 ${reason}: the API server refused our credentials${tried}: ${message}`, { cause });
  }
  if (status === 429 || status >= 500 || status === 410) {
    return new TransientError(`${what}: ${status} ${reason}: ${message}`, { cause });
  }
  return new TerminalError(`${what}: ${status} ${reason}: ${message}`, { cause });
}

/**
 * Whether a failed Kubernetes call may pass if simply repeated: an answer of 429 or a 5xx other
 * than 501 (the server is overloaded or failed on its side), or no answer at all — a timeout or a
 * network failure (connection refused or reset). 401, 410 and 409 are not: a repeat gets the same
 * answer (409 means re-observe, next step). Whether repeating is also *safe* is the caller's call.
 */
export function isRetryableKubeFailure(err: unknown): boolean {
  if (!(err instanceof TransientError)) return false;
  if (!(err.cause instanceof KubeStatusError)) return !isNotAttempted(err);
  const code = err.cause.code;
  return code === 429 || (code >= 500 && code !== 501);
}

/** The wait a failed call's server asked for (its Retry-After), in milliseconds. */
export function retryAfterMsOf(err: unknown): number | undefined {
  return err instanceof ReconcilerError && err.cause instanceof KubeStatusError ? err.cause.retryAfterMs : undefined;
}

/** A call refused before it was sent because the deadline had passed: repeating it cannot help. */
function isNotAttempted(err: TransientError): boolean {
  return err.cause instanceof DeadlinePassedError;
}

/** The `cause` of the `TransientError` for a call not attempted because its deadline had passed. */
export class DeadlinePassedError extends Error {
  constructor() {
    super('the deadline has passed');
    this.name = 'DeadlinePassedError';
  }
}

/** True for the `ConflictError` of a create whose name is taken (reason AlreadyExists). */
export function isAlreadyExists(err: unknown): boolean {
  return err instanceof ConflictError && err.cause instanceof KubeStatusError && err.cause.reason === 'AlreadyExists';
}

function parseStatus(status: number, text: string): { reason: string; message: string; detailsRetryAfterSeconds?: number } {
  try {
    const body = JSON.parse(text) as { kind?: unknown; reason?: unknown; message?: unknown; details?: { retryAfterSeconds?: unknown } };
    if (body && body.kind === 'Status') {
      const after = body.details?.retryAfterSeconds;
      return {
        reason: typeof body.reason === 'string' ? body.reason : 'Unknown',
        // A Status message may quote what was sent (a 422 quotes the invalid value): at most 1 KB of it.
        message: typeof body.message === 'string' ? clipForEcho(body.message) : '',
        ...(typeof after === 'number' && Number.isFinite(after) && after >= 0 ? { detailsRetryAfterSeconds: after } : {}),
      };
    }
  } catch {
    // Not a Status (a proxy or load balancer answered): keep the text.
  }
  return { reason: `HTTP${status}`, message: clipForEcho(text) };
}
