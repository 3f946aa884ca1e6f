/**
 * PD failover, as TiDB Operator v1's `pd_failover.go` (§2.1, Fixtures A and B), one member per step
 * and only with PD quorum. A member of a desired ordinal unhealthy for `pdFailoverPeriod` (from its
 * `lastTransitionTime`) is marked in `status.pd.failureMembers`; the deadline is persisted and the key
 * woken at it, so the mark happens on time. A marked member is then deleted from PD by id, its pod and
 * its recorded PVCs deleted (uid-guarded); once all three are observed gone it is `memberDeleted`,
 * which raises the desired replicas by one. With `detectNodeFailure`, a member on a lost host is
 * recovered as v1's failure-recovery hook does first (host-down.ts). When every desired ordinal is Ready and healthy again,
 * the marks are cleared and the extra member leaves through the normal scale-in.
 */

import type { Action } from '../../../model/action.js';
import type { Outcome } from '../../../model/outcome.js';
import { toKubeTime } from '../../cluster/condition.js';
import { EVENT_REASON, clusterWarning } from '../../cluster/events.js';
import { AT_ONCE_MS, complete, fail, retry, wait } from '../../engine/outcome.js';
import type { MemberDecision, MemberInput } from '../../member/component.js';
import {
  failoverDeadline,
  failoverDeadlineDelete,
  failoverDeadlinePuts,
  hasQuorum,
  staleFailoverDeadlines,
} from '../../member/failover.js';
import { isTerminating, podNameOfMember, unlessRecorded } from '../../member/members.js';
import { isPdAllMembersReady, pdDesiredReplicas } from '../../cluster/replicas.js';
import { isPodReady } from '../../member/statefulset.js';
import { pdStatusOf, withPdStatus, type PdFailureMember, type PdStatusMember } from './names.js';
import { observedObjects, observedPd } from '../../cluster/observed.js';
import { planPdHostDown } from './host-down.js';
import { notJoinedPdMembers } from './not-joined.js';

const MAX_UINT64 = 18_446_744_073_709_551_615n;
const nsName = (input: MemberInput): string => `${input.cluster.metadata.namespace ?? ''}/${input.cluster.metadata.name ?? ''}`;
const failures = (input: MemberInput): Record<string, PdFailureMember> => ({ ...pdStatusOf(input).failureMembers });
const stamp = (time: string | undefined): number => (time === undefined ? Number.NaN : Date.parse(time));

/**
 * As TiDB Operator's `shouldRecover` (Fixture B): there are failure members, and every desired
 * ordinal `[0, spec.pd.replicas)` has a Ready pod and a healthy member named after it.
 */
export function shouldRecoverPd(input: MemberInput): boolean {
  if (Object.keys(failures(input)).length === 0) return false;
  const members = Object.values(pdStatusOf(input).members ?? {});
  const ordinals = Array.from({ length: input.cluster.spec.pd?.replicas ?? 0 }, (_, i) => i);
  return ordinals.every((i) => {
    const podName = input.scope.podName(i);
    const pod = input.scope.pod(podName);
    const member = members.find((m) => podNameOfMember(m.name) === podName);
    return pod !== undefined && isPodReady(pod) && member?.health === true;
  });
}

/** As TiDB Operator: one `PDMemberUnhealthy` / `PDPeerMemberUnhealthy` Warning per unhealthy member (once while recorded). */
function unhealthyEvents(input: MemberInput): Action[] {
  const pd = pdStatusOf(input);
  const tc = input.cluster;
  const own = Object.entries(pd.members ?? {}).filter(([, m]) => !m.health);
  const peers = Object.values(pd.peerMembers ?? {}).filter((m) => !m.health);
  return [
    ...own.flatMap(([name, m]) => unlessRecorded(clusterWarning(tc, EVENT_REASON.pdMemberUnhealthy, `${tc.metadata.namespace ?? ''}/${name}(${m.id}) is unhealthy`))),
    ...peers.flatMap((m) => unlessRecorded(clusterWarning(tc, EVENT_REASON.pdPeerMemberUnhealthy, `${m.name}(${m.id}) is unhealthy`))),
  ];
}

