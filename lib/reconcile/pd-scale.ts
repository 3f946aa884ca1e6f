/**
 * PD scaling, one member per step, as TiDB Operator v1's `pd_scaler.go` (§2.1). Out: delete the
 * defer-deleting PVCs of the next ordinal, and once they are gone raise replicas by one. In: refuse
 * PD to 0 while other components use it; never leave PD without quorum (DESIGN §8); move leadership
 * off the highest ordinal first; then delete its member from PD, mark its PVCs defer-deleting and
 * lower replicas by one — in that order, so a failed action leaves replicas untouched.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { Action } from '../model/action.js';
import { EVENT_REASON, clusterWarning } from './events.js';
import { hasQuorum } from './failover.js';
import { LABEL } from '../model/labels.js';
import { fail, retry, wait } from './outcome.js';
import {
  PD_RETRY_MS,
  gatePdAct,
  isTerminating,
  memberOfPod,
  nothing,
  pdPodName,
  pdStatefulSet,
  pdStatusOf,
  podNameOfMember,
  pvcsLabelledFor,
  pvcsOfPod,
  unlessRecorded,
  type PdStatusMember,
} from './pd-common.js';
import { keptPdTemplate, pdDesiredReplicasOf, pdSetFor, planPdSetUpdate, restPartition } from './pd-statefulset-write.js';
import type { Decision, RuleInput } from './rule.js';
import { deferDeletingPatch, isDeferDeleting, planDeferredPvcDeletes, planScaleOne, pvcDelete, type ScaleStep } from './scale.js';
import { replicasOf } from './statefulset.js';

const clusterName = (input: RuleInput): string => `${input.cluster.metadata.namespace ?? ''}/${input.cluster.metadata.name ?? ''}`;

/** The StatefulSet write moving replicas to `step.replicas` (pod spec kept, partition at rest: nothing rolls). */
function replicasWrite(input: RuleInput, sts: IStatefulSet, step: ScaleStep): Action[] {
  const choice = { replicas: step.replicas, partition: restPartition(input, step.replicas), template: keptPdTemplate(input, sts) };
  const action = planPdSetUpdate(pdSetFor(input, sts, choice), sts);
  return action ? [action] : [];
}

// The components that need PD; their StatefulSets carry the cluster's instance label like PD's.
const PD_USERS: ReadonlySet<string> = new Set(['tikv', 'tiflash', 'tidb', 'ticdc', 'pump']);

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * As TiDB Operator's `tikvStoreLimitPattern` (and TiFlash's): whether a store PD lists runs in a pod
 * of this cluster (`<tc>-tikv-N.<tc>-tikv-peer.<ns>.svc[.<domain>]:<port>`), not of another cluster
 * sharing this PD.
 */
export function isOwnStoreAddress(input: RuleInput, address: string): boolean {
  const tc = input.cluster;
  const name = escape(tc.metadata.name ?? '');
  const domain = tc.spec.clusterDomain ? `\\.${escape(tc.spec.clusterDomain)}` : '';
  const ns = escape(tc.metadata.namespace ?? '');
  return ['tikv', 'tiflash'].some((c) => new RegExp(`^${name}-${c}-\\d+\\.${name}-${c}-peer\\.${ns}\\.svc${domain}:\\d+$`).test(address));
}

/**
 * As TiDB Operator's `preCheckUpMembers` (PD scaled to 0 while TiKV, TiFlash, TiDB, TiCDC or Pump
 * still run), from what the step observed rather than from status other reconcilers would write: a
 * store of this cluster PD still lists (anything not Tombstone/Removed), or a StatefulSet of another
 * component of this cluster that has or wants replicas. Stores of other clusters sharing PD do not
 * count: moving PD to a peer cluster is what scaling PD to 0 is for.
 */
export function isPdInUse(input: RuleInput): boolean {
  const { owned } = input.snapshot;
  const pd = input.snapshot.components.pd.view;
  const live = (pd?.stores ?? []).filter((store) => store.state !== 'Tombstone' && store.state !== 'Removed');
  if (live.some((store) => isOwnStoreAddress(input, store.address))) return true;
  return owned.StatefulSet.some((sts) => {
    const component = sts.metadata?.labels?.[LABEL.component];
    return component !== undefined && PD_USERS.has(component) && Math.max(sts.spec?.replicas ?? 0, sts.status?.replicas ?? 0) > 0;
  });
}

function scaleOut(input: RuleInput, sts: IStatefulSet, step: ScaleStep): Decision {
  const podName = pdPodName(input.cluster, step.ordinal);
  const { toDelete } = planDeferredPvcDeletes(pvcsLabelledFor(input, podName), podName);
  const deletable = toDelete.filter((pvc) => !isTerminating(pvc));
  if (deletable.length > 0) {
    const message = `deleting the defer-deleting PVCs of ${podName} before scaling out`;
    return { actions: deletable.map(pvcDelete), outcome: retry(PD_RETRY_MS, message), stop: true };
  }
  if (toDelete.length > 0) return { actions: [], outcome: retry(PD_RETRY_MS, `waiting for the PVCs of ${podName} to go`) };
  const message = `scaling PD out to ${step.replicas}`;
  return { actions: replicasWrite(input, sts, step), outcome: retry(PD_RETRY_MS, message), stop: true };
}

