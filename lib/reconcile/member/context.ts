/**
 * What a component's rules share in one step, computed once when its block is entered: the
 * defaulted cluster, its StatefulSet, its pods by ordinal and their PVCs, and — on first use — the
 * ConfigMap plan (TOML render and digest included) and the desired pod template. Rules read the
 * snapshot's objects through here, so how the snapshot holds them is this module's business alone.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { TidbCluster } from '../../model/kube.js';
import { defaultTidbCluster } from '../cluster/defaults.js';
import { LABEL, instanceName } from '../../model/labels.js';
import type { BlockEntry } from '../engine/block.js';
import type { RuleInput } from '../engine/rule.js';
import type { ComponentDeclaration, MemberSpec, SetDraft } from './component.js';
import { planConfigMapObject, type ConfigMapPlan } from './config-map.js';
import type { PodTemplate } from './statefulset.js';
import { observedObjects } from '../cluster/observed.js';

/** One component's view of this step (see the module comment). */
export type MemberContext = {
  readonly component: ComponentDeclaration;
  /** Its spec in the defaulted cluster (undefined: the cluster has none). */
  readonly spec: MemberSpec | undefined;
  /** `<tc>-<name>`: the StatefulSet, the client Service and (InPlace) the ConfigMap. */
  readonly setName: string;
  /** The headless Service the StatefulSet names: `<tc>-<name>-peer` unless the component says otherwise. */
  readonly peerServiceName: string;
  /** The live StatefulSet, if observed. */
  readonly set: IStatefulSet | undefined;
  /** Its pods (component and instance labels), by ascending ordinal. */
  readonly pods: readonly IPod[];
  /** `<tc>-<name>-<ordinal>`. */
  readonly podName: (ordinal: number) => string;
  /** The ordinal of one of its pod names, or undefined for any other name. */
  readonly ordinalOf: (podName: string) => number | undefined;
  /** Its pod named `podName`, if observed. */
  readonly pod: (podName: string) => IPod | undefined;
  /** The PVCs of a pod: the claims its volumes name, or (pod not observed) `pvcsLabelledFor`. */
  readonly pvcsOfPod: (podName: string) => IPersistentVolumeClaim[];
  /**
   * The PVCs of `podName` that may outlive it: labelled `tidb.pingcap.com/pod-name=<pod>` of this
   * instance, or named as the StatefulSet names the data claim for that ordinal (`<claim>-<pod>`).
   */
  readonly pvcsLabelledFor: (podName: string) => IPersistentVolumeClaim[];
  /** The ConfigMap to have (computed on first use, then kept). */
  readonly configMap: () => ConfigMapPlan;
  /** The desired pod template, mounting that ConfigMap (computed on first use, then kept). */
  readonly template: () => PodTemplate;
};

/** TiDB Operator's label naming the pod a PVC belongs to. */
export const POD_NAME_LABEL = 'tidb.pingcap.com/pod-name';

function once<T>(compute: () => T): () => T {
  let cell: { value: T } | undefined;
  return () => {
    cell ??= { value: compute() };
    return cell.value;
  };
}

const claimsOf = (pod: IPod): Set<string> =>
  new Set((pod.spec?.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim ? [v.persistentVolumeClaim.claimName] : [])));

/** Builds one component's context from the rule input (see `MemberContext`). Pure. */
export function memberContext(component: ComponentDeclaration, input: RuleInput, cluster: TidbCluster): MemberContext {
  const instance = instanceName(cluster);
  const setName = `${cluster.metadata.name ?? ''}-${component.name}`;
  const prefix = `${setName}-`;
  const ordinalOf = (podName: string): number | undefined => {
    const rest = podName.startsWith(prefix) ? podName.slice(prefix.length) : '';
    return /^\d+$/.test(rest) ? Number(rest) : undefined;
  };
  const mine = observedObjects(input.snapshot, 'Pod').filter((p) => p.metadata?.labels?.[LABEL.component] === component.name && p.metadata.labels[LABEL.instance] === instance);
  const rank = (p: IPod): number => ordinalOf(p.metadata?.name ?? '') ?? Number.MAX_SAFE_INTEGER;
  const pods = [...mine].sort((a, b) => rank(a) - rank(b));
  const pod = (podName: string): IPod | undefined => pods.find((p) => p.metadata?.name === podName);
  const pvcsLabelledFor = (podName: string): IPersistentVolumeClaim[] =>
    observedObjects(input.snapshot, 'PersistentVolumeClaim').filter((pvc) => {
      const labels = pvc.metadata?.labels ?? {};
      if (labels[LABEL.instance] !== undefined && labels[LABEL.instance] !== instance) return false;
      return labels[POD_NAME_LABEL] === podName || pvc.metadata?.name === `${component.claim}-${podName}`;
    });
  const pvcsOfPod = (podName: string): IPersistentVolumeClaim[] => {
    const found = pod(podName);
    if (!found) return pvcsLabelledFor(podName);
    const claims = claimsOf(found);
    return observedObjects(input.snapshot, 'PersistentVolumeClaim').filter((pvc) => claims.has(pvc.metadata?.name ?? ''));
  };
  const set = observedObjects(input.snapshot, 'StatefulSet').find((s) => s.metadata?.name === setName);
  const configMap = once(() => planConfigMapObject(component, cluster, observedObjects(input.snapshot, 'ConfigMap'), set, input.snapshot));
  return {
    component,
    spec: component.specOf(cluster),
    setName,
    peerServiceName: component.serviceNameOf?.(cluster) ?? `${setName}-peer`,
    set,
    pods,
    podName: (ordinal) => `${setName}-${ordinal}`,
    ordinalOf,
    pod,
    pvcsOfPod,
    pvcsLabelledFor,
    configMap,
    template: once(() => component.podTemplate(cluster, configMap().configMap.metadata?.name ?? '')),
  };
}

/** Entering a component's block: the defaulted cluster, its context, and no StatefulSet chosen yet. */
export function enterMember(component: ComponentDeclaration, input: RuleInput): BlockEntry<MemberContext, SetDraft> {
  const cluster = defaultTidbCluster(input.cluster);
  return { cluster, scope: memberContext(component, input, cluster), draft: undefined };
}
