/**
 * One wrapper for every AWS SDK call the queue and timer adapters make: each call gets a deadline
 * (an `AbortSignal`, so a hung connection cannot eat the Lambda's remaining time, as kubernetes-client/javascript#2432 showed for watches) and
 * every failure leaves as one of the typed errors the step engine understands, with `cause` kept.
 */

import { ConflictError, NotFoundError, TerminalError, TransientError } from '../platform/errors.js';

/** Error names (SDK `name`) that mean "the thing addressed does not exist (any more)". */
const NOT_FOUND = new Set([
  'QueueDoesNotExist',
  'AWS.SimpleQueueService.NonExistentQueue',
  'ResourceNotFoundException',
  'MessageNotInflight',
  'ReceiptHandleIsInvalid',
]);

/** Error names that are worth retrying even though AWS files them as client faults. */
const RETRYABLE = new Set(['RequestThrottled', 'ThrottlingException', 'ServiceQuotaExceededException', 'OverLimit']);

/** Thrown by `callAws` when the caller's own signal (not the deadline) ended the call. */
export class CallAbortedError extends Error {
  constructor(operation: string) {
    super(`${operation} aborted by the caller`);
    this.name = 'CallAbortedError';
  }
}

/**
 * Runs `call` with a signal that fires after `timeoutMs` or when `outer` aborts. Maps the outcome:
 * deadline → `TransientError`; caller abort → `CallAbortedError`; `ConflictException` →
 * `ConflictError`; missing queue/schedule/in-flight message → `NotFoundError`; throttling, server faults
 * and network errors → `TransientError`; any other client fault → `TerminalError`.
 */
export async function callAws<T>(
  operation: string,
  timeoutMs: number,
  call: (signal: AbortSignal) => Promise<T>,
  outer?: AbortSignal,
): Promise<T> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = outer ? AbortSignal.any([deadline, outer]) : deadline;
  try {
    return await call(signal);
  } catch (err) {
    if (outer?.aborted) throw new CallAbortedError(operation);
    if (deadline.aborted) throw new TransientError(`${operation} timed out after ${timeoutMs} ms`, { cause: err });
    throw classifyAwsError(operation, err);
  }
}

/** Maps an SDK error to a typed error by its `name` and `$fault`, as described on `callAws`. */
export function classifyAwsError(operation: string, err: unknown): Error {
  const name = err instanceof Error ? err.name : 'UnknownError';
  const fault = typeof err === 'object' && err !== null ? (err as { $fault?: unknown }).$fault : undefined;
  const text = `${operation} failed: ${name}${err instanceof Error ? `: ${err.message}` : ''}`;
  if (name === 'ConflictException') return new ConflictError(text, { cause: err });
  if (NOT_FOUND.has(name)) return new NotFoundError(text, { cause: err });
  if (RETRYABLE.has(name) || fault === 'server' || fault === undefined) return new TransientError(text, { cause: err });
  return new TerminalError(text, { cause: err });
}

/** An AWS SDK client: what `withoutSdkLogging` needs of it. */
type SdkClient = { readonly middlewareStack: { remove(name: string): boolean } };

/**
 * `client` without the SDK's logger middleware. The project never gives the SDK a logger, yet with
 * the SDK's default (a no-op logger) that middleware still filters every call's input and output for
 * sensitive fields to build a log entry nobody writes: a few per cent of a no-op step's CPU. Errors
 * are unaffected: they reach the caller and its own log lines as before.
 */
export function withoutSdkLogging<C extends SdkClient>(client: C): C {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}
