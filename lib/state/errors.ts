/**
 * Turns AWS SDK DynamoDB errors into the typed errors of `lib/platform/errors.ts`, keeping the SDK
 * error as `cause`. The rule: a lost condition is a conflict; anything that may pass on its own
 * (throttling, 5xx, timeouts, aborted or broken connections) is transient; a request DynamoDB
 * rejects as malformed is terminal.
 */

import { ConflictError, ReconcilerError, TerminalError, TransientError } from '../platform/errors.js';

const CONFLICT = new Set(['ConditionalCheckFailedException', 'TransactionConflictException']);

const TRANSIENT = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'LimitExceededException',
  'AbortError',
  'TimeoutError',
]);

const TERMINAL = new Set([
  'ValidationException',
  'ResourceNotFoundException',
  'SerializationException',
  'UnknownOperationException',
  'ItemCollectionSizeLimitExceededException',
  'AccessDeniedException',
  'UnrecognizedClientException',
]);

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);

type SdkLike = {
  name?: unknown;
  code?: unknown;
  $fault?: unknown;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: unknown };
};

/**
 * Maps `err` from a DynamoDB call described by `what` (e.g. `claim eks/ns/tc`) to a typed error.
 * Errors that are already typed pass through. Unknown errors count as transient: a retry with
 * backoff (and eventually the DLQ) is safer than dropping a step.
 */
export function mapDynamoError(err: unknown, what: string): ReconcilerError {
  if (err instanceof ReconcilerError) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as SdkLike;
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const message = `${what}: ${name}${err instanceof Error && err.message ? `: ${err.message}` : ''}`;
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;

  if (CONFLICT.has(name)) return new ConflictError(message, { cause: err });
  if (TRANSIENT.has(name) || isNetworkError(e) || e.$retryable !== undefined) {
    return new TransientError(message, { cause: err });
  }
  if (TERMINAL.has(name)) return new TerminalError(message, { cause: err });
  if (e.$fault === 'server' || (status !== undefined && status >= 500) || status === 429) {
    return new TransientError(message, { cause: err });
  }
  if (e.$fault === 'client' || (status !== undefined && status >= 400)) {
    return new TerminalError(message, { cause: err });
  }
  return new TransientError(message, { cause: err });
}

function isNetworkError(e: SdkLike): boolean {
  return typeof e.code === 'string' && NETWORK_CODES.has(e.code);
}
