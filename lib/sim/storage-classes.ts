/**
 * StorageClasses as EKS ships them and as the API server treats them: `gp2` (the default class,
 * annotated `storageclass.kubernetes.io/is-default-class: "true"`) and `gp3`, both EBS CSI volumes
 * that reclaim Delete and bind WaitForFirstConsumer; the API defaults of a class (`reclaimPolicy`
 * Delete, `volumeBindingMode` Immediate); and the DefaultStorageClass admission step, which gives a
 * claim created without `storageClassName` the default class's name.
 */
import type { KubeObject } from './object.js';
import type { ObjectStore } from './store.js';

/** The annotation that marks the cluster's default class. */
export const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

/** The EBS CSI driver's name: the provisioner of the EKS classes. */
export const EBS_PROVISIONER = 'ebs.csi.aws.com';

/** How a class reclaims and binds. */
export type StorageClassSim = { reclaimPolicy?: 'Delete' | 'Retain'; volumeBindingMode?: 'Immediate' | 'WaitForFirstConsumer'; isDefault?: boolean };

/** A class with every field resolved. */
export type ResolvedClass = { name: string; reclaimPolicy: 'Delete' | 'Retain'; volumeBindingMode: 'Immediate' | 'WaitForFirstConsumer' };

/** The classes of a new EKS cluster: gp2 (default) and gp3, both Delete and WaitForFirstConsumer. */
export const EKS_STORAGE_CLASSES: Readonly<Record<string, StorageClassSim>> = {
  gp2: { reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer', isDefault: true },
  gp3: { reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer' },
};

/** The StorageClass object for `name`. */
export function storageClassObject(name: string, sc: StorageClassSim): KubeObject {
  return {
    metadata: { name, ...(sc.isDefault ? { annotations: { [DEFAULT_CLASS_ANNOTATION]: 'true' } } : {}) },
    provisioner: EBS_PROVISIONER,
    parameters: { type: name === 'gp3' ? 'gp3' : 'gp2', fsType: 'ext4' },
    reclaimPolicy: sc.reclaimPolicy ?? 'Delete',
    volumeBindingMode: sc.volumeBindingMode ?? 'Immediate',
    allowVolumeExpansion: true,
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
  return { name: sc.metadata.name ?? '', reclaimPolicy, volumeBindingMode };
}

/**
 * The name of the default class among `classes` (as the DefaultStorageClass admission plugin: the
 * newest of those marked default), or undefined when none is.
 */
export function defaultClassName(classes: readonly KubeObject[]): string | undefined {
  const marked = classes.filter(isDefaultClass).sort((a, b) => String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  return marked[0]?.metadata.name;
}
