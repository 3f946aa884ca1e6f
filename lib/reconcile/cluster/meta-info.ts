/**
 * Volumes keep data as the user asked, and carry who they belong to: TiDB Operator v1's reclaim
 * policy manager (§1.3 step 1) and meta manager (§1.3 step 13, `UpdateMetaInfo` of PVCs and PVs) as
 * one rule (the pods' part of `UpdateMetaInfo`, §2.9, is `planPodLabels`: each pod of the cluster
 * gets the ids it lacks as labels — the cluster id from PD, the member or store id). Every
 * bound claim of a component whose volume TiDB Operator manages gets its
 * PersistentVolume's `persistentVolumeReclaimPolicy` set to `spec.pvReclaimPolicy` (default Retain);
 * each pod's claims get the pod-name label and annotation and the pod's member / store / cluster id
 * labels; each claim's volume gets the claim's namespace, name, managed-by, instance and component
 * labels, the ids, and the pod-name annotation. Only what differs is patched, under the observed
 * resourceVersion; a label is never removed.
 */

import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { PatchAction } from '../../model/action.js';
import type { PdView } from '../../model/pd.js';
import { defaultTidbCluster } from './defaults.js';
import { LABEL, instanceName } from '../../model/labels.js';
import { complete } from '../engine/outcome.js';
import { memberOfPod } from '../member/members.js';
import type { Decision, RuleInput } from '../engine/rule.js';
import { PVC_DEFER_DELETING } from '../member/scale.js';
import { observedObjects, observedPd, observedVolumes } from './observed.js';

/** TiDB Operator's identity keys on pods, PVCs and PVs (§2.0, §2.10). */
export const META_KEYS = {
  podName: 'tidb.pingcap.com/pod-name',
  memberId: 'tidb.pingcap.com/member-id',
  storeId: 'tidb.pingcap.com/store-id',
  clusterId: 'tidb.pingcap.com/cluster-id',
  namespace: LABEL.namespace,
} as const;

/** The components whose volumes get the reclaim policy (as v1's reclaim policy manager). */
export const RECLAIMED_COMPONENTS: readonly string[] = ['pd', 'tikv', 'tiflash', 'tidb', 'pump'];

/** What a pod says about who it is: its name and, when known, its member, store and cluster ids. */
export type PodIdentity = { readonly podName: string; readonly memberId?: string; readonly storeId?: string; readonly clusterId?: string };

type Labels = Record<string, string>;

/**
 * The identity of `pod`: its id labels, and for a PD pod the id PD reports for its member (our pods
 * do not carry TiDB Operator's member-id label; PD is the source it copies from).
 */
export function podIdentity(pod: IPod, pd: PdView | undefined): PodIdentity {
  const labels = pod.metadata?.labels ?? {};
  const podName = pod.metadata?.name ?? '';
  const fromPd = labels[LABEL.component] === 'pd' ? memberOfPod(pd?.members, podName)?.id : undefined;
  const memberId = labels[META_KEYS.memberId] ?? fromPd;
  const storeId = labels[META_KEYS.storeId];
  const clusterId = labels[META_KEYS.clusterId] ?? pd?.clusterId;
  return { podName, ...(memberId ? { memberId } : {}), ...(storeId ? { storeId } : {}), ...(clusterId ? { clusterId } : {}) };
}

/** The entries of `want` (empty values dropped) that `have` lacks or holds differently. */
function missing(have: Labels | undefined, want: Readonly<Record<string, string | undefined>>): Labels {
  const out: Labels = {};
  for (const [k, v] of Object.entries(want)) if (v !== undefined && v !== '' && have?.[k] !== v) out[k] = v;
  return out;
}

const idLabels = (id: PodIdentity): Record<string, string | undefined> => ({
  [META_KEYS.memberId]: id.memberId,
  [META_KEYS.storeId]: id.storeId,
  [META_KEYS.clusterId]: id.clusterId,
});

/** The labels and annotations `pvc` lacks for the pod that mounts it (as v1's PVC `UpdateMetaInfo`). */
export function claimMetaPatch(pvc: IPersistentVolumeClaim, id: PodIdentity): { labels: Labels; annotations: Labels } {
  const labels = missing(pvc.metadata?.labels, { [META_KEYS.podName]: id.podName, ...idLabels(id) });
  const annotations = missing(pvc.metadata?.annotations, { [META_KEYS.podName]: id.podName });
  return { labels, annotations };
}

/**
 * The merge patch `pv` needs for its claim `pvc` (whose labels are `claimLabels` once its own patch
 * applies): the claim's identity labels, the pod-name annotation, and `reclaimPolicy` when given.
 */
export function volumePatch(pv: IPersistentVolume, pvc: IPersistentVolumeClaim, claimLabels: Labels, id: PodIdentity | undefined, reclaimPolicy: string | undefined): Record<string, unknown> | undefined {
  const labels = missing(pv.metadata?.labels, {
    [META_KEYS.namespace]: pvc.metadata?.namespace,
    [LABEL.component]: claimLabels[LABEL.component],
    [LABEL.name]: claimLabels[LABEL.name],
    [LABEL.managedBy]: claimLabels[LABEL.managedBy],
    [LABEL.instance]: claimLabels[LABEL.instance],
    [META_KEYS.memberId]: claimLabels[META_KEYS.memberId],
    [META_KEYS.storeId]: claimLabels[META_KEYS.storeId],
    [META_KEYS.clusterId]: claimLabels[META_KEYS.clusterId],
  });
  const annotations = missing(pv.metadata?.annotations, { [META_KEYS.podName]: id?.podName ?? pvc.metadata?.annotations?.[META_KEYS.podName] });
  const policy = reclaimPolicy !== undefined && pv.spec?.persistentVolumeReclaimPolicy !== reclaimPolicy ? reclaimPolicy : undefined;
  const metadata = { ...(Object.keys(labels).length > 0 ? { labels } : {}), ...(Object.keys(annotations).length > 0 ? { annotations } : {}) };
  if (Object.keys(metadata).length === 0 && policy === undefined) return undefined;
  return { ...(Object.keys(metadata).length > 0 ? { metadata } : {}), ...(policy === undefined ? {} : { spec: { persistentVolumeReclaimPolicy: policy } }) };
}

