/**
 * The rolling upgrade every component shares, driven by the StatefulSet partition as TiDB Operator
 * v1's upgraders (§1.4 l, §1.5): a new pod spec is first written with partition = replicas (nothing
 * rolls); then, ordinal by ordinal downwards, an updated pod must be available (Ready for
 * `tidb.pingcap.com/<component>-min-ready-seconds`) and pass the component's own check before the
 * partition moves past the next one — and the component may hold or act before a pod restarts.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { Outcome } from '../../model/outcome.js';
import { complete, fail, retry } from '../engine/outcome.js';
import type { MemberDecision, MemberInput, Walk } from './component.js';
import { isMemberSynced, memberStatusOf, phaseBlocker, withMemberStatus } from './member-status.js';
import { nothing } from './members.js';
import { isPodSettled, SETTLE_AFTER_RESTART_MS } from './store-restart-guard.js';
import { descendingOrdinals, podAvailability, secondsFromAnnotation } from './rolling-update.js';
import { desiredStatefulSet, isTemplateChanged, restPartition, setFor } from './statefulset-draft.js';
import { appliedTemplate, isStatefulSetUpgrading, partitionOf, podRevision, replicasOf } from './statefulset.js';

/** `tidbcluster: [<ns>/<name>]`, as TiDB Operator's upgrader messages name the cluster. */
export const upgraderWho = (input: MemberInput): string => `tidbcluster: [${input.cluster.metadata.namespace ?? ''}/${input.cluster.metadata.name ?? ''}]`;

/** The TidbCluster annotation with the seconds an updated pod must have been Ready (v1's key). */
export const minReadySecondsAnnotation = (component: string): string => `tidb.pingcap.com/${component}-min-ready-seconds`;

/** Why an updated pod may not be left behind yet, or undefined when it is available and passes the component's check. */
function updatedPodHold(input: MemberInput, podName: string, minReadySeconds: number): Outcome | undefined {
  const { component } = input.scope;
  const said = `${upgraderWho(input)}'s ${component.name} upgraded pod: [${podName}]`;
  const pod = input.scope.pod(podName);
  if (!pod) return retry(component.retryMs, `${said} is not found`);
  const availability = podAvailability(pod, minReadySeconds, input.snapshot.nowMs);
  if (availability.kind === 'not-ready') return retry(component.retryMs, `${said} is not ready`);
  if (availability.kind === 'warming') return retry(availability.remainingMs, `${said} is not available`);
  // Beyond v1: a pod whose new container has crashed is left behind only once it runs steadily.
  if (!isPodSettled(pod, input.snapshot.nowMs)) return retry(component.retryMs, `${said} restarted within ${SETTLE_AFTER_RESTART_MS / 1000} s: waiting until it runs steadily`);
  return component.hooks.updatedPodHold(input, podName);
}

/**
 * As TiDB Operator: walk the ordinals downwards; every updated pod must be available, the first other
 * one rolls next (after the component's `beforeRestart`). Reads only.
 */
export function walkOrdinals(input: MemberInput, sts: IStatefulSet): Walk {
  const { component } = input.scope;
  const updateRevision = memberStatusOf(input).statefulSet?.updateRevision;
  const minReadySeconds = secondsFromAnnotation(input.cluster.metadata.annotations, component.minReadySecondsAnnotation ?? minReadySecondsAnnotation(component.name));
  for (const ordinal of descendingOrdinals(replicasOf(sts))) {
    const podName = input.scope.podName(ordinal);
    const pod = input.scope.pod(podName);
    if (!pod) return { kind: 'hold', outcome: retry(component.retryMs, `waiting for pod ${podName} to be created`) };
    const revision = podRevision(pod);
    if (revision === undefined) return { kind: 'hold', outcome: retry(component.retryMs, `pod ${podName} has no revision yet`) };
    if (revision !== updateRevision) return component.hooks.beforeRestart(input, ordinal);
    const hold = updatedPodHold(input, podName, minReadySeconds);
    if (hold) return { kind: 'hold', outcome: hold };
  }
  return { kind: 'done' };
}

