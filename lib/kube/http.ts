/**
 * One authenticated HTTP request to the API server, through @kubernetes/client-node's KubeConfig:
 * `applyToHTTPSOptions` supplies the bearer token (static, exec, or the EKS authenticator of
 * `auth.ts`) and the TLS material (CA, client certificate, skip-verify, server name), and the
 * request goes out on Node's own `http`/`https` with a keep-alive agent built from that material.
 * (client-node's fetch path would bring undici into every bundle; Node's client costs nothing to
 * load.) Every request has a deadline carried as an `AbortSignal`, which also bounds reading the
 * body, so a hung connection cannot eat the invocation (kubernetes-client/javascript#2432). The Kubernetes adapter, the
 * PD/TiDB/TiKV/TiCDC adapters (through the API server's proxy) and the exporter's watches use it.
 */
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, type RequestOptions, request as httpsRequest } from 'node:https';
// The KubeConfig module alone, not the package index (which loads every generated API and model).
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { ReconcilerError, TerminalError, TransientError } from '../platform/errors.js';
import type { Clock } from '../platform/clock.js';
import { DEFAULT_RETRY_POLICY, parseRetryAfterSeconds, type RetryContext, type RetryPolicy } from '../platform/retry.js';
import { KUBE_ANSWER_MAX_BYTES, readCappedText } from './answer-size.js';
import { DeadlinePassedError } from './errors.js';
import { RECONCILER_FIELD_MANAGER } from '../model/tidb-operator.js';

/**
 * An answer as received: status code and body text (errors are classified by the caller), the
 * `Retry-After` header in seconds when the server sent one (with a 429 or 503), and
 * `credentialsRefreshed` on a 401 answered to a freshly minted credential too.
 */
export type HttpAnswer = { status: number; text: string; retryAfterSeconds?: number; credentialsRefreshed?: boolean };

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

/**
 * A KubeConfig whose cached credential can be dropped after a 401 (`eksKubeConfig`'s is): the
 * next request mints a fresh one. `authorization` is the refused header, so a credential already
 * replaced by a concurrent request is not dropped again.
 */
export interface RefreshableCredentials {
  dropCachedCredentials(authorization: string | undefined): void;
}

function credentialRefreshOf(kubeConfig: KubeConfig): RefreshableCredentials | undefined {
  const candidate = kubeConfig as Partial<RefreshableCredentials>;
  return typeof candidate.dropCachedCredentials === 'function' ? (kubeConfig as unknown as RefreshableCredentials) : undefined;
}

/** The TLS and keep-alive settings one agent is built from (those `applyToHTTPSOptions` fills in). */
const TLS_FIELDS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

/** Sends requests to the KubeConfig's current cluster. */
export class KubeHttp {
  // client-node's agent opens a new connection per request; one keep-alive agent keeps them warm.
  private agent: HttpAgent | undefined;

  constructor(private readonly kubeConfig: KubeConfig) {}

  /** The API server's base URL without a trailing slash. */
  baseUrl(): string {
    const server = this.kubeConfig.getCurrentCluster()?.server;
    if (!server) throw new TerminalError('the kubeconfig has no current cluster', { field: 'kubeconfig' });
    return server.replace(/\/+$/, '');
  }

  /**
   * Sends `req` and reads the whole body within `timeoutMs`, at most `maxBytes` of it (a larger
   * answer is an `AnswerTooLargeError`, see `answer-size.ts`). A timeout or a network failure is a
   * `TransientError` naming `what`; any HTTP status is returned, not thrown. A 401 answered to a
   * cached credential that can be refreshed (an EKS token, see `auth.ts`) drops it and sends the
   * request once more with a fresh one, within the same deadline; a second 401 is returned, marked
   * `credentialsRefreshed`. The deadline is one timer that destroys the request (and with it the
   * body being read): the same bound as an abort signal, without an `AbortSignal` and its stream
   * listeners on every call.
   */
  async send(req: HttpRequest, timeoutMs: number, what: string, maxBytes = KUBE_ANSWER_MAX_BYTES): Promise<HttpAnswer> {
    const deadline = new CallDeadline(timeoutMs);
    try {
      const url = new URL(this.baseUrl() + req.path);
      const first = await this.sendOnce(req, url, deadline, what, maxBytes);
      const refresh = credentialRefreshOf(this.kubeConfig);
      if (first.answer.status !== 401 || refresh === undefined) return first.answer;
      refresh.dropCachedCredentials(first.authorization);
      const second = await this.sendOnce(req, url, deadline, what, maxBytes);
      return second.answer.status === 401 ? { ...second.answer, credentialsRefreshed: true } : second.answer;
    } catch (err) {
      if (err instanceof ReconcilerError) throw err;
      if (deadline.passed) throw timeoutError(what, timeoutMs, deadline.reason);
      throw new TransientError(`${what} failed: ${describeNetworkError(err)}`, { cause: err });
    } finally {
      deadline.clear();
    }
  }

