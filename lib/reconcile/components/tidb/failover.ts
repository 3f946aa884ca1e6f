/**
 * TiDB failover, as TiDB Operator v1's `tidb_failover.go` (§2.4, Fixture K): with auto failover on,
 * when every pod has started but not every member is healthy, a member unhealthy for
 * `tidbFailoverPeriod` (from its `lastTransitionTime`, none counting as long ago — but beyond v1 not
 * before PD and TiKV are back and a TiDB that exited meanwhile has restarted: failover-clock.ts) whose pod is
 * scheduled is recorded in `status.tidb.failureMembers` — one per step, never beyond
 * `maxFailoverCount` — which raises the desired replicas by one (the scaler adds the replacement).
 * The deadline of every waiting member is persisted and the key woken at it, so the mark happens on
 * time. Recovery is automatic: once every desired ordinal `[0, spec.tidb.replicas)` has a Ready pod
 * and a healthy member, the marks are cleared and the extra pod leaves through the normal scale-in.
 */

import type { IPod } from 'kubernetes-models/v1/Pod';

import type { Action } from '../../../model/action.js';
import { toKubeTime } from '../../cluster/condition.js';
import { EVENT_REASON, clusterWarning } from '../../cluster/events.js';
import { isTidbAllMembersReady, tidbDesiredReplicas } from '../../cluster/replicas.js';
import { complete, retry } from '../../engine/outcome.js';
import type { MemberDecision, MemberInput } from '../../member/component.js';
import { failoverDeadline, failoverDeadlineDelete, failoverDeadlinePuts, staleFailoverDeadlines } from '../../member/failover.js';
import { nothing, unlessRecorded } from '../../member/members.js';
import { isPodReady } from '../../member/statefulset.js';
import { isPdAvailable } from '../pd/availability.js';
import { isTikvAvailable } from '../tikv/availability.js';
import { tidbFailoverSinceMs } from './failover-clock.js';
import { TIDB_RETRY_MS, tidbStatusOf, withTidbStatus, type TidbFailureMember, type TidbStatusMember } from './names.js';

const failures = (input: MemberInput): Record<string, TidbFailureMember> => ({ ...tidbStatusOf(input).failureMembers });
const sinceMsOf = (member: TidbStatusMember): number => {
  const at = member.lastTransitionTime === undefined ? Number.NaN : Date.parse(member.lastTransitionTime);
  // As TiDB Operator: a zero (here: missing) transition time is long past.
  return Number.isNaN(at) ? 0 : at;
};
const isScheduled = (pod: IPod | undefined): boolean => pod?.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'True') === true;

/**
 * As TiDB Operator's `shouldRecover`: there are failure members, and every desired ordinal
 * `[0, spec.tidb.replicas)` has a Ready pod whose member is healthy (the failover pods do not count).
 */
export function shouldRecoverTidb(input: MemberInput): boolean {
  if (Object.keys(failures(input)).length === 0) return false;
  const members = tidbStatusOf(input).members ?? {};
  return Array.from({ length: input.cluster.spec.tidb?.replicas ?? 0 }, (_, i) => input.scope.podName(i)).every((podName) => {
    const pod = input.scope.pod(podName);
    return pod !== undefined && isPodReady(pod) && members[podName]?.health === true;
  });
}

/** As TiDB Operator's `TiDBAllPodsStarted`: the StatefulSet runs as many pods as desired. */
const isAllPodsStarted = (input: MemberInput): boolean =>
  tidbDesiredReplicas(input.cluster.spec, input.status) === (tidbStatusOf(input).statefulSet?.replicas ?? -1);

/**
 * The unhealthy members not yet recorded, by name: failover candidates, each with the start of its
 * period (failover-clock.ts: not before PD and TiKV are back, nor before a TiDB that exited while
 * they were away has started again — such a member is no candidate yet) and its deadline.
 */
function candidates(input: MemberInput): { member: TidbStatusMember; sinceMs: number; deadlineAtMs: number }[] {
  const marked = failures(input);
  const periodMs = input.snapshot.config.failoverPeriodMs.tidb;
  return Object.values(tidbStatusOf(input).members ?? {})
    .filter((m) => !m.health && marked[m.name] === undefined)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((member) => {
      const sinceMs = tidbFailoverSinceMs(input.cluster, input.status, input.scope.pod(member.name), sinceMsOf(member));
      return sinceMs === undefined ? [] : [{ member, sinceMs, deadlineAtMs: sinceMs + periodMs }];
    });
}

