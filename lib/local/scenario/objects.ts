/**
 * The `objects:` section of a scenario file: Secrets and ConfigMaps a user would create beside the
 * TidbCluster (e.g. the TLS certificates of `tlsCluster`, made with cert-manager or kubectl), RBAC
 * objects (Role, RoleBinding, ClusterRole, ClusterRoleBinding: e.g. who may use the admin
 * function's mutating actions in which namespace; TiDB Operator's `backup-rbac.yaml`), ServiceAccounts
 * (the backup Jobs' `tidb-backup-manager`, with its IRSA annotation), and TiDB Operator's data-plane
 * resources (Backup, Restore, BackupSchedule, CompactBackup, TidbDashboard, TidbNGMonitoring), and Deployments (e.g. TiDB Operator's
 * `tidb-controller-manager`, whose pods run its leader election: lib/sim/tidb/controller-manager.ts).
 * Each is a manifest with its kind's apiVersion (`v1`, `rbac.authorization.k8s.io/v1`, `apps/v1`, `pingcap.com/v1alpha1`), `metadata.name`, and
 * for namespaced kinds `metadata.namespace` defaulting to the cluster's; they are created at t = 0,
 * before the TidbCluster, through the same API server checks as any write. The timeline's `apply:`
 * takes the same manifests (timeline.ts). Anything else is a file error.
 */
import type { FieldPath } from './reader.js';
import { describeValue, FieldError, readJsonObject, readString, rejectUnknownFields, required } from './reader.js';
import type { JsonObject } from './types.js';

/** The kinds `objects:` may hold. */
export const OBJECT_KINDS = [
  'Secret',
  'ConfigMap',
  'ServiceAccount',
  'Role',
  'RoleBinding',
  'ClusterRole',
  'ClusterRoleBinding',
  'Backup',
  'Restore',
  'BackupSchedule',
  'CompactBackup',
  'TidbInitializer',
  'TidbMonitor',
  'TidbDashboard',
  'TidbNGMonitoring',
  'Deployment',
  'VolumeAttributesClass',
  'StorageClass',
] as const;

/** One of `OBJECT_KINDS`. */
export type ObjectKind = (typeof OBJECT_KINDS)[number];

const RBAC_V1 = 'rbac.authorization.k8s.io/v1';
const PINGCAP = 'pingcap.com/v1alpha1';
const CUSTOM = ['apiVersion', 'kind', 'metadata', 'spec'];

/** Each kind's apiVersion, writable fields, and whether it lives in a namespace. */
const KINDS: Record<ObjectKind, { readonly apiVersion: string; readonly fields: readonly string[]; readonly namespaced: boolean }> = {
  Secret: { apiVersion: 'v1', fields: ['apiVersion', 'kind', 'metadata', 'type', 'data', 'stringData', 'immutable'], namespaced: true },
  ConfigMap: { apiVersion: 'v1', fields: ['apiVersion', 'kind', 'metadata', 'data', 'binaryData', 'immutable'], namespaced: true },
  ServiceAccount: { apiVersion: 'v1', fields: ['apiVersion', 'kind', 'metadata', 'secrets', 'imagePullSecrets', 'automountServiceAccountToken'], namespaced: true },
  Role: { apiVersion: RBAC_V1, fields: ['apiVersion', 'kind', 'metadata', 'rules'], namespaced: true },
  RoleBinding: { apiVersion: RBAC_V1, fields: ['apiVersion', 'kind', 'metadata', 'roleRef', 'subjects'], namespaced: true },
  ClusterRole: { apiVersion: RBAC_V1, fields: ['apiVersion', 'kind', 'metadata', 'rules', 'aggregationRule'], namespaced: false },
  ClusterRoleBinding: { apiVersion: RBAC_V1, fields: ['apiVersion', 'kind', 'metadata', 'roleRef', 'subjects'], namespaced: false },
  Backup: { apiVersion: PINGCAP, fields: CUSTOM, namespaced: true },
  Restore: { apiVersion: PINGCAP, fields: CUSTOM, namespaced: true },
  BackupSchedule: { apiVersion: PINGCAP, fields: CUSTOM, namespaced: true },
  CompactBackup: { apiVersion: PINGCAP, fields: CUSTOM, namespaced: true },
  TidbInitializer: { apiVersion: PINGCAP, fields: CUSTOM, namespaced: true },
  TidbMonitor: { apiVersion: PINGCAP, fields: CUSTOM, namespaced: true },
  TidbDashboard: { apiVersion: PINGCAP, fields: CUSTOM, namespaced: true },
  TidbNGMonitoring: { apiVersion: PINGCAP, fields: CUSTOM, namespaced: true },
  Deployment: { apiVersion: 'apps/v1', fields: ['apiVersion', 'kind', 'metadata', 'spec'], namespaced: true },
  VolumeAttributesClass: { apiVersion: 'storage.k8s.io/v1', fields: ['apiVersion', 'kind', 'metadata', 'driverName', 'parameters'], namespaced: false },
  StorageClass: { apiVersion: 'storage.k8s.io/v1', fields: ['apiVersion', 'kind', 'metadata', 'provisioner', 'parameters', 'allowVolumeExpansion', 'reclaimPolicy', 'volumeBindingMode', 'mountOptions', 'allowedTopologies'], namespaced: false },
};

