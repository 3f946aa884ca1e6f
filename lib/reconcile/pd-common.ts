/**
 * What every PD rule shares: object names, the annotation keys TiDB Operator v1 reads, the PD pods
 * and PVCs of a cluster, the member ↔ pod mapping, and the gate every PD act rule passes first
 * (§1.4: no PD in the spec, a paused cluster, a suspended component ⇒ nothing to do).
 */

import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPod } from 'kubernetes-models/v1/Pod';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { EventAction } from '../model/action.js';
import type { TidbCluster, TidbClusterStatus } from '../model/kube.js';
import { defaultTidbCluster } from './defaults.js';
import { LABEL, instanceName } from '../model/labels.js';
import { allObjects } from '../model/snapshot.js';
import { complete } from './outcome.js';
import type { Decision, RuleInput } from './rule.js';

/** A TidbCluster's PD spec (present). */
export type PdSpec = NonNullable<TidbCluster['spec']['pd']>;
/** `status.pd`. */
export type PdStatus = NonNullable<TidbClusterStatus['pd']>;
/** One `status.pd.members` entry. */
export type PdStatusMember = NonNullable<PdStatus['members']>[string];
/** One `status.pd.failureMembers` entry. */
export type PdFailureMember = NonNullable<PdStatus['failureMembers']>[string];

/** TiDB Operator's annotation and label keys the PD rules read or write (§2.10). */
export const PD_KEYS = {
  forceUpgrade: 'tidb.pingcap.com/force-upgrade',
  minReadySeconds: 'tidb.pingcap.com/pd-min-ready-seconds',
  checkQuorumBeforeUpgrade: 'tidb.pingcap.com/pd-check-quorum-before-upgrade',
  podName: 'tidb.pingcap.com/pod-name',
  configMapBeforeDelete: 'tidb.pingcap.com/configmap-name-before-delete-pd',
} as const;

/** PD's client and peer ports (§2.10). */
export const PD_PORTS = { client: 2379, peer: 2380 } as const;

/** How soon a PD rule that made progress, or is polling PD, wants to look again. */
export const PD_RETRY_MS = 5_000;

/** The StatefulSet (and ConfigMap, client Service) name: `<tc>-pd`. */
export const pdSetName = (tc: TidbCluster): string => `${tc.metadata.name ?? ''}-pd`;

/** The headless peer Service name: `<tc>-pd-peer`. */
export const pdPeerServiceName = (tc: TidbCluster): string => `${tc.metadata.name ?? ''}-pd-peer`;

/** The pod of ordinal `ordinal`: `<tc>-pd-<ordinal>`. */
export const pdPodName = (tc: TidbCluster, ordinal: number): string => `${pdSetName(tc)}-${ordinal}`;

/** The ordinal of a PD pod name (`<tc>-pd-3` → 3), or undefined for any other name. */
export function pdOrdinalOf(tc: TidbCluster, podName: string): number | undefined {
  const prefix = `${pdSetName(tc)}-`;
  if (!podName.startsWith(prefix)) return undefined;
  const rest = podName.slice(prefix.length);
  return /^\d+$/.test(rest) ? Number(rest) : undefined;
}

/** The pod a PD member runs in: its name up to the first dot (members may be named by FQDN). */
export const podNameOfMember = (memberName: string): string => memberName.split('.')[0] ?? memberName;

/** The member of `members` running in `podName` (by name, or FQDN whose first label is the pod). */
export function memberOfPod<T extends { name: string }>(
  members: Readonly<Record<string, T>> | readonly T[] | undefined,
  podName: string,
): T | undefined {
  const list: readonly T[] = Array.isArray(members) ? members : Object.values(members ?? {});
  return list.find((m) => m.name === podName) ?? list.find((m) => podNameOfMember(m.name) === podName);
}

/** The cluster with TiDB Operator's defaults applied (in memory only). */
export const defaulted = (tc: TidbCluster): TidbCluster => defaultTidbCluster(tc);

/** The live `<tc>-pd` StatefulSet, if observed. */
export function pdStatefulSet(input: RuleInput): IStatefulSet | undefined {
  const name = pdSetName(input.cluster);
  return input.snapshot.components.pd.objects.StatefulSet.find((s) => s.metadata?.name === name);
}

const isPdObject = (tc: TidbCluster, labels: Record<string, string> | undefined): boolean =>
  labels?.[LABEL.component] === 'pd' && labels[LABEL.instance] === instanceName(tc);

