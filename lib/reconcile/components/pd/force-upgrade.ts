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
import { jsonEqual } from '../../engine/equal.js';
import { clusterNormal, clusterRef } from '../../cluster/events.js';
import { complete, retry } from '../../engine/outcome.js';
import { PD_KEYS, PD_RETRY_MS, gatePdAct, nothing, pdPods, pdStatefulSet, pdStatusOf, withPdStatus } from './names.js';
import { desiredPdStatefulSet } from './pod-template.js';
import { isPdTemplateChanged, pdDesiredReplicasOf, planPdSetUpdate } from './statefulset-write.js';
import type { Decision, RuleInput } from '../../engine/rule.js';
import { podRevision, replicasOf } from '../../member/statefulset.js';

/** The Normal event reason when the force-upgrade annotation is removed after a completed force upgrade. */
export const FORCE_UPGRADE_REMOVED_REASON = 'ForceUpgradeAnnotationRemoved';

/** Whether the TidbCluster carries `tidb.pingcap.com/force-upgrade: "true"`. */
export const hasForceUpgradeAnnotation = (input: RuleInput): boolean =>
  input.cluster.metadata.annotations?.[PD_KEYS.forceUpgrade] === 'true';

/** As TiDB Operator: the annotation, or a single local PD replica with no peer members to keep. */
export function isPdForceUpgradeRequested(input: RuleInput, sts: IStatefulSet): boolean {
  const peers = Object.keys(pdStatusOf(input).peerMembers ?? {}).length;
  return hasForceUpgradeAnnotation(input) || (replicasOf(sts) < 2 && peers === 0);
}

/**
 * Whether a force upgrade is over: the pod spec is applied, the StatefulSet controller saw the
 * latest spec, and every one of its pods runs its update revision.
 */
export function isPdRolledOut(input: RuleInput, sts: IStatefulSet): boolean {
  const update = sts.status?.updateRevision;
  const pods = pdPods(input);
  const observed = (sts.status?.observedGeneration ?? 0) >= (sts.metadata?.generation ?? 0);
  return (
    update !== undefined &&
    observed &&
    !isPdTemplateChanged(input, sts) &&
    pods.length === replicasOf(sts) &&
    pods.every((p) => podRevision(p) === update)
  );
}

function forceWrite(input: RuleInput, sts: IStatefulSet): Decision {
  const replicas = pdDesiredReplicasOf(input);
  const write = planPdSetUpdate(desiredPdStatefulSet(input, { replicas, partition: 0 }), sts);
  const status = withPdStatus(input, { ...pdStatusOf(input), phase: 'Upgrade' });
  const actions: Action[] = write ? [write] : [];
  return { status, actions, outcome: retry(PD_RETRY_MS, 'force upgrading PD: its status is not synced'), stop: true };
}

function annotationRemoval(input: RuleInput, sts: IStatefulSet): Action[] {
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
export function planPdForceUpgrade(input: RuleInput): Decision {
  return gatePdAct((gated) => {
    const sts = pdStatefulSet(gated);
    if (!sts) return nothing();
    if (pdStatusOf(gated).synced !== true) {
      return isPdTemplateChanged(gated, sts) && isPdForceUpgradeRequested(gated, sts) ? forceWrite(gated, sts) : nothing();
    }
    if (!hasForceUpgradeAnnotation(gated) || !isPdRolledOut(gated, sts)) return nothing();
    // The status this step writes would race the annotation patch: come back right after it.
    const settled = jsonEqual(gated.status, gated.cluster.status ?? {});
    if (!settled) return { actions: [], outcome: retry(PD_RETRY_MS, 'force upgrade finished: the annotation goes once the status is written') };
    return { actions: annotationRemoval(gated, sts), outcome: complete('force upgrade finished: annotation removed') };
  })(input);
}