/** Whether a kind is one of TiDB Operator's custom resources (created with strict field validation, as kubectl applies them). */
export function isCustomKind(kind: ObjectKind): boolean {
  return KINDS[kind].apiVersion === PINGCAP;
}

/** One object to create: the manifest with its namespace filled in (none for cluster-scoped kinds). */
export type ScenarioObject = JsonObject & { readonly kind: ObjectKind; readonly metadata: { name: string; namespace?: string } };

/** Reads one manifest of a kind `objects:` may hold, at `path` (also the timeline's `apply:`); its namespace defaults to `clusterNamespace`. */
export function readManifest(raw: unknown, path: FieldPath, clusterNamespace: string): ScenarioObject {
  const manifest = readJsonObject(raw, path, `a manifest (${OBJECT_KINDS.join(', ')})`);
  const kind = readString(required(manifest, 'kind', path), [...path, 'kind']);
  if (!isObjectKind(kind)) throw new FieldError([...path, 'kind'], `expected one of: ${OBJECT_KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
  const spec = KINDS[kind];
  const apiVersion = readString(required(manifest, 'apiVersion', path), [...path, 'apiVersion']);
  if (apiVersion !== spec.apiVersion) throw new FieldError([...path, 'apiVersion'], `expected ${spec.apiVersion} for ${kind}, got ${JSON.stringify(apiVersion)}`);
  rejectUnknownFields(manifest, path, spec.fields);
  if (isCustomKind(kind)) readJsonObject(required(manifest, 'spec', path), [...path, 'spec'], `a mapping (the ${kind}'s spec)`);
  const metadataPath: FieldPath = [...path, 'metadata'];
  const metadata = readJsonObject(required(manifest, 'metadata', path), metadataPath);
  rejectUnknownFields(metadata, metadataPath, spec.namespaced ? ['name', 'namespace', 'labels', 'annotations'] : ['name', 'labels', 'annotations']);
  const name = readString(required(metadata, 'name', metadataPath), [...metadataPath, 'name']);
  if (!spec.namespaced) return { ...manifest, kind, metadata: { ...metadata, name } } as ScenarioObject;
  const namespace = 'namespace' in metadata ? readString(metadata['namespace'], [...metadataPath, 'namespace']) : clusterNamespace;
  for (const field of ['data', 'stringData', 'binaryData'] as const) {
    if (field in manifest) readStringMap(manifest[field], [...path, field], kind === 'Secret' && field === 'data');
  }
  return { ...manifest, kind, metadata: { ...metadata, name, namespace } } as ScenarioObject;
}

/** Whether `kind` is one of `OBJECT_KINDS`. */
export function isObjectKind(kind: string): kind is ObjectKind {
  return (OBJECT_KINDS as readonly string[]).includes(kind);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A mapping of strings; a Secret's `data` values must be base64 (the API server decodes them). */
function readStringMap(value: unknown, path: FieldPath, base64: boolean): void {
  const map = readJsonObject(value, path, 'a mapping of keys to strings');
  for (const [key, v] of Object.entries(map)) {
    if (typeof v !== 'string') throw new FieldError([...path, key], `expected a string, got ${describeValue(v)}`);
    if (base64 && !BASE64.test(v)) throw new FieldError([...path, key], 'expected base64 (use stringData for plain text)');
  }
}