  /** One request under `deadline`; also says which Authorization header it carried. */
  private async sendOnce(req: HttpRequest, url: URL, deadline: CallDeadline, what: string, maxBytes: number): Promise<{ answer: HttpAnswer; authorization?: string }> {
    const options = await this.prepare(req, url, what);
    deadline.throwIfPassed();
    const authorization = (options.headers as Record<string, string>).Authorization;
    const answer = await new Promise<HttpAnswer>((resolve, reject) => {
      const sendRequest = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const request = sendRequest(url, { ...options, method: req.method }, (res) => {
        const retryAfterSeconds = parseRetryAfterSeconds(res.headers['retry-after']);
        readCappedText(res, maxBytes, url.pathname).then((text) => resolve({ status: res.statusCode ?? 0, text, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) }), reject);
      });
      deadline.onPassed((reason) => request.destroy(reason));
      request.on('error', reject);
      request.end(req.body);
    });
    return { answer, ...(authorization !== undefined ? { authorization } : {}) };
  }

  /**
   * Sends `req` and resolves with the answer's head; its body is the caller's to read (a watch
   * streams it). `signal` aborts the request and, after the head, the body. A 401 to a cached
   * credential that can be refreshed is sent once more with a fresh one, as in `send`. Errors are
   * thrown as they come (a failure to prepare the request is a `TerminalError`, see `prepare`).
   */
  async open(req: HttpRequest, signal: AbortSignal, what: string): Promise<IncomingMessage> {
    const url = new URL(this.baseUrl() + req.path);
    const first = await this.openOnce(req, url, signal, what);
    const refresh = credentialRefreshOf(this.kubeConfig);
    if (first.res.statusCode !== 401 || refresh === undefined) return first.res;
    first.res.destroy();
    refresh.dropCachedCredentials(first.authorization);
    return (await this.openOnce(req, url, signal, what)).res;
  }

  private async openOnce(req: HttpRequest, url: URL, signal: AbortSignal, what: string): Promise<{ res: IncomingMessage; authorization?: string }> {
    const options = await this.prepare(req, url, what);
    signal.throwIfAborted();
    const authorization = (options.headers as Record<string, string>).Authorization;
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const request = send(url, { ...options, method: req.method, signal }, resolve);
      request.on('error', reject);
      request.end(req.body);
    });
    return { res, ...(authorization !== undefined ? { authorization } : {}) };
  }

  /**
   * The request options with credentials and TLS applied. A failure here is configuration (an
   * http:// server without skipTLSVerify, missing AWS credentials, a failing exec plugin): retrying
   * cannot fix it, so it is terminal unless the authenticator already said otherwise.
   */
  private async prepare(req: HttpRequest, url: URL, what: string): Promise<RequestOptions> {
    try {
      const options: RequestOptions = {};
      await this.kubeConfig.applyToHTTPSOptions(options);
      // The API server names the field manager of a write after the User-Agent's first part
      // (`prefixFromUserAgent`), so `metadata.managedFields` tells our writes from TiDB Operator's.
      const headers: Record<string, string> = { ...(options.headers as Record<string, string> | undefined), Accept: req.accept ?? 'application/json', 'User-Agent': RECONCILER_FIELD_MANAGER };
      if (req.body !== undefined) {
        headers['Content-Type'] = req.contentType ?? 'application/json';
        headers['Content-Length'] = String(Buffer.byteLength(req.body));
      }
      return { ...(options.auth !== undefined ? { auth: options.auth } : {}), headers, agent: this.agentFor(options, url) };
    } catch (err) {
      if (err instanceof ReconcilerError) throw err;
      throw new TerminalError(`${what}: cannot prepare the request: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  /** The first request's TLS material in a keep-alive agent; a proxied cluster keeps client-node's proxy agent. */
  private agentFor(options: RequestOptions, url: URL): RequestOptions['agent'] {
    if (this.kubeConfig.getCurrentCluster()?.proxyUrl) return options.agent;
    if (this.agent) return this.agent;
    if (url.protocol !== 'https:') return (this.agent = new HttpAgent({ keepAlive: true }));
    const tls: Record<string, unknown> = {};
    for (const field of TLS_FIELDS) if (options[field] !== undefined) tls[field] = options[field];
    // The agent names each request's pool from its TLS options: a CA kept as a Buffer is turned
    // back into text on every request, the PEM text is not.
    if (Buffer.isBuffer(tls.ca)) tls.ca = tls.ca.toString('utf8');
    return (this.agent = new HttpsAgent({ ...tls, keepAlive: true }));
  }
}

/**
 * One call's time limit: `passed` once `timeoutMs` have gone by, when the callback given to
 * `onPassed` (if any) runs with `reason` (the `TimeoutError` an `AbortSignal.timeout` would carry).
 */
class CallDeadline {
  passed = false;
  reason: DOMException | undefined;
  private onPass: ((reason: DOMException) => void) | undefined;
  private readonly timer: ReturnType<typeof setTimeout>;

  constructor(timeoutMs: number) {
    this.timer = setTimeout(() => {
      this.passed = true;
      this.reason = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
      this.onPass?.(this.reason);
    }, timeoutMs);
  }

  /** Runs `callback` when the deadline passes (at once if it has); a later callback replaces an earlier one. */
  onPassed(callback: (reason: DOMException) => void): void {
    if (this.reason) callback(this.reason);
    else this.onPass = callback;
  }

  /** Throws the deadline's reason if it has passed. */
  throwIfPassed(): void {
    if (this.reason) throw this.reason;
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/**
 * A network failure in a few words: Node's own errors carry their code (ECONNREFUSED, a TLS code,
 * …) and say it unless the message already does; `fetch failed` says little, its cause's code more.
 */
export function describeNetworkError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const own = (err as { code?: unknown }).code;
  if (typeof own === 'string' && err.cause === undefined) return err.message.includes(own) ? err.message : `${err.message} (${own})`;
  const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
  const detail = cause && typeof cause === 'object' ? [cause.code, cause.message].filter((x) => typeof x === 'string').join(' ') : '';
  return detail ? `${err.message} (${detail})` : err.message;
}
