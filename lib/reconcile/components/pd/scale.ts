/**
 * What PD's scale-in needs before a member goes, as TiDB Operator v1's `pd_scaler.go` (§2.1): refuse
 * PD to 0 while other components use it; never leave PD without quorum (invariant `pd-quorum-kept`, docs/ARCHITECTURE.md); move leadership
 * off the member first; then delete it from PD. The ordinal walk, the PVC defer-deleting protocol and
 * the replicas write are the shared scaler (member/scale.ts).
 */

import type { Action } from '../../../model/action.js';
import { EVENT_REASON, clusterWarning } from '../../cluster/events.js';
import { LABEL } from '../../../model/labels.js';
import { retry, wait } from '../../engine/outcome.js';
import type { RuleInput } from '../../engine/rule.js';
import type { MemberInput, ScaleInCheck } from '../../member/component.js';
import { hasQuorum } from '../../member/failover.js';
import { clusterPath, memberOfPod, podNameOfMember, unlessRecorded } from '../../member/members.js';
import { replicasOf } from '../../member/statefulset.js';
import { PD_POLL_MS, PD_RETRY_MS, pdStatusOf, type PdStatusMember } from './names.js';
import { observedObjects, observedPd } from '../../cluster/observed.js';
import { notJoinedPdMembers } from './not-joined.js';

// The components that need PD; their StatefulSets carry the cluster's instance label like PD's.
const PD_USERS: ReadonlySet<string> = new Set(['tikv', 'tiflash', 'tidb', 'ticdc', 'pump']);

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * As TiDB Operator's `tikvStoreLimitPattern` (and TiFlash's): whether a store PD lists runs in a pod
 * of this cluster (`<tc>-tikv-N.<tc>-tikv-peer.<ns>.svc[.<domain>]:<port>`), not of another cluster
 * sharing this PD.
 */
export function isOwnStoreAddress(input: RuleInput, address: string): boolean {
  const tc = input.cluster;
  const name = escape(tc.metadata.name ?? '');
  const domain = tc.spec.clusterDomain ? `\\.${escape(tc.spec.clusterDomain)}` : '';
  const ns = escape(tc.metadata.namespace ?? '');
  return ['tikv', 'tiflash'].some((c) => new RegExp(`^${name}-${c}-\\d+\\.${name}-${c}-peer\\.${ns}\\.svc${domain}:\\d+$`).test(address));
}

/**
 * As TiDB Operator's `preCheckUpMembers` (PD scaled to 0 while TiKV, TiFlash, TiDB, TiCDC or Pump
 * still run), from what the step observed rather than from status other reconcilers would write: a
 * store of this cluster PD still lists (anything not Tombstone/Removed), or a StatefulSet of another
 * component of this cluster that has or wants replicas. Stores of other clusters sharing PD do not
 * count: moving PD to a peer cluster is what scaling PD to 0 is for.
 */
export function isPdInUse(input: RuleInput): boolean {
  const live = (observedPd(input.snapshot)?.stores ?? []).filter((store) => store.state !== 'Tombstone' && store.state !== 'Removed');
  if (live.some((store) => isOwnStoreAddress(input, store.address))) return true;
  return observedObjects(input.snapshot, 'StatefulSet').some((sts) => {
    const component = sts.metadata?.labels?.[LABEL.component];
    return component !== undefined && PD_USERS.has(component) && Math.max(sts.spec?.replicas ?? 0, sts.status?.replicas ?? 0) > 0;
  });
}

/**
 * Whether removing `memberName` keeps PD able to commit: the members (with peers, and those PD lists
 * without a name — never serving, counted by etcd) have quorum now, and the ones left after the
 * removal still have it (none left: scaling the last PD away).
 */
export function keepsPdQuorum(input: RuleInput, memberName: string): boolean {
  const pd = pdStatusOf(input);
  const notJoined: PdStatusMember[] = notJoinedPdMembers(input).map((m) => ({ name: '', id: m.id, clientURL: '', health: false }));
  const all = [...Object.values(pd.members ?? {}), ...Object.values(pd.peerMembers ?? {}), ...notJoined];
  const left = all.filter((m) => m.name !== memberName);
  const healthy = (list: readonly PdStatusMember[]) => list.filter((m) => m.health).length;
  return hasQuorum(healthy(all), all.length) && (left.length === 0 || hasQuorum(healthy(left), left.length));
}

/**
 * Where leadership goes before the highest ordinal is removed: with other local members, the lowest
 * ordinal whose member is healthy (TiDB Operator takes the lowest; an unhealthy one cannot lead), named
 * as PD knows it; with none, the first healthy member of another cluster sharing PD.
 */
export function scaleInLeaderTarget(input: MemberInput, currentReplicas: number): string | undefined {
  const pd = pdStatusOf(input);
  if (currentReplicas > 1) {
    const ordinals = Array.from({ length: currentReplicas - 1 }, (_, i) => i);
    const named = ordinals.map((i) => {
      const podName = input.scope.podName(i);
      return memberOfPod(pd.members, podName) ?? { name: podName, health: false };
    });
    return (named.find((m) => m.health) ?? named[0])?.name;
  }
  return Object.values(pd.peerMembers ?? {}).find((m) => m.health)?.name;
}

/**
 * PD's `beforeScaleIn`. Guarantees, in this order: PD to 0 while in use waits (a `FailedScaleIn`
 * Warning, once); a removal that would cost quorum retries (a `PDQuorumAtRisk` Warning, once); a
 * leader on the pod is moved away first (the block stops); otherwise the member PD still lists is
 * deleted from PD before its PVCs are marked and replicas drop, and the next step runs at once.
 */
export function beforePdScaleIn(input: MemberInput, podName: string): ScaleInCheck {
  const tc = input.cluster;
  if (tc.spec.pd?.replicas === 0 && isPdInUse(input)) {
    const message = `The PD is in use by TidbCluster [${clusterPath(input)}], can't scale in PD to 0`;
    return { hold: { actions: unlessRecorded(clusterWarning(tc, EVENT_REASON.failedScaleIn, message)), outcome: wait(message) } };
  }
  const memberName = memberOfPod(pdStatusOf(input).members, podName)?.name ?? podName;
  if (!keepsPdQuorum(input, memberName)) {
    const message = `removing PD member ${memberName} now would leave PD without quorum`;
    const warning = clusterWarning(tc, EVENT_REASON.pdQuorumAtRisk, `scaling PD in waits: ${message}`);
    return { hold: { actions: unlessRecorded(warning), outcome: retry(PD_RETRY_MS, message) } };
  }
  const leader = observedPd(input.snapshot)?.leader?.name ?? pdStatusOf(input).leader?.name;
  const target = input.scope.set ? scaleInLeaderTarget(input, replicasOf(input.scope.set)) : undefined;
  if (leader !== undefined && podNameOfMember(leader) === podName && target !== undefined) {
    const message = `moving PD leadership from ${leader} to ${target} before scaling in`;
    return { hold: { actions: [{ kind: 'pd.transferLeader', to: target }], outcome: retry(PD_POLL_MS, message), stop: true } };
  }
  const listed = observedPd(input.snapshot)?.members.some((m) => m.name === memberName) === true;
  const first: Action[] = listed ? [{ kind: 'pd.deleteMember', name: memberName }] : [];
  // PD drops the member at the call: the next step sees PD without it and records that at once.
  return { first, seenAtOnce: listed };
}
