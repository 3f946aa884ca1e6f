/**
 * The TiCDC drain monitor: a capture that stops while it still holds tables, with another capture
 * alive to take them, must have been draining for the cluster's graceful-shutdown timeout
 * (`spec.ticdc.gracefulShutdownTimeout`, default 10 m) — counted from the begin time the reconciler
 * wrote on its pod (`tidb.pingcap.com/ticdc-graceful-shutdown-begin-time`), as TiDB Operator gives
 * up only then. Stops that are not the reconciler's (an injected fault, a TidbCluster's teardown)
 * are excused by the caller.
 */
import { parseDuration } from '../../platform/duration.js';
import type { StoreEvent } from '../store.js';
import type { CaptureStop } from './captures.js';
import type { InvariantName, MonitorDeps } from './invariants.js';
import type { ClusterState } from './registry.js';

const BEGIN = 'tidb.pingcap.com/ticdc-graceful-shutdown-begin-time';
const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/** Watches TiCDC pods' drain begin times and every capture stop. */
export class CaptureWatch {
  /** `namespace/pod` → when its graceful shutdown began (ms), for the pod instance last seen. */
  private readonly beganAtMs = new Map<string, number>();

  constructor(
    private readonly deps: MonitorDeps,
    private readonly isExcused: (namespace: string, podName: string) => boolean,
    private readonly violate: (name: InvariantName, message: string) => void,
  ) {}

  /** Subscribes to one cluster's captures; returns the unsubscribe. */
  watch(c: ClusterState): () => void {
    return c.captures.onStop((stop) => this.onStop(c, stop));
  }

  /** Feeds one store event: TiCDC pods' begin annotations (a new pod of the name starts with none). */
  onStoreEvent(ev: StoreEvent): void {
    if (ev.kind !== 'Pod' || ev.object.metadata.labels?.['app.kubernetes.io/component'] !== 'ticdc') return;
    const key = `${ev.object.metadata.namespace ?? ''}/${ev.object.metadata.name ?? ''}`;
    if (ev.type === 'ADDED') this.beganAtMs.delete(key);
    const text = ev.object.metadata.annotations?.[BEGIN];
    const at = text === undefined ? Number.NaN : Date.parse(text);
    if (!Number.isNaN(at)) this.beganAtMs.set(key, at);
  }

  private onStop(c: ClusterState, stop: CaptureStop): void {
    if (stop.tables === 0 || stop.othersAlive === 0) return;
    const pod = stop.capture.podName;
    if (this.isExcused(c.namespace, pod)) return;
    const began = this.beganAtMs.get(`${c.namespace}/${pod}`);
    const timeoutMs = this.timeoutMs(c);
    const nowMs = this.deps.clock.nowMs();
    if (began !== undefined && nowMs - began >= timeoutMs) return;
    const since = began === undefined ? 'no drain begun' : `draining for ${Math.round((nowMs - began) / 1000)} s of ${Math.round(timeoutMs / 1000)} s`;
    this.violate('ticdc-capture-drained-before-stop', `TiCDC capture ${stop.capture.id} of ${c.namespace}/${pod} stopped with ${stop.tables} tables on it (${since})`);
  }

  private timeoutMs(c: ClusterState): number {
    const tc = this.deps.store.list('TidbCluster', c.namespace).find((t) => (t.metadata.labels?.['app.kubernetes.io/instance'] ?? t.metadata.name) === c.name);
    const text = (tc?.spec as { ticdc?: { gracefulShutdownTimeout?: unknown } } | undefined)?.ticdc?.gracefulShutdownTimeout;
    if (typeof text !== 'string' || text === '') return DEFAULT_TIMEOUT_MS;
    try {
      return parseDuration(text);
    } catch {
      return DEFAULT_TIMEOUT_MS;
    }
  }
}
