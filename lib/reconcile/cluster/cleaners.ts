/**
 * The cluster's two cleaners, as TiDB Operator v1 runs them around the components (§1.3 steps 2 and
 * 14). The orphan-pod cleaner deletes a PD, TiKV or TiFlash pod that was never scheduled and one of
 * whose claims no longer exists, so the StatefulSet controller recreates pod and claim together (a
 * pod pointing at a deleted claim would stay Pending forever). The PVC cleaner, when the cluster
 * sets `enablePVReclaim`, reclaims the volumes of removed members: a bound PD, TiKV or TiFlash claim
 * marked `pvc-defer-deleting` whose pod (its `tidb.pingcap.com/pod-name` annotation) no longer exists
 * gets its volume's reclaim policy set to Delete and is deleted; without `enablePVReclaim` such claims
 * are kept (and their volumes keep `spec.pvReclaimPolicy`) until a scale-out reuses the ordinal.
 */

import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { Action, DeleteAction } from '../../model/action.js';
import { LABEL, instanceName } from '../../model/labels.js';
import { complete } from '../engine/outcome.js';
import type { Decision, RuleInput } from '../engine/rule.js';
import { POD_NAME_LABEL } from '../member/context.js';
import { isTerminating } from '../member/members.js';
import { PVC_DEFER_DELETING } from '../member/scale.js';
import { observedObjects, observedVolumes } from './observed.js';

/** The components whose pods and claims the cleaners look after (as v1: PD, TiKV, TiFlash). */
export const CLEANED_COMPONENTS: readonly string[] = ['pd', 'tikv', 'tiflash'];

const isCleaned = (labels: Readonly<Record<string, string>> | undefined, instance: string): boolean =>
  labels?.[LABEL.instance] === instance && CLEANED_COMPONENTS.includes(labels[LABEL.component] ?? '');

const claimNames = (pod: IPod): string[] =>
  (pod.spec?.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : []));

/**
 * Whether `pod` is an orphan, as v1's `orphanPodsCleaner`: a PD/TiKV/TiFlash pod of the cluster, not
 * scheduled to a node, not already going, with claims of which one is not among `claims`.
 */
export function isOrphanPod(pod: IPod, instance: string, claims: ReadonlySet<string>): boolean {
  if (!isCleaned(pod.metadata?.labels, instance) || isTerminating(pod)) return false;
  if ((pod.spec?.nodeName ?? '') !== '') return false;
  const names = claimNames(pod);
  return names.length > 0 && names.some((name) => !claims.has(name));
}

/**
 * The `OrphanPods` rule. Guarantees: asks only for deletes of orphan pods (`isOrphanPod`), each bound
 * to the pod observed (uid and resourceVersion), so a pod recreated or scheduled meanwhile is left
 * alone; never stops the sequence.
 */
export function planOrphanPods(input: RuleInput): Decision {
  const instance = instanceName(input.cluster);
  const claims = new Set(observedObjects(input.snapshot, 'PersistentVolumeClaim').map((c) => c.metadata?.name ?? ''));
  const actions: DeleteAction[] = observedObjects(input.snapshot, 'Pod')
    .filter((pod) => isOrphanPod(pod, instance, claims))
    .map((pod) => ({
      kind: 'delete',
      ref: { kind: 'Pod', namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '' },
      ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}),
      ...(pod.metadata?.resourceVersion ? { resourceVersion: pod.metadata.resourceVersion } : {}),
    }));
  return { actions, outcome: complete(actions.length === 0 ? undefined : `orphan pods deleted: ${actions.map((a) => a.ref.name).join(', ')}`) };
}

/**
 * Whether `pvc` is due for reclaiming, as v1's PVC cleaner: a bound PD/TiKV/TiFlash claim of the
 * cluster, not already going, marked defer-deleting, naming its pod, whose pod is not among `pods`.
 */
export function isReclaimableClaim(pvc: IPersistentVolumeClaim, instance: string, pods: ReadonlySet<string>): boolean {
  if (!isCleaned(pvc.metadata?.labels, instance) || isTerminating(pvc)) return false;
  if (pvc.status?.phase !== 'Bound') return false;
  const annotations = pvc.metadata?.annotations ?? {};
  const podName = annotations[POD_NAME_LABEL];
  if ((annotations[PVC_DEFER_DELETING] ?? '') === '' || podName === undefined) return false;
  return !pods.has(podName);
}

/**
 * The `PvcCleaner` rule. Guarantees: nothing without `spec.enablePVReclaim`; otherwise, for each
 * reclaimable claim (`isReclaimableClaim`) whose volume is observed, first a merge patch of that
 * volume's reclaim policy to Delete (only when it differs, under its resourceVersion), then the
 * claim's delete bound to the claim observed (uid and resourceVersion); a claim whose volume was not
 * observed is left for a later step; never stops the sequence.
 */
export function planPvcCleaner(input: RuleInput): Decision {
  if (input.cluster.spec.enablePVReclaim !== true) return { actions: [], outcome: complete() };
  const instance = instanceName(input.cluster);
  const pods = new Set(observedObjects(input.snapshot, 'Pod').map((p) => p.metadata?.name ?? ''));
  const volumes = new Map(observedVolumes(input.snapshot).map((pv) => [pv.metadata?.name ?? '', pv]));
  const actions: Action[] = [];
  for (const pvc of observedObjects(input.snapshot, 'PersistentVolumeClaim')) {
    if (!isReclaimableClaim(pvc, instance, pods)) continue;
    const pv = volumes.get(pvc.spec?.volumeName ?? '');
    if (!pv) continue;
    if (pv.spec?.persistentVolumeReclaimPolicy !== 'Delete') {
      const patch = { spec: { persistentVolumeReclaimPolicy: 'Delete' } };
      actions.push({ kind: 'patch', ref: { kind: 'PersistentVolume', name: pv.metadata?.name ?? '' }, patchType: 'merge', patch, resourceVersion: pv.metadata?.resourceVersion ?? '' });
    }
    const ref = { kind: 'PersistentVolumeClaim' as const, namespace: pvc.metadata?.namespace ?? '', name: pvc.metadata?.name ?? '' };
    actions.push({ kind: 'delete', ref, ...(pvc.metadata?.uid ? { uid: pvc.metadata.uid } : {}), ...(pvc.metadata?.resourceVersion ? { resourceVersion: pvc.metadata.resourceVersion } : {}) });
  }
  const reclaimed = actions.flatMap((a) => (a.kind === 'delete' ? [a.ref.name] : []));
  return { actions, outcome: complete(reclaimed.length === 0 ? undefined : `volumes of removed members reclaimed: ${reclaimed.join(', ')}`) };
}
