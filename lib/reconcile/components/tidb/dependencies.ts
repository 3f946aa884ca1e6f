/**
 * What TiDB waits for (§1.5, `tidb_member_manager.go:132-143`): TiKV available when the cluster has
 * TiKV, Pump available when it has Pump — as TiDB Operator's `TiKVIsAvailable` and `PumpIsAvailable`
 * over the status synced so far this step.
 */

import type { TidbCluster, TidbClusterStatus } from '../../../model/kube.js';

/**
 * As `TiKVIsAvailable`: at least one store (its own or a peer cluster's) `Up`, a recorded StatefulSet
 * whose ready replicas plus Up peer stores reach one, and not suspended.
 */
export function isTikvAvailableForTidb(_tc: TidbCluster, status: TidbClusterStatus): boolean {
  const tikv = status.tikv;
  const up = (stores: Record<string, { state?: string }> | undefined): number => Object.values(stores ?? {}).filter((s) => s.state === 'Up').length;
  const upPeers = up(tikv?.peerStores);
  if (up(tikv?.stores) + upPeers < 1) return false;
  if (tikv?.statefulSet === undefined || tikv.phase === 'Suspend') return false;
  return (tikv.statefulSet.readyReplicas ?? 0) + upPeers >= 1;
}

/** As `PumpIsAvailable`: at least one Pump node `online`, and not suspended. */
export function isPumpAvailableForTidb(_tc: TidbCluster, status: TidbClusterStatus): boolean {
  const pump = status.pump;
  return pump?.phase !== 'Suspend' && (pump?.members ?? []).some((m) => m.state === 'online');
}
