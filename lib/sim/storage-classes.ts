/**
 * StorageClasses as EKS ships them and as the API server treats them: `gp2` (the default class,
 * annotated `storageclass.kubernetes.io/is-default-class: "true"`) and `gp3`, both EBS CSI volumes
 * that reclaim Delete and bind WaitForFirstConsumer; classes a runbook adds (e.g. TiDB Operator's
 * `local-storage`, `kubernetes.io/no-provisioner` with static local volumes); the API defaults of a class (`reclaimPolicy`
 * Delete, `volumeBindingMode` Immediate); and the DefaultStorageClass admission step, which gives a
 * claim created without `storageClassName` the default class's name.
 */
import type { KubeObject } from './object.js';
import type { ObjectStore } from './store.js';

/** The annotation that marks the cluster's default class. */
export const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

/** The EBS CSI driver's name: the provisioner of the EKS classes. */
export const EBS_PROVISIONER = 'ebs.csi.aws.com';

/**
 * The provisioner of classes whose volumes an administrator (or the local volume static
 * provisioner) creates: the PV controller never provisions for them.
 */
export const NO_PROVISIONER = 'kubernetes.io/no-provisioner';

/**
 * Static local volumes of a class, as the local volume static provisioner's DaemonSet discovers
 * them: `perNode` disks of `capacity` on every node (or only on the nodes of `pools`).
 */
export type LocalVolumesSim = { perNode: number; capacity: string; pools?: readonly string[] };

/** How a class provisions, reclaims and binds; `localVolumes` only with {@link NO_PROVISIONER}. */
export type StorageClassSim = {
  reclaimPolicy?: 'Delete' | 'Retain';
  volumeBindingMode?: 'Immediate' | 'WaitForFirstConsumer';
  isDefault?: boolean;
  /** Default: the EBS CSI driver. */
  provisioner?: string;
  /** Whether its claims may grow; default true for an EBS CSI class (as EKS's gp2/gp3), unset (false) otherwise. */
  allowVolumeExpansion?: boolean;
  localVolumes?: LocalVolumesSim;
};

/** A class with every field resolved. */
export type ResolvedClass = { name: string; reclaimPolicy: 'Delete' | 'Retain'; volumeBindingMode: 'Immediate' | 'WaitForFirstConsumer'; provisioner: string };

/** The classes of a new EKS cluster: gp2 (default) and gp3, both Delete and WaitForFirstConsumer. */
export const EKS_STORAGE_CLASSES: Readonly<Record<string, StorageClassSim>> = {
  gp2: { reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer', isDefault: true },
  gp3: { reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer' },
};

/** The StorageClass object for `name`. */
export function storageClassObject(name: string, sc: StorageClassSim): KubeObject {
  const provisioner = sc.provisioner ?? EBS_PROVISIONER;
  // Only the EBS classes take EBS parameters and can grow; a runbook's local class has neither.
  const ebs = provisioner === EBS_PROVISIONER ? { parameters: { type: name === 'gp3' ? 'gp3' : 'gp2', fsType: 'ext4' } } : {};
  const allowVolumeExpansion = sc.allowVolumeExpansion ?? (provisioner === EBS_PROVISIONER ? true : undefined);
  return {
    metadata: { name, ...(sc.isDefault ? { annotations: { [DEFAULT_CLASS_ANNOTATION]: 'true' } } : {}) },
    provisioner,
    ...ebs,
    ...(allowVolumeExpansion === undefined ? {} : { allowVolumeExpansion }),
    reclaimPolicy: sc.reclaimPolicy ?? 'Delete',
    volumeBindingMode: sc.volumeBindingMode ?? 'Immediate',
  };
}

/**
 * Creates the EKS classes, overridden or extended by `overrides` (a class named in `overrides`
 * replaces the EKS one; gp2 stays the default unless an override says otherwise); classes that
 * already exist are left alone.
 */
export function createStorageClasses(store: ObjectStore, overrides: Readonly<Record<string, StorageClassSim>> = {}): void {
  const classes: Record<string, StorageClassSim> = { ...EKS_STORAGE_CLASSES };
  for (const [name, sc] of Object.entries(overrides)) classes[name] = { ...(EKS_STORAGE_CLASSES[name] ?? {}), ...sc };
  for (const [name, sc] of Object.entries(classes)) {
    if (store.get('StorageClass', undefined, name)) continue;
    store.create('StorageClass', storageClassObject(name, sc));
  }
}

/** Whether `sc` is marked as the default class. */
export function isDefaultClass(sc: KubeObject): boolean {
  return sc.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true';
}

/** The API defaults of a StorageClass (as the API server applies them on create). */
export function defaultStorageClass(obj: KubeObject): void {
  obj.reclaimPolicy ??= 'Delete';
  obj.volumeBindingMode ??= 'Immediate';
}

/** A stored class, resolved; undefined when there is no class of that name. */
export function resolveClass(sc: KubeObject | undefined): ResolvedClass | undefined {
  if (!sc) return undefined;
  const reclaimPolicy = sc.reclaimPolicy === 'Retain' ? 'Retain' : 'Delete';
  const volumeBindingMode = sc.volumeBindingMode === 'WaitForFirstConsumer' ? 'WaitForFirstConsumer' : 'Immediate';
  return { name: sc.metadata.name ?? '', reclaimPolicy, volumeBindingMode, provisioner: typeof sc.provisioner === 'string' ? sc.provisioner : '' };
}

/**
 * The name of the default class among `classes` (as the DefaultStorageClass admission plugin: the
 * newest of those marked default), or undefined when none is.
 */
export function defaultClassName(classes: readonly KubeObject[]): string | undefined {
  const marked = classes.filter(isDefaultClass).sort((a, b) => String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  return marked[0]?.metadata.name;
}
