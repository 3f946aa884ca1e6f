/**
 * Whether TiKV is available to the components that need it, as TiDB Operator v1's
 * `TiKVIsAvailable` (§1.5): TiDB and TiCDC name it in their dependencies and wait until it holds.
 */

import type { TidbCluster, TidbClusterStatus } from '../../../model/kube.js';

/**
 * As `TiKVIsAvailable`: at least one store (this cluster's or a peer's) is `Up`, the StatefulSet is
 * recorded with ready replicas plus Up peer stores of at least one, and TiKV is not suspended.
 */
export function isTikvAvailable(_tc: TidbCluster, status: TidbClusterStatus): boolean {
  const tikv = status.tikv;
  const isUp = (s: { state: string }): boolean => s.state === 'Up';
  const upStores = Object.values(tikv?.stores ?? {}).filter(isUp).length;
  const upPeers = Object.values(tikv?.peerStores ?? {}).filter(isUp).length;
  if (upStores + upPeers < 1) return false;
  if (tikv?.statefulSet === undefined || tikv.phase === 'Suspend') return false;
  return (tikv.statefulSet.readyReplicas ?? 0) + upPeers >= 1;
}
