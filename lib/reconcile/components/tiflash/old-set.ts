/**
 * TiFlash scaled back up from zero, as TiDB Operator v1 (§2.3) and the lesson of P21: a StatefulSet
 * left at 0 replicas with no updated replica is deleted, and made again from the spec, rather than
 * scaled — so nothing of the old set (a smaller storage request, a stale claim template) is reused;
 * and before a StatefulSet is made, the defer-deleting PVCs of the ordinals it will run are deleted,
 * as a scale-out does — else the new pod would mount the volume of a store already Tombstone, which
 * PD refuses, and never start (v1 reuses it and TiFlash cannot scale back up).
 */

import type { DeleteAction } from '../../../model/action.js';
import { retry } from '../../engine/outcome.js';
import type { MemberDecision, MemberInput } from '../../member/component.js';
import { isTerminating, nothing } from '../../member/members.js';
import { isDeferDeleting, pvcDelete } from '../../member/scale.js';
import { desiredReplicasOf } from '../../member/statefulset-draft.js';
import { replicasOf } from '../../member/statefulset.js';
import { TIFLASH_RETRY_MS } from './names.js';

/**
 * The `TiflashOldSet` gate: with `spec.tiflash.replicas > 0` and a live `<tc>-tiflash` at 0
 * replicas and 0 updated replicas, delete it (the observed one only) and stop the block; a set
 * already going is waited for. Otherwise nothing.
 */
export function planTiflashOldSet(input: MemberInput): MemberDecision {
  const { set, spec } = input.scope;
  if (!set) return freshVolumes(input);
  if ( (spec?.replicas ?? 0) <= 0 || replicasOf(set) !== 0 || (set.status?.updatedReplicas ?? 0) !== 0) return nothing();
  const name = set.metadata?.name ?? '';
  const message = `wait for previous sts ${name} for cluster ${input.cluster.metadata.namespace ?? ''}/${input.cluster.metadata.name ?? ''} to be deleted`;
  if (isTerminating(set)) return { actions: [], outcome: retry(TIFLASH_RETRY_MS, message), stop: true };
  const uid = set.metadata?.uid;
  const remove: DeleteAction = { kind: 'delete', ref: { kind: 'StatefulSet', namespace: set.metadata?.namespace ?? '', name }, ...(uid === undefined ? {} : { uid }) };
  return { actions: [remove], outcome: retry(TIFLASH_RETRY_MS, message), stop: true };
}

/**
 * No StatefulSet yet: the defer-deleting PVCs of ordinals `[0, desired)` are deleted (the observed
 * ones only) and the block stops until they are gone; otherwise nothing.
 */
function freshVolumes(input: MemberInput): MemberDecision {
  const replicas = desiredReplicasOf(input);
  const marked = Array.from({ length: replicas }, (_, i) => input.scope.pvcsLabelledFor(input.scope.podName(i))).flat().filter(isDeferDeleting);
  if (marked.length === 0) return nothing();
  const message = `deleting the defer-deleting PVCs of ${input.scope.component.title} before its StatefulSet is created`;
  return { actions: marked.filter((pvc) => !isTerminating(pvc)).map(pvcDelete), outcome: retry(TIFLASH_RETRY_MS, message), stop: true };
}
