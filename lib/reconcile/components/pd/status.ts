/**
 * PD's status, synced from the StatefulSet and PD itself as TiDB Operator v1's
 * `syncTidbClusterStatus` (§2.1): `status.pd.statefulSet` (a copy), the phase (§1.6: Scale takes
 * precedence over Upgrade, else Normal), and from PD — members of this cluster by name (id as a
 * string, first client URL, health, `lastTransitionTime` moving only when health flips), members of
 * other clusters sharing this PD (`peerMembers`), the leader, `synced`, the image, the cluster id and
 * the pods that have not joined (`unjoinedMembers`). Beyond TiDB Operator, which keeps every member's
 * last health while PD cannot be read: then `synced: false`, and what can still be observed is
 * reported — a member whose pod is not Ready is unhealthy; when PD answered that it has no leader, no
 * member is healthy and there is no leader. And while PD is converging (pods Ready but PD not
 * answering, members not yet joined or healthy) the rule asks to look again within seconds, so status
 * is prompt without depending on failover; at rest it asks for nothing.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { PdMember, PdView } from '../../../model/pd.js';
import type { PdReadFailure } from '../../../model/snapshot.js';
import { toKubeTime } from '../../cluster/condition.js';
import { complete } from '../../engine/outcome.js';
import type { RuleInput, StatusDecision } from '../../engine/rule.js';
import type { MemberInput } from '../../member/component.js';
import { convergingRetryMs } from '../../member/converging.js';
import { memberOfPod, podNameOfMember } from '../../member/members.js';
import { pdDesiredReplicas } from '../../cluster/replicas.js';
import { isPodReady, isStatefulSetUpgrading, podReadySinceMs, replicasOf } from '../../member/statefulset.js';
import { pdPeerServiceName, pdSetName, type PdStatus, type PdStatusMember } from './names.js';
import { observedPd, pdReadError, pdReadErrorKind } from '../../cluster/observed.js';

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
export function planUnjoinedMembers(input: MemberInput, members: Members): Unjoined | undefined {
  const previous = input.status.pd?.unjoinedMembers ?? {};
  const now = toKubeTime(input.snapshot.nowMs);
  const unjoined: Unjoined = {};
  for (const pod of input.scope.pods) {
    const podName = pod.metadata?.name ?? '';
    if (memberOfPod(members, podName)) continue;
    const pvcUIDSet = Object.fromEntries(input.scope.pvcsOfPod(podName).map((pvc) => [pvc.metadata?.uid ?? '', {}]));
    unjoined[podName] = previous[podName] ?? { podName, pvcUIDSet, createdAt: now };
  }
  return Object.keys(unjoined).length === 0 ? undefined : unjoined;
}

function syncedFromPd(input: MemberInput, sts: IStatefulSet, view: PdView, base: PdStatus): PdStatus {
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
 * The members as far as they can be observed while PD cannot be read (`failure` says how it failed).
 * Beyond TiDB Operator (which keeps their last health): a member whose pod is missing or not Ready is
 * unhealthy; after PD answered "no leader" every member is, peers included (none can serve). A health
 * that does not change keeps its `lastTransitionTime`; nothing unobservable is reported as healthy.
 */
export function planUnreadMembers(input: MemberInput, failure: PdReadFailure): { members?: Members; peerMembers?: Members } {
  const previous = input.status.pd ?? {};
  const now = toKubeTime(input.snapshot.nowMs);
  const noLeader = failure === 'noLeader';
  const demote = (m: PdStatusMember): PdStatusMember => (m.health ? { ...m, health: false, lastTransitionTime: now } : m);
  const isPodServing = (m: PdStatusMember): boolean => {
    const pod = input.scope.pods.find((p) => p.metadata?.name === podNameOfMember(m.name));
    return pod !== undefined && isPodReady(pod);
  };
  const map = (record: Members | undefined, keep: (m: PdStatusMember) => boolean): Members | undefined =>
    record === undefined ? undefined : Object.fromEntries(Object.entries(record).map(([k, m]) => [k, keep(m) ? m : demote(m)]));
  // Peers' pods belong to another cluster: their health stays as last seen unless PD has no leader.
  return { members: map(previous.members, (m) => !noLeader && isPodServing(m)), peerMembers: map(previous.peerMembers, () => !noLeader) };
}

