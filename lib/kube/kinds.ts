/**
 * Where each kind the reconciler touches lives on the API server. A fixed table instead of
 * discovery: discovery would cost extra requests on every cold start, and these kinds are stable.
 */
import { TerminalError } from '../platform/errors.js';
import type { KnownKind, LabelSelector } from './port.js';

/** A kind's REST coordinates. `group` is '' for the core group; `clusterScoped` kinds have no namespace in their paths. */
export type KindInfo = { readonly kind: KnownKind; readonly group: string; readonly version: string; readonly plural: string; readonly clusterScoped?: boolean };

const KINDS: Record<KnownKind, KindInfo> = {
  Pod: { kind: 'Pod', group: '', version: 'v1', plural: 'pods' },
  Service: { kind: 'Service', group: '', version: 'v1', plural: 'services' },
  ConfigMap: { kind: 'ConfigMap', group: '', version: 'v1', plural: 'configmaps' },
  PersistentVolumeClaim: { kind: 'PersistentVolumeClaim', group: '', version: 'v1', plural: 'persistentvolumeclaims' },
  ServiceAccount: { kind: 'ServiceAccount', group: '', version: 'v1', plural: 'serviceaccounts' },
  Event: { kind: 'Event', group: '', version: 'v1', plural: 'events' },
  StatefulSet: { kind: 'StatefulSet', group: 'apps', version: 'v1', plural: 'statefulsets' },
  Deployment: { kind: 'Deployment', group: 'apps', version: 'v1', plural: 'deployments' },
  Role: { kind: 'Role', group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles' },
  RoleBinding: { kind: 'RoleBinding', group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'rolebindings' },
  TidbCluster: { kind: 'TidbCluster', group: 'pingcap.com', version: 'v1alpha1', plural: 'tidbclusters' },
  PersistentVolume: { kind: 'PersistentVolume', group: '', version: 'v1', plural: 'persistentvolumes', clusterScoped: true },
  Node: { kind: 'Node', group: '', version: 'v1', plural: 'nodes', clusterScoped: true },
  StorageClass: { kind: 'StorageClass', group: 'storage.k8s.io', version: 'v1', plural: 'storageclasses', clusterScoped: true },
  Secret: { kind: 'Secret', group: '', version: 'v1', plural: 'secrets' },
  Backup: { kind: 'Backup', group: 'pingcap.com', version: 'v1alpha1', plural: 'backups' },
  Restore: { kind: 'Restore', group: 'pingcap.com', version: 'v1alpha1', plural: 'restores' },
  CompactBackup: { kind: 'CompactBackup', group: 'pingcap.com', version: 'v1alpha1', plural: 'compactbackups' },
  BackupSchedule: { kind: 'BackupSchedule', group: 'pingcap.com', version: 'v1alpha1', plural: 'backupschedules' },
  TidbInitializer: { kind: 'TidbInitializer', group: 'pingcap.com', version: 'v1alpha1', plural: 'tidbinitializers' },
  TidbDashboard: { kind: 'TidbDashboard', group: 'pingcap.com', version: 'v1alpha1', plural: 'tidbdashboards' },
  TidbNGMonitoring: { kind: 'TidbNGMonitoring', group: 'pingcap.com', version: 'v1alpha1', plural: 'tidbngmonitorings' },
  Job: { kind: 'Job', group: 'batch', version: 'v1', plural: 'jobs' },
  TidbMonitor: { kind: 'TidbMonitor', group: 'pingcap.com', version: 'v1alpha1', plural: 'tidbmonitors' },
  ClusterRole: { kind: 'ClusterRole', group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', clusterScoped: true },
  ClusterRoleBinding: { kind: 'ClusterRoleBinding', group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterrolebindings', clusterScoped: true },
  Lease: { kind: 'Lease', group: 'coordination.k8s.io', version: 'v1', plural: 'leases' },
};

/**
 * The kinds whose CRD declares a `status` subresource, so their status is written through /status:
 * the TidbCluster, and TidbDashboard and TidbNGMonitoring (`UpdateStatus` in v1's controllers).
 */
export const STATUS_SUBRESOURCE_KINDS: ReadonlySet<string> = new Set(['TidbCluster', 'TidbDashboard', 'TidbNGMonitoring']);

/** The coordinates of `kind`; a kind outside the table is a programming error (`TerminalError`). */
export function kindInfo(kind: string | undefined): KindInfo {
  const info = kind === undefined ? undefined : (KINDS as Record<string, KindInfo | undefined>)[kind];
  if (!info) throw new TerminalError(`kind ${String(kind)} is not one the reconciler manages`, { field: 'kind' });
  return info;
}

/** `v1` or `group/version`, as objects carry it. */
export function apiVersionOf(info: KindInfo): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
}

/** The collection path; without a namespace, across all namespaces. */
export function collectionPath(info: KindInfo, namespace: string | undefined): string {
  const root = info.group ? `/apis/${info.group}/${info.version}` : `/api/${info.version}`;
  const ns = namespace === undefined ? '' : `/namespaces/${segment(namespace, 'namespace')}`;
  return `${root}${ns}/${info.plural}`;
}

/** The path of one object, optionally a subresource of it (a cluster-scoped kind's path has no namespace). */
export function objectPath(info: KindInfo, namespace: string, name: string, subresource?: 'status'): string {
  const base = `${collectionPath(info, info.clusterScoped ? undefined : namespace)}/${segment(name, 'name')}`;
  return subresource ? `${base}/${subresource}` : base;
}

/** The query form of a selector; an empty one is refused (it would select everything). */
export function encodeSelector(selector: LabelSelector): string {
  const text = typeof selector === 'string' ? selector.trim() : Object.entries(selector).map(([k, v]) => `${k}=${v}`).join(',');
  if (text === '') throw new TerminalError('an empty label selector would list every object of the namespace', { field: 'labelSelector' });
  return text;
}

/** A path segment must be a non-empty name; encoding keeps a stray `/` from addressing another path. */
function segment(value: string, field: string): string {
  if (value === '') throw new TerminalError(`${field} must not be empty`, { field });
  return encodeURIComponent(value);
}
