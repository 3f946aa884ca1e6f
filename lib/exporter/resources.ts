/**
 * What the exporter watches: the same triggers as TiDB Operator's work queue (TidbCluster changes,
 * changes of the StatefulSets it owns — `pkg/controller/tidbcluster/tidb_cluster_controller.go`) plus the Pods and PVCs it manages,
 * which the step engine reads and TiDB Operator only saw through its 30 s resync. Owned kinds are
 * watched label-selected (`app.kubernetes.io/managed-by=tidb-operator`, v1's `pkg/apis/label/label.go`), so the API server
 * never streams unrelated Pods to us.
 */
import { MANAGED_BY_SELECTOR } from '../model/labels.js';
import { OPERATOR_DEPLOYMENT_SELECTOR } from '../model/tidb-operator.js';
import { TerminalError } from '../platform/errors.js';

/**
 * The kinds the exporter watches: each controller's own kind (TidbCluster, Backup, Restore, CompactBackup, BackupSchedule) and what
 * its steps wait on — the TidbCluster's StatefulSets, Pods and PVCs, the Jobs of Backups, Restores and CompactBackups —
 * and TiDB Operator's controller-manager Deployments, whose changes re-check the coexistence verdict (operators.ts).
 */
export type WatchedKind = 'TidbCluster' | 'StatefulSet' | 'Pod' | 'PersistentVolumeClaim' | 'Backup' | 'Restore' | 'CompactBackup' | 'BackupSchedule' | 'TidbInitializer' | 'TidbDashboard' | 'TidbNGMonitoring' | 'Job' | 'TidbMonitor' | 'Deployment';

/**
 * The Jobs the backup controllers create carry one of these `managed-by` labels (§1.6, §2.3); the
 * TidbInitializer's Job `managed-by=tidb-operator` (with `component=initializer`, §4).
 */
export const BACKUP_JOB_SELECTOR = 'app.kubernetes.io/managed-by in (backup-operator,restore-operator,tidb-operator)';

/**
 * One watch: a kind in all namespaces or in one. `name` identifies it in the checkpoint table and in
 * logs: the plural, plus `@<namespace>` when restricted to one namespace, so a deployment that
 * changes its namespace list never resumes one watch from another's resourceVersion.
 */
export type WatchedResource = {
  readonly name: string;
  readonly kind: WatchedKind;
  readonly namespace: string | undefined;
  readonly labelSelector: string | undefined;
};

const KINDS: readonly { kind: WatchedKind; plural: string; labelSelector: string | undefined }[] = [
  { kind: 'TidbCluster', plural: 'tidbclusters', labelSelector: undefined },
  { kind: 'StatefulSet', plural: 'statefulsets', labelSelector: MANAGED_BY_SELECTOR },
  { kind: 'Pod', plural: 'pods', labelSelector: MANAGED_BY_SELECTOR },
  { kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims', labelSelector: MANAGED_BY_SELECTOR },
  { kind: 'Backup', plural: 'backups', labelSelector: undefined },
  { kind: 'Restore', plural: 'restores', labelSelector: undefined },
  { kind: 'CompactBackup', plural: 'compactbackups', labelSelector: undefined },
  { kind: 'BackupSchedule', plural: 'backupschedules', labelSelector: undefined },
  { kind: 'TidbInitializer', plural: 'tidbinitializers', labelSelector: undefined },
  { kind: 'TidbMonitor', plural: 'tidbmonitors', labelSelector: undefined },
  { kind: 'TidbDashboard', plural: 'tidbdashboards', labelSelector: undefined },
  { kind: 'TidbNGMonitoring', plural: 'tidbngmonitorings', labelSelector: undefined },
  { kind: 'Job', plural: 'jobs', labelSelector: BACKUP_JOB_SELECTOR },
  { kind: 'Deployment', plural: 'deployments', labelSelector: OPERATOR_DEPLOYMENT_SELECTOR },
];

const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * The watches for `namespaces`: one cluster-wide watch per kind when the list is empty or absent,
 * else one per kind and namespace. A namespace that is not a DNS-1123 label is a `TerminalError` (a typo in the
 * configuration must not turn into a silently empty watch).
 */
export function watchedResources(namespaces: readonly string[] = []): WatchedResource[] {
  for (const ns of namespaces) {
    if (ns.length > 63 || !NAMESPACE.test(ns)) throw new TerminalError(`namespace ${JSON.stringify(ns)} is not a DNS-1123 label`, { field: 'namespaces' });
  }
  const scopes: (string | undefined)[] = namespaces.length === 0 ? [undefined] : [...new Set(namespaces)];
  return scopes.flatMap((namespace) =>
    KINDS.map(({ kind, plural, labelSelector }) => ({
      name: namespace === undefined ? plural : `${plural}@${namespace}`,
      kind,
      namespace,
      labelSelector,
    })),
  );
}
