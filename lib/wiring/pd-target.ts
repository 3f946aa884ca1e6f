/**
 * Which PD a TidbCluster uses: its own (`<tc>-pd` in its namespace) when its spec has `pd`, else the
 * PD of the TidbCluster its `spec.cluster` names (TiDB Operator's heterogeneous clusters; see
 * `referencedPdOf`). The observer reads that PD and the executor sends that cluster's PD calls there.
 */

import type { TidbCluster } from '../model/kube.js';
import { referencedPdOf } from '../reconcile/cluster/referenced-pd.js';
import type { ClusterTarget } from './clients.js';

/** The PD target of `cluster`, whose own target is `own`: `own`, or the referenced cluster's (same TLS). */
export function pdTargetOf(cluster: TidbCluster, own: ClusterTarget): ClusterTarget {
  const ref = referencedPdOf(cluster);
  return ref === undefined ? own : { ...own, namespace: ref.namespace || own.namespace, tcName: ref.name };
}
