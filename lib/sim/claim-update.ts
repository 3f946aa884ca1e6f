/**
 * What the API server checks when a PersistentVolumeClaim's spec is updated, in its order:
 * validation (kubernetes pkg/apis/core/validation `ValidatePersistentVolumeClaimUpdate`), then the
 * validating admission plugin `PersistentVolumeClaimResize`
 * (plugin/pkg/admission/storage/persistentvolume/resize/admission.go).
 * - The spec is immutable after creation except `resources.requests` and `volumeAttributesClassName`
 *   of a bound claim, and `volumeName` while it is still empty (the PV controller binds it once).
 * - A lower request is refused unless it stays above `status.capacity` (RecoverVolumeExpansionFailure,
 *   GA in Kubernetes 1.34, lets a failed expansion be walked back, never below the real size).
 * - A larger request needs a bound claim whose StorageClass (unchanged, existing) has
 *   `allowVolumeExpansion: true`; otherwise 403 Forbidden.
 * Difference: the real immutability message carries a `cmp.Diff` of the two specs; this one does not.
 */

import { ApiError } from './api-error.js';
import { jsonEqual, type KubeObject } from './object.js';
import { parseQuantity } from './quantity.js';
import type { Cause } from './validation.js';

const storageOf = (claim: KubeObject): unknown => claim.spec?.resources?.requests?.storage;

const amount = (value: unknown): number | undefined => (typeof value === 'string' || typeof value === 'number' ? parseQuantity(value) : undefined);

/** The spec parts a bound claim may change, blanked, so the rest can be compared. */
function frozenSpec(claim: KubeObject, old: KubeObject, bound: boolean): Record<string, unknown> {
  const spec: Record<string, unknown> = { ...(claim.spec ?? {}) };
  // As the validation: volumeName may be set once, by the binder.
  if (!old.spec?.volumeName) delete spec.volumeName;
  if (bound) {
    delete spec.volumeAttributesClassName;
    const resources = { ...((spec.resources as Record<string, unknown> | undefined) ?? {}) };
    const requests = { ...((resources.requests as Record<string, unknown> | undefined) ?? {}) };
    delete requests.storage;
    spec.resources = { ...resources, requests };
  }
  return spec;
}

/** The causes `ValidatePersistentVolumeClaimUpdate` finds in `next` against `old` (none when valid). */
export function claimUpdateCauses(old: KubeObject, next: KubeObject): Cause[] {
  const causes: Cause[] = [];
  const bound = next.status?.phase === 'Bound';
  if (!jsonEqual(frozenSpec(next, old, bound), frozenSpec(old, old, bound))) {
    causes.push({ field: 'spec', reason: 'FieldValueForbidden', message: 'Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims' });
  }
  const oldSize = amount(storageOf(old));
  const newSize = amount(storageOf(next));
  const capacity = amount(old.status?.capacity?.storage) ?? 0;
  if (oldSize !== undefined && newSize !== undefined && newSize < oldSize && newSize <= capacity) {
    causes.push({ field: 'spec.resources.requests.storage', reason: 'FieldValueForbidden', message: 'Forbidden: field can not be less than status.capacity' });
  }
  return causes;
}

/**
 * As the `PersistentVolumeClaimResize` admission plugin: throws 403 Forbidden when `next` asks more
 * storage than `old` and the claim is not bound, or its class is not the same non-empty class, or
 * `storageClass` (that class, undefined when it does not exist) does not allow expansion.
 */
export function admitClaimResize(old: KubeObject, next: KubeObject, storageClass: KubeObject | undefined): void {
  const oldSize = amount(storageOf(old));
  const newSize = amount(storageOf(next));
  if (oldSize === undefined || newSize === undefined || newSize <= oldSize) return;
  const name = next.metadata.name ?? '';
  const forbid = (why: string): never => {
    throw new ApiError(403, 'Forbidden', `persistentvolumeclaims "${name}" is forbidden: ${why}`, { name, group: '', kind: 'persistentvolumeclaims' });
  };
  if (old.status?.phase !== 'Bound') forbid('Only bound persistent volume claims can be expanded');
  const className = typeof next.spec?.storageClassName === 'string' ? next.spec.storageClassName : '';
  const sameClass = className !== '' && className === old.spec?.storageClassName;
  if (!sameClass || storageClass?.allowVolumeExpansion !== true) {
    forbid('only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
  }
}
