/**
 * What the reconciler benchmarks count on a running `SimStack`, without changing what it does:
 * API server requests by class (the path says LIST, single-object GET, write, or a PD call through
 * the API server's proxy), calls to the state store by method, and, per timeline entry of a run,
 * its virtual and wall time, steps and requests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseScenario } from '../lib/local/scenario/file.js';
import type { EntryEnd, Progress } from '../lib/local/scenario/progress.js';
import type { Scenario, TimelineEntry } from '../lib/local/scenario/types.js';
import type { SimStack } from '../lib/local/sim-stack.js';
import { defaultResources } from '../lib/sim/crd/tidbcluster.js';
import { parseRoute } from '../lib/sim/routes.js';
import type { StateStore } from '../lib/state/port.js';

/** The benchmark scenario files (not test stories, so not under test/scenarios). */
export const BENCH_SCENARIOS = join(import.meta.dirname, 'scenarios');

/** Reads and validates a scenario file; throws with the parser's one-line error. */
export function loadScenario(path: string): Scenario {
  const parsed = parseScenario(readFileSync(path, 'utf8'), path);
  if (!parsed.ok) throw new Error(`bench scenario ${path}: ${parsed.error}`);
  return parsed.scenario;
}

/**
 * What one API server request was, from its method and path: a Kubernetes `list` (collection GET),
 * `get` (one named object), `write` (any other method on a resource), `pd-read`/`pd-write` (any
 * call through the pod or service proxy: PD's API in these scenarios), or `other` (discovery).
 */
export type RequestClass = 'list' | 'get' | 'write' | 'pd-read' | 'pd-write' | 'other';

/**
 * Counts of each `RequestClass`, plus writes by method, every request by what it addressed
 * (`LIST Pod`, `GET TidbCluster`, `PD GET /pd/api/v1/members`, …) and proxied calls by the pod or
 * service they went to (`basic-pd`, `basic-tidb-0`, …).
 */
export type RequestCounts = Record<RequestClass, number> & {
  readonly byWriteMethod: Record<string, number>;
  readonly detail: Record<string, number>;
  readonly byProxyTarget: Record<string, number>;
};

/** What a simulated world serves, to tell what a path addresses. */
const SERVED = defaultResources();

/** The class of a request (see `RequestClass`) and what it addressed, e.g. `LIST Pod`. */
export function classifyRequest(method: string, path: string): { cls: RequestClass; what: string; proxyTarget?: string } {
  const route = parseRoute(path, (g, v, p) => SERVED.byPlural(g, v, p));
  if (route.type === 'proxy') return { cls: method === 'GET' ? 'pd-read' : 'pd-write', what: `PD ${method} ${route.rest}${route.target === 'pods' ? ' (one pod)' : ''}`, proxyTarget: route.name };
  if (route.type !== 'resource') return { cls: 'other', what: `${method} ${path}` };
  const sub = route.subresource === undefined ? '' : `/${route.subresource}`;
  if (method !== 'GET') return { cls: 'write', what: `${method} ${route.resource.kind}${sub}` };
  return route.name === undefined ? { cls: 'list', what: `LIST ${route.resource.kind}` } : { cls: 'get', what: `GET ${route.resource.kind}${sub}` };
}

/** No requests (the counts before anything ran). */
export function emptyCounts(): RequestCounts {
  return { list: 0, get: 0, write: 0, 'pd-read': 0, 'pd-write': 0, other: 0, byWriteMethod: {}, detail: {}, byProxyTarget: {} };
}

/**
 * Counts every request the stack's API server serves, by class and by what it addressed. It rides
 * on the server's request hook (so the server needs no change) and passes every request on to the
 * hook that was there, so fault injection keeps working.
 */
export class RequestTally {
  private counts = emptyCounts();

  /** Starts counting on `stack`'s API server. */
  constructor(stack: SimStack) {
    const server = stack.world.server;
    const previous = server.requestHook;
    server.requestHook = (method, path) => {
      this.count(method, path);
      return previous?.(method, path);
    };
  }

  /** A copy of the counts so far. */
  snapshot(): RequestCounts {
    return { ...this.counts, byWriteMethod: { ...this.counts.byWriteMethod }, detail: { ...this.counts.detail }, byProxyTarget: { ...this.counts.byProxyTarget } };
  }

  private count(method: string, path: string): void {
    const { cls: c, what, proxyTarget } = classifyRequest(method, path);
    this.counts[c]++;
    this.counts.detail[what] = (this.counts.detail[what] ?? 0) + 1;
    if (proxyTarget !== undefined) this.counts.byProxyTarget[proxyTarget] = (this.counts.byProxyTarget[proxyTarget] ?? 0) + 1;
    if (c !== 'write' && c !== 'pd-write') return;
    const label = `${c === 'write' ? 'Kubernetes' : 'PD'} ${method}`;
    this.counts.byWriteMethod[label] = (this.counts.byWriteMethod[label] ?? 0) + 1;
  }
}

/** `after − before`, key by key (keys whose difference is 0 are left out). */
export function diffMap(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, n] of after) if (n - (before.get(k) ?? 0) !== 0) out.set(k, n - (before.get(k) ?? 0));
  return out;
}

