/**
 * Scaling shared by every component, as TiDB Operator v1's `scaler.go`: one ordinal per step
 * (`scaleOne`: out adds the lowest missing ordinal, in removes the highest), and the PVC
 * defer-deleting protocol — a scaled-in pod's PVCs are annotated, never deleted; a scale-out first
 * deletes the annotated PVCs of the ordinal it is about to create, so the new member starts empty.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';

import type { Action, DeleteAction, PatchAction } from '../../model/action.js';
import { toKubeTime } from '../cluster/condition.js';
import { AT_ONCE_MS, fail, retry } from '../engine/outcome.js';
import type { MemberDecision, MemberInput } from './component.js';
import { isMemberSynced } from './member-status.js';
import { clusterPath, isTerminating, nothing } from './members.js';
import { desiredReplicasOf, replicasDraft } from './statefulset-draft.js';
import { replicasOf } from './statefulset.js';

/** TiDB Operator's PVC annotation: when the PVC's pod was scaled in (RFC 3339). */
export const PVC_DEFER_DELETING = 'tidb.pingcap.com/pvc-defer-deleting';

/**
 * One scaling step: `direction` +1 (out), −1 (in) or 0 (none); the `ordinal` added or removed (−1
 * when none); the `replicas` after the step.
 */
export type ScaleStep = { readonly direction: 1 | -1 | 0; readonly ordinal: number; readonly replicas: number };

/**
 * As TiDB Operator's `scaleOne` without delete slots: from `actual` replicas towards `desired`, one
 * ordinal at a time. Guarantees: out adds ordinal `actual`, in removes ordinal `actual − 1`, and
 * `replicas` moves by exactly one (or not at all when `actual === desired`).
 */
export function planScaleOne(actual: number, desired: number): ScaleStep {
  if (actual < desired) return { direction: 1, ordinal: actual, replicas: actual + 1 };
  if (actual > desired) return { direction: -1, ordinal: actual - 1, replicas: actual - 1 };
  return { direction: 0, ordinal: -1, replicas: actual };
}

/** The PVCs to delete before a scale-out, and why each other one was skipped (by PVC, or by pod when none). */
export type DeferredPvcPlan = {
  readonly toDelete: readonly IPersistentVolumeClaim[];
  readonly skipReasons: Readonly<Record<string, string>>;
};

/**
 * As TiDB Operator's `deleteDeferDeletingPVC`: of the PVCs of `podName`, those carrying the
 * defer-deleting annotation are to be deleted; the others are skipped with TiDB Operator's reasons.
 */
export function planDeferredPvcDeletes(pvcs: readonly IPersistentVolumeClaim[], podName: string): DeferredPvcPlan {
  if (pvcs.length === 0) return { toDelete: [], skipReasons: { [podName]: 'scaler: pvc is not found' } };
  const toDelete: IPersistentVolumeClaim[] = [];
  const skipReasons: Record<string, string> = {};
  for (const pvc of pvcs) {
    const name = pvc.metadata?.name ?? '';
    const annotations = pvc.metadata?.annotations;
    if (annotations === undefined) skipReasons[name] = 'scaler: pvc annotations is nil';
    else if (annotations[PVC_DEFER_DELETING] === undefined) skipReasons[name] = 'scaler: pvc annotations defer deleting is empty';
    else toDelete.push(pvc);
  }
  return { toDelete, skipReasons };
}

const pvcRef = (pvc: IPersistentVolumeClaim) =>
  ({ kind: 'PersistentVolumeClaim', namespace: pvc.metadata?.namespace ?? '', name: pvc.metadata?.name ?? '' }) as const;

/** A delete of `pvc` that applies only to the very PVC observed (uid precondition). */
export function pvcDelete(pvc: IPersistentVolumeClaim): DeleteAction {
  const uid = pvc.metadata?.uid;
  return { kind: 'delete', ref: pvcRef(pvc), ...(uid === undefined ? {} : { uid }) };
}

/**
 * The merge patch marking `pvc` defer-deleting at `nowMs` (with any `extra` annotations the
 * component adds, e.g. TiKV's scale-in-time), under its observed resourceVersion.
 */
export function deferDeletingPatch(pvc: IPersistentVolumeClaim, nowMs: number, extra: Readonly<Record<string, string>> = {}): PatchAction {
  const patch = { metadata: { annotations: { [PVC_DEFER_DELETING]: toKubeTime(nowMs), ...extra } } };
  return { kind: 'patch', ref: pvcRef(pvc), patchType: 'merge', patch, resourceVersion: pvc.metadata?.resourceVersion ?? '' };
}

/** Whether `pvc` already carries the defer-deleting annotation. */
export const isDeferDeleting = (pvc: IPersistentVolumeClaim): boolean =>
  pvc.metadata?.annotations?.[PVC_DEFER_DELETING] !== undefined;

