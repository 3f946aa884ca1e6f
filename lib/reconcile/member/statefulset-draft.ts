/**
 * A component's StatefulSet: what a write carries, and the one rule that writes it. As TiDB Operator
 * v1 threads `newSet` through scaler → failover → upgrader, the rules of a step choose the StatefulSet
 * they want (the draft) and the `…StatefulSet` rule at the end of the block writes it — once per step,
 * even after the rule that chose it stopped the block. With no draft it creates a missing StatefulSet,
 * or applies what is left (labels, strategy, the partition back to "nothing rolls"). A pod spec change
 * is the upgrade's business: every other write keeps the applied pod spec.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { Action } from '../../model/action.js';
import { componentLabels, ownerReference } from '../../model/labels.js';
import { complete, retry, wait } from '../engine/outcome.js';
import type { Decision } from '../engine/rule.js';
import { planApply, STATEFUL_SET_APPLY } from './apply.js';
import type { MemberInput } from './component.js';
import { memberStatusOf, phaseBlocker, withMemberStatus } from './member-status.js';
import {
  appliedTemplate,
  isTemplateSpecApplied,
  partitionOf,
  replicasOf,
  withLastApplied,
  type PodTemplate,
  type UpdateStrategy,
} from './statefulset.js';

/** The replicas, partition and pod template a StatefulSet write carries (the desired template unless given). */
export type SetChoice = { readonly replicas: number; readonly partition: number; readonly template?: PodTemplate };

/**
 * The update strategy: `OnDelete` when asked for (component, else cluster), else RollingUpdate with
 * `partition` — or, for a component rolled natively, plain RollingUpdate with no parameters.
 */
export function updateStrategyOf(input: MemberInput, partition: number): UpdateStrategy {
  const type = input.scope.spec?.statefulSetUpdateStrategy ?? input.cluster.spec.statefulSetUpdateStrategy;
  if (type === 'OnDelete') return { type: 'OnDelete' };
  return input.scope.component.rollingUpdate === 'native' ? { type: 'RollingUpdate' } : { type: 'RollingUpdate', rollingUpdate: { partition } };
}

/** As TiDB Operator: OrderedReady when asked for, Parallel when asked for, else the component's default (Parallel). */
function podManagementPolicyOf(input: MemberInput): 'OrderedReady' | 'Parallel' {
  const policy = input.scope.spec?.podManagementPolicy ?? input.cluster.spec.podManagementPolicy;
  if (policy === 'OrderedReady' || policy === 'Parallel') return policy;
  return input.scope.component.defaultPodManagementPolicy ?? 'Parallel';
}

/**
 * The desired `<tc>-<component>` StatefulSet with `choice` applied, as TiDB Operator's `getNew*Set`:
 * selector labels, a controller owner reference, the peer Service, Parallel pod management unless
 * OrderedReady is asked for, the component's claim templates; its last-applied annotation records
 * its spec. Pure: the same input gives the same object.
 */
export function desiredStatefulSet(input: MemberInput, choice: SetChoice): IStatefulSet {
  const tc = input.cluster;
  const { component, setName, peerServiceName } = input.scope;
  const labels = componentLabels(tc, component.name);
  return withLastApplied({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: setName, namespace: tc.metadata.namespace, labels, annotations: {}, ownerReferences: [ownerReference(tc)] },
    spec: {
      replicas: choice.replicas,
      selector: { matchLabels: labels },
      serviceName: peerServiceName,
      podManagementPolicy: podManagementPolicyOf(input),
      updateStrategy: updateStrategyOf(input, choice.partition),
      template: choice.template ?? input.scope.template(),
      volumeClaimTemplates: component.claimTemplates(tc),
    },
  });
}

/** The component's desired replicas for this step's status. */
export const desiredReplicasOf = (input: MemberInput): number => input.scope.component.desiredReplicas(input.cluster, input.status);

/** Whether the desired pod spec differs from the one last applied (TiDB Operator's `!templateEqual`). */
export const isTemplateChanged = (input: MemberInput, sts: IStatefulSet): boolean => !isTemplateSpecApplied(input.scope.template(), sts);

/**
 * The template a non-upgrade write carries: the desired metadata with the applied pod spec when the
 * pod spec changed (as TiDB Operator reverts it while it may not upgrade), else the desired template.
 */
export function keptTemplate(input: MemberInput, sts: IStatefulSet): PodTemplate {
  const desired = input.scope.template();
  if (isTemplateSpecApplied(desired, sts)) return desired;
  return { ...desired, spec: appliedTemplate(sts).spec };
}

