/**
 * What TiDB waits for besides TiKV (§1.5, `tidb_member_manager.go:132-143`): Pump available when
 * the cluster has Pump, as TiDB Operator's `PumpIsAvailable` over the status synced so far.
 */

import type { TidbCluster, TidbClusterStatus } from '../../../model/kube.js';

/** As `PumpIsAvailable`: at least one Pump node `online`, and not suspended. */
export function isPumpAvailableForTidb(_tc: TidbCluster, status: TidbClusterStatus): boolean {
  const pump = status.pump;
  return pump?.phase !== 'Suspend' && (pump?.members ?? []).some((m) => m.state === 'online');
}