/** The PD pods of the cluster (component and instance labels), by ascending ordinal. */
export function pdPods(input: RuleInput): IPod[] {
  const tc = input.cluster;
  const pods = input.snapshot.components.pd.objects.Pod.filter((p) => isPdObject(tc, p.metadata?.labels));
  const ordinal = (p: IPod): number => pdOrdinalOf(tc, p.metadata?.name ?? '') ?? Number.MAX_SAFE_INTEGER;
  return [...pods].sort((a, b) => ordinal(a) - ordinal(b));
}

/** The PD pod named `podName`, if observed. */
export const pdPod = (input: RuleInput, podName: string): IPod | undefined =>
  pdPods(input).find((p) => p.metadata?.name === podName);

/**
 * The PVCs of a PD pod: the claims its volumes name (as TiDB Operator's `ResolvePVCFromPod`), or —
 * when the pod is not observed — the PVCs labelled `tidb.pingcap.com/pod-name=<pod>` of this instance.
 */
export function pvcsOfPod(input: RuleInput, podName: string): IPersistentVolumeClaim[] {
  const pvcs = allObjects(input.snapshot, 'PersistentVolumeClaim');
  const pod = pdPod(input, podName);
  if (pod) {
    const claims = new Set((pod.spec?.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim ? [v.persistentVolumeClaim.claimName] : [])));
    return pvcs.filter((pvc) => claims.has(pvc.metadata?.name ?? ''));
  }
  return pvcsLabelledFor(input, podName);
}

/**
 * The PVCs of pod `podName` that may outlive it (the scale-out lookup): labelled
 * `tidb.pingcap.com/pod-name=<podName>` and `instance=<tc>` as TiDB Operator's meta manager labels
 * them, or named as the StatefulSet names its claim for that ordinal (`pd-<tc>-pd-N`), so a claim
 * nobody labelled is still found — a new member must never start on a removed member's volume.
 */
export function pvcsLabelledFor(input: RuleInput, podName: string): IPersistentVolumeClaim[] {
  const instance = instanceName(input.cluster);
  const claimName = `${PD_CLAIM}-${podName}`;
  return allObjects(input.snapshot, 'PersistentVolumeClaim').filter((pvc) => {
    const labels = pvc.metadata?.labels ?? {};
    if (labels[LABEL.instance] !== undefined && labels[LABEL.instance] !== instance) return false;
    return labels[PD_KEYS.podName] === podName || pvc.metadata?.name === claimName;
  });
}

/** The name of PD's data volume claim template (`<claim>-<sts>-<ordinal>` names its PVCs). */
const PD_CLAIM = 'pd';

/** Whether an object is being deleted. */
export const isTerminating = (obj: { metadata?: { deletionTimestamp?: string } } | undefined): boolean =>
  obj?.metadata?.deletionTimestamp !== undefined;

/** The cluster's `status.pd` as the rules before this one left it (empty when there is none). */
export const pdStatusOf = (input: RuleInput): PdStatus => input.status.pd ?? {};

/** The input with `status.pd` replaced. */
export function withPdStatus(input: RuleInput, pd: PdStatus): TidbClusterStatus {
  return { ...input.status, pd };
}

/** Whether PD of this cluster is suspended (`suspendAction.suspendStatefulSet`, component or cluster). */
export function isPdSuspended(tc: TidbCluster): boolean {
  return (tc.spec.pd?.suspendAction?.suspendStatefulSet ?? tc.spec.suspendAction?.suspendStatefulSet) === true;
}

/**
 * Runs `plan` only when a PD act rule has something to act on (§1.4, §1.7): PD is in the spec, the
 * cluster is not paused and PD is not suspended. Otherwise the rule completes with no action.
 */
export function gatePdAct(plan: (input: RuleInput, pd: PdSpec) => Decision): (input: RuleInput) => Decision {
  return (input) => {
    const tc = defaulted(input.cluster);
    const pd = tc.spec.pd;
    if (!pd || tc.spec.paused === true || isPdSuspended(tc)) return { actions: [], outcome: complete() };
    return plan({ ...input, cluster: tc }, pd);
  };
}

/** A decision that changes nothing and completes. */
export const nothing = (message?: string): Decision => ({ actions: [], outcome: complete(message) });

/**
 * `event` unless the cluster's recent Events already hold one with the same reason and message
 * (so a condition that persists across steps is reported once, as the event recorder aggregates).
 */
export function unlessRecorded(input: RuleInput, event: EventAction): EventAction[] {
  const seen = input.snapshot.owned.Event.some((e) => e.reason === event.reason && e.message === event.message);
  return seen ? [] : [event];
}
