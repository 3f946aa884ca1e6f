/**
 * Writing PD's StatefulSet. One write per step: the rules that move replicas (scale), the partition
 * (upgrade) or everything at once (force upgrade) write it themselves and stop the sequence; the
 * `PdStatefulSet` rule at the end creates it when missing and otherwise applies what is left
 * (labels, strategy, the partition back to "nothing rolls" after an upgrade). As TiDB Operator v1:
 * a pod spec change is the upgrade rule's business, so every other writer keeps the applied pod spec.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { Action } from '../../../model/action.js';
import type { KubeObject } from '../../../model/kube.js';
import { complete, retry } from '../../engine/outcome.js';
import { PD_RETRY_MS, gatePdAct, pdStatefulSet, pdStatusOf } from './names.js';
import { desiredPdStatefulSet, desiredPdTemplate, type PdSetChoice } from './pod-template.js';
import { pdDesiredReplicas } from '../../member/replicas.js';
import type { Decision, RuleInput } from '../../engine/rule.js';
import {
  appliedTemplate,
  isStatefulSetApplied,
  isTemplateSpecApplied,
  partitionOf,
  replicasOf,
  statefulSetUpdate,
  type PodTemplate,
  type UpdateStrategy,
} from '../../member/statefulset.js';

/** PD's desired replicas for this step's status (spec + deleted failure members, as TiDB Operator). */
export const pdDesiredReplicasOf = (input: RuleInput): number => pdDesiredReplicas(input.cluster.spec, input.status);

/** Whether the desired pod spec differs from the one last applied (TiDB Operator's `!templateEqual`). */
export function isPdTemplateChanged(input: RuleInput, sts: IStatefulSet): boolean {
  return !isTemplateSpecApplied(desiredPdTemplate(input), sts);
}

/**
 * The template a non-upgrade write carries: the desired metadata with the applied pod spec when the
 * pod spec changed (as TiDB Operator reverts it while it may not upgrade), else the desired template.
 */
export function keptPdTemplate(input: RuleInput, sts: IStatefulSet): PodTemplate {
  const desired = desiredPdTemplate(input);
  if (isTemplateSpecApplied(desired, sts)) return desired;
  return { ...desired, spec: appliedTemplate(sts).spec };
}

/**
 * As TiDB Operator's upgrader: while upgrading, an OnDelete strategy or a RollingUpdate without
 * parameters is kept as it is (the StatefulSet controller or the user rolls the pods).
 */
export function keptPdStrategy(input: RuleInput, sts: IStatefulSet): UpdateStrategy | undefined {
  const live = sts.spec?.updateStrategy;
  if (pdStatusOf(input).phase !== 'Upgrade' || !live) return undefined;
  return live.type === 'OnDelete' || live.rollingUpdate === undefined ? live : undefined;
}

/** The desired StatefulSet for `choice`, with a kept strategy when one applies. */
export function pdSetFor(input: RuleInput, sts: IStatefulSet, choice: PdSetChoice): IStatefulSet {
  const desired = desiredPdStatefulSet(input, choice);
  const strategy = keptPdStrategy(input, sts);
  if (!strategy || !desired.spec) return desired;
  return { ...desired, spec: { ...desired.spec, updateStrategy: strategy } };
}

/** An update of `live` to `desired` under the observed resourceVersion, or undefined when already applied. */
export function planPdSetUpdate(desired: IStatefulSet, live: IStatefulSet): Action | undefined {
  if (isStatefulSetApplied(desired, live)) return undefined;
  const ref = { kind: 'StatefulSet' as const, namespace: live.metadata?.namespace ?? '', name: live.metadata?.name ?? '' };
  return { kind: 'update', ref, object: statefulSetUpdate(desired, live), resourceVersion: live.metadata?.resourceVersion ?? '' };
}

/**
 * The partition when nothing should roll: the desired replicas, as TiDB Operator — but never below
 * `replicas`, so that while scaling in no ordinal above the desired count can be updated (and
 * restarted) by accident.
 */
export const restPartition = (input: RuleInput, replicas: number): number => Math.max(pdDesiredReplicasOf(input), replicas);

/**
 * The partition a non-upgrade write carries: at rest outside a rolling upgrade; during one, the live
 * partition (the upgrade rule moves it).
 */
export function restingPdPartition(input: RuleInput, sts: IStatefulSet): number {
  const resting = restPartition(input, replicasOf(sts));
  return pdStatusOf(input).phase === 'Upgrade' ? (partitionOf(sts) ?? resting) : resting;
}

function createDecision(input: RuleInput): Decision {
  const replicas = pdDesiredReplicasOf(input);
  const sts = desiredPdStatefulSet(input, { replicas, partition: replicas });
  const ref = { kind: 'StatefulSet' as const, namespace: sts.metadata?.namespace ?? '', name: sts.metadata?.name ?? '' };
  // As TiDB Operator: a new StatefulSet's status starts empty, and PD's sync requeues until PD runs.
  const status = { ...input.status, pd: { ...pdStatusOf(input), statefulSet: { replicas: 0 } } };
  return {
    status,
    actions: [{ kind: 'create', ref, object: sts as KubeObject }],
    outcome: retry(PD_RETRY_MS, 'waiting for PD cluster running'),
    stop: true,
  };
}

/**
 * The `PdStatefulSet` rule. Guarantees: a missing StatefulSet is created with the desired replicas
 * and partition = replicas, then the sequence stops (as TiDB Operator requeues "waiting for PD
 * cluster running"); an existing one is updated under its resourceVersion only when what is desired
 * — live replicas, resting partition, applied pod spec — differs from its last-applied record.
 */
export function planPdStatefulSet(input: RuleInput): Decision {
  return gatePdAct((gated) => {
    const sts = pdStatefulSet(gated);
    if (!sts) return createDecision(gated);
    const choice = { replicas: replicasOf(sts), partition: restingPdPartition(gated, sts), template: keptPdTemplate(gated, sts) };
    const action = planPdSetUpdate(pdSetFor(gated, sts, choice), sts);
    return { actions: action ? [action] : [], outcome: complete(action ? 'PD StatefulSet updated' : undefined) };
  })(input);
}
