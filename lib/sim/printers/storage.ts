/**
 * The printers of the storage kinds, as Kubernetes' printPersistentVolume, printPersistentVolumeClaim
 * and printStorageClass: a volume's reclaim policy, phase (Terminating once deleted) and claim; a
 * claim's volume with its capacity and access modes once bound to one; the default class marked.
 */
import type { KubeObject } from '../object.js';
import { AGE_COLUMN, NAME_COLUMN, type TablePrinter, accessModes, ageOf, column, record, text } from './format.js';

const BETA_CLASS = 'volume.beta.kubernetes.io/storage-class';

/** The class of a volume or claim: the beta annotation wins over spec.storageClassName (GetPersistentVolumeClass). */
function storageClass(obj: KubeObject): string {
  const annotated = obj.metadata.annotations?.[BETA_CLASS];
  return annotated !== undefined ? annotated : text(obj.spec?.storageClassName);
}

/** A storage quantity as the printer shows a Quantity; unset is the zero quantity, `0`. */
function storage(resources: unknown): string {
  const q = record(resources).storage;
  return typeof q === 'string' ? q : typeof q === 'number' ? String(q) : '0';
}

const phaseOf = (obj: KubeObject): string => (obj.metadata.deletionTimestamp !== undefined ? 'Terminating' : text(obj.status?.phase));
const unset = (v: unknown): string => (typeof v === 'string' ? v : '<unset>');

/** The PersistentVolume kind's printer (kubectl 1.34's columns; wide VOLUMEMODE). */
export const PV_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, ...['Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'VolumeAttributesClass', 'Reason'].map((c) => column(c)), AGE_COLUMN, column('VolumeMode', 1)],
  cells: (pv, nowMs) => {
    const ref = pv.spec?.claimRef as { namespace?: string; name?: string } | undefined;
    const claim = ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : '';
    return [
      pv.metadata.name ?? '',
      storage(pv.spec?.capacity),
      accessModes(pv.spec?.accessModes),
      text(pv.spec?.persistentVolumeReclaimPolicy),
      phaseOf(pv),
      claim,
      storageClass(pv),
      unset(pv.spec?.volumeAttributesClassName),
      text(pv.status?.reason),
      ageOf(pv, nowMs),
      unset(pv.spec?.volumeMode),
    ];
  },
};

/** The PersistentVolumeClaim kind's printer: capacity and access modes appear once spec.volumeName is set. */
export const PVC_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, ...['Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass'].map((c) => column(c)), AGE_COLUMN, column('VolumeMode', 1)],
  cells: (pvc, nowMs) => {
    const volume = text(pvc.spec?.volumeName);
    return [
      pvc.metadata.name ?? '',
      phaseOf(pvc),
      volume,
      volume ? storage(pvc.status?.capacity) : '',
      volume ? accessModes(pvc.status?.accessModes) : '',
      storageClass(pvc),
      unset(pvc.spec?.volumeAttributesClassName),
      ageOf(pvc, nowMs),
      unset(pvc.spec?.volumeMode),
    ];
  },
};

const isDefaultClass = (sc: KubeObject): boolean =>
  sc.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true' || sc.metadata.annotations?.['storageclass.beta.kubernetes.io/is-default-class'] === 'true';

/** The StorageClass kind's printer: the default class's name reads `gp2 (default)`; unset policies print their defaults. */
export const STORAGE_CLASS_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, ...['Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion'].map((c) => column(c)), AGE_COLUMN],
  cells: (sc, nowMs) => [
    `${sc.metadata.name ?? ''}${isDefaultClass(sc) ? ' (default)' : ''}`,
    text(sc.provisioner),
    text(sc.reclaimPolicy) || 'Delete',
    text(sc.volumeBindingMode) || 'Immediate',
    sc.allowVolumeExpansion === true,
    ageOf(sc, nowMs),
  ],
};
