/**
 * Labels, owner references, the cluster reference and the status of TiDB Operator v1's TidbDashboard
 * and TidbNGMonitoring objects (release-1.6 `pkg/apis/label/label.go` `NewTiDBDashboard` /
 * `NewTiDBNGMonitoring`, `pkg/manager/tidbdashboard/manager.go` `populateStatus`,
 * `pkg/manager/tidbngmonitoring/ng_monitoring_manager.go` `populateStatus`).
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { OwnerReference } from '../../model/labels.js';
import { LABEL, MANAGED_BY } from '../../model/labels.js';
import { isStatefulSetUpgrading } from '../member/statefulset.js';
import type { CompanionObject, CompanionStatus } from './types.js';

/** The kinds of this folder: each owns one StatefulSet of one component. */
export type CompanionKind = 'TidbDashboard' | 'TidbNGMonitoring';

/**
 * The labels of every object `obj` owns: `name` (`tidb-dashboard` / `tidb-ng-monitoring`),
 * `managed-by=tidb-operator`, `instance=<obj>`, `component` (`tidb-dashboard` / `ng-monitoring`).
 * Exactly the selector labels, so they double as the StatefulSet's and Service's selector.
 */
export function companionLabels(kind: CompanionKind, name: string): Record<string, string> {
  return {
    [LABEL.name]: kind === 'TidbDashboard' ? 'tidb-dashboard' : 'tidb-ng-monitoring',
    [LABEL.managedBy]: MANAGED_BY,
    [LABEL.instance]: name,
    [LABEL.component]: kind === 'TidbDashboard' ? 'tidb-dashboard' : 'ng-monitoring',
  };
}

/** The controller owner reference to `obj` (v1's `GetTiDBDashboardOwnerRef` / `GetTiDBNGMonitoringOwnerRef`). */
export function companionOwnerRef(kind: CompanionKind, obj: CompanionObject): OwnerReference {
  return { apiVersion: 'pingcap.com/v1alpha1', kind, name: obj.metadata.name ?? '', uid: obj.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/** The TidbCluster `spec.clusters[0]` names, its namespace defaulting to the object's (v1's defaulting). */
export function clusterRefOf(obj: CompanionObject): { readonly namespace: string; readonly name: string; readonly clusterDomain: string } | undefined {
  const ref = obj.spec?.clusters?.[0];
  if (ref?.name === undefined || ref.name === '') return undefined;
  return { namespace: ref.namespace || (obj.metadata.namespace ?? ''), name: ref.name, clusterDomain: ref.clusterDomain ?? '' };
}

/**
 * As v1's `populateStatus`: nothing before the StatefulSet exists (the old status stays); then a
 * copy of its status, `phase` Upgrade while it is between revisions (or a pod runs an older one),
 * else Normal, and `synced` true.
 */
export function companionStatus(old: CompanionStatus | undefined, sts: IStatefulSet | undefined, pods: readonly IPod[]): CompanionStatus {
  if (sts === undefined) return { ...(old ?? {}) };
  const upgrading = isStatefulSetUpgrading(sts, pods, sts.status?.updateRevision);
  return { ...(old ?? {}), synced: true, phase: upgrading ? 'Upgrade' : 'Normal', ...(sts.status === undefined ? {} : { statefulSet: sts.status }) };
}

/** Whether the StatefulSet has all its replicas ready at the newest revision (what "reaches ready" means for these kinds). */
export function isCompanionReady(sts: IStatefulSet | undefined): boolean {
  const status = sts?.status;
  if (sts === undefined || status === undefined) return false;
  const want = sts.spec?.replicas ?? 1;
  return (status.observedGeneration ?? 0) >= (sts.metadata?.generation ?? 0) && (status.readyReplicas ?? 0) === want && (status.updatedReplicas ?? 0) === want && status.currentRevision === status.updateRevision;
}
