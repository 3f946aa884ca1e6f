/**
 * Which PD a TidbCluster uses: its own (`<tc>-pd` in its namespace) when its spec has `pd`, else the
 * PD of the TidbCluster its `spec.cluster` names (TiDB Operator's heterogeneous clusters: a cluster of
 * TiKV / TiFlash / TiDB only, joining another cluster's PD — `spec.cluster.namespace` defaults to its
 * own namespace). The observer reads that PD and the executor sends that cluster's PD calls there.
 */

import type { TidbCluster } from '../model/kube.js';
import type { ClusterTarget } from './clients.js';

/** The TidbCluster whose PD `cluster` joins, when it has no PD of its own and names one; else undefined. */
export function referencedPdCluster(cluster: TidbCluster): { readonly namespace?: string; readonly name: string } | undefined {
  if (cluster.spec.pd !== undefined && cluster.spec.pd !== null) return undefined;
  const ref = cluster.spec.cluster;
  if (ref?.name === undefined || ref.name === '') return undefined;
  return ref.namespace === undefined || ref.namespace === '' ? { name: ref.name } : { namespace: ref.namespace, name: ref.name };
}

/** The PD target of `cluster`, whose own target is `own`: `own`, or the referenced cluster's (same TLS). */
export function pdTargetOf(cluster: TidbCluster, own: ClusterTarget): ClusterTarget {
  const ref = referencedPdCluster(cluster);
  if (ref === undefined) return own;
  return { ...own, namespace: ref.namespace ?? own.namespace, tcName: ref.name };
}