/** The identity of each claim mounted by a pod of the cluster, by claim name. */
function claimOwners(input: RuleInput, instance: string): Map<string, PodIdentity> {
  const owners = new Map<string, PodIdentity>();
  for (const pod of observedObjects(input.snapshot, 'Pod')) {
    if (pod.metadata?.labels?.[LABEL.instance] !== instance) continue;
    const id = podIdentity(pod, observedPd(input.snapshot));
    for (const v of pod.spec?.volumes ?? []) if (v.persistentVolumeClaim) owners.set(v.persistentVolumeClaim.claimName, id);
  }
  return owners;
}

/**
 * The reclaim policy `pvc`'s volume should have: `spec.pvReclaimPolicy` (default Retain) for a
 * reclaimed component's claim, except a defer-deleting claim under `enablePVReclaim` (its volume is
 * about to be reclaimed with Delete); undefined when the policy is not ours to set.
 */
function wantedPolicy(pvc: IPersistentVolumeClaim, policy: string, enablePVReclaim: boolean): string | undefined {
  if (!RECLAIMED_COMPONENTS.includes(pvc.metadata?.labels?.[LABEL.component] ?? '')) return undefined;
  if (enablePVReclaim && pvc.metadata?.annotations?.[PVC_DEFER_DELETING] !== undefined) return undefined;
  return policy;
}

/**
 * The `MetaInfo` rule. Guarantees: asks only for merge patches carrying the observed
 * resourceVersion, at most one per claim and one per volume, and only for a volume whose claimRef is
 * the very claim observed (same uid); never stops the sequence, so the component rules run in the
 * same step. A volume not observed (none read yet) is left for a later step.
 */
export function planMetaInfo(input: RuleInput): Decision {
  const tc = defaultTidbCluster(input.cluster);
  const instance = instanceName(tc);
  const policy = typeof tc.spec.pvReclaimPolicy === 'string' ? tc.spec.pvReclaimPolicy : 'Retain';
  const owners = claimOwners(input, instance);
  const volumes = new Map(observedVolumes(input.snapshot).map((pv) => [pv.metadata?.name ?? '', pv]));
  const actions: PatchAction[] = [];
  for (const pvc of observedObjects(input.snapshot, 'PersistentVolumeClaim')) {
    if (pvc.metadata?.labels?.[LABEL.instance] !== instance) continue;
    const name = pvc.metadata.name ?? '';
    const id = owners.get(name);
    const claim = id && !pvc.metadata.deletionTimestamp ? claimMetaPatch(pvc, id) : { labels: {}, annotations: {} };
    const metadata = { ...(Object.keys(claim.labels).length > 0 ? { labels: claim.labels } : {}), ...(Object.keys(claim.annotations).length > 0 ? { annotations: claim.annotations } : {}) };
    if (Object.keys(metadata).length > 0) actions.push(patchOf('PersistentVolumeClaim', name, pvc.metadata.namespace, { metadata }, pvc.metadata.resourceVersion));
    const pv = volumes.get(pvc.spec?.volumeName ?? '');
    if (!pv || pv.spec?.claimRef?.uid !== pvc.metadata.uid) continue;
    const patch = volumePatch(pv, pvc, { ...(pvc.metadata.labels ?? {}), ...claim.labels }, id, wantedPolicy(pvc, policy, tc.spec.enablePVReclaim === true));
    if (patch) actions.push(patchOf('PersistentVolume', pv.metadata?.name ?? '', undefined, patch, pv.metadata?.resourceVersion));
  }
  return { actions, outcome: complete() };
}

/**
 * The `PodLabels` rule, as v1's pod `UpdateMetaInfo`: the id labels (cluster, member, store) each pod
 * of the cluster lacks, as merge patches under the observed resourceVersion; a pod going away is left
 * alone; a label is never removed; never stops the sequence.
 */
export function planPodLabels(input: RuleInput): Decision {
  const instance = instanceName(input.cluster);
  return { actions: podLabelPatches(input, instance), outcome: complete() };
}

function podLabelPatches(input: RuleInput, instance: string): PatchAction[] {
  const pd = observedPd(input.snapshot);
  const clusterId = pd?.clusterId ?? input.status.clusterID;
  return observedObjects(input.snapshot, 'Pod').flatMap((pod) => {
    if (pod.metadata?.labels?.[LABEL.instance] !== instance || pod.metadata.deletionTimestamp) return [];
    const id = podIdentity(pod, pd);
    const labels = missing(pod.metadata.labels, idLabels({ ...id, ...(id.clusterId === undefined && clusterId ? { clusterId } : {}) }));
    if (Object.keys(labels).length === 0) return [];
    return [{ kind: 'patch', ref: { kind: 'Pod', namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '' }, patchType: 'merge', patch: { metadata: { labels } }, resourceVersion: pod.metadata.resourceVersion ?? '' }];
  });
}

function patchOf(kind: 'PersistentVolume' | 'PersistentVolumeClaim', name: string, namespace: string | undefined, patch: Record<string, unknown>, resourceVersion: string | undefined): PatchAction {
  const ref = namespace === undefined ? { kind, name } : { kind, namespace, name };
  return { kind: 'patch', ref, patchType: 'merge', patch, resourceVersion: resourceVersion ?? '' };
}
