/**
 * PD members left behind by a scale-in, beyond TiDB Operator. A scale-in deletes the member PD
 * lists before the StatefulSet drops the pod (`beforePdScaleIn`), but a pod that is still starting
 * has no member yet: the replicas drop, and its PD process may still finish its join (tikv/pd
 * `server/join/join.go` adds the etcd member) before the kubelet stops it. That member has no pod
 * and never serves again, yet counts in etcd's majority for good — v1 leaves it there too (its
 * scale-in deletes only a member it sees). Such a member is deleted by name once PD lists it
 * unhealthy, its ordinal is at or above the StatefulSet's replicas and no pod of that name exists,
 * while PD has a leader and the members left keep a serving majority, one per step.
 */

import type { PdMember } from '../../../model/pd.js';
import { observedPd } from '../../cluster/observed.js';
import { EVENT_REASON, clusterWarning } from '../../cluster/events.js';
import { complete, retry } from '../../engine/outcome.js';
import type { MemberDecision, MemberInput } from '../../member/component.js';
import { hasQuorum } from '../../member/failover.js';
import { nothing, podNameOfMember, unlessRecorded } from '../../member/members.js';
import { replicasOf } from '../../member/statefulset.js';
import { PD_RETRY_MS } from './names.js';
import { isOwnPdMemberUrl } from './status.js';

/**
 * This cluster's PD members that no pod can serve: unhealthy, of an ordinal at or above the
 * StatefulSet's replicas (and the spec's), with no pod of that name. Empty when PD or the
 * StatefulSet was not read.
 */
export function strayPdMembers(input: MemberInput): readonly PdMember[] {
  const view = observedPd(input.snapshot);
  const { set } = input.scope;
  if (!view || !set) return [];
  const floor = Math.max(replicasOf(set), input.scope.spec?.replicas ?? 0);
  return view.members.filter((m) => {
    if (m.name === '' || m.health || !isOwnPdMemberUrl(input, m.clientUrls[0] ?? m.peerUrls[0] ?? '')) return false;
    const podName = podNameOfMember(m.name);
    const ordinal = input.scope.ordinalOf(podName);
    return ordinal !== undefined && ordinal >= floor && input.scope.pod(podName) === undefined;
  });
}

/**
 * The `PdStrayMembers` rule. Guarantees: nothing while PD or the StatefulSet is not read or no
 * member is stray; otherwise one `pd.deleteMember` by name per step with a `PDMemberDeleted`
 * Warning, only while PD has a leader and the members left keep a serving majority (else a retry
 * with a `PDQuorumAtRisk` Warning, once). Never stops the block.
 */
export function planPdStrayMembers(input: MemberInput): MemberDecision {
  const [stray] = strayPdMembers(input);
  if (!stray) return nothing();
  const view = observedPd(input.snapshot);
  const tc = input.cluster;
  const serving = view?.members.filter((m) => m.health).length ?? 0;
  if (!view?.leader || !hasQuorum(serving, (view?.members.length ?? 0) - 1)) {
    const message = `removing stray PD member ${stray.name} waits: PD has no leader or would be left without a serving majority`;
    return { actions: unlessRecorded(clusterWarning(tc, EVENT_REASON.pdQuorumAtRisk, message)), outcome: retry(PD_RETRY_MS, message) };
  }
  const message = `PD member ${stray.name} has no pod since a scale-in (it joined as its pod was removed): deleted from PD cluster`;
  return { actions: [{ kind: 'pd.deleteMember', name: stray.name }, clusterWarning(tc, EVENT_REASON.pdMemberDeleted, message)], outcome: complete(message) };
}
