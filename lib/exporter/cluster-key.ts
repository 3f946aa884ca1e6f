/**
 * Which TidbCluster an event is about. A TidbCluster is its own key. Every other watched object
 * names its cluster by the `app.kubernetes.io/instance` label TiDB Operator puts on everything it
 * creates (TiDB Operator v1's `pkg/apis/label/label.go`), or failing that by its controller ownerReference to a
 * TidbCluster (as TiDB Operator's StatefulSet handler resolves the owner, §1.1).
 */
import type { KubeObject } from '../kube/port.js';
import { formatClusterKey } from '../model/key.js';
import { formatObjectKey } from '../model/object-key.js';
import { shouldEnqueueBackup, shouldEnqueueRestore } from '../reconcile/backup/enqueue.js';
import type { Backup, Restore } from '../reconcile/backup/types.js';
import { shouldEnqueueCompact } from '../reconcile/compact-backup/enqueue.js';
import type { CompactBackup } from '../reconcile/compact-backup/types.js';
import { instanceLabelOf, LABEL, MANAGED_BY } from '../model/labels.js';
import { controllingMonitor } from '../reconcile/monitor/enqueue.js';
import type { WatchedKind } from './resources.js';

/**
 * Components TiDB Operator labels `managed-by=tidb-operator` that belong to other custom resources
 * (TidbMonitor, Backup/Restore, DMCluster, TidbNGMonitoring, TidbDashboard, TidbInitializer): their
 * `instance` label names that resource, not a TidbCluster. A deny-list rather than an allow-list:
 * an unknown component costs at most one needless step, a wrongly dropped one a missed trigger.
 */
const OTHER_RESOURCE_COMPONENTS: ReadonlySet<string> = new Set([
  'monitor',
  'backup',
  'restore',
  'backup-schedule',
  'dm-master',
  'dm-worker',
  'ng-monitoring',
  'tidb-dashboard',
  'initializer',
]);

/**
 * The cluster key `<k8sCluster>/<namespace>/<name>` of the TidbCluster `obj` belongs to, or
 * undefined when it belongs to none: an owned kind without `managed-by=tidb-operator`, a component
 * of another resource, no instance label and no TidbCluster controller, or a name that cannot form a
 * valid key. `deleted` says the event is a DELETED one (a gone Backup or Restore always maps to its
 * key, so its step forgets it). Never throws.
 */
export function clusterKeyOf(kind: WatchedKind, obj: KubeObject, k8sCluster: string, deleted = false): string | undefined {
  const namespace = obj.metadata.namespace;
  if (!namespace) return undefined;
  if (kind === 'Backup' || kind === 'Restore' || kind === 'CompactBackup' || kind === 'Job') return controllerKeyOf(kind, obj, k8sCluster, namespace, deleted);
  // v1's BackupSchedule controller enqueues every add, update and delete (`backup_schedule_controller.go:53-60`).
  if (kind === 'BackupSchedule') return objectKeyOrNone('BackupSchedule', k8sCluster, namespace, obj.metadata.name);
  // v1's TidbInitializer controller enqueues every event of one (`WatchForObject`), and of a Job it controls.
  if (kind === 'TidbInitializer') return objectKeyOrNone('TidbInitializer', k8sCluster, namespace, obj.metadata.name);
  // v1's TidbMonitor controller enqueues every event of a monitor and of a StatefulSet it controls.
  if (kind === 'TidbMonitor') return objectKeyOrNone('TidbMonitor', k8sCluster, namespace, obj.metadata.name);
  if (kind === 'StatefulSet' && controllingMonitor(obj) !== undefined) return objectKeyOrNone('TidbMonitor', k8sCluster, namespace, controllingMonitor(obj));
  // A controller manager belongs to no one cluster: the exporter steps those it may manage (operators.ts).
  if (kind === 'Deployment') return undefined;
  // v1's TidbDashboard and TidbNGMonitoring controllers enqueue every event of their kind and of the StatefulSets they control.
  if (kind === 'TidbDashboard' || kind === 'TidbNGMonitoring') return objectKeyOrNone(kind, k8sCluster, namespace, obj.metadata.name);
  if (kind === 'StatefulSet' && isCompanionStatefulSet(obj)) return companionKeyOf(obj, k8sCluster, namespace);
  const name = kind === 'TidbCluster' ? obj.metadata.name : ownerClusterName(obj);
  if (!name) return undefined;
  try {
    return formatClusterKey({ k8sCluster, namespace, name });
  } catch {
    // A key that would not parse must never reach the queue; such an object has no cluster we can step.
    return undefined;
  }
}

/** The owning TidbCluster's name for a Pod, StatefulSet or PVC (always in the object's namespace). */
function ownerClusterName(obj: KubeObject): string | undefined {
  const labels = obj.metadata.labels ?? {};
  // The watch is label-selected already; checking again keeps a misconfigured source from leaking.
  if (labels[LABEL.managedBy] !== MANAGED_BY) return undefined;
  const component = labels[LABEL.component];
  if (component !== undefined && OTHER_RESOURCE_COMPONENTS.has(component)) return undefined;
  const instance = instanceLabelOf(labels);
  if (instance !== undefined) return instance;
  const controller = (obj.metadata.ownerReferences ?? []).find((ref) => ref.controller === true);
  if (controller && controller.kind === 'TidbCluster' && controller.apiVersion.startsWith('pingcap.com/')) return controller.name;
  return undefined;
}

