/**
 * PD's rolling upgrade, driven by the StatefulSet partition, as TiDB Operator v1's `pd_upgrader.go`
 * (§2.1, Fixture C). A new pod spec is first written with partition = replicas (nothing rolls); then,
 * ordinal by ordinal downwards, an updated pod must be available (Ready for
 * `tidb.pingcap.com/pd-min-ready-seconds`), its member healthy and ready by `/pd/api/v2/ready` before
 * the partition moves past the next one — and leadership leaves a pod before it restarts.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { Action } from '../model/action.js';
import type { Outcome } from '../model/outcome.js';
import { isStable } from './failover.js';
import { complete, fail, retry } from './outcome.js';
import {
  PD_KEYS,
  PD_RETRY_MS,
  gatePdAct,
  memberOfPod,
  nothing,
  pdPod,
  pdPodName,
  pdStatefulSet,
  pdStatusOf,
  podNameOfMember,
  unlessRecorded,
  withPdStatus,
} from './pd-common.js';
import { pdQuorumHoldEvent, pdRestartQuorum } from './pd-quorum.js';
import { desiredPdStatefulSet } from './pd-statefulset.js';
import { isPdTemplateChanged, pdSetFor, planPdSetUpdate, restPartition } from './pd-statefulset-write.js';
import { descendingOrdinals, podAvailability, secondsFromAnnotation } from './rolling-update.js';
import type { Decision, RuleInput } from './rule.js';
import { partitionOf, podRevision, replicasOf } from './statefulset.js';

const who = (input: RuleInput): string => `tidbcluster: [${input.cluster.metadata.namespace ?? ''}/${input.cluster.metadata.name ?? ''}]`;

/**
 * As TiDB Operator's `choosePDToTransferFromMembers`: the highest ordinal above `ordinal` whose member
 * is healthy, else the lowest healthy one below it, else `""`. Reads only; changes nothing.
 */
export function choosePdToTransferFromMembers(input: RuleInput, ordinal: number, replicas: number): string {
  const members = pdStatusOf(input).members;
  const healthyAt = (i: number) => {
    const member = memberOfPod(members, pdPodName(input.cluster, i));
    return member?.health === true ? member.name : undefined;
  };
  for (let i = replicas - 1; i > ordinal; i -= 1) {
    const name = healthyAt(i);
    if (name !== undefined) return name;
  }
  for (let i = 0; i < ordinal; i += 1) {
    const name = healthyAt(i);
    if (name !== undefined) return name;
  }
  return '';
}

/** Where the walk over the ordinals stopped: a pod to let roll, a reason to wait, or a leader to move. */
type Walk =
  | { readonly kind: 'roll'; readonly ordinal: number }
  | { readonly kind: 'hold'; readonly outcome: Outcome; readonly actions?: readonly Action[] }
  | { readonly kind: 'transfer'; readonly to: string; readonly from: string }
  | { readonly kind: 'done' };

/** Why an updated pod may not be left behind yet, or undefined when it is available and ready. */
function updatedPodHold(input: RuleInput, podName: string, minReadySeconds: number): Outcome | undefined {
  const pod = pdPod(input, podName);
  if (!pod) return retry(PD_RETRY_MS, `${who(input)}'s pd upgraded pod: [${podName}] is not found`);
  const availability = podAvailability(pod, minReadySeconds, input.snapshot.nowMs);
  if (availability.kind === 'not-ready') return retry(PD_RETRY_MS, `${who(input)}'s pd upgraded pod: [${podName}] is not ready`);
  if (availability.kind === 'warming') {
    return retry(availability.remainingMs, `${who(input)}'s pd upgraded pod: [${podName}] is not available`);
  }
  const member = memberOfPod(pdStatusOf(input).members, podName);
  if (member?.health !== true) return retry(PD_RETRY_MS, `${who(input)}'s pd upgraded pod: [${podName}] is not health`);
  const ready = input.snapshot.components.pd.view?.members.find((m) => m.name === member.name)?.ready;
  if (ready !== true) return retry(PD_RETRY_MS, `${who(input)}'s pd upgraded pod: [${podName}] is not ready by /pd/api/v2/ready`);
  return undefined;
}

/**
 * The checks before the first pod not yet updated may restart: the stricter stability check (when
 * the annotation asks for it, as TiDB Operator), then — always, beyond TiDB Operator — that the
 * members left serving stay a majority (else wait, with a Warning saying why), then leadership.
 */
