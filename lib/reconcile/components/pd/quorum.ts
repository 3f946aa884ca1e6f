/**
 * PD quorum before a member is restarted, beyond TiDB Operator (whose upgrader checks quorum only
 * with `tidb.pingcap.com/pd-check-quorum-before-upgrade`): the members left serving while one
 * restarts must still be a majority of the whole PD cluster — this cluster's members plus the peer
 * members of other clusters sharing PD, and the members PD lists without a name (a join that never
 * started: never serving, but counted by etcd). A PD of one or two members cannot keep quorum through any
 * restart, so there it is enough that every other member serves (as TiDB Operator, a lone PD
 * restarts anyway; otherwise it could never be upgraded).
 */

import type { EventAction } from '../../../model/action.js';
import { EVENT_REASON, clusterWarning } from '../../cluster/events.js';
import { hasQuorum } from '../../member/failover.js';
import { podNameOfMember } from '../../member/members.js';
import { pdStatusOf, type PdStatusMember } from './names.js';
import { describeNotJoined, notJoinedPdMembers } from './not-joined.js';
import type { RuleInput } from '../../engine/rule.js';

/** As TiDB Operator's `IsPDStable`: healthy members exceed half of all plus one (3 of 3, 4 of 4, 4 of 5). */
export function isStable(healthy: number, total: number): boolean {
  return healthy > Math.floor(total / 2) + 1;
}

/** What restarting one pod's member would leave: members serving, the cluster's size, who is down. */
export type PdRestartQuorum = {
  readonly keepsQuorum: boolean;
  readonly servingAfter: number;
  readonly total: number;
  readonly notServing: readonly string[];
};

/**
 * Whether the PD member of `podName` may restart now (see the module comment). Reads the status as
 * the `PdStatus` rule built it this step (members and peer members with their health); changes nothing.
 */
export function pdRestartQuorum(input: RuleInput, podName: string): PdRestartQuorum {
  const pd = pdStatusOf(input);
  const own = Object.values(pd.members ?? {});
  const all: PdStatusMember[] = [...own, ...Object.values(pd.peerMembers ?? {})];
  const restarting = (m: PdStatusMember): boolean => own.includes(m) && podNameOfMember(m.name) === podName;
  const others = all.filter((m) => !restarting(m));
  const notJoined = notJoinedPdMembers(input);
  const servingAfter = others.filter((m) => m.health).length;
  const total = all.length + notJoined.length;
  const notServing = [...others.filter((m) => !m.health).map((m) => m.name), ...notJoined.map(describeNotJoined)];
  const unavoidable = total <= 2 && notServing.length === 0;
  return { keepsQuorum: hasQuorum(servingAfter, total) || unavoidable, servingAfter, total, notServing };
}

/**
 * The Warning Event saying why an operation on a PD member waits for quorum (`what`, e.g.
 * "restarting basic-pd-2 for the upgrade"); the message names the members not serving.
 */
export function pdQuorumHoldEvent(input: RuleInput, what: string, quorum: PdRestartQuorum): EventAction {
  const down = quorum.notServing.length === 0 ? '' : ` (not serving: ${quorum.notServing.join(', ')})`;
  const message = `${what} waits: it would leave ${quorum.servingAfter} of ${quorum.total} PD members serving, not a majority${down}`;
  return clusterWarning(input.cluster, EVENT_REASON.pdQuorumAtRisk, message);
}
