/**
 * When a TiDB member's failover period starts. TiDB exits at start when it cannot reach PD or TiKV
 * (tidb-server's `createStoreDDLOwnerMgrAndDomain` ends in `terror.MustNil`), so a TiDB pod that
 * (re)started during a PD or TiKV outage crash-loops, and the kubelet's back-off (up to 5 minutes)
 * keeps it down for a while after both are back — as long as `tidbFailoverPeriod` by default. Beyond
 * TiDB Operator v1, which counts from the member's `lastTransitionTime` alone and so replaces such
 * TiDBs the moment PD returns, the period here starts at the latest of: the member turning
 * unhealthy; PD and TiKV being available again (read from their members' and stores' transition
 * times); and, for a TiDB whose last exit came before that, its first start since — until it has
 * started again it is not a candidate at all. A TiDB that fails again once PD and TiKV are back is
 * counted from their return, so a genuinely broken TiDB is still replaced on time.
 */

import type { IPod } from 'kubernetes-models/v1/Pod';

import type { TidbCluster, TidbClusterStatus } from '../../../model/kube.js';
import { isPdAvailable } from '../pd/availability.js';
import { isTikvAvailable } from '../tikv/availability.js';

const stampMs = (time: string | undefined): number => {
  const at = time === undefined ? Number.NaN : Date.parse(time);
  // As TiDB Operator: a zero (here: missing) transition time is long past.
  return Number.isNaN(at) ? 0 : at;
};

/**
 * Since when PD and TiKV have both been available, as far as the status tells: PD from the moment
 * its quorum-th healthy member turned healthy, TiKV from its first Up store's transition; undefined
 * while either is unavailable.
 */
export function dependenciesBackAtMs(tc: TidbCluster, status: TidbClusterStatus): number | undefined {
  if (!isPdAvailable(tc, status) || !isTikvAvailable(tc, status)) return undefined;
  const peers = Object.values(status.pd?.peerMembers ?? {});
  const lowerLimit = Math.floor(((tc.spec.pd?.replicas ?? 0) + peers.length) / 2) + 1;
  const healthy = [...Object.values(status.pd?.members ?? {}), ...peers]
    .filter((m) => m.health)
    .map((m) => stampMs(m.lastTransitionTime))
    .sort((a, b) => a - b);
  const pdBackMs = healthy[Math.min(lowerLimit, healthy.length) - 1] ?? 0;
  const up = [...Object.values(status.tikv?.stores ?? {}), ...Object.values(status.tikv?.peerStores ?? {})].filter((s) => s.state === 'Up');
  const tikvBackMs = Math.min(...up.map((s) => stampMs(s.lastTransitionTime)));
  return Math.max(pdBackMs, Number.isFinite(tikvBackMs) ? tikvBackMs : 0);
}

/** The `tidb` container's current run and last exit, in ms (undefined when the pod does not say). */
function tidbContainerTimes(pod: IPod | undefined): { runningSinceMs?: number; lastExitAtMs?: number } {
  const status = pod?.status?.containerStatuses?.find((c) => c.name === 'tidb');
  const started = status?.state?.running?.startedAt;
  const exited = status?.lastState?.terminated?.finishedAt;
  return {
    ...(started !== undefined ? { runningSinceMs: stampMs(String(started)) } : {}),
    ...(exited !== undefined ? { lastExitAtMs: stampMs(String(exited)) } : {}),
  };
}

/**
 * When the failover period of a member unhealthy since `unhealthySinceMs` starts (see the module
 * comment), or undefined while it may not start: PD or TiKV unavailable, or the member's TiDB last
 * exited before they were back and has not started since.
 */
export function tidbFailoverSinceMs(tc: TidbCluster, status: TidbClusterStatus, pod: IPod | undefined, unhealthySinceMs: number): number | undefined {
  const backAtMs = dependenciesBackAtMs(tc, status);
  if (backAtMs === undefined) return undefined;
  const since = Math.max(unhealthySinceMs, backAtMs);
  const { runningSinceMs, lastExitAtMs } = tidbContainerTimes(pod);
  if (lastExitAtMs === undefined || lastExitAtMs > backAtMs) return since;
  // Its last exit came while PD or TiKV was away: the back-off runs; count from its next start.
  return runningSinceMs === undefined ? undefined : Math.max(since, runningSinceMs);
}
