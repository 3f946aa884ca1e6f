/**
 * PD members that never joined, beyond TiDB Operator (whose status sync skips them and never
 * removes them). PD's join (tikv/pd `server/join/join.go`, `PrepareJoinCluster`) adds the etcd
 * member before etcd starts; a process that dies in between leaves a member with no name and no
 * client URL. It never serves, yet counts in etcd's majority, and every later join is refused
 * ("there is a member … that has not joined successfully") — the pod crash-loops for good. Delete
 * by name cannot reach it (404); only `DELETE /pd/api/v1/members/id/{id}` can.
 *
 * A member is nameless for a moment in every healthy join too (between MemberAdd and etcd
 * publishing its name), and removing it then would strand that pod on a removed member's data, so
 * a nameless member is removed only after `PD_NOT_JOINED_GRACE_MS` (a persisted deadline, woken
 * at), while PD has a leader and the members left keep a serving majority, one per step.
 */

import type { Action } from '../../../model/action.js';
import type { PdMember } from '../../../model/pd.js';
import { observedPd } from '../../cluster/observed.js';
import { EVENT_REASON, clusterWarning } from '../../cluster/events.js';
import { toKubeTime } from '../../cluster/condition.js';
import { complete, retry } from '../../engine/outcome.js';
import type { RuleInput } from '../../engine/rule.js';
import type { MemberDecision, MemberInput } from '../../member/component.js';
import { hasQuorum } from '../../member/failover.js';
import { nothing, unlessRecorded } from '../../member/members.js';
import { PD_RETRY_MS } from './names.js';
import { isOwnPdMemberUrl } from './status.js';

/**
 * How long a member may stay nameless before it is taken as never joined. A healthy join names
 * its member within seconds of MemberAdd (etcd publishes its attributes once it runs); a
 * minute leaves a wide margin, and a pod whose join died restarts with back-off anyway.
 */
export const PD_NOT_JOINED_GRACE_MS = 60_000;

/** The persisted deadline kind of a nameless member (its `member` is the member id). */
export const PD_NOT_JOINED_DEADLINE = 'notJoined';

/**
 * The members PD lists without a name (added, never started), of any cluster sharing this PD;
 * empty when PD was not read. Every quorum check counts them in PD's size, never as serving.
 */
export function notJoinedPdMembers(input: RuleInput): readonly PdMember[] {
  return observedPd(input.snapshot)?.members.filter((m) => m.name === '') ?? [];
}

/** How a nameless member is named in messages: its id and the peer URL its join added. */
export const describeNotJoined = (m: PdMember): string => `${m.id} (never joined, peer ${m.peerUrls[0] ?? 'unknown'})`;

function deadlineOf(input: MemberInput, member: PdMember): { sinceMs: number; deadlineAtMs: number } {
  const persisted = input.snapshot.state.deadlines.find((d) => d.component === 'pd' && d.kind === PD_NOT_JOINED_DEADLINE && d.member === member.id);
  const sinceMs = persisted?.sinceMs ?? input.snapshot.nowMs;
  return { sinceMs, deadlineAtMs: sinceMs + PD_NOT_JOINED_GRACE_MS };
}

/** Deletes of persisted nameless-member deadlines whose member PD no longer lists. */
function staleDeadlines(input: MemberInput, listed: ReadonlySet<string>): Action[] {
  return input.snapshot.state.deadlines
    .filter((d) => d.component === 'pd' && d.kind === PD_NOT_JOINED_DEADLINE && !listed.has(d.member))
    .map((d) => ({ kind: 'state.deleteDeadline', deadline: { component: 'pd', member: d.member, kind: PD_NOT_JOINED_DEADLINE } }));
}

/** Whether removing one non-serving member leaves a serving majority: PD has a leader and etcd's IsReadyToRemoveVotingMember holds. */
function canRemoveOne(input: MemberInput): boolean {
  const view = observedPd(input.snapshot);
  if (!view?.leader) return false;
  const serving = view.members.filter((m) => m.health).length;
  return hasQuorum(serving, view.members.length - 1);
}

/**
 * The `PdNotJoinedMembers` rule. Guarantees: nothing while PD is not read; a nameless member whose
 * peer URL is a pod of this cluster gets a persisted deadline (the key woken at it); past it, and
 * only while `canRemoveOne`, one `pd.deleteMember` by id per step with a `PDMemberDeleted` Warning;
 * otherwise it retries with a `PDQuorumAtRisk` Warning (once). Deadlines of members gone are deleted.
 * Never stops the block.
 */
export function planPdNotJoinedMembers(input: MemberInput): MemberDecision {
  if (!observedPd(input.snapshot)) return nothing();
  const all = notJoinedPdMembers(input);
  const stale = staleDeadlines(input, new Set(all.map((m) => m.id)));
  const own = all.filter((m) => isOwnPdMemberUrl(input, m.peerUrls[0] ?? ''));
  if (own.length === 0) return { actions: stale, outcome: complete() };
  const timed = own.map((m) => ({ m, ...deadlineOf(input, m) }));
  const puts: Action[] = timed
    .filter((t) => !input.snapshot.state.deadlines.some((d) => d.component === 'pd' && d.kind === PD_NOT_JOINED_DEADLINE && d.member === t.m.id))
    .map((t) => ({ kind: 'state.putDeadline', deadline: { component: 'pd', member: t.m.id, kind: PD_NOT_JOINED_DEADLINE, sinceMs: t.sinceMs, deadlineAtMs: t.deadlineAtMs } }));
  const due = timed.find((t) => input.snapshot.nowMs >= t.deadlineAtMs);
  if (!due) {
    const wakeAtMs = Math.min(...timed.map((t) => t.deadlineAtMs));
    const names = timed.map((t) => describeNotJoined(t.m)).join(', ');
    return { actions: [...stale, ...puts], outcome: complete(`PD member(s) ${names}: removed from ${toKubeTime(wakeAtMs)} unless named by then`), wakeAtMs };
  }
  const tc = input.cluster;
  const who = describeNotJoined(due.m);
  if (!canRemoveOne(input)) {
    const message = `removing PD member ${who} waits: PD has no leader or would be left without a serving majority`;
    return { actions: [...stale, ...puts, ...unlessRecorded(clusterWarning(tc, EVENT_REASON.pdQuorumAtRisk, message))], outcome: retry(PD_RETRY_MS, message) };
  }
  const message = `PD member ${who} was added by a join that never started: deleted from PD cluster by id`;
  const actions: Action[] = [...stale, ...puts, { kind: 'pd.deleteMember', id: due.m.id }, clusterWarning(tc, EVENT_REASON.pdMemberDeleted, message)];
  return { actions, outcome: retry(PD_RETRY_MS, message) };
}