/**
 * Whether removing `memberName` keeps PD able to commit: the members (with peers) have quorum now,
 * and the ones left after the removal still have it (none left: scaling the last PD away).
 */
export function keepsPdQuorum(input: RuleInput, memberName: string): boolean {
  const pd = pdStatusOf(input);
  const all = [...Object.values(pd.members ?? {}), ...Object.values(pd.peerMembers ?? {})];
  const left = all.filter((m) => m.name !== memberName);
  const healthy = (list: readonly PdStatusMember[]) => list.filter((m) => m.health).length;
  return hasQuorum(healthy(all), all.length) && (left.length === 0 || hasQuorum(healthy(left), left.length));
}

/**
 * Where leadership goes before the highest ordinal is removed: with other local members, the lowest
 * ordinal whose member is healthy (TiDB Operator takes the lowest; an unhealthy one cannot lead), named
 * as PD knows it; with none, the first healthy member of another cluster sharing PD.
 */
export function scaleInLeaderTarget(input: RuleInput, currentReplicas: number): string | undefined {
  const pd = pdStatusOf(input);
  if (currentReplicas > 1) {
    const ordinals = Array.from({ length: currentReplicas - 1 }, (_, i) => i);
    const named = ordinals.map((i) => {
      const podName = pdPodName(input.cluster, i);
      return memberOfPod(pd.members, podName) ?? { name: podName, health: false };
    });
    return (named.find((m) => m.health) ?? named[0])?.name;
  }
  return Object.values(pd.peerMembers ?? {}).find((m) => m.health)?.name;
}

function leaderName(input: RuleInput): string | undefined {
  return input.snapshot.components.pd.view?.leader?.name ?? pdStatusOf(input).leader?.name;
}

function scaleIn(input: RuleInput, sts: IStatefulSet, step: ScaleStep): Decision {
  const tc = input.cluster;
  if (tc.spec.pd?.replicas === 0 && isPdInUse(input)) {
    const message = `The PD is in use by TidbCluster [${clusterName(input)}], can't scale in PD to 0`;
    return { actions: unlessRecorded(input, clusterWarning(tc, EVENT_REASON.failedScaleIn, message)), outcome: wait(message) };
  }
  const podName = pdPodName(tc, step.ordinal);
  const memberName = memberOfPod(pdStatusOf(input).members, podName)?.name ?? podName;
  if (!keepsPdQuorum(input, memberName)) {
    const message = `removing PD member ${memberName} now would leave PD without quorum`;
    return { actions: unlessRecorded(input, clusterWarning(tc, EVENT_REASON.pdQuorumAtRisk, `scaling PD in waits: ${message}`)), outcome: retry(PD_RETRY_MS, message) };
  }
  const leader = leaderName(input);
  const target = scaleInLeaderTarget(input, replicasOf(sts));
  if (leader !== undefined && podNameOfMember(leader) === podName && target !== undefined) {
    const message = `moving PD leadership from ${leader} to ${target} before scaling in`;
    return { actions: [{ kind: 'pd.transferLeader', to: target }], outcome: retry(PD_RETRY_MS, message), stop: true };
  }
  const pvcs = pvcsOfPod(input, podName);
  if (pvcs.length === 0) return { actions: [], outcome: fail(`no pvc found for pod ${tc.metadata.namespace ?? ''}/${podName}`) };
  const listed = input.snapshot.components.pd.view?.members.some((m) => m.name === memberName) === true;
  const actions: Action[] = [
    ...(listed ? [{ kind: 'pd.deleteMember' as const, name: memberName }] : []),
    ...pvcs.filter((pvc) => !isDeferDeleting(pvc) && !isTerminating(pvc)).map((pvc) => deferDeletingPatch(pvc, input.snapshot.nowMs)),
    ...replicasWrite(input, sts, step),
  ];
  return { actions, outcome: retry(PD_RETRY_MS, `scaling PD in to ${step.replicas}`), stop: true };
}

/**
 * The `PdScale` rule. As TiDB Operator: one ordinal per step towards the desired replicas (spec +
 * deleted failure members), refused (`fail`) while PD's status is not synced, allowed during an
 * upgrade (a scale makes the phase `Scale`, which pauses the upgrade). Guarantees: a step that
 * writes the StatefulSet or moves leadership stops the sequence and retries; nothing happens
 * without a StatefulSet (the `PdStatefulSet` rule creates it).
 */
export function planPdScale(input: RuleInput): Decision {
  return gatePdAct((gated) => {
    const sts = pdStatefulSet(gated);
    if (!sts) return nothing();
    const step = planScaleOne(replicasOf(sts), pdDesiredReplicasOf(gated));
    if (step.direction === 0) return nothing();
    if (pdStatusOf(gated).synced !== true) {
      const way = step.direction > 0 ? 'out' : 'in';
      return { actions: [], outcome: fail(`TidbCluster: [${clusterName(gated)}]'s pd status sync failed, can't scale ${way} now`) };
    }
    return step.direction > 0 ? scaleOut(gated, sts, step) : scaleIn(gated, sts, step);
  })(input);
}
