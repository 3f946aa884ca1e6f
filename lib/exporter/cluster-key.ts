/**
 * Which TidbCluster an event is about. A TidbCluster is its own key. Every other watched object
 * names its cluster by the `app.kubernetes.io/instance` label TiDB Operator puts on everything it
 * creates (TiDB Operator v1's `pkg/apis/label/label.go`), or failing that by its controller ownerReference to a
 * TidbCluster (as TiDB Operator's StatefulSet handler resolves the owner, §1.1).
 */
import type { KubeObject } from '../kube/port.js';
import { formatClusterKey } from '../model/key.js';
import { instanceLabelOf, LABEL, MANAGED_BY } from '../model/labels.js';
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
 * valid key. Never throws.
 */
export function clusterKeyOf(kind: WatchedKind, obj: KubeObject, k8sCluster: string): string | undefined {
  const namespace = obj.metadata.namespace;
  if (!namespace) return undefined;
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
