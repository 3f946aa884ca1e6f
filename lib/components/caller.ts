/**
 * The call discipline shared by the PD, TiDB, TiKV and TiCDC clients: a per-call timeout (5 s by
 * default, as TiDB Operator's clients) optionally bounded by the invocation's deadline, and, as TiDB
 * Operator's `GetBodyOK`, any status ≥ 400 is an error: 404 → `NotFoundError`, 429 and 5xx (a 503
 * from the proxy when no endpoint is ready included) → `TransientError`, anything else →
 * `TerminalError` unless the call names it a temporary refusal (`RefusalError`, refusal.ts), each
 * with the answer's body text in the message.
 *
 * A call that fails transiently (429, a 5xx other than 501, a timeout, a reset connection) is
 * repeated inside the call with the jittered backoff of `platform/retry.ts`, never waiting past the
 * retry deadline: a GET always; any other method only when its caller says repeating it is safe
 * (`idempotent`: doing it twice has the effect of doing it once, or the executor verifies the
 * outcome), because a 5xx or a timeout does not say whether the first one was applied.
 */
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { type CallBudget, type HttpAnswer, KubeHttp, type RemoteClientOptions, callTimeoutMs, retryContextOf } from '../kube/http.js';
import { type Clock, RealClock } from '../platform/clock.js';
import { NotFoundError, TerminalError, TransientError } from '../platform/errors.js';
import { type RetryCall, type RetryContext, withRetries } from '../platform/retry.js';
import { isRetryableKubeFailure, retryAfterMsOf } from '../kube/errors.js';
import { clipForEcho } from '../model/echo.js';
import { parseLossless } from './json.js';
import { ClientCertificates } from './client-certificates.js';
import { DirectHttp, type DirectHttpOptions, type ResolvedNames } from './direct.js';
import type { ComponentNetwork } from './network.js';
import { ClientCertificateRefusedError, ComponentUnreachableError, PROXY_HAS_NO_CLIENT_CERTIFICATE, isTlsClientRefusal } from './reach-errors.js';
import { ApiProxyHttp, type ComponentHttp, type ComponentRequest, type Endpoint } from './transport.js';
import { RefusalError, type RefusalRule } from './refusal.js';

/** TiDB Operator's PD and TiDB client timeout. */
export const DEFAULT_COMPONENT_TIMEOUT_MS = 5_000;

/** Options of `ComponentCaller` (see `RemoteClientOptions`). */
export type ComponentCallerOptions = RemoteClientOptions;

/**
 * How a call may be repeated: `idempotent` lets a write be repeated as a read is (see the module
 * comment); `temporary` names the 4xx answers of this call that are refusals time can lift
 * (`RefusalError`, retried by the step with backoff) rather than a request retrying cannot fix.
 */
export type CallOptions = { idempotent?: boolean; temporary?: RefusalRule };

/** The status and body of a component answer that is not an error (or is an accepted one). */
export type ComponentAnswer = HttpAnswer;

/** Sends component requests under a time budget and classifies failures. */
export class ComponentCaller {
  private readonly budget: CallBudget;
  private readonly clock: Clock;
  private readonly retry: RetryContext;

  constructor(
    private readonly http: ComponentHttp,
    private readonly options: ComponentCallerOptions = {},
  ) {
    this.budget = { timeoutMs: options.timeoutMs ?? DEFAULT_COMPONENT_TIMEOUT_MS, deadlineAtMs: options.deadlineAtMs };
    this.clock = options.clock ?? new RealClock();
    this.retry = retryContextOf(options, this.clock);
  }

  /**
   * Through the API server proxy of the KubeConfig's current cluster: the explicit opt-in for
   * clusters without TLS whose functions cannot join the VPC (components under cluster TLS refuse it).
   */
  static viaApiProxy(kubeConfig: KubeConfig, options: ComponentCallerOptions = {}): ComponentCaller {
    return new ComponentCaller(new ApiProxyHttp(new KubeHttp(kubeConfig)), options);
  }

  /**
   * Straight to the pods over `network` (a function inside the cluster's VPC), names resolved and
   * client certificates read through the KubeConfig's API server (direct.ts): the default.
   */
  static direct(kubeConfig: KubeConfig, network: ComponentNetwork, options: ComponentCallerOptions = {}, direct: DirectHttpOptions = {}): ComponentCaller {
    const kube = new KubeHttp(kubeConfig);
    return new ComponentCaller(new DirectHttp(kube, network, new ClientCertificates(kube), direct), options);
  }

