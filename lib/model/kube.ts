/**
 * The Kubernetes objects a step observes and writes, as plain JSON (what the API server sends), typed
 * with the `kubernetes-models` interfaces. Rules read these; they never see a client.
 */

import type { ITidbCluster } from '@kubernetes-models/tidb-operator/pingcap.com/v1alpha1/TidbCluster';
import type { ITidbClusterStatus } from '@kubernetes-models/tidb-operator/pingcap.com/v1alpha1/TidbClusterStatus';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import type { IRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPod } from 'kubernetes-models/v1/Pod';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IServiceAccount } from 'kubernetes-models/v1/ServiceAccount';

/** A `pingcap.com/v1alpha1` TidbCluster as stored by the API server. */
export type TidbCluster = ITidbCluster;

/** The TidbCluster status subresource; rules compute a new one, the engine writes it. */
export type TidbClusterStatus = ITidbClusterStatus;

/**
 * Everything a cluster owns, by kind, as read with one label-selected LIST per kind (docs/ARCHITECTURE.md, One step).
 * Its Events are not among them: no rule reads them (an Event reported once is checked by the
 * executor that records it).
 */
export type OwnedObjects = {
  readonly StatefulSet: readonly IStatefulSet[];
  readonly Pod: readonly IPod[];
  readonly Service: readonly IService[];
  readonly ConfigMap: readonly IConfigMap[];
  readonly PersistentVolumeClaim: readonly IPersistentVolumeClaim[];
  readonly Deployment: readonly IDeployment[];
  readonly ServiceAccount: readonly IServiceAccount[];
  readonly Role: readonly IRole[];
  readonly RoleBinding: readonly IRoleBinding[];
};

/** The kinds listed in `OwnedObjects`. */
export type OwnedKind = keyof OwnedObjects;

/**
 * Every kind an action may name: the cluster itself, what it owns, PersistentVolumes (reclaim
 * policy), and what the backup controllers write (their custom resources and their Jobs).
 */
export type KubeKind = 'TidbCluster' | OwnedKind | 'PersistentVolume' | 'Backup' | 'Restore' | 'CompactBackup' | 'BackupSchedule' | 'TidbInitializer' | 'TidbDashboard' | 'TidbNGMonitoring' | 'Job' | MonitorKubeKind;

/** What the TidbMonitor controller writes besides owned kinds (its Secrets only ever created). */
export type MonitorKubeKind = 'TidbMonitor' | 'Secret' | 'ClusterRole' | 'ClusterRoleBinding' | 'Secret';

/** Which object an action is about. `namespace` is absent only for cluster-scoped kinds (PersistentVolume). */
export type ObjectRef = {
  readonly kind: KubeKind;
  readonly namespace?: string;
  readonly name: string;
};

/** Kubernetes object metadata (name, namespace, labels, resourceVersion, ownerReferences, …). */
export type ObjectMeta = NonNullable<IPod['metadata']>;

/** Any Kubernetes object in JSON form: enough structure for the engine, the rest is the rule's business. */
export type KubeObject = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly [field: string]: unknown;
};
