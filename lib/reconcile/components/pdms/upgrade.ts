/**
 * What a PD microservice's rolling upgrade needs beyond the shared walk (member/upgrade.ts), as TiDB
 * Operator v1.6's `pd_ms_upgrader.go` (docs/reference/pd-microservices.md §4): an updated pod's
 * server must be registered with PD before the partition moves on; and before the pod that rolls
 * next restarts (PD ≥ v8.3.0), if it is the service's primary and the service has more than one
 * server, the primary is transferred away — to the highest ordinal above it, else the lowest. v1
 * transfers and moves the partition in one round; here the transfer is its own step, and the pod
 * rolls once a fresh read shows the primary elsewhere (or the transfer could not be made).
 */

import type { PdmsServiceName } from '../../../model/labels.js';
import type { Outcome } from '../../../model/outcome.js';
import { fail, retry } from '../../engine/outcome.js';
import type { MemberInput, Walk } from '../../member/component.js';
import { replicasOf } from '../../member/statefulset.js';
import { upgraderWho } from '../../member/upgrade.js';
import { PDMS_RETRY_MS, pdmsPeerServiceName, pdmsStatusOf, pdmsViewOf } from './names.js';
import { isPdmsNamed } from './pod-template.js';
import { isAddressOfPod, isPdmsPodListed } from './status.js';

/** The service's `updatedPodHold`: the updated pod's server is among `status.pdms.<svc>.members`, else why not. */
export const pdmsUpdatedPodHold =
  (service: PdmsServiceName) =>
  (input: MemberInput, podName: string): Outcome | undefined => {
    const members = pdmsStatusOf(input, service).members ?? [];
    if (isPdmsPodListed(members, podName)) return undefined;
    return retry(PDMS_RETRY_MS, `${upgraderWho(input)}'s pdMS upgraded pod: [${podName}] is not exist, all members: [${members.join(' ')}]`);
  };

/**
 * As v1's `choosePDMSToTransferFromMembers` over ordinals `0..replicas-1`: the highest ordinal when
 * it is above `ordinal`, else the lowest when `ordinal` is not 0, else none.
 */
export function choosePrimaryTarget(replicas: number, ordinal: number): number | undefined {
  if (replicas <= 0) return undefined;
  const from = ordinal < replicas ? ordinal : replicas - 1;
  if (replicas > from + 1) return replicas - 1;
  return from !== 0 ? 0 : undefined;
}

/** As v1's `PDMSName`: the pod name, or its DNS name under the peer Service with a cluster domain. */
function serverName(input: MemberInput, service: PdmsServiceName, podName: string): string {
  const tc = input.cluster;
  const domain = tc.spec.clusterDomain ?? '';
  return domain === '' ? podName : `${podName}.${pdmsPeerServiceName(tc, service)}.${tc.metadata.namespace ?? ''}.svc.${domain}`;
}

/** The service's `beforeRestart`: move the primary off the pod that rolls next (see the module comment). */
export const beforePdmsRestart =
  (service: PdmsServiceName) =>
  (input: MemberInput, ordinal: number): Walk => {
    if (!isPdmsNamed(input.cluster, service)) return { kind: 'roll', ordinal };
    const view = pdmsViewOf(input, service);
    // As v1: a primary that cannot be read fails the round.
    if (view !== undefined && 'error' in view) return { kind: 'hold', outcome: fail(`${upgraderWho(input)}'s ${service} primary could not be read: ${view.error}`) };
    // The primary is read once the stored phase says Upgrade (the step after the new template was written).
    if (view?.primary === undefined) return { kind: 'hold', outcome: retry(PDMS_RETRY_MS, `${upgraderWho(input)}'s ${service} primary not read yet`) };
    const podName = input.scope.podName(ordinal);
    if (!isAddressOfPod(view.primary, podName)) return { kind: 'roll', ordinal };
    const set = input.scope.set;
    const replicas = set === undefined ? 0 : replicasOf(set);
    const actual = set?.status?.replicas ?? 0;
    const target = actual > 1 ? choosePrimaryTarget(replicas, ordinal) : undefined;
    // As v1: no suitable server to take over (one replica): the pod rolls anyway.
    if (target === undefined) return { kind: 'roll', ordinal };
    const to = serverName(input, service, input.scope.podName(target));
    const message = `${upgraderWho(input)}' pdms upgrader: transfer ${service} primary from ${podName} to: ${to}`;
    return { kind: 'hold', actions: [{ kind: 'pd.transferPrimary', service, to }], outcome: retry(PDMS_RETRY_MS, message), stop: true };
  };
