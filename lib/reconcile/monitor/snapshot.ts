/**
 * What one TidbMonitor step reads: the monitor, each cluster `spec.clusters` names (with, for a TLS
 * cluster, the key names of its `<tc>-cluster-client-secret`), the objects the monitor owns as they are
 * live, and whether Grafana's Secret exists (a Secret's values never cross the reconciler's port).
 */

import type { KubeObject, TidbCluster } from '../../model/kube.js';
import type { TidbMonitor } from './types.js';

/** One `spec.clusters` entry as read: its defaulted reference, the TidbCluster (undefined: not found), the client Secret's key names when TLS. */
export type ObservedCluster = {
  readonly name: string;
  readonly namespace: string;
  readonly tc: TidbCluster | undefined;
  /** The key names of `<tc>-cluster-client-secret` (undefined: absent, or not read because the cluster is not TLS). */
  readonly clientSecretKeys: readonly string[] | undefined;
};

/** The kinds a monitor owns that are read live by label. */
export type MonitorOwnedKind = 'Service' | 'ConfigMap' | 'StatefulSet' | 'ServiceAccount' | 'Role' | 'RoleBinding' | 'ClusterRole' | 'ClusterRoleBinding';

/** One step's reads. `secrets` holds the names of the monitor's Secrets that exist. */
export type MonitorSnapshot = {
  readonly nowMs: number;
  readonly monitor: TidbMonitor | undefined;
  readonly clusters: readonly ObservedCluster[];
  readonly live: Readonly<Partial<Record<MonitorOwnedKind, readonly KubeObject[]>>>;
  readonly secrets: ReadonlySet<string>;
  /** `prometheus.config.configMapRef`'s ConfigMap (undefined: none named, or absent). */
  readonly externalConfig: KubeObject | undefined;
};

/** The live object of `kind` named `name`, if any. */
export function liveObject(snap: MonitorSnapshot, kind: MonitorOwnedKind, name: string): KubeObject | undefined {
  return (snap.live[kind] ?? []).find((o) => o.metadata.name === name);
}
