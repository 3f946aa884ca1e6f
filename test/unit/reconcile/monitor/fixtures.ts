/** Builders for the TidbMonitor controller's tests: a monitor, a TidbCluster and a snapshot around them. */
import type { KubeObject, TidbCluster } from '../../../../lib/model/kube.js';
import type { MonitorOwnedKind, MonitorSnapshot, ObservedCluster } from '../../../../lib/reconcile/monitor/snapshot.js';
import type { TidbMonitor, TidbMonitorSpec } from '../../../../lib/reconcile/monitor/types.js';

/** The upstream examples' images (examples/basic/tidb-monitor.yaml, release-1.6). */
export const IMAGES: TidbMonitorSpec = {
  prometheus: { baseImage: 'prom/prometheus', version: 'v2.27.1' },
  initializer: { baseImage: 'pingcap/tidb-monitor-initializer', version: 'v8.5.7' },
  reloader: { baseImage: 'pingcap/tidb-monitor-reloader', version: 'v1.0.1' },
};

/** A TidbMonitor `name` in `demo` watching `basic`, with `spec` merged over the examples' images. */
export function monitor(spec: TidbMonitorSpec = {}, meta: Partial<TidbMonitor['metadata']> = {}): TidbMonitor {
  return {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'TidbMonitor',
    metadata: { name: 'basic', namespace: 'demo', uid: 'tm-uid', resourceVersion: '7', finalizers: ['tidb.pingcap.com/monitor-protection'], ...meta },
    spec: { clusters: [{ name: 'basic' }], ...IMAGES, ...spec },
  };
}

/** A TidbCluster `name` in `namespace` (TLS when asked). */
export function cluster(name: string, namespace: string, tls = false): TidbCluster {
  return { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', metadata: { name, namespace, uid: `${name}-uid` }, spec: { pd: { replicas: 1 }, ...(tls ? { tlsCluster: { enabled: true } } : {}) } } as TidbCluster;
}

/** One observed cluster entry. */
export function observed(tc: TidbCluster | undefined, name = 'basic', namespace = 'demo', clientSecretKeys?: string[]): ObservedCluster {
  return { name, namespace, tc, clientSecretKeys };
}

/** A snapshot of `tm` with `clusters` and the given live objects and Secrets. */
export function snapshot(tm: TidbMonitor | undefined, clusters: ObservedCluster[], live: Partial<Record<MonitorOwnedKind, KubeObject[]>> = {}, secrets: string[] = []): MonitorSnapshot {
  return { nowMs: 0, monitor: tm, clusters, live, secrets: new Set(secrets), externalConfig: undefined };
}