function unsynced(input: MemberInput, base: PdStatus): PdStatus {
  const failure = pdReadErrorKind(input.snapshot) ?? 'unreachable';
  const { members, peerMembers } = planUnreadMembers(input, failure);
  const leaderName = failure === 'noLeader' ? undefined : base.leader?.name;
  const leader = leaderName === undefined ? undefined : (members?.[leaderName] ?? peerMembers?.[leaderName] ?? base.leader);
  return { ...base, synced: false, members, peerMembers, leader };
}

/** Why the status must be looked at again soon, and since when the pods it concerns have been Ready. */
export type PdConverging = { readonly reason: string; readonly sinceMs: number };

/**
 * Whether PD is on its way somewhere the status must follow promptly: PD not read although some of
 * its pods are Ready (it should answer soon, or it lost its leader), or a Ready pod whose member has
 * not joined or is not healthy yet. Pods starting or stopping are announced by their own events, so
 * a PD with no Ready pod is woken by the first that gets Ready. Undefined at rest.
 */
export function pdConverging(input: MemberInput, pd: PdStatus): PdConverging | undefined {
  const ready = input.scope.pods.flatMap((pod) => {
    const sinceMs = podReadySinceMs(pod);
    return sinceMs === undefined ? [] : [{ name: pod.metadata?.name ?? '', sinceMs }];
  });
  if (pd.synced !== true) {
    if (ready.length === 0) return undefined;
    return { reason: 'PD pods are Ready but PD was not read', sinceMs: Math.max(...ready.map((p) => p.sinceMs)) };
  }
  const lagging = ready.filter((p) => memberOfPod(pd.members, p.name)?.health !== true);
  if (lagging.length === 0) return undefined;
  const names = lagging.map((p) => p.name).join(', ');
  return { reason: `PD members of Ready pods not joined or not healthy yet: ${names}`, sinceMs: Math.max(...lagging.map((p) => p.sinceMs)) };
}

/** When to look again at a converging PD (member/converging.ts). */
export { convergingRetryMs };

/**
 * The `PdStatus` rule (a status rule: it runs on paused clusters too, as TiDB Operator §1.7).
 * Guarantees: nothing changes without PD in the spec or before the StatefulSet exists; the status
 * object is rebuilt from observations only, so an unchanged world gives an equal status (the
 * engine then writes nothing); it always completes, and while PD is converging (`pdConverging`)
 * it asks to be woken after `convergingRetryMs` — whatever failover is set to; at rest it asks for
 * nothing (the sweep covers drift).
 */
export function planPdStatus(input: MemberInput): StatusDecision {
  const sts = input.scope.set;
  if (!input.cluster.spec.pd || !sts) return { outcome: complete() };
  const previous = input.status.pd ?? {};
  const base: PdStatus = {
    ...previous,
    statefulSet: sts.status ?? { replicas: 0 },
    phase: pdPhaseOf(input, sts, input.scope.pods),
  };
  const view = observedPd(input.snapshot);
  const pd = view ? syncedFromPd(input, sts, view, base) : unsynced(input, base);
  const clusterID = (view ? view.clusterId : undefined) ?? input.status.clusterID;
  const status = { ...input.status, ...(clusterID === undefined ? {} : { clusterID }), pd };
  const note = view ? undefined : `PD not synced: ${pdReadError(input.snapshot) ?? 'PD not read'}`;
  const converging = pdConverging(input, pd);
  if (converging === undefined) return { status, outcome: complete(note) };
  // A wake-up time rather than a retry outcome: it holds even when an act rule fails this step and
  // the failure's backoff (up to 100 s after a long outage) would come later.
  const message = note === undefined ? converging.reason : `${note}; ${converging.reason}`;
  const wakeAtMs = input.snapshot.nowMs + convergingRetryMs(converging.sinceMs, input.snapshot.nowMs);
  return { status, outcome: complete(`${message}: looking again at ${toKubeTime(wakeAtMs)}`), wakeAtMs };
}
