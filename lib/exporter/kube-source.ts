/**
 * `WatchSource` over the API server. LISTs go through `KubeHttp` (lib/kube/http.ts) like every other
 * read; a watch is a long GET whose body is newline-delimited JSON, so it is streamed here through
 * the same client-node machinery (KubeConfig credentials, TLS dispatcher, undici fetch). Every
 * watch asks for bookmarks and a server-side `timeoutSeconds`, and is also bounded on our side: by
 * a connect timeout, an idle timeout (no bytes at all, not even a bookmark) and a hard deadline a
 * little after `timeoutSeconds`, so a half-open connection cannot hang the exporter (kubernetes-client/javascript#2432).
 */
import type { IncomingMessage } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { kubeError } from '../kube/errors.js';
import { KUBE_ANSWER_MAX_BYTES, readCappedText } from '../kube/answer-size.js';
import { KubeHttp, callTimeoutMs, describeNetworkError, timeoutError } from '../kube/http.js';
import { collectionPath, kindInfo } from '../kube/kinds.js';
import type { KubeObject } from '../kube/port.js';
import type { Clock } from '../platform/clock.js';
import { ReconcilerError, TerminalError, TransientError } from '../platform/errors.js';
import { ResourceExpiredError, type ListPage, type WatchEvent, type WatchRequest, type WatchSource } from './ports.js';
import type { WatchedResource } from './resources.js';
import { readLines } from './stream-lines.js';

/** Timeouts of `KubeWatchSource`; `deadlineAtMs` (on `clock`) bounds every call when set. */
export type KubeWatchSourceOptions = {
  clock: Clock;
  listTimeoutMs?: number;
  connectTimeoutMs?: number;
  idleTimeoutMs?: number;
  deadlineAtMs?: number;
};

/** How long after the server's own `timeoutSeconds` we give up on a watch that did not end. */
const WATCH_GRACE_MS = 15_000;

/** `WatchSource` against the KubeConfig's current cluster. */
export class KubeWatchSource implements WatchSource {
  private readonly http: KubeHttp;
  private readonly clock: Clock;
  private readonly listTimeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly idleTimeoutMs: number;

  constructor(
    kubeConfig: KubeConfig,
    private readonly options: KubeWatchSourceOptions,
  ) {
    this.http = new KubeHttp(kubeConfig);
    this.clock = options.clock;
    this.listTimeoutMs = options.listTimeoutMs ?? 10_000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    // The API server bookmarks about once a minute; three missed ones mean the stream is dead.
    this.idleTimeoutMs = options.idleTimeoutMs ?? 180_000;
  }

  async list(resource: WatchedResource, page: { limit: number; continue?: string }): Promise<ListPage> {
    const query = new URLSearchParams({ limit: String(page.limit) });
    if (resource.labelSelector) query.set('labelSelector', resource.labelSelector);
    if (page.continue) query.set('continue', page.continue);
    const what = `list ${resource.name}`;
    const timeoutMs = callTimeoutMs({ timeoutMs: this.listTimeoutMs, deadlineAtMs: this.options.deadlineAtMs }, this.clock.nowMs(), what);
    const answer = await this.http.send({ method: 'GET', path: `${pathOf(resource)}?${query}` }, timeoutMs, what);
    if (answer.status === 410) throw new ResourceExpiredError(`${what}: the continue token expired`);
    if (answer.status >= 400) throw kubeError(what, answer.status, answer.text, answer.retryAfterSeconds, answer.credentialsRefreshed);
    const list = parseJson<RawList>(answer.text, what);
    const next = list.metadata?.continue;
    return { items: list.items ?? [], resourceVersion: list.metadata?.resourceVersion ?? '', ...(next ? { continue: next } : {}) };
  }

  async *watch(resource: WatchedResource, request: WatchRequest): AsyncGenerator<WatchEvent> {
    const what = `watch ${resource.name}`;
    const guard = new StreamGuard(this.clock, request.signal);
    try {
      guard.arm('connect', this.connectTimeoutMs);
      guard.arm('deadline', request.timeoutSeconds * 1000 + WATCH_GRACE_MS);
      const res = await this.open(resource, request, guard.signal, what);
      guard.disarm('connect');
      request.onOpen?.();
      guard.arm('idle', this.idleTimeoutMs);
      for await (const line of readLines(res, { onChunk: () => guard.arm('idle', this.idleTimeoutMs), path: pathOf(resource) })) {
        const event = parseEvent(line, what);
        if (event) yield event;
      }
    } catch (err) {
      const failure = this.classify(err, guard, what);
      // Stopped by the caller, or past the deadline: the stream just ends.
      if (failure !== undefined) throw failure;
    } finally {
      guard.close();
    }
  }