function mark(input: MemberInput, member: TidbStatusMember, first: readonly Action[]): MemberDecision {
  const tc = input.cluster;
  const record: TidbFailureMember = { podName: member.name, createdAt: toKubeTime(input.snapshot.nowMs) };
  const status = withTidbStatus(input, { ...tidbStatusOf(input), failureMembers: { ...failures(input), [member.name]: record } });
  const message = `tidb[${member.name}] is unhealthy`;
  const actions: Action[] = [...first, ...unlessRecorded(clusterWarning(tc, EVENT_REASON.unhealthy, message)), failoverDeadlineDelete('tidb', member.name)];
  return { status, actions, outcome: retry(TIDB_RETRY_MS, `marking TiDB member ${member.name} as failure`), stop: true };
}

/**
 * As TiDB Operator's `Failover`: healthy members leave `failureMembers`; then (with a positive
 * `maxFailoverCount`) the first candidate past its deadline is recorded if the count allows and its
 * pod is scheduled — at most one per step. Candidates still within their period have their deadline
 * persisted, and the key asks to be woken at the earliest.
 */
export function planTidbFailoverMark(input: MemberInput): MemberDecision {
  const members = tidbStatusOf(input).members ?? {};
  const kept = Object.fromEntries(Object.entries(failures(input)).filter(([name]) => members[name]?.health !== true));
  const cleared = Object.keys(kept).length !== Object.keys(failures(input)).length;
  const next: MemberInput = cleared ? { ...input, status: withTidbStatus(input, { ...tidbStatusOf(input), failureMembers: kept }) } : input;
  const max = input.cluster.spec.tidb?.maxFailoverCount ?? 0;
  const pending = max > 0 ? candidates(next) : [];
  const stale = staleFailoverDeadlines(next, 'tidb', new Set(pending.map((p) => p.member.name)));
  const due = pending.filter((p) => next.snapshot.nowMs >= p.deadlineAtMs);
  const room = Object.keys(kept).length < max;
  const markable = room ? due.find((p) => isScheduled(next.scope.pod(p.member.name))) : undefined;
  if (markable) return mark(next, markable.member, stale);
  const waiting = pending.filter((p) => next.snapshot.nowMs < p.deadlineAtMs);
  const deadlines = waiting.map((p) => failoverDeadline('tidb', p.member.name, p.sinceMs, next.snapshot.config.failoverPeriodMs.tidb));
  const actions = [...stale, ...failoverDeadlinePuts(next, deadlines)];
  const status = cleared ? next.status : undefined;
  const held = due.length > 0 && !room ? `TiDB failover stops at maxFailoverCount ${max}` : undefined;
  if (waiting.length === 0) return { ...(status ? { status } : {}), actions, outcome: complete(held) };
  const wakeAtMs = Math.min(...waiting.map((p) => p.deadlineAtMs));
  return { ...(status ? { status } : {}), actions, outcome: complete(`TiDB failover deadline at ${toKubeTime(wakeAtMs)}`), wakeAtMs };
}

/**
 * The `TidbFailover` rule, as TiDB Operator's member manager: only with auto failover; recover when
 * `shouldRecoverTidb`; else, when every pod has started and not every member is ready, fail over.
 */
export function planTidbFailover(input: MemberInput): MemberDecision {
  if (!input.snapshot.config.autoFailover) return nothing();
  if (shouldRecoverTidb(input)) {
    const status = withTidbStatus(input, { ...tidbStatusOf(input), failureMembers: undefined });
    return { status, actions: [], outcome: retry(TIDB_RETRY_MS, 'every desired TiDB member is healthy again: failure members cleared'), stop: true };
  }
  if (!isAllPodsStarted(input) || isTidbAllMembersReady(input.cluster.spec, input.status)) {
    // Nothing to fail over: no member waits for a deadline any more.
    return { actions: staleFailoverDeadlines(input, 'tidb', new Set()), outcome: complete() };
  }
  const held = failoverHeldBy(input);
  if (held !== undefined) return { actions: [], outcome: complete(`TiDB failover held: ${held}, so a replacement could not serve either`) };
  return planTidbFailoverMark(input);
}

/**
 * Why no TiDB member may be recorded as a failure now, or undefined. Beyond v1, whose TiKV sync stops
 * while PD is unavailable so TiDB's never runs: while PD or TiKV is unavailable every TiDB server is
 * unhealthy for that reason alone, and a replacement would be too. The deadlines stay; a member still
 * unhealthy once both are back is marked at its next step (a PD or TiKV status change steps the key).
 */
function failoverHeldBy(input: MemberInput): string | undefined {
  if (!isPdAvailable(input.cluster, input.status)) return 'PD is not available';
  if (!isTikvAvailable(input.cluster, input.status)) return 'TiKV is not available';
  return undefined;
}