  /**
   * The same caller with every call also ending by `deadlineAtMs` and no retry wait ending after
   * `retryUntilMs` (default `deadlineAtMs`): one invocation's, resolving each name once (`DirectHttp.scoped`).
   */
  withDeadline(deadlineAtMs: number, retryUntilMs?: number): ComponentCaller {
    const { retryUntilMs: _previous, ...rest } = this.options;
    const http = this.http instanceof DirectHttp ? this.http.scoped() : this.http;
    return new ComponentCaller(http, { ...rest, clock: this.clock, deadlineAtMs, ...(retryUntilMs !== undefined ? { retryUntilMs } : {}) });
  }

  /**
   * The same caller connecting, for a name resolved before, to the address it resolved to (a step at
   * rest, docs/adr/0024); the same caller when the transport resolves nothing (the API server proxy).
   */
  reusing(): ComponentCaller {
    return this.http instanceof DirectHttp ? new ComponentCaller(this.http.reusing(), { ...this.options, clock: this.clock }) : this;
  }

  /** The resolutions direct access keeps (docs/adr/0024); undefined when the transport resolves nothing (the API server proxy). */
  resolvedNames(): ResolvedNames | undefined {
    return this.http instanceof DirectHttp ? this.http.resolvedNames() : undefined;
  }

  /** The same caller with another per-call timeout (e.g. TiDB's 30 s `/upgrade/start`). */
  withTimeout(timeoutMs: number): ComponentCaller {
    return new ComponentCaller(this.http, { ...this.options, clock: this.clock, timeoutMs });
  }

  /**
   * Sends `req`; a status ≥ 400 throws unless `accept` takes it (for answers a protocol defines as
   * meaningful, e.g. PD's 404 on `/pd/api/v2/ready` from versions without it). Transient failures
   * are repeated for a GET, and for other methods only with `options.idempotent`.
   */
  async call(
    endpoint: Endpoint,
    req: ComponentRequest,
    what: string,
    accept: (status: number, text: string) => boolean = () => false,
    options: CallOptions = {},
  ): Promise<ComponentAnswer> {
    const repeatable = req.method === 'GET' || options.idempotent === true;
    const repeat: RetryCall = !repeatable ? ONCE : endpoint.type === 'service' ? repeatableViaService() : REPEATABLE;
    return withRetries(this.retry, repeat, async () => {
      const timeoutMs = callTimeoutMs(this.budget, this.clock.nowMs(), what);
      const answer = await this.http.send(endpoint, req, timeoutMs, what);
      if (answer.status >= 400 && !accept(answer.status, answer.text)) {
        const temporary = options.temporary?.(answer.status, answer.text) === true;
        throw componentError(what, answer.status, answer.text, answer.retryAfterSeconds, temporary);
      }
      return answer;
    });
  }

  /** `call`, then the body parsed losslessly (numbers stay `LosslessNumber`s; see `json.ts`). */
  async json(endpoint: Endpoint, req: ComponentRequest, what: string, options: CallOptions = {}): Promise<unknown> {
    const answer = await this.call(endpoint, req, what, () => false, options);
    return parseLossless(answer.text, what);
  }
}

/** The `cause` of every error made from a component answer: its status and body text. */
export class ComponentStatusError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    /** How long the answering server asked the client to wait (its `Retry-After`), when it did. */
    readonly retryAfterMs?: number,
  ) {
    super(`HTTP ${status}`);
    this.name = 'ComponentStatusError';
  }
}

/**
 * The typed error for a component answer with status ≥ 400 (see the module comment); a 4xx its call
 * calls `temporary` (a refusal time can lift) is a `RefusalError`, retried by the step with backoff.
 */
export function componentError(what: string, status: number, text: string, retryAfterSeconds?: number, temporary = false): Error {
  const message = `${what}: HTTP ${status}: ${clipForEcho(text.trim())}`;
  const cause = new ComponentStatusError(status, text, retryAfterSeconds === undefined ? undefined : retryAfterSeconds * 1000);
  // The API server's proxy reached a component that refused it in the TLS handshake: no repeat helps.
  if (status === 503 && isTlsClientRefusal(text)) return new ClientCertificateRefusedError(`${message}: ${PROXY_HAS_NO_CLIENT_CERTIFICATE}`, { cause });
  if (status === 404) return new NotFoundError(message, { cause });
  if (status === 429 || status >= 500) return new TransientError(message, { cause });
  if (temporary) return new RefusalError(message, { cause });
  return new TerminalError(message, { cause });
}