/**
 * The key of a Backup, Restore or CompactBackup event (undefined when v1's handler would not enqueue
 * it, §1.3, §2.2, §3.5, except that a deletion always counts),
 * or of a Job's: its controller ownerReference to a Backup, Restore, CompactBackup or TidbInitializer (v1 resolves Job events the same
 * way, `backup_controller.go:246-280`). A Job event always counts: its failure is what the step retries.
 */
function controllerKeyOf(kind: 'Backup' | 'Restore' | 'CompactBackup' | 'Job', obj: KubeObject, k8sCluster: string, namespace: string, deleted: boolean): string | undefined {
  let owner: { kind: 'Backup' | 'Restore' | 'CompactBackup' | 'TidbInitializer'; name: string } | undefined;
  if (kind === 'Job') {
    const ref = (obj.metadata.ownerReferences ?? []).find((r) => r.controller === true && r.apiVersion.startsWith('pingcap.com/'));
    if (ref !== undefined && (ref.kind === 'Backup' || ref.kind === 'Restore' || ref.kind === 'CompactBackup' || ref.kind === 'TidbInitializer')) owner = { kind: ref.kind, name: ref.name };
  } else {
    // A deleted object is always worth a step: its step finds it gone and forgets the key.
    const wanted = deleted || wantsStep(kind, obj);
    if (wanted && obj.metadata.name) owner = { kind, name: obj.metadata.name };
  }
  if (owner === undefined) return undefined;
  try {
    return formatObjectKey(owner.kind, { k8sCluster, namespace, name: owner.name });
  } catch {
    return undefined;
  }
}

/** Whether a (not deleted) event of a controller's own kind is worth a step, as v1's event handlers decide. */
function wantsStep(kind: 'Backup' | 'Restore' | 'CompactBackup', obj: KubeObject): boolean {
  if (kind === 'Backup') return shouldEnqueueBackup(obj as Backup);
  if (kind === 'Restore') return shouldEnqueueRestore(obj as Restore);
  return shouldEnqueueCompact(obj as CompactBackup);
}

/**
 * The key of the BackupSchedule a Backup (or CompactBackup) event should also wake: its controller
 * owner, when it finished (a Backup's Complete, Failed or Invalid condition; a CompactBackup's state
 * Complete or Failed) or went — what its schedule's retention, a slot waiting on it and the next
 * compaction need (v1 saw it at its 30 s resync). Undefined otherwise.
 */
export function scheduleKeyOfBackup(obj: KubeObject, k8sCluster: string, deleted: boolean): string | undefined {
  const owner = (obj.metadata.ownerReferences ?? []).find((r) => r.controller === true && r.kind === 'BackupSchedule' && r.apiVersion.startsWith('pingcap.com/'));
  if (owner === undefined || !obj.metadata.namespace) return undefined;
  const conditions = ((obj.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []);
  const state = (obj.status as { state?: string } | undefined)?.state;
  const finished = conditions.some((c) => c.status === 'True' && (c.type === 'Complete' || c.type === 'Failed' || c.type === 'Invalid')) || state === 'Complete' || state === 'Failed';
  return deleted || finished ? objectKeyOrNone('BackupSchedule', k8sCluster, obj.metadata.namespace, owner.name) : undefined;
}

/** Whether a StatefulSet is a TidbDashboard's or a TidbNGMonitoring's (by its component label). */
function isCompanionStatefulSet(obj: KubeObject): boolean {
  const component = obj.metadata.labels?.[LABEL.component];
  return component === 'tidb-dashboard' || component === 'ng-monitoring';
}

/** The key of the TidbDashboard or TidbNGMonitoring controlling a StatefulSet (v1 resolves its controller ownerReference). */
function companionKeyOf(obj: KubeObject, k8sCluster: string, namespace: string): string | undefined {
  const ref = (obj.metadata.ownerReferences ?? []).find((r) => r.controller === true && r.apiVersion.startsWith('pingcap.com/'));
  if (ref === undefined || (ref.kind !== 'TidbDashboard' && ref.kind !== 'TidbNGMonitoring')) return undefined;
  return objectKeyOrNone(ref.kind, k8sCluster, namespace, ref.name);
}

function objectKeyOrNone(kind: 'BackupSchedule' | 'TidbInitializer' | 'TidbMonitor' | 'TidbDashboard' | 'TidbNGMonitoring', k8sCluster: string, namespace: string, name: string | undefined): string | undefined {
  if (!name) return undefined;
  try {
    return formatObjectKey(kind, { k8sCluster, namespace, name });
  } catch {
    return undefined;
  }
}

/**
 * The key of the TidbCluster a PiTR Restore event should also wake (any event of it: created, changed,
 * finished or gone): TiKV's `gc.ratio-threshold = -1` follows whether one is pending (v1's TiKV member
 * manager, lib/reconcile/components/tikv/pitr-gc.ts). `spec.br.cluster` in `spec.br.clusterNamespace`,
 * or the Restore's own namespace when that is empty. Undefined for any other Restore.
 */
export function clusterKeyOfPitrRestore(obj: KubeObject, k8sCluster: string): string | undefined {
  const spec = obj.spec as { restoreMode?: unknown; br?: { cluster?: unknown; clusterNamespace?: unknown } } | undefined;
  const name = spec?.br?.cluster;
  const namespace = (typeof spec?.br?.clusterNamespace === 'string' && spec.br.clusterNamespace) || obj.metadata.namespace;
  if (spec?.restoreMode !== 'pitr' || typeof name !== 'string' || !namespace) return undefined;
  try {
    return formatClusterKey({ k8sCluster, namespace, name });
  } catch {
    return undefined;
  }
}