  /** Sends the watch GET; any status but 200 becomes a typed error (410 → `ResourceExpiredError`). */
  private async open(resource: WatchedResource, request: WatchRequest, signal: AbortSignal, what: string): Promise<IncomingMessage> {
    const query = new URLSearchParams({
      watch: 'true',
      allowWatchBookmarks: 'true',
      resourceVersion: request.resourceVersion,
      timeoutSeconds: String(Math.max(1, Math.floor(request.timeoutSeconds))),
    });
    if (resource.labelSelector) query.set('labelSelector', resource.labelSelector);
    const res = await this.http.open({ method: 'GET', path: `${pathOf(resource)}?${query}` }, signal, what);
    if (res.statusCode === 200) return res;
    const text = await readCappedText(res, KUBE_ANSWER_MAX_BYTES, pathOf(resource));
    if (res.statusCode === 410) throw new ResourceExpiredError(`${what}: resourceVersion ${request.resourceVersion} is too old`);
    throw kubeError(what, res.statusCode ?? 0, text);
  }

  /**
   * What an exception out of a watch means; `undefined` ends the stream quietly. A silent stream
   * (idle) ends quietly too: the caller reconnects from its position at once, which is the cure
   * for a dead connection and costs nothing on a merely quiet resource.
   */
  private classify(err: unknown, guard: StreamGuard, what: string): unknown {
    if (guard.firedBy === 'stop' || guard.firedBy === 'deadline' || guard.firedBy === 'idle') return undefined;
    if (guard.firedBy === 'connect') return timeoutError(what, this.connectTimeoutMs, err);
    if (err instanceof ReconcilerError) return err;
    return new TransientError(`${what} failed: ${describeNetworkError(err)}`, { cause: err });
  }
}

type TimerName = 'connect' | 'idle' | 'deadline';

/** The abort controller of one watch and the clock timers that may fire it. */
class StreamGuard {
  private readonly controller = new AbortController();
  private readonly timers = new Map<TimerName, ReturnType<Clock['setTimer']>>();
  /** Why the watch was aborted, if it was. */
  firedBy: TimerName | 'stop' | undefined;
  private readonly onStop = (): void => this.fire('stop');

  constructor(
    private readonly clock: Clock,
    private readonly stop: AbortSignal,
  ) {
    if (stop.aborted) this.fire('stop');
    else stop.addEventListener('abort', this.onStop, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** (Re)starts timer `name`. */
  arm(name: TimerName, afterMs: number): void {
    this.disarm(name);
    this.timers.set(name, this.clock.setTimer(() => this.fire(name), afterMs));
  }

  disarm(name: TimerName): void {
    const timer = this.timers.get(name);
    if (timer) this.clock.clearTimer(timer);
    this.timers.delete(name);
  }

  close(): void {
    for (const name of [...this.timers.keys()]) this.disarm(name);
    this.stop.removeEventListener('abort', this.onStop);
    this.controller.abort();
  }

  private fire(reason: TimerName | 'stop'): void {
    this.firedBy ??= reason;
    this.controller.abort();
  }
}

type RawList = { items?: KubeObject[]; metadata?: { resourceVersion?: string; continue?: string } };

function pathOf(resource: WatchedResource): string {
  return collectionPath(kindInfo(resource.kind), resource.namespace);
}

function parseJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new TransientError(`${what}: the API server sent a body that is not JSON`, { cause: err });
  }
}

/**
 * One line of a watch stream as an event. ERROR events throw: code 410 as `ResourceExpiredError`
 * (relist), anything else mapped like an HTTP error of that code. Unknown types are skipped.
 */
export function parseEvent(line: string, what: string): WatchEvent | undefined {
  const raw = parseJson<{ type?: unknown; object?: unknown }>(line, what);
  const object = (typeof raw.object === 'object' && raw.object !== null ? raw.object : {}) as KubeObject & { code?: unknown; message?: unknown };
  switch (raw.type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      return { type: raw.type, object: { ...object, metadata: object.metadata ?? {} } };
    case 'BOOKMARK':
      return { type: 'BOOKMARK', resourceVersion: String(object.metadata?.resourceVersion ?? '') };
    case 'ERROR': {
      const code = typeof object.code === 'number' ? object.code : 500;
      if (code === 410) throw new ResourceExpiredError(`${what}: ${typeof object.message === 'string' ? object.message : 'resource version too old'}`);
      throw kubeError(what, code, JSON.stringify(object));
    }
    default:
      return undefined;
  }
}
