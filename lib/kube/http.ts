/**
 * One authenticated HTTP request to the API server, through @kubernetes/client-node's own
 * machinery: the KubeConfig supplies the bearer token (static, exec, or the EKS authenticator of
 * `auth.ts`) and the TLS dispatcher; client-node's undici `fetch` sends it. Every request has a
 * deadline carried as an `AbortSignal`, which also bounds reading the body, so a hung connection
 * cannot eat the invocation (anchors C.13). Both the Kubernetes adapter and the PD/TiDB/TiKV/TiCDC
 * adapters (through the API server's proxy) use it.
 */
import { IsomorphicFetchHttpLibrary, type KubeConfig, RequestContext } from '@kubernetes/client-node';
import { ReconcilerError, TerminalError, TransientError } from '../platform/errors.js';
import type { Clock } from '../platform/clock.js';
import { DEFAULT_RETRY_POLICY, parseRetryAfterSeconds, type RetryContext, type RetryPolicy } from '../platform/retry.js';
import { DeadlinePassedError } from './errors.js';

/**
 * An answer as received: status code and body text (errors are classified by the caller), and the
 * `Retry-After` header in seconds when the server sent one (with a 429 or 503).
 */
export type HttpAnswer = { status: number; text: string; retryAfterSeconds?: number };

/** A request relative to the API server's base URL; `path` may carry a query string. */
export type HttpRequest = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: string;
  contentType?: string;
  accept?: string;
};

/**
 * How long one call may take: `timeoutMs` per call, further bounded by `deadlineAtMs` (the
 * caller's remaining invocation time, on the caller's clock) when set.
 */
export type CallBudget = { timeoutMs: number; deadlineAtMs?: number };

/**
 * What a remote client (Kubernetes, or a component through the proxy) is built with: the per-call
 * `timeoutMs`, the invocation's `deadlineAtMs`, `retryUntilMs` by when retrying stops (default
 * `deadlineAtMs`), the `clock` that measures both and times the retry waits, the `retry` policy and
 * the `random` that jitters it.
 */
export type RemoteClientOptions = {
  timeoutMs?: number;
  deadlineAtMs?: number;
  retryUntilMs?: number;
  clock?: Clock;
  retry?: RetryPolicy;
  random?: () => number;
};

/** The retry context a remote client built with `options` runs its retries in, timed on `clock`. */
export function retryContextOf(options: RemoteClientOptions, clock: Clock): RetryContext {
  const retryUntilMs = options.retryUntilMs ?? options.deadlineAtMs;
  return {
    policy: options.retry ?? DEFAULT_RETRY_POLICY,
    clock,
    random: options.random ?? Math.random,
    ...(retryUntilMs !== undefined ? { deadlineAtMs: retryUntilMs } : {}),
  };
}

/**
 * The timeout for a call starting at `nowMs` under `budget`. With no time left the call is not
 * attempted: `TransientError`, so the step retries in a fresh invocation.
 */
export function callTimeoutMs(budget: CallBudget, nowMs: number, what: string): number {
  const leftMs = budget.deadlineAtMs === undefined ? Infinity : budget.deadlineAtMs - nowMs;
  if (leftMs <= 0) throw new TransientError(`${what} not attempted: the invocation deadline has passed`, { cause: new DeadlinePassedError() });
  return Math.max(1, Math.min(budget.timeoutMs, Math.floor(leftMs)));
}

/**
 * The `cause` of the `TransientError` a timed-out call throws (with the abort as its own cause), so
 * callers can tell "the other end did not answer in time" from "we could not connect".
 */
export class CallTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`no answer within ${timeoutMs} ms`, options);
    this.name = 'CallTimeoutError';
  }
}

/** The `TransientError` for a call to `what` that ran out of time. */
export function timeoutError(what: string, timeoutMs: number, abort: unknown): TransientError {
  return new TransientError(`${what} timed out after ${timeoutMs} ms`, { cause: new CallTimeoutError(timeoutMs, { cause: abort }) });
}

/** True for an error thrown because a call ran out of time. */
export function isTimeout(err: unknown): boolean {
  return err instanceof TransientError && err.cause instanceof CallTimeoutError;
}

type Dispatcher = ReturnType<RequestContext['getDispatcher']>;

/** Sends requests to the KubeConfig's current cluster. */
export class KubeHttp {
  private readonly library = new IsomorphicFetchHttpLibrary();
  // client-node builds a new TLS agent per request; reusing the first keeps connections warm.
  private dispatcher: Dispatcher | 'unset' = 'unset';

  constructor(private readonly kubeConfig: KubeConfig) {}

  /** The API server's base URL without a trailing slash. */
  baseUrl(): string {
    const server = this.kubeConfig.getCurrentCluster()?.server;
    if (!server) throw new TerminalError('the kubeconfig has no current cluster', { field: 'kubeconfig' });
    return server.replace(/\/+$/, '');
  }

  /**
   * Sends `req` and reads the whole body within `timeoutMs`. A timeout or a network failure is a
   * `TransientError` naming `what`; any HTTP status is returned, not thrown.
   */
  async send(req: HttpRequest, timeoutMs: number, what: string): Promise<HttpAnswer> {
    const ctx = await this.prepare(req, what);
    const signal = AbortSignal.timeout(timeoutMs);
    ctx.setSignal(signal);
    try {
      const res = await this.library.send(ctx).toPromise();
      const retryAfterSeconds = parseRetryAfterSeconds(res.headers['retry-after']);
      return { status: res.httpStatusCode, text: await res.body.text(), ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) };
    } catch (err) {
      if (signal.aborted) throw timeoutError(what, timeoutMs, err);
      throw new TransientError(`${what} failed: ${describeNetworkError(err)}`, { cause: err });
    }
  }

  /**
   * The request with credentials and TLS applied. A failure here is configuration (an http://
   * server without skipTLSVerify, missing AWS credentials, a failing exec plugin): retrying cannot
   * fix it, so it is terminal unless the authenticator already said otherwise.
   */
  private async prepare(req: HttpRequest, what: string): Promise<RequestContext> {
    try {
      const ctx = new RequestContext(this.baseUrl() + req.path, req.method);
      await this.kubeConfig.applySecurityAuthentication(ctx);
      this.reuseDispatcher(ctx);
      ctx.setHeaderParam('Accept', req.accept ?? 'application/json');
      if (req.body !== undefined) {
        ctx.setHeaderParam('Content-Type', req.contentType ?? 'application/json');
        ctx.setBody(req.body);
      }
      return ctx;
    } catch (err) {
      if (err instanceof ReconcilerError) throw err;
      throw new TerminalError(`${what}: cannot prepare the request: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  private reuseDispatcher(ctx: RequestContext): void {
    if (this.dispatcher === 'unset') this.dispatcher = ctx.getDispatcher();
    else if (this.dispatcher !== undefined) ctx.setDispatcher(this.dispatcher);
  }
}

/** `fetch failed` says little; the cause's code (ECONNREFUSED, a TLS code, …) says what happened. */
export function describeNetworkError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
  const detail = cause && typeof cause === 'object' ? [cause.code, cause.message].filter((x) => typeof x === 'string').join(' ') : '';
  return detail ? `${err.message} (${detail})` : err.message;
}
