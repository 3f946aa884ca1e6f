/**
 * Desired replica counts and "all members ready" predicates over the TidbCluster spec and status, as
 * TiDB Operator v1 computes them (`tidbcluster.go`: `PDStsDesiredReplicas`, `PDAllMembersReady`, …).
 * The status is the one rules are building (members, stores and failure marks come from the
 * component status rules), so these answer "as far as this step knows".
 */

import type { TidbCluster, TidbClusterStatus } from '../../model/kube.js';

type Spec = TidbCluster['spec'];
type StsStatus = { currentRevision?: string; updateRevision?: string } | undefined;

// As TiDB Operator's defaulting: one spare replica while a volume replacement is in progress.
const DEFAULT_SPARE_VOL_REPLACE_REPLICAS = 1;

const count = (record: object | undefined): number => (record ? Object.keys(record).length : 0);

/** PD's desired replicas: spec + failure members already deleted from PD + spare during volume replace. */
export function pdDesiredReplicas(spec: Spec, status: TidbClusterStatus): number {
  const pd = spec.pd;
  if (!pd) return 0;
  const deleted = Object.values(status.pd?.failureMembers ?? {}).filter((m) => m.memberDeleted === true).length;
  const spare = status.pd?.volReplaceInProgress
    ? (pd.spareVolReplaceReplicas ?? DEFAULT_SPARE_VOL_REPLACE_REPLICAS)
    : 0;
  return pd.replicas + deleted + spare;
}

/** TiKV's desired replicas: spec + every failure store + spare during volume replace. */
export function tikvDesiredReplicas(spec: Spec, status: TidbClusterStatus): number {
  const tikv = spec.tikv;
  if (!tikv) return 0;
  const spare = status.tikv?.volReplaceInProgress
    ? (tikv.spareVolReplaceReplicas ?? DEFAULT_SPARE_VOL_REPLACE_REPLICAS)
    : 0;
  return tikv.replicas + count(status.tikv?.failureStores) + spare;
}

/** TiDB's desired replicas: spec + failure members. */
export function tidbDesiredReplicas(spec: Spec, status: TidbClusterStatus): number {
  return spec.tidb ? spec.tidb.replicas + count(status.tidb?.failureMembers) : 0;
}

/** TiFlash's desired replicas: spec + failure stores. */
export function tiflashDesiredReplicas(spec: Spec, status: TidbClusterStatus): number {
  return spec.tiflash ? spec.tiflash.replicas + count(status.tiflash?.failureStores) : 0;
}

/** As TiDB Operator: as many PD members as desired, all healthy. */
export function isPdAllMembersReady(spec: Spec, status: TidbClusterStatus): boolean {
  const members = Object.values(status.pd?.members ?? {});
  return members.length === pdDesiredReplicas(spec, status) && members.every((m) => m.health);
}

/** As TiDB Operator: as many TiKV stores as desired, all `Up`. */
export function isTikvAllStoresReady(spec: Spec, status: TidbClusterStatus): boolean {
  const stores = Object.values(status.tikv?.stores ?? {});
  return stores.length === tikvDesiredReplicas(spec, status) && stores.every((s) => s.state === 'Up');
}

/** As TiDB Operator: as many TiDB members as desired, all healthy. */
export function isTidbAllMembersReady(spec: Spec, status: TidbClusterStatus): boolean {
  const members = Object.values(status.tidb?.members ?? {});
  return members.length === tidbDesiredReplicas(spec, status) && members.every((m) => m.health);
}

/** As TiDB Operator: as many TiFlash stores as desired, all `Up`. */
export function isTiflashAllStoresReady(spec: Spec, status: TidbClusterStatus): boolean {
  const stores = Object.values(status.tiflash?.stores ?? {});
  return stores.length === tiflashDesiredReplicas(spec, status) && stores.every((s) => s.state === 'Up');
}

/** As TiDB Operator: as many TiCDC captures as `spec.ticdc.replicas`, all ready. */
export function isTicdcAllCapturesReady(spec: Spec, status: TidbClusterStatus): boolean {
  const captures = Object.values(status.ticdc?.captures ?? {});
  return captures.length === (spec.ticdc?.replicas ?? 0) && captures.every((c) => c.ready === true);
}

/** As TiDB Operator: as many TiProxy members as `spec.tiproxy.replicas`, all healthy. */
export function isTiproxyAllMembersReady(spec: Spec, status: TidbClusterStatus): boolean {
  const members = Object.values(status.tiproxy?.members ?? {});
  return members.length === (spec.tiproxy?.replicas ?? 0) && members.every((m) => m.health);
}

/**
 * As TiDB Operator's `allStatefulSetsAreUpToDate`: no PD/TiKV/TiDB/TiFlash StatefulSet (as recorded in
 * the status) is between revisions. A StatefulSet not recorded yet counts as up to date.
 */
export function areStatefulSetsUpToDate(status: TidbClusterStatus): boolean {
  const upToDate = (sts: StsStatus): boolean => sts === undefined || sts.currentRevision === sts.updateRevision;
  return [status.pd, status.tikv, status.tidb, status.tiflash].every((c) => upToDate(c?.statefulSet));
}