function beforeRestart(input: RuleInput, sts: IStatefulSet, ordinal: number): Walk {
  const annotations = input.cluster.metadata.annotations;
  const view = input.snapshot.components.pd.view?.members ?? [];
  if (annotations?.[PD_KEYS.checkQuorumBeforeUpgrade] === 'true') {
    const healthy = view.filter((m) => m.health).length;
    if (!isStable(healthy, view.length)) {
      return { kind: 'hold', outcome: fail(`Peer PDs is unstable: Only ${healthy} out of ${view.length} PDs are healthy`) };
    }
  }
  const podName = pdPodName(input.cluster, ordinal);
  const quorum = pdRestartQuorum(input, podName);
  if (!quorum.keepsQuorum) {
    const event = pdQuorumHoldEvent(input, `restarting ${podName} for the PD upgrade`, quorum);
    return { kind: 'hold', outcome: retry(PD_RETRY_MS, event.message), actions: unlessRecorded(input, event) };
  }
  const leader = input.snapshot.components.pd.view?.leader?.name ?? pdStatusOf(input).leader?.name;
  if (leader === undefined || podNameOfMember(leader) !== podName) return { kind: 'roll', ordinal };
  const local = replicasOf(sts) > 1 ? choosePdToTransferFromMembers(input, ordinal, replicasOf(sts)) : '';
  const peer = Object.values(pdStatusOf(input).peerMembers ?? {}).find((m) => m.health)?.name;
  const to = local !== '' ? local : peer;
  // As TiDB Operator: with nowhere to move leadership (a single PD), the leader restarts anyway.
  return to === undefined ? { kind: 'roll', ordinal } : { kind: 'transfer', to, from: leader };
}

/** As TiDB Operator: walk the ordinals downwards; updated pods must be available, the first other one rolls next. */
function walkOrdinals(input: RuleInput, sts: IStatefulSet): Walk {
  const updateRevision = pdStatusOf(input).statefulSet?.updateRevision;
  const minReadySeconds = secondsFromAnnotation(input.cluster.metadata.annotations, PD_KEYS.minReadySeconds);
  for (const ordinal of descendingOrdinals(replicasOf(sts))) {
    const podName = pdPodName(input.cluster, ordinal);
    const pod = pdPod(input, podName);
    if (!pod) return { kind: 'hold', outcome: retry(PD_RETRY_MS, `waiting for pod ${podName} to be created`) };
    const revision = podRevision(pod);
    if (revision === undefined) return { kind: 'hold', outcome: retry(PD_RETRY_MS, `pod ${podName} has no revision yet`) };
    if (revision !== updateRevision) return beforeRestart(input, sts, ordinal);
    const hold = updatedPodHold(input, podName, minReadySeconds);
    if (hold) return { kind: 'hold', outcome: hold };
  }
  return { kind: 'done' };
}

function partitionDecision(input: RuleInput, sts: IStatefulSet, walk: Walk): Decision {
  const status = input.status;
  switch (walk.kind) {
    case 'done':
      return { status, actions: [], outcome: complete('every PD pod runs the update revision') };
    case 'hold':
      return { status, actions: walk.actions ?? [], outcome: walk.outcome };
    case 'transfer': {
      const message = `moving PD leadership from ${walk.from} to ${walk.to} before it restarts`;
      return { status, actions: [{ kind: 'pd.transferLeader', to: walk.to }], outcome: retry(PD_RETRY_MS, message), stop: true };
    }
    case 'roll': {
      if (partitionOf(sts) === walk.ordinal) {
        return { status, actions: [], outcome: retry(PD_RETRY_MS, `waiting for ${pdPodName(input.cluster, walk.ordinal)} to be upgraded`) };
      }
      const write = planPdSetUpdate(pdSetFor(input, sts, { replicas: replicasOf(sts), partition: walk.ordinal }), sts);
      const message = `upgrading PD: partition ${walk.ordinal}`;
      return { status, actions: write ? [write] : [], outcome: retry(PD_RETRY_MS, message), stop: true };
    }
    default: {
      const never: never = walk;
      throw new TypeError(`unknown walk ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The `PdUpgrade` rule. As TiDB Operator: it runs when the pod spec changed or the phase is
 * `Upgrade`; `fail`s while PD's status is not synced; waits while PD is scaling (the phase stays
 * `Scale`, the writers keep the applied pod spec). Otherwise it sets the phase to `Upgrade` and
 * takes exactly one of: write the new pod spec (partition = replicas), leave an OnDelete or
 * unparameterised strategy to the StatefulSet controller, move leadership, move the partition by one
 * pod, or wait. Every write or transfer stops the sequence and retries.
 */
export function planPdUpgrade(input: RuleInput): Decision {
  return gatePdAct((gated) => {
    const sts = pdStatefulSet(gated);
    if (!sts) return nothing();
    const changed = isPdTemplateChanged(gated, sts);
    const pd = pdStatusOf(gated);
    if (!changed && pd.phase !== 'Upgrade') return nothing();
    if (pd.synced !== true) return { actions: [], outcome: fail(`${who(gated)}'s pd status sync failed, can not to be upgraded`) };
    if (pd.phase === 'Scale') return nothing('PD is scaling: the upgrade waits');
    const next = { ...gated, status: withPdStatus(gated, { ...pd, phase: 'Upgrade' }) };
    if (changed) {
      const desired = desiredPdStatefulSet(next, { replicas: replicasOf(sts), partition: restPartition(next, replicasOf(sts)) });
      const write = planPdSetUpdate(desired, sts);
      const outcome = retry(PD_RETRY_MS, 'PD pod template changed: upgrade starts');
      return { status: next.status, actions: write ? [write] : [], outcome, stop: true };
    }
    const live = sts.spec?.updateStrategy;
    if (live?.type === 'OnDelete' || (live !== undefined && live.rollingUpdate === undefined)) {
      return { status: next.status, actions: [], outcome: complete('PD pods are rolled by the StatefulSet update strategy') };
    }
    return partitionDecision(next, sts, walkOrdinals(next, sts));
  })(input);
}
