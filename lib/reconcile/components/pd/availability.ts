/**
 * Whether PD is available to the components that need it, as TiDB Operator v1's `PDIsAvailable`
 * (§1.5): TiKV, TiFlash and TiCDC name it in their dependencies and wait (their blocks stop) until
 * it holds.
 */

import type { TidbCluster, TidbClusterStatus } from '../../../model/kube.js';

/**
 * As `PDIsAvailable`: with `lowerLimit = (spec.pd.replicas + peers) / 2 + 1` (integer division),
 * PD's members and peers, their healthy ones, and the StatefulSet's ready replicas plus healthy
 * peers must each reach it; a PD without a recorded StatefulSet, or suspended, is not available.
 */
export function isPdAvailable(tc: TidbCluster, status: TidbClusterStatus): boolean {
  const pd = status.pd;
  const members = Object.values(pd?.members ?? {});
  const peers = Object.values(pd?.peerMembers ?? {});
  const lowerLimit = Math.floor(((tc.spec.pd?.replicas ?? 0) + peers.length) / 2) + 1;
  const healthyPeers = peers.filter((m) => m.health).length;
  if (members.length + peers.length < lowerLimit) return false;
  if (members.filter((m) => m.health).length + healthyPeers < lowerLimit) return false;
  if (pd?.statefulSet === undefined || pd.phase === 'Suspend') return false;
  return (pd.statefulSet.readyReplicas ?? 0) + healthyPeers >= lowerLimit;
}
