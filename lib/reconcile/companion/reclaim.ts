/**
 * The reclaim policy of a TidbDashboard's or TidbNGMonitoring's volumes, as v1's
 * `ReclaimPolicyManager` syncs it for them (release-1.6 `pkg/manager/member/pv_reclaim_policy_manager.go`,
 * `SyncTiDBDashboard` / `SyncTiDBNGMonitoring`): every bound claim's PersistentVolume gets
 * `spec.pvReclaimPolicy` (CRD default Retain), patched under its observed resourceVersion, only where
 * it differs.
 */

import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';

import type { PatchAction } from '../../model/action.js';

/** The patches that give each bound claim's volume `policy` (volumes not read are left for a later step). */
export function planReclaimPolicy(policy: string, claims: readonly IPersistentVolumeClaim[], volumes: readonly IPersistentVolume[]): PatchAction[] {
  return claims.flatMap((claim) => {
    const name = claim.spec?.volumeName;
    if (claim.status?.phase !== 'Bound' || name === undefined || name === '') return [];
    const pv = volumes.find((v) => v.metadata?.name === name);
    if (pv === undefined || pv.spec?.persistentVolumeReclaimPolicy === policy) return [];
    return [{ kind: 'patch', ref: { kind: 'PersistentVolume', name }, patchType: 'merge', patch: { spec: { persistentVolumeReclaimPolicy: policy } }, resourceVersion: pv.metadata?.resourceVersion ?? '' }];
  });
}