/**
 * The `…Scale` rule, as TiDB Operator v1's scalers: one ordinal per step towards the desired
 * replicas, refused (`fail`) while the component's status is not synced (unless the component says
 * it does not care), allowed during an upgrade.
 * Out: the defer-deleting PVCs of the next ordinal are deleted first (the block stops, replicas stay),
 * then the component's `beforeScaleOut` may hold, then replicas + 1. In: the component's
 * `beforeScaleIn` may hold, or name actions that go first; then the pod's PVCs are marked
 * defer-deleting, the hook's `then` actions run and replicas − 1 — in that order, so a failed action
 * leaves replicas untouched. When not scaling in, the component's `settleScaleIn` sees the highest
 * ordinal first: a scale-in left in flight there is cancelled or finished before anything else.
 * A replicas change is the block's draft; every move stops the block. The step after a replicas
 * change runs at once when another ordinal follows the same way (it can act on it right away, as
 * TiDB Operator's next sync does on the StatefulSet's event), or when the component says its
 * scale-in changed what the next step observes (PD forgets a deleted member at the call); else it
 * looks again after the component's `retryMs`, or sooner on a watch event, as the new pod starts or
 * the old one goes.
 */
export function planMemberScale(input: MemberInput): MemberDecision {
  const { component, set } = input.scope;
  if (!set) return nothing();
  const actual = replicasOf(set);
  const desired = desiredReplicasOf(input);
  const step = planScaleOne(actual, desired);
  const settle = step.direction >= 0 && actual > 0 ? component.hooks.settleScaleIn?.(input, input.scope.podName(actual - 1)) : undefined;
  const settling = settle !== undefined && settle.kind !== 'none';
  if (step.direction === 0 && !settling) return nothing();
  if (component.changesNeedSynced !== false && !isMemberSynced(input)) {
    const way = step.direction > 0 && !settling ? 'out' : 'in';
    return { actions: [], outcome: fail(`TidbCluster: [${clusterPath(input)}]'s ${component.name} status sync failed, can't scale ${way} now`) };
  }
  // A scale-in in flight is settled before anything else (P14): cancelled, or finished first.
  if (settle?.kind === 'hold') return settle.decision;
  if (settle?.kind === 'finish') return scaleIn(input, set, planScaleOne(actual, actual - 1), false);
  const more = step.replicas !== desired;
  return step.direction > 0 ? scaleOut(input, set, step, more) : scaleIn(input, set, step, more);
}

/**
 * How soon the step after a replicas change looks again: at once when it can act right away (`atOnce`),
 * else after the component's `retryMs` (watch events about the pods come sooner).
 */
const afterScaleMs = (input: MemberInput, atOnce: boolean): number => (atOnce ? AT_ONCE_MS : input.scope.component.retryMs);

/** Raises replicas by one (`more`: another ordinal follows) once the next ordinal's deferred PVCs are gone. */
function scaleOut(input: MemberInput, set: IStatefulSet, step: ScaleStep, more: boolean): MemberDecision {
  const { component } = input.scope;
  const podName = input.scope.podName(step.ordinal);
  const { toDelete } = planDeferredPvcDeletes(input.scope.pvcsLabelledFor(podName), podName);
  const deletable = toDelete.filter((pvc) => !isTerminating(pvc));
  if (deletable.length > 0) {
    const message = `deleting the defer-deleting PVCs of ${podName} before scaling out`;
    return { actions: deletable.map(pvcDelete), outcome: retry(component.retryMs, message), stop: true };
  }
  if (toDelete.length > 0) return { actions: [], outcome: retry(component.retryMs, `waiting for the PVCs of ${podName} to go`) };
  const held = component.hooks.beforeScaleOut?.(input, podName);
  if (held) return held;
  const draft = replicasDraft(input, set, step.replicas);
  return { actions: [], draft, outcome: retry(afterScaleMs(input, more), `scaling ${component.title} out to ${step.replicas}`), stop: true };
}

/** Lowers replicas by one (`more`: another ordinal follows the same way) once the component's check lets the member go. */
function scaleIn(input: MemberInput, set: IStatefulSet, step: ScaleStep, more: boolean): MemberDecision {
  const { component } = input.scope;
  const podName = input.scope.podName(step.ordinal);
  const check = component.hooks.beforeScaleIn(input, podName);
  if ('hold' in check) return check.hold;
  const pvcs = input.scope.pvcsOfPod(podName);
  // A component without claim templates has no PVC to mark, as TiDB Operator tolerates.
  if (pvcs.length === 0 && component.claimTemplates(input.cluster).length > 0) return { actions: [], outcome: fail(`no pvc found for pod ${input.cluster.metadata.namespace ?? ''}/${podName}`) };
  const actions: Action[] = [
    ...check.first,
    ...pvcs.filter((pvc) => !isDeferDeleting(pvc) && !isTerminating(pvc)).map((pvc) => deferDeletingPatch(pvc, input.snapshot.nowMs, check.pvcAnnotations)),
    ...(check.then ?? []),
  ];
  const draft = replicasDraft(input, set, step.replicas);
  const atOnce = more || check.seenAtOnce === true;
  return { actions, draft, outcome: retry(afterScaleMs(input, atOnce), `scaling ${component.title} in to ${step.replicas}`), stop: true };
}