function partitionDecision(input: MemberInput, sts: IStatefulSet, walk: Walk): MemberDecision {
  const { component } = input.scope;
  const status = input.status;
  switch (walk.kind) {
    case 'done':
      return { status, actions: [], outcome: complete(`every ${component.title} pod runs the update revision`) };
    case 'hold':
      return { status: walk.status ?? status, actions: walk.actions ?? [], outcome: walk.outcome, ...(walk.stop === true ? { stop: true } : {}) };
    case 'roll': {
      if (partitionOf(sts) === walk.ordinal) {
        return { status, actions: [], outcome: retry(component.retryMs, `waiting for ${input.scope.podName(walk.ordinal)} to be upgraded`) };
      }
      const draft = setFor(input, sts, { replicas: replicasOf(sts), partition: walk.ordinal });
      return { status, actions: [], draft, outcome: retry(component.retryMs, `upgrading ${component.title}: partition ${walk.ordinal}`), stop: true };
    }
    default: {
      const never: never = walk;
      throw new TypeError(`unknown walk ${JSON.stringify(never)}`);
    }
  }
}


/**
 * While the upgrade waits, the StatefulSet keeps the pod template and the partition it has, together
 * (P16): as TiDB Operator the new pod spec is not written, and — unlike v1, whose default partition
 * then rolled an updated pod back — a rollout in progress is neither advanced nor undone.
 */
function frozen(input: MemberInput, set: IStatefulSet, message: string): MemberDecision {
  const partition = partitionOf(set) ?? restPartition(input, replicasOf(set));
  const draft = setFor(input, set, { replicas: replicasOf(set), partition, template: appliedTemplate(set) });
  return { actions: [], draft, outcome: complete(message) };
}

/**
 * The `…Upgrade` rule. As TiDB Operator: it runs when the pod spec changed or the phase is
 * `Upgrade` or the StatefulSet is between revisions; `fail`s while the status is not synced (unless
 * the component does not care); while a component of `upgradeWaitsFor` is in one of its phases it
 * freezes the live template and partition together (`frozen`); the component's `beforeUpgrade` may
 * go first. Otherwise it sets the phase to `Upgrade` and takes exactly one of: write the new pod spec
 * (partition = replicas), leave a natively rolled component, an OnDelete or an unparameterised
 * strategy to the StatefulSet controller, hold or act as the walk says,
 * or move the partition by one pod. Every write stops the block and retries.
 */
export function planMemberUpgrade(input: MemberInput): MemberDecision {
  const { component, set } = input.scope;
  if (!set) return nothing();
  const changed = isTemplateChanged(input, set);
  const own = memberStatusOf(input);
  // A rollout in progress counts even when the phase does not say so (TiDB's phase is Normal while TiKV upgrades).
  const rolling = isStatefulSetUpgrading(set, input.scope.pods, own.statefulSet?.updateRevision);
  if (!changed && own.phase !== 'Upgrade' && !rolling) return nothing();
  if (component.changesNeedSynced !== false && !isMemberSynced(input)) return { actions: [], outcome: fail(`${upgraderWho(input)}'s ${component.name} status sync failed, can not to be upgraded`) };
  const blocked = phaseBlocker(input, component.dependencies.upgradeWaitsFor);
  if (blocked !== undefined) return frozen(input, set, `${blocked}: the upgrade waits`);
  // As TiDB Operator: the phase is Upgrade before the component's own first step (TiDB's smooth
  // upgrade start), so the components that wait for it (TiCDC behind TiDB) see it in this step.
  const next = { ...input, status: withMemberStatus(input, { phase: 'Upgrade' }) };
  const first = component.hooks.beforeUpgrade?.(next);
  if (first !== undefined) return { ...first, status: first.status ?? next.status };
  if (changed) {
    const draft = desiredStatefulSet(next, { replicas: replicasOf(set), partition: restPartition(next, replicasOf(set)) });
    return { status: next.status, actions: [], draft, outcome: retry(component.retryMs, `${component.title} pod template changed: upgrade starts`), stop: true };
  }
  const live = set.spec?.updateStrategy;
  const native = component.rollingUpdate === 'native';
  if (native || live?.type === 'OnDelete' || (live !== undefined && live.rollingUpdate === undefined)) {
    return { status: next.status, actions: [], outcome: complete(`${component.title} pods are rolled by the StatefulSet update strategy`) };
  }
  return partitionDecision(next, set, walkOrdinals(next, set));
}