/** `after − before`, class by class. */
export function diffCounts(before: RequestCounts, after: RequestCounts): RequestCounts {
  const out = emptyCounts();
  for (const k of ['list', 'get', 'write', 'pd-read', 'pd-write', 'other'] as const) out[k] = after[k] - before[k];
  for (const field of ['byWriteMethod', 'detail', 'byProxyTarget'] as const) {
    for (const [k, n] of Object.entries(after[field])) {
      const d = n - (before[field][k] ?? 0);
      if (d !== 0) out[field][k] = d;
    }
  }
  return out;
}

/** The StateStore methods that write to DynamoDB; the rest only read. */
export const STATE_WRITES = ['claim', 'release', 'markDirty', 'assertLease', 'setNextWake', 'putDeadline', 'putStoreId', 'deleteDeadline', 'appendHistory', 'putCheckpoint'] as const;
const STATE_READS = ['get', 'listDeadlines', 'listHistory', 'getCheckpoint'] as const;

/**
 * Counts calls to the stack's state store by method — the store every step and the exporter share.
 * Each method is replaced on the instance by one that counts and calls the class's own method, so
 * the claim counting the stack already does (`steps`) still sees every claim exactly once.
 */
export class StateTally {
  private readonly counts = new Map<string, number>();

  /** Starts counting on `state` (the stack's `runtime.state`). */
  constructor(state: StateStore) {
    const proto = Object.getPrototypeOf(state) as Record<string, unknown>;
    for (const method of [...STATE_WRITES, ...STATE_READS]) {
      const original = proto[method];
      if (typeof original !== 'function') throw new Error(`state store has no method ${method}`);
      const counts = this.counts;
      Object.defineProperty(state, method, {
        configurable: true,
        writable: true,
        value: function (this: unknown, ...args: unknown[]): unknown {
          counts.set(method, (counts.get(method) ?? 0) + 1);
          return (original as (...a: unknown[]) => unknown).apply(this, args);
        },
      });
    }
  }

  /** A copy of the counts so far. */
  snapshot(): Map<string, number> {
    return new Map(this.counts);
  }
}

/** One timeline entry as the benchmarks saw it run. */
export type EntryMark = {
  readonly index: number;
  readonly verb: TimelineEntry['verb'];
  readonly ok: boolean;
  readonly error?: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly wallStartMs: number;
  readonly wallEndMs: number;
  readonly stepsAtStart: number;
  readonly stepsAtEnd: number;
  readonly requestsAtEnd: RequestCounts;
  /** State store calls by method when the entry ended (empty without a `StateTally`). */
  readonly stateAtEnd: Map<string, number>;
  /** The stored TidbCluster when the entry ended (for status fields such as transition times). */
  readonly clusterAtEnd: unknown;
};

/**
 * A `Progress` that records every entry's virtual and wall times, the stack's step count, the
 * request (and, given a `StateTally`, state store) counts at its ends, and the TidbCluster as it
 * stood when the entry ended.
 */
export class EntryRecorder implements Progress {
  /** The entries, in the order they finished. */
  readonly marks: EntryMark[] = [];
  private start: { atMs: number; wallMs: number; steps: number } | undefined;

  constructor(
    private readonly stack: SimStack,
    private readonly requests: RequestTally,
    private readonly state?: StateTally,
  ) {}

  entryStarted(_entry: TimelineEntry, atMs: number): void {
    this.start = { atMs, wallMs: performance.now(), steps: this.stack.steps };
  }

  /** Failed invocations are counted in the report (`invocationErrors`); nothing to record per entry. */
  invocationFailed(): void {
    return undefined;
  }

  entryFinished(entry: TimelineEntry, end: EntryEnd): void {
    const start = this.start ?? { atMs: end.endMs, wallMs: performance.now(), steps: this.stack.steps };
    const m = this.stack.scenario.cluster.metadata;
    this.marks.push({
      index: entry.index,
      verb: entry.verb,
      ok: end.ok,
      ...(end.error === undefined ? {} : { error: end.error }),
      startMs: start.atMs,
      endMs: end.endMs,
      wallStartMs: start.wallMs,
      wallEndMs: performance.now(),
      stepsAtStart: start.steps,
      stepsAtEnd: this.stack.steps,
      requestsAtEnd: this.requests.snapshot(),
      stateAtEnd: this.state?.snapshot() ?? new Map(),
      clusterAtEnd: structuredClone(this.stack.world.store.get('TidbCluster', m.namespace, m.name) ?? null),
    });
  }

  runFinished(): void {}

  /** The mark of entry `index`; throws when that entry did not run or failed. */
  mark(index: number): EntryMark {
    const mark = this.marks.find((x) => x.index === index);
    const scenario = this.stack.scenario.name;
    if (!mark) {
      const failed = this.marks.find((x) => !x.ok);
      const why = failed === undefined ? '' : `: entry #${failed.index} (${failed.verb}) failed: ${failed.error ?? 'unknown error'}`;
      throw new Error(`${scenario}: timeline entry #${index} did not run${why}`);
    }
    if (!mark.ok) throw new Error(`${scenario}: timeline entry #${index} (${mark.verb}) failed: ${mark.error ?? 'unknown error'}`);
    return mark;
  }
}
