/**
 * The names and labels of what a TidbMonitor deploys, as v1's `pkg/monitor/monitor/util.go` and
 * `pkg/apis/label` (release-1.6) make them. Shard 0 keeps the plain names; shard n > 0 adds
 * `-shard-<n>`. The labels carry `app.kubernetes.io/component=monitor`, which the exporter maps to the
 * TidbMonitor and never to a TidbCluster (`lib/exporter/cluster-key.ts`).
 */

import type { TidbMonitor } from './types.js';

/** `GetMonitorObjectName`: the ServiceAccount, Role, RoleBinding, Grafana Secret and prometheus ConfigMap. */
export function monitorObjectName(tm: TidbMonitor): string {
  return `${tm.metadata.name ?? ''}-monitor`;
}

/** `GetGrafanaConfigMapName`. */
export function grafanaConfigMapName(tm: TidbMonitor): string {
  return `${tm.metadata.name ?? ''}-monitor-grafana`;
}

/** `GetTLSAssetsSecretName`. */
export function tlsAssetsSecretName(tm: TidbMonitor): string {
  return `tidbmonitor-${tm.metadata.name ?? ''}-tls-assets`;
}

/** `GetMonitorObjectNameCrossNamespace`: the ClusterRole and ClusterRoleBinding of a `clusterScoped` monitor. */
export function crossNamespaceName(tm: TidbMonitor): string {
  return `${tm.metadata.namespace ?? ''}-${tm.metadata.name ?? ''}-monitor`;
}

/** `GetMonitorShardName`: the StatefulSet of one shard. */
export function shardStatefulSetName(tm: TidbMonitor, shard: number): string {
  return shard === 0 ? `${tm.metadata.name ?? ''}-monitor` : `${tm.metadata.name ?? ''}-monitor-shard-${shard}`;
}

/** `GetMonitorInstanceName`: the `instance` label of one shard's StatefulSet and pods. */
export function shardInstanceName(tm: TidbMonitor, shard: number): string {
  return shard === 0 ? (tm.metadata.name ?? '') : `${tm.metadata.name ?? ''}-shard-${shard}`;
}

/** `PrometheusName`, `GrafanaName` and `reloaderName`: one shard's Services. */
export function shardServiceName(tm: TidbMonitor, what: 'prometheus' | 'grafana' | 'monitor-reloader', shard: number): string {
  const base = `${tm.metadata.name ?? ''}-${what}`;
  return shard === 0 ? base : `${base}-shard-${shard}`;
}

/** v1's label keys (`pkg/apis/label/label.go`). */
export const MONITOR_LABEL = {
  name: 'app.kubernetes.io/name',
  managedBy: 'app.kubernetes.io/managed-by',
  instance: 'app.kubernetes.io/instance',
  component: 'app.kubernetes.io/component',
  app: 'app.kubernetes.io/app',
  usedBy: 'app.kubernetes.io/used-by',
} as const;

/** `label.NewMonitor().Instance(instance).Monitor()`. */
export function monitorLabels(instance: string): Record<string, string> {
  return { [MONITOR_LABEL.name]: 'tidb-cluster', [MONITOR_LABEL.managedBy]: 'tidb-operator', [MONITOR_LABEL.instance]: instance, [MONITOR_LABEL.component]: 'monitor' };
}

/** The selector of one shard's pods (v1's Services select without `managed-by`, a 1.0 leftover). */
export function shardSelector(tm: TidbMonitor, shard: number): Record<string, string> {
  return { [MONITOR_LABEL.instance]: shardInstanceName(tm, shard), [MONITOR_LABEL.name]: 'tidb-cluster', [MONITOR_LABEL.component]: 'monitor' };
}

/** The ownerReference v1 puts on everything a monitor owns (`GetTiDBMonitorOwnerRef`). */
export function monitorOwnerReference(tm: TidbMonitor): { apiVersion: string; kind: string; name: string; uid: string; controller: boolean; blockOwnerDeletion: boolean } {
  return { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbMonitor', name: tm.metadata.name ?? '', uid: tm.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}