/**
 * Whether a failed component call may pass if repeated: 429 or a 5xx other than 501 (from the
 * component or from the API server's proxy in front of it), or no answer at all (timeout, reset).
 * `via` is how the call was addressed: through a Service the proxy picks one ready endpoint per
 * request, so a pod refusing connections (Ready, but its process not listening yet or any more)
 * says nothing about the next request, which may reach another member; addressed to one pod, it
 * is a fact about that pod.
 */
export function isRetryableComponentFailure(err: unknown, via: Endpoint['type'] = 'pod'): boolean {
  if (err instanceof ComponentUnreachableError) return via === 'service' && err.reason === 'refused';
  if (!(err instanceof TransientError)) return false;
  if (!(err.cause instanceof ComponentStatusError)) return isRetryableKubeFailure(err);
  const { status, body } = err.cause;
  if (status === 503 && isUnreachable(body, via)) return false;
  // PD's "redirect finds no leader" (v8.1.1 on) comes after PD itself waited up to 3 s for a leader:
  // the fact the step reports (PDQuorumLost), not a hiccup to repeat — each repeat would wait 3 s
  // more and delay that report. Older PDs' bare "no leader" comes at once, during an election too,
  // so it is repeated.
  if (status === 503 && isPdWaitedForLeader(body)) return false;
  return status === 429 || (status >= 500 && status !== 501);
}

/** PD's 503 after waiting for a leader in vain, as PD words it (not the API server's `Status` object). */
function isPdWaitedForLeader(body: string): boolean {
  return !/^\s*\{[\s\S]*"kind"\s*:\s*"Status"/.test(body) && /redirect finds no leader/i.test(body);
}

/**
 * The proxy's 503 for a backend that is not there — no ready endpoint behind the service, or the
 * addressed pod refusing connections (`ComponentUnreachableError` says the same when reached
 * directly): a fact about the component (it is down or not started),
 * which the rules act on, not a blip that a repeat a moment later would get past.
 */
function isUnreachable(body: string, via: Endpoint['type']): boolean {
  return body.includes('no endpoints available') || (via === 'pod' && body.includes('connection refused'));
}

function componentRetryAfterMs(err: unknown): number | undefined {
  if (err instanceof TransientError && err.cause instanceof ComponentStatusError) return err.cause.retryAfterMs;
  return retryAfterMsOf(err);
}

const REPEATABLE: RetryCall = { isRetryable: (err) => isRetryableComponentFailure(err, 'pod'), retryAfterMs: componentRetryAfterMs };
/**
 * How many times one call through a Service is repeated after the pod the proxy chose refused the
 * connection: enough to reach another endpoint when one is not listening, few enough that a
 * component none of whose pods listens yet (PD at create) costs the step two more requests
 * before the rules see it as unreachable.
 */
export const SERVICE_REFUSAL_RETRIES = 2;

/**
 * The retry rule of one call through a Service: `REPEATABLE`, plus at most `SERVICE_REFUSAL_RETRIES`
 * refusals, each repeated at once (the proxy picks the endpoint; waiting would not help, and no
 * jitter is drawn, so a simulation stays the same for a seed whatever order parallel calls fail in).
 */
function repeatableViaService(): RetryCall {
  let refusals = 0;
  const isRefusal = (err: unknown): boolean => !isRetryableComponentFailure(err, 'pod') && isRetryableComponentFailure(err, 'service');
  return {
    isRetryable: (err) => isRetryableComponentFailure(err, 'pod') || (isRefusal(err) && ++refusals <= SERVICE_REFUSAL_RETRIES),
    retryAfterMs: componentRetryAfterMs,
    repeatAtOnce: isRefusal,
  };
}
const ONCE: RetryCall = { isRetryable: () => false };

/** True when `err` reports an answer that came back (any status), as opposed to no answer at all. */
export function isAnswerError(err: unknown): boolean {
  return err instanceof Error && err.cause instanceof ComponentStatusError;
}

/**
 * True when `err` says something about the component itself: an answer (other than a refusal of
 * our client certificate, which is about how we reach it), or the component refusing connections
 * or having no endpoint (the proxy says so in a 503 answer; reached directly, it is
 * `ComponentUnreachableError`).
 */
export function isComponentFailure(err: unknown): boolean {
  if (err instanceof ClientCertificateRefusedError) return false;
  return isAnswerError(err) || err instanceof ComponentUnreachableError;
}