/** Deletes of persisted PD failover deadlines whose member is no longer waiting (healthy, gone or marked). */
const staleDeadlines = (input: MemberInput, waiting: ReadonlySet<string>): Action[] => staleFailoverDeadlines(input, 'pd', waiting);

/** The unhealthy members of desired ordinals, not yet marked, with a transition time: failover candidates. */
function candidates(input: MemberInput): PdStatusMember[] {
  const marked = failures(input);
  const replicas = input.cluster.spec.pd?.replicas ?? 0;
  return Object.values(pdStatusOf(input).members ?? {}).filter((m) => {
    const ordinal = input.scope.ordinalOf(podNameOfMember(m.name));
    return !m.health && ordinal !== undefined && ordinal < replicas && !Number.isNaN(stamp(m.lastTransitionTime)) && marked[m.name] === undefined;
  });
}

function mark(input: MemberInput, member: PdStatusMember, events: Action[]): MemberDecision {
  const tc = input.cluster;
  const podName = podNameOfMember(member.name);
  const ns = tc.metadata.namespace ?? '';
  if (!input.scope.pod(podName)) return { actions: events, outcome: fail(`failed to get pod ${ns}/${podName} for pd failover`) };
  const pvcs = input.scope.pvcsOfPod(podName);
  if (pvcs.length === 0) return { actions: events, outcome: fail(`no pvc found for pod ${ns}/${podName}`) };
  const pvcUIDSet = Object.fromEntries(pvcs.map((pvc) => [pvc.metadata?.uid ?? '', {}]));
  const record: PdFailureMember = { podName, memberID: member.id, pvcUIDSet, memberDeleted: false, createdAt: toKubeTime(input.snapshot.nowMs) };
  const status = withPdStatus(input, { ...pdStatusOf(input), failureMembers: { ...failures(input), [member.name]: record } });
  const message = `pd pod[${podName}] is unhealthy, msg:pd member[${member.id}] is unhealthy`;
  const actions: Action[] = [
    ...events,
    ...unlessRecorded(clusterWarning(tc, EVENT_REASON.unhealthy, message)),
    failoverDeadlineDelete('pd', member.name),
  ];
  return { status, actions, outcome: retry(AT_ONCE_MS, `marking Pod: ${ns}/${podName} pd member: ${member.name} as failure`), stop: true };
}

/**
 * As TiDB Operator's `tryToMarkAPeerAsFailure`, with persisted deadlines: the first candidate past
 * its deadline is marked; every candidate still within its period has its deadline persisted, and
 * the key asks to be woken at the earliest one.
 */
function tryToMark(input: MemberInput, events: Action[]): MemberDecision {
  const periodMs = input.snapshot.config.failoverPeriodMs.pd;
  const pending = candidates(input).map((m) => ({ m, deadline: failoverDeadline('pd', m.name, stamp(m.lastTransitionTime), periodMs) }));
  const waiting = new Set(pending.map((p) => p.m.name));
  const due = pending.find((p) => input.snapshot.nowMs >= p.deadline.deadlineAtMs);
  if (due) return mark(input, due.m, [...events, ...staleDeadlines(input, waiting)]);
  const puts = failoverDeadlinePuts(input, pending.map((p) => p.deadline));
  const actions = [...events, ...staleDeadlines(input, waiting), ...puts];
  if (pending.length === 0) return { actions, outcome: complete() };
  const wakeAtMs = Math.min(...pending.map((p) => p.deadline.deadlineAtMs));
  return { actions, outcome: complete(`PD failover deadline at ${toKubeTime(wakeAtMs)}`), wakeAtMs };
}

/** Whether the failure member's deletion is observed done: not listed by PD, pod replaced, PVCs gone. */
function isDeletionDone(input: MemberInput, failure: PdFailureMember): boolean {
  const listed = observedPd(input.snapshot)?.members.some((m) => m.id === failure.memberID) === true;
  return !listed && deletes(input, failure).length === 0;
}

/**
 * The pod and PVC deletes a failure member still needs (precondition-guarded; nothing already
 * terminating). As TiDB Operator: Kubernetes does not order the old claim's deletion and the new
 * pod's creation, so a pod recreated while a recorded claim still exists (terminating, held by
 * pvc-protection because that very pod uses it) runs on the failed member's volume — it is not a
 * replacement, and is deleted again until the StatefulSet recreates it on a fresh claim.
 */
