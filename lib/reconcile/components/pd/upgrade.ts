/**
 * What PD's rolling upgrade needs beyond the shared walk (member/upgrade.ts), as TiDB Operator v1's
 * `pd_upgrader.go` (§2.1, Fixture C): an updated pod's member must be healthy and ready by
 * `/pd/api/v2/ready` before the partition moves on; before a pod restarts, the optional stricter
 * stability check, the quorum check, and leadership moved off it.
 */

import type { Outcome } from '../../../model/outcome.js';
import { fail, retry } from '../../engine/outcome.js';
import type { MemberInput, Walk } from '../../member/component.js';
import { memberOfPod, podNameOfMember, unlessRecorded } from '../../member/members.js';
import { replicasOf } from '../../member/statefulset.js';
import { upgraderWho } from '../../member/upgrade.js';
import { PD_KEYS, PD_POLL_MS, PD_RETRY_MS, pdStatusOf } from './names.js';
import { isStable, pdQuorumHoldEvent, pdRestartQuorum } from './quorum.js';
import { observedPd } from '../../cluster/observed.js';

/**
 * As TiDB Operator's `choosePDToTransferFromMembers`: the highest ordinal above `ordinal` whose member
 * is healthy, else the lowest healthy one below it, else `""`. Reads only; changes nothing.
 */
export function choosePdToTransferFromMembers(input: MemberInput, ordinal: number, replicas: number): string {
  const members = pdStatusOf(input).members;
  const healthyAt = (i: number) => {
    const member = memberOfPod(members, input.scope.podName(i));
    return member?.health === true ? member.name : undefined;
  };
  for (let i = replicas - 1; i > ordinal; i -= 1) {
    const name = healthyAt(i);
    if (name !== undefined) return name;
  }
  for (let i = 0; i < ordinal; i += 1) {
    const name = healthyAt(i);
    if (name !== undefined) return name;
  }
  return '';
}

/** PD's `updatedPodHold`: the updated pod's member is healthy and ready by `/pd/api/v2/ready`, else why not. */
export function pdUpdatedPodHold(input: MemberInput, podName: string): Outcome | undefined {
  const member = memberOfPod(pdStatusOf(input).members, podName);
  if (member?.health !== true) return retry(PD_POLL_MS, `${upgraderWho(input)}'s pd upgraded pod: [${podName}] is not health`);
  const ready = observedPd(input.snapshot)?.members.find((m) => m.name === member.name)?.ready;
  if (ready !== true) return retry(PD_POLL_MS, `${upgraderWho(input)}'s pd upgraded pod: [${podName}] is not ready by /pd/api/v2/ready`);
  return undefined;
}

/**
 * PD's `beforeRestart`: the stricter stability check (when the annotation asks for it, as TiDB
 * Operator), then — always, beyond TiDB Operator — that the members left serving stay a majority
 * (else hold, with a Warning saying why), then leadership: moved off the pod first (the block stops),
 * unless there is nowhere to move it (a single PD restarts anyway, as TiDB Operator).
 */
export function beforePdRestart(input: MemberInput, ordinal: number): Walk {
  const annotations = input.cluster.metadata.annotations;
  const view = observedPd(input.snapshot)?.members ?? [];
  if (annotations?.[PD_KEYS.checkQuorumBeforeUpgrade] === 'true') {
    const healthy = view.filter((m) => m.health).length;
    if (!isStable(healthy, view.length)) {
      return { kind: 'hold', outcome: fail(`Peer PDs is unstable: Only ${healthy} out of ${view.length} PDs are healthy`) };
    }
  }
  const podName = input.scope.podName(ordinal);
  const quorum = pdRestartQuorum(input, podName);
  if (!quorum.keepsQuorum) {
    const event = pdQuorumHoldEvent(input, `restarting ${podName} for the PD upgrade`, quorum);
    return { kind: 'hold', outcome: retry(PD_RETRY_MS, event.message), actions: unlessRecorded(event) };
  }
  const leader = observedPd(input.snapshot)?.leader?.name ?? pdStatusOf(input).leader?.name;
  if (leader === undefined || podNameOfMember(leader) !== podName) return { kind: 'roll', ordinal };
  const replicas = input.scope.set ? replicasOf(input.scope.set) : 0;
  const local = replicas > 1 ? choosePdToTransferFromMembers(input, ordinal, replicas) : '';
  const peer = Object.values(pdStatusOf(input).peerMembers ?? {}).find((m) => m.health)?.name;
  const to = local !== '' ? local : peer;
  if (to === undefined) return { kind: 'roll', ordinal };
  const message = `moving PD leadership from ${leader} to ${to} before it restarts`;
  return { kind: 'hold', actions: [{ kind: 'pd.transferLeader', to }], outcome: retry(PD_POLL_MS, message), stop: true };
}
