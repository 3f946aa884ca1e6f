/**
 * PD force upgrade, as TiDB Operator v1 (§2.1, Fixture E): when PD's status is not synced — PD is
 * down, often because of the very image being replaced — the normal upgrade cannot check members, so
 * with the TidbCluster annotation `tidb.pingcap.com/force-upgrade: "true"`, or implicitly for a single
 * PD replica with no peer members, the whole desired StatefulSet is written with partition 0 and the
 * StatefulSet controller replaces every pod at once. Beyond TiDB Operator (whose users must remove the
 * annotation by hand): once PD is synced and every pod runs the desired revision, the annotation is
 * removed and a Normal event `ForceUpgradeAnnotationRemoved` says so.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { Action } from '../../../model/action.js';
import { clusterNormal, clusterRef } from '../../cluster/events.js';
import { jsonEqual } from '../../engine/equal.js';
import { complete, retry } from '../../engine/outcome.js';
import type { MemberDecision, MemberInput } from '../../member/component.js';
import { nothing } from '../../member/members.js';
import { desiredReplicasOf, desiredStatefulSet, isTemplateChanged } from '../../member/statefulset-draft.js';
import { podRevision, replicasOf } from '../../member/statefulset.js';
import { PD_KEYS, PD_RETRY_MS, pdStatusOf, withPdStatus } from './names.js';

/** The Normal event reason when the force-upgrade annotation is removed after a completed force upgrade. */
export const FORCE_UPGRADE_REMOVED_REASON = 'ForceUpgradeAnnotationRemoved';

/** Whether the TidbCluster carries `tidb.pingcap.com/force-upgrade: "true"`. */
export const hasForceUpgradeAnnotation = (input: MemberInput): boolean =>
  input.cluster.metadata.annotations?.[PD_KEYS.forceUpgrade] === 'true';

/** As TiDB Operator: the annotation, or a single local PD replica with no peer members to keep. */
export function isPdForceUpgradeRequested(input: MemberInput, sts: IStatefulSet): boolean {
  const peers = Object.keys(pdStatusOf(input).peerMembers ?? {}).length;
  return hasForceUpgradeAnnotation(input) || (replicasOf(sts) < 2 && peers === 0);
}

/**
 * Whether a force upgrade is over: the pod spec is applied, the StatefulSet controller saw the
 * latest spec, and every one of its pods runs its update revision.
 */
export function isPdRolledOut(input: MemberInput, sts: IStatefulSet): boolean {
  const update = sts.status?.updateRevision;
  const pods = input.scope.pods;
  const observed = (sts.status?.observedGeneration ?? 0) >= (sts.metadata?.generation ?? 0);
  return (
    update !== undefined &&
    observed &&
    !isTemplateChanged(input, sts) &&
    pods.length === replicasOf(sts) &&
    pods.every((p) => podRevision(p) === update)
  );
}

function forceWrite(input: MemberInput): MemberDecision {
  const replicas = desiredReplicasOf(input);
  const draft = desiredStatefulSet(input, { replicas, partition: 0 });
  const status = withPdStatus(input, { ...pdStatusOf(input), phase: 'Upgrade' });
  return { status, actions: [], draft, outcome: retry(PD_RETRY_MS, 'force upgrading PD: its status is not synced'), stop: true };
}

function annotationRemoval(input: MemberInput, sts: IStatefulSet): Action[] {
  const tc = input.cluster;
  const patch = { metadata: { annotations: { [PD_KEYS.forceUpgrade]: null } } };
  const message = `PD is synced and every PD pod runs revision ${sts.status?.updateRevision ?? ''}: removed annotation ${PD_KEYS.forceUpgrade}`;
  return [
    { kind: 'patch', ref: clusterRef(tc), patchType: 'merge', patch, resourceVersion: tc.metadata.resourceVersion ?? '' } satisfies Action,
    clusterNormal(tc, FORCE_UPGRADE_REMOVED_REASON, message),
  ];
}

/**
 * The `PdForceUpgrade` rule. Guarantees: while PD is not synced and the pod spec changed, a force
 * upgrade writes the desired StatefulSet (desired replicas, partition 0), sets phase `Upgrade` and
 * stops the sequence (the scaler, failover and upgrader are bypassed, as TiDB Operator). Once PD is
 * synced, rolled out and this step changes no status (so the TidbCluster write cannot race the status
 * write), the annotation is removed with a merge patch under the observed resourceVersion.
 */
export function planPdForceUpgrade(input: MemberInput): MemberDecision {
  const sts = input.scope.set;
  if (!sts) return nothing();
  if (pdStatusOf(input).synced !== true) {
    return isTemplateChanged(input, sts) && isPdForceUpgradeRequested(input, sts) ? forceWrite(input) : nothing();
  }
  if (!hasForceUpgradeAnnotation(input) || !isPdRolledOut(input, sts)) return nothing();
  // The status this step writes would race the annotation patch: come back right after it.
  const settled = jsonEqual(input.status, input.cluster.status ?? {});
  if (!settled) return { actions: [], outcome: retry(PD_RETRY_MS, 'force upgrade finished: the annotation goes once the status is written') };
  return { actions: annotationRemoval(input, sts), outcome: complete('force upgrade finished: annotation removed') };
}