function deletes(input: MemberInput, failure: PdFailureMember): Action[] {
  const podName = failure.podName ?? '';
  const pod = input.scope.pod(podName);
  const uids = new Set(Object.keys(failure.pvcUIDSet ?? {}));
  const replaced = pod !== undefined && stamp(pod.metadata?.creationTimestamp) >= stamp(failure.createdAt) && !usesRecordedClaim(input, pod, uids);
  const ref = (kind: 'Pod' | 'PersistentVolumeClaim', name: string | undefined) => ({ kind, namespace: input.cluster.metadata.namespace ?? '', name: name ?? '' });
  // The pod delete carries uid and resourceVersion: it applies only to the pod as observed.
  const podDelete: Action[] =
    pod && !isTerminating(pod) && !replaced ? [{ kind: 'delete', ref: ref('Pod', podName), uid: pod.metadata?.uid ?? '', resourceVersion: pod.metadata?.resourceVersion ?? '' }] : [];
  const pvcDeletes: Action[] = observedObjects(input.snapshot, 'PersistentVolumeClaim').filter((pvc) => uids.has(pvc.metadata?.uid ?? '') && !isTerminating(pvc)).map(
    (pvc) => ({ kind: 'delete', ref: ref('PersistentVolumeClaim', pvc.metadata?.name), uid: pvc.metadata?.uid ?? '' }),
  );
  return [...podDelete, ...pvcDeletes];
}

/** Whether `pod` mounts a claim that still exists with one of the failure member's recorded uids. */
function usesRecordedClaim(input: MemberInput, pod: NonNullable<ReturnType<MemberInput['scope']['pod']>>, uids: ReadonlySet<string>): boolean {
  const claims = new Set((pod.spec?.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim ? [v.persistentVolumeClaim.claimName] : [])));
  return observedObjects(input.snapshot, 'PersistentVolumeClaim').some((pvc) => claims.has(pvc.metadata?.name ?? '') && uids.has(pvc.metadata?.uid ?? ''));
}

/**
 * As TiDB Operator's `tryToDeleteAFailureMember`, verified across steps: delete the member from PD
 * by id (only while PD lists it), its pod and its recorded PVCs; `memberDeleted` is set only once the
 * next step observes all of it done, so a failed action never leaves a false record.
 */
function tryToDelete(input: MemberInput, name: string, failure: PdFailureMember, events: Action[]): MemberDecision {
  const member = pdStatusOf(input).members?.[name];
  if (member?.health === true) return { actions: events, outcome: complete(`failure member ${name} is healthy again`) };
  const id = failure.memberID ?? '';
  if (!/^\d+$/.test(id) || BigInt(id) > MAX_UINT64) return { actions: events, outcome: fail(`strconv.ParseUint: parsing "${id}": invalid syntax`) };
  if (isDeletionDone(input, failure)) {
    const status = withPdStatus(input, { ...pdStatusOf(input), failureMembers: { ...failures(input), [name]: { ...failure, memberDeleted: true } } });
    return { status, actions: events, outcome: retry(AT_ONCE_MS, `failure member ${name} deleted: a replacement follows`), stop: true };
  }
  const listed = observedPd(input.snapshot)?.members.some((m) => m.id === id) === true;
  const message = `failure member ${input.cluster.metadata.namespace ?? ''}/${failure.podName ?? ''}(${id}) deleted from PD cluster`;
  const actions: Action[] = [
    ...events,
    ...(listed ? [{ kind: 'pd.deleteMember' as const, id }, clusterWarning(input.cluster, EVENT_REASON.pdMemberDeleted, message)] : []),
    ...deletes(input, failure),
  ];
  return { actions, outcome: retry(AT_ONCE_MS, `deleting failure member ${name}`), stop: true };
}

function recover(input: MemberInput): MemberDecision {
  const { failureMembers: _cleared, ...pd } = pdStatusOf(input);
  return { status: withPdStatus(input, pd), actions: staleDeadlines(input, new Set()), outcome: retry(AT_ONCE_MS, 'PD recovered: failure members cleared'), stop: true };
}

