/**
 * `status.<component>.volumes` as TiDB Operator v1.6's `SyncVolumeStatus` reports it
 * (docs/reference/volumes.md §V6): one entry per desired volume name, counting the bound claims of
 * the component's pods — how many have the desired capacity and class (`modifiedCount`, and the
 * deprecated `resizedCount`), how many not yet (`currentCount`, equal to `modifiedCount` once all
 * are), the capacity and class of one not yet modified (`currentCapacity`, `currentStorageClass`)
 * and the desired ones (`modifiedCapacity`, `resizedCapacity`, `modifiedStorageClass`).
 */

import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { DesiredVolume } from './volume-phase.js';
import { capacityOf, sameQuantity, storageClassOf } from './volume-phase.js';

/** One `status.<component>.volumes` entry (v1's `StorageVolumeStatus`). */
export type VolumeStatus = {
  name: string;
  boundCount: number;
  currentCount: number;
  modifiedCount: number;
  resizedCount: number;
  currentCapacity: string;
  modifiedCapacity: string;
  resizedCapacity: string;
  currentStorageClass: string;
  modifiedStorageClass: string;
};

function fresh(name: string, desired: DesiredVolume, desiredClass: string): VolumeStatus {
  return {
    name,
    boundCount: 0,
    currentCount: 0,
    modifiedCount: 0,
    resizedCount: 0,
    currentCapacity: desired.size,
    modifiedCapacity: desired.size,
    resizedCapacity: desired.size,
    currentStorageClass: desiredClass,
    modifiedStorageClass: desiredClass,
  };
}

/**
 * The volume status of a component's `pods`, by volume name. Guarantees: only bound claims of a
 * desired volume are counted; a volume none of whose claims is bound has no entry; the class a spec
 * leaves unset is the claim's own (so it never counts as different).
 */
export function observeVolumeStatus(pods: readonly IPod[], claims: readonly IPersistentVolumeClaim[], desired: readonly DesiredVolume[]): Record<string, VolumeStatus> {
  const out: Record<string, VolumeStatus> = {};
  for (const pod of pods) {
    for (const v of pod.spec?.volumes ?? []) {
      const want = desired.find((d) => d.name === v.name);
      const claim = claims.find((c) => c.metadata?.name === v.persistentVolumeClaim?.claimName);
      if (!want || !claim || claim.status?.phase !== 'Bound') continue;
      const actualClass = storageClassOf(claim);
      const desiredClass = want.storageClassName ?? actualClass;
      const entry = (out[want.name] ??= fresh(want.name, want, desiredClass));
      entry.boundCount++;
      const capacity = capacityOf(claim) ?? '';
      const capModified = sameQuantity(capacity, want.size);
      const classModified = actualClass === desiredClass;
      if (capModified && classModified) {
        entry.modifiedCount++;
        continue;
      }
      entry.currentCount++;
      if (!capModified) entry.currentCapacity = capacity;
      if (!classModified) entry.currentStorageClass = actualClass;
    }
  }
  for (const entry of Object.values(out)) {
    // As v1.6: once every claim is modified, the current count is the modified count.
    if (sameQuantity(entry.currentCapacity, entry.modifiedCapacity) && entry.currentStorageClass === entry.modifiedStorageClass) entry.currentCount = entry.modifiedCount;
    entry.resizedCount = entry.modifiedCount;
  }
  return out;
}