/**
 * As TiDB Operator's upgrader: while upgrading, an OnDelete strategy or a RollingUpdate without
 * parameters is kept as it is (the StatefulSet controller or the user rolls the pods).
 */
export function keptStrategy(input: MemberInput, sts: IStatefulSet): UpdateStrategy | undefined {
  const live = sts.spec?.updateStrategy;
  if (memberStatusOf(input).phase !== 'Upgrade' || !live) return undefined;
  return live.type === 'OnDelete' || live.rollingUpdate === undefined ? live : undefined;
}

/** The desired StatefulSet for `choice`, with a kept strategy when one applies. */
export function setFor(input: MemberInput, sts: IStatefulSet, choice: SetChoice): IStatefulSet {
  const desired = desiredStatefulSet(input, choice);
  const strategy = keptStrategy(input, sts);
  if (!strategy || !desired.spec) return desired;
  return { ...desired, spec: { ...desired.spec, updateStrategy: strategy } };
}

/**
 * The partition when nothing should roll: the desired replicas, as TiDB Operator — but never below
 * `replicas`, so that while scaling in no ordinal above the desired count can be updated (and
 * restarted) by accident.
 */
export const restPartition = (input: MemberInput, replicas: number): number => Math.max(desiredReplicasOf(input), replicas);

/** The partition a non-upgrade write carries: at rest, or the live one during a rolling upgrade. */
export function restingPartition(input: MemberInput, sts: IStatefulSet): number {
  const resting = restPartition(input, replicasOf(sts));
  return memberStatusOf(input).phase === 'Upgrade' ? (partitionOf(sts) ?? resting) : resting;
}

/** The draft moving replicas to `replicas` (pod spec kept, partition at rest: nothing rolls). */
export function replicasDraft(input: MemberInput, sts: IStatefulSet, replicas: number): IStatefulSet {
  return setFor(input, sts, { replicas, partition: restPartition(input, replicas), template: keptTemplate(input, sts) });
}

function createDecision(input: MemberInput): Decision {
  const { component } = input.scope;
  const tc = input.cluster;
  // As TiDB Operator's TiFlash: no StatefulSet until what it needs is available (a wait, not a requeue).
  const missing = (component.dependencies.createWaitsFor ?? []).find((d) => tc.spec[d.name] !== undefined && !d.isAvailable(tc, input.status));
  if (missing) return { actions: [], outcome: wait(`${component.title} waits for ${missing.name} to be available before its StatefulSet is created`) };
  const replicas = desiredReplicasOf(input);
  const create = planApply(STATEFUL_SET_APPLY, desiredStatefulSet(input, { replicas, partition: replicas }), undefined);
  // As TiDB Operator: a new StatefulSet's status starts empty (and some components requeue until they run).
  const status = withMemberStatus(input, { statefulSet: { replicas: 0 } });
  const outcome = component.requeueAfterCreate ? retry(component.retryMs, `waiting for ${component.title} cluster running`) : complete();
  return { status, actions: create ? [create] : [], outcome, stop: true };
}

/**
 * The `…StatefulSet` rule (a block's `finally`). Guarantees: the draft, when a rule chose one, is
 * written as an update under the observed resourceVersion — only if it differs from the
 * last-applied record; otherwise, when the block did not stop, a missing StatefulSet is created
 * (desired replicas, partition = replicas; once every `createWaitsFor` dependency is available) and
 * an existing one gets the live replicas, the resting partition and the applied pod spec; a stopped
 * block with no draft writes nothing; and an existing StatefulSet is not written at all while a
 * component of `writeWaitsFor` is in one of its phases.
 */
export function planStatefulSetWrite(input: MemberInput, blockStopped: boolean): Decision {
  const live = input.scope.set;
  const { draft } = input;
  const held = live ? phaseBlocker(input, input.scope.component.dependencies.writeWaitsFor ?? []) : undefined;
  // As TiDB Operator for some components: no update at all (not even a scale) while one it waits for is in that phase.
  if (held !== undefined) return { actions: [], outcome: complete(`${held}: the ${input.scope.component.title} StatefulSet is not updated`) };
  if (draft !== undefined && live) {
    const write = planApply(STATEFUL_SET_APPLY, draft, live);
    return { actions: write ? [write] : [], outcome: complete() };
  }
  if (blockStopped) return { actions: [], outcome: complete() };
  if (!live) return createDecision(input);
  const choice = { replicas: replicasOf(live), partition: restingPartition(input, live), template: keptTemplate(input, live) };
  const write = planApply(STATEFUL_SET_APPLY, setFor(input, live, choice), live);
  const actions: Action[] = write ? [write] : [];
  return { actions, outcome: complete(write ? `${input.scope.component.title} StatefulSet updated` : undefined) };
}