function quorumFailure(input: MemberInput): Outcome | undefined {
  const pd = pdStatusOf(input);
  // Members PD lists without a name (a join that never started) count in etcd's size, never as healthy.
  const total = Object.keys(pd.members ?? {}).length + Object.keys(pd.peerMembers ?? {}).length + notJoinedPdMembers(input).length;
  const healthy = [...Object.values(pd.members ?? {}), ...Object.values(pd.peerMembers ?? {})].filter((m) => m.health).length;
  if (hasQuorum(healthy, total)) return undefined;
  const count = Object.keys(failures(input)).length;
  const replicas = input.cluster.spec.pd?.replicas ?? 0;
  return fail(`TidbCluster: ${nsName(input)}'s pd cluster is not health: ${healthy}/${total}, replicas: ${replicas}, failureCount: ${count}, can't failover`);
}

/**
 * The `PdFailover` rule (needs `autoFailover` and `maxFailoverCount > 0`). Guarantees: recovery first
 * (Fixture B); otherwise it acts only when all pods started but not all members are ready, or a mark
 * is not yet deleted (as TiDB Operator); `fail`s without synced status or without quorum; never more
 * than one un-deleted failure member; no new mark or deletion once `maxFailoverCount` members were
 * deleted. Every status change stops the sequence, so desired replicas move on the next step.
 */
export function planPdFailover(input: MemberInput): MemberDecision {
  const max = input.cluster.spec.pd?.maxFailoverCount ?? 3;
  if (!input.snapshot.config.autoFailover || max <= 0) return { actions: staleDeadlines(input, new Set()), outcome: complete() };
  if (shouldRecoverPd(input)) return recover(input);
  const pd = pdStatusOf(input);
  const undeleted = Object.entries(failures(input)).filter(([, f]) => f.memberDeleted !== true);
  const started = pdDesiredReplicas(input.cluster.spec, input.status) === pd.statefulSet?.replicas;
  if (!(started && !isPdAllMembersReady(input.cluster.spec, input.status)) && undeleted.length === 0) {
    return { actions: staleDeadlines(input, new Set(candidates(input).map((m) => m.name))), outcome: complete() };
  }
  // PD not read yet (starting) or unreadable: a wait, not a failure to back off from — the status rule
  // wakes the key while PD converges, and pod events come while its pods start.
  if (pd.synced !== true) return { actions: [], outcome: wait(`TidbCluster: ${nsName(input)} .Status.PD.Synced = false, can't failover`) };
  const events = unhealthyEvents(input);
  const noQuorum = quorumFailure(input);
  if (noQuorum) return { actions: events, outcome: noQuorum };
  const deleted = Object.values(failures(input)).filter((f) => f.memberDeleted === true).length;
  if (deleted >= max) return { actions: events, outcome: complete(`PD failover reached maxFailoverCount ${max}`) };
  const [first] = undeleted;
  return first ? hostDownThenDelete(input, first[0], first[1], events) : tryToMark(input, events);
}

/**
 * As v1's `pdFailover.Failover` after marking: the host-down hook (host-down.ts) first, then
 * `tryToDeleteAFailureMember`, whose `canDoCleanUpNow` holds a host-down member until its recreated
 * pod has run `restartToDeleteStoreGap` (woken then; a member healthy again is left alone at once).
 */
function hostDownThenDelete(input: MemberInput, name: string, failure: PdFailureMember, events: Action[]): MemberDecision {
  const step = planPdHostDown(input, name);
  if ('decision' in step) return { ...step.decision, actions: [...events, ...step.decision.actions] };
  const healthy = pdStatusOf(input).members?.[name]?.health === true;
  if (!healthy && step.cleanUpAtMs === undefined) return { actions: events, outcome: wait(`failure member ${name} is host-down: waiting for its pod to be recreated`) };
  if (!healthy && step.cleanUpAtMs !== undefined && input.snapshot.nowMs < step.cleanUpAtMs) {
    return { actions: events, outcome: complete(`failure member ${name} is host-down: clean-up at ${toKubeTime(step.cleanUpAtMs)}`), wakeAtMs: step.cleanUpAtMs };
  }
  return tryToDelete(input, name, failure, events);
}
