/**
 * Whether Pump is available to TiDB, as TiDB Operator v1's `PumpIsAvailable` (§1.5): TiDB waits
 * (its block stops) until it holds when the cluster has Pump.
 */

import type { TidbCluster, TidbClusterStatus } from '../../../model/kube.js';

/** As `PumpIsAvailable`: at least one member `online`, and Pump not suspended. */
export function isPumpAvailable(_tc: TidbCluster, status: TidbClusterStatus): boolean {
  const pump = status.pump;
  if (pump?.phase === 'Suspend') return false;
  return (pump?.members ?? []).some((m) => m.state === 'online');
}
