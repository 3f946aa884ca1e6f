/**
 * PD's status, synced from the StatefulSet and PD itself as TiDB Operator v1's
 * `syncTidbClusterStatus` (§2.1): `status.pd.statefulSet` (a copy), the phase (§1.6: Scale takes
 * precedence over Upgrade, else Normal), and from PD — members of this cluster by name (id as a
 * string, first client URL, health, `lastTransitionTime` moving only when health flips), members of
 * other clusters sharing this PD (`peerMembers`), the leader, `synced`, the image, the cluster id and
 * the pods that have not joined (`unjoinedMembers`). PD unreachable ⇒ `synced: false`, members kept.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { PdMember, PdView } from '../model/pd.js';
import { toKubeTime } from './condition.js';
import { complete } from './outcome.js';
import {
  defaulted,
  memberOfPod,
  pdPeerServiceName,
  pdPods,
  pdSetName,
  pdStatefulSet,
  pvcsOfPod,
  type PdStatus,
  type PdStatusMember,
} from './pd-common.js';
import { pdDesiredReplicas } from './readiness.js';
import type { RuleInput, StatusDecision } from './rule.js';
import { isStatefulSetUpgrading, replicasOf } from './statefulset.js';

type Members = Record<string, PdStatusMember>;
type Unjoined = NonNullable<PdStatus['unjoinedMembers']>;

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * As TiDB Operator's `pdMemberLimitPattern`: whether a member's client URL is a pod of this cluster
 * (`<tc>-pd-N.<tc>-pd-peer.<ns>.svc[.<domain>]:<port>`) rather than of another cluster sharing PD.
 */
export function isOwnPdMemberUrl(input: RuleInput, clientUrl: string): boolean {
  const tc = input.cluster;
  const domain = tc.spec.clusterDomain ? `\\.${escape(tc.spec.clusterDomain)}` : '';
  const host = `${escape(pdSetName(tc))}-\\d+\\.${escape(pdPeerServiceName(tc))}\\.${escape(tc.metadata.namespace ?? '')}\\.svc${domain}:\\d+`;
  return new RegExp(host).test(clientUrl);
}

/**
 * The phase, as TiDB Operator §1.6: `Scale` when the desired replicas (spec + deleted failure
 * members) differ from the StatefulSet's; else `Upgrade` while it is between revisions; else `Normal`.
 */
export function pdPhaseOf(input: RuleInput, sts: IStatefulSet, pods: readonly IPod[]): string {
  if (pdDesiredReplicas(input.cluster.spec, input.status) !== replicasOf(sts)) return 'Scale';
  return isStatefulSetUpgrading(sts, pods, sts.status?.updateRevision) ? 'Upgrade' : 'Normal';
}

function toStatusMember(member: PdMember, previous: PdStatusMember | undefined, now: string): PdStatusMember {
  const kept = previous !== undefined && previous.health === member.health ? previous.lastTransitionTime : undefined;
  return { name: member.name, id: member.id, clientURL: member.clientUrls[0] ?? '', health: member.health, lastTransitionTime: kept ?? now };
}

/** The `members` and `peerMembers` maps from what PD reports, keeping unchanged transition times. */
export function planPdMembers(input: RuleInput, view: PdView): { members: Members; peerMembers: Members } {
  const previous = input.status.pd ?? {};
  const now = toKubeTime(input.snapshot.nowMs);
  const members: Members = {};
  const peerMembers: Members = {};
  for (const member of view.members.filter((m) => m.name !== '')) {
    const own = isOwnPdMemberUrl(input, member.clientUrls[0] ?? '');
    const target = own ? members : peerMembers;
    target[member.name] = toStatusMember(member, (own ? previous.members : previous.peerMembers)?.[member.name], now);
  }
  return { members, peerMembers };
}

/**
 * As TiDB Operator: the PD pods with no member of their own, each recorded once (pod name, the UIDs
 * of its PVCs, when first seen). Entries of pods that no longer exist are dropped.
 */
export function planUnjoinedMembers(input: RuleInput, members: Members): Unjoined | undefined {
  const previous = input.status.pd?.unjoinedMembers ?? {};
  const now = toKubeTime(input.snapshot.nowMs);
  const unjoined: Unjoined = {};
  for (const pod of pdPods(input)) {
    const podName = pod.metadata?.name ?? '';
    if (memberOfPod(members, podName)) continue;
    const pvcUIDSet = Object.fromEntries(pvcsOfPod(input, podName).map((pvc) => [pvc.metadata?.uid ?? '', {}]));
    unjoined[podName] = previous[podName] ?? { podName, pvcUIDSet, createdAt: now };
  }
  return Object.keys(unjoined).length === 0 ? undefined : unjoined;
}

function syncedFromPd(input: RuleInput, sts: IStatefulSet, view: PdView, base: PdStatus): PdStatus {
  const { members, peerMembers } = planPdMembers(input, view);
  const leaderName = view.leader?.name;
  const leader = leaderName === undefined ? undefined : (members[leaderName] ?? peerMembers[leaderName]);
  const image = sts.spec?.template.spec?.containers.find((c) => c.name === 'pd')?.image;
  return {
    ...base,
    synced: true,
    members,
    peerMembers: Object.keys(peerMembers).length === 0 ? undefined : peerMembers,
    leader,
    image,
    unjoinedMembers: planUnjoinedMembers(input, members),
  };
}

/**
 * The `PdStatus` rule (a status rule: it runs on paused clusters too, as TiDB Operator §1.7).
 * Guarantees: nothing changes without PD in the spec or before the StatefulSet exists; the status
 * object is rebuilt from observations only, so an unchanged world gives an equal status (the
 * engine then writes nothing); always completes — waiting is the act rules' business.
 */
export function planPdStatus(input: RuleInput): StatusDecision {
  const cluster = defaulted(input.cluster);
  const gated = { ...input, cluster };
  const sts = pdStatefulSet(gated);
  if (!cluster.spec.pd || !sts) return { outcome: complete() };
  const previous = input.status.pd ?? {};
  const base: PdStatus = {
    ...previous,
    statefulSet: sts.status ?? { replicas: 0 },
    phase: pdPhaseOf(gated, sts, pdPods(gated)),
  };
  const view = input.snapshot.pd;
  if (!view) {
    const status = { ...input.status, pd: { ...base, synced: false } };
    return { status, outcome: complete(`PD not synced: ${input.snapshot.pdError ?? 'PD not read'}`) };
  }
  const pd = syncedFromPd(gated, sts, view, base);
  const clusterID = view.clusterId ?? input.status.clusterID;
  return { status: { ...input.status, ...(clusterID === undefined ? {} : { clusterID }), pd }, outcome: complete() };
}
