/**
 * The call discipline shared by the PD, TiDB, TiKV and TiCDC clients: a per-call timeout (5 s by
 * default, as TiDB Operator's clients) optionally bounded by the invocation's deadline, and, as TiDB
 * Operator's `GetBodyOK`, any status ≥ 400 is an error: 404 → `NotFoundError`, 429 and 5xx (a 503
 * from the proxy when no endpoint is ready included) → `TransientError`, anything else →
 * `TerminalError`, each with the answer's body text in the message.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { type CallBudget, type HttpAnswer, KubeHttp, callTimeoutMs } from '../kube/http.js';
import { type Clock, RealClock } from '../platform/clock.js';
import { NotFoundError, TerminalError, TransientError } from '../platform/errors.js';
import { parseLossless } from './json.js';
import { ApiProxyHttp, type ComponentHttp, type ComponentRequest, DirectHttp, type DirectHttpOptions, type Endpoint } from './transport.js';

/** TiDB Operator's PD and TiDB client timeout. */
export const DEFAULT_COMPONENT_TIMEOUT_MS = 5_000;

/** Options of `ComponentCaller`; the clock measures the time left before `deadlineAtMs`. */
export type ComponentCallerOptions = { timeoutMs?: number; deadlineAtMs?: number; clock?: Clock };

/** The status and body of a component answer that is not an error (or is an accepted one). */
export type ComponentAnswer = HttpAnswer;

/** Sends component requests under a time budget and classifies failures. */
export class ComponentCaller {
  private readonly budget: CallBudget;
  private readonly clock: Clock;

  constructor(
    private readonly http: ComponentHttp,
    options: ComponentCallerOptions = {},
  ) {
    this.budget = { timeoutMs: options.timeoutMs ?? DEFAULT_COMPONENT_TIMEOUT_MS, deadlineAtMs: options.deadlineAtMs };
    this.clock = options.clock ?? new RealClock();
  }

  /** Through the API server proxy of the KubeConfig's current cluster (the default transport). */
  static viaApiProxy(kubeConfig: KubeConfig, options: ComponentCallerOptions = {}): ComponentCaller {
    return new ComponentCaller(new ApiProxyHttp(new KubeHttp(kubeConfig)), options);
  }

  /** Straight to cluster DNS names (a Lambda inside the cluster's VPC). */
  static direct(direct: DirectHttpOptions = {}, options: ComponentCallerOptions = {}): ComponentCaller {
    return new ComponentCaller(new DirectHttp(direct), options);
  }

  /** The same caller with every call also ending by `deadlineAtMs`. */
  withDeadline(deadlineAtMs: number): ComponentCaller {
    return new ComponentCaller(this.http, { timeoutMs: this.budget.timeoutMs, deadlineAtMs, clock: this.clock });
  }

  /** The same caller with another per-call timeout (e.g. TiDB's 30 s `/upgrade/start`). */
  withTimeout(timeoutMs: number): ComponentCaller {
    return new ComponentCaller(this.http, { timeoutMs, deadlineAtMs: this.budget.deadlineAtMs, clock: this.clock });
  }

  /**
   * Sends `req`; a status ≥ 400 throws unless `accept` takes it (for answers a protocol defines as
   * meaningful, e.g. PD's 404 on `/pd/api/v2/ready` from versions without it).
   */
  async call(endpoint: Endpoint, req: ComponentRequest, what: string, accept: (status: number) => boolean = () => false): Promise<ComponentAnswer> {
    const timeoutMs = callTimeoutMs(this.budget, this.clock.nowMs(), what);
    const answer = await this.http.send(endpoint, req, timeoutMs, what);
    if (answer.status >= 400 && !accept(answer.status)) throw componentError(what, answer.status, answer.text);
    return answer;
  }

  /** `call`, then the body parsed losslessly (numbers stay `LosslessNumber`s; see `json.ts`). */
  async json(endpoint: Endpoint, req: ComponentRequest, what: string): Promise<unknown> {
    const answer = await this.call(endpoint, req, what);
    return parseLossless(answer.text, what);
  }
}

/** The `cause` of every error made from a component answer: its status and body text. */
export class ComponentStatusError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status}`);
    this.name = 'ComponentStatusError';
  }
}

/** The typed error for a component answer with status ≥ 400 (see the module comment). */
export function componentError(what: string, status: number, text: string): Error {
  const message = `${what}: HTTP ${status}: ${text.trim().slice(0, 1000)}`;
  const cause = new ComponentStatusError(status, text);
  if (status === 404) return new NotFoundError(message, { cause });
  if (status === 429 || status >= 500) return new TransientError(message, { cause });
  return new TerminalError(message, { cause });
}

/** True when `err` reports an answer that came back (any status), as opposed to no answer at all. */
export function isAnswerError(err: unknown): boolean {
  return err instanceof Error && err.cause instanceof ComponentStatusError;
}
