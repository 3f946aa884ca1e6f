/**
 * A PD microservice's status, as TiDB Operator v1.6's `pdMSMemberManager.syncStatus`
 * (docs/reference/pd-microservices.md §4): `status.pdms.<svc>` gets its name, a copy of the
 * StatefulSet's status, the phase (`Scale` when the StatefulSet's replicas differ from the spec,
 * else `Upgrade` while it is between revisions, else `Normal`), and — from PD in API mode — the
 * address of every registered server as `members`, with `synced` true only when PD answered. When PD
 * could not say, the members are kept as they were and `synced` is false (v1 logs and keeps them).
 * Beyond v1, which waits for its 30 s resync: while a Ready pod has not registered yet, the rule
 * asks to look again within seconds.
 */

import type { IPod } from 'kubernetes-models/v1/Pod';

import type { PdmsServiceName } from '../../../model/labels.js';
import { toKubeTime } from '../../cluster/condition.js';
import { complete } from '../../engine/outcome.js';
import type { StatusDecision } from '../../engine/rule.js';
import type { MemberInput } from '../../member/component.js';
import { isPodReady, isStatefulSetUpgrading, replicasOf } from '../../member/statefulset.js';
import { PDMS_RETRY_MS, pdmsSpecOf, pdmsStatusOf, pdmsViewOf, withPdmsStatus, type PdmsStatus } from './names.js';

/**
 * Whether `address` (a server's `service-addr`, or a primary's) is the server of pod `podName`: its
 * host is the pod's name, or the pod's DNS name under the peer Service. (v1 asks only whether the
 * address contains the pod name, which `<tc>-tso-1` also finds in `<tc>-tso-10`.)
 */
export function isAddressOfPod(address: string, podName: string): boolean {
  const host = address.replace(/^[a-z]+:\/\//, '');
  return host === podName || host.startsWith(`${podName}.`) || host.startsWith(`${podName}:`);
}

/** Whether `podName`'s server is among `members` (the addresses in `status.pdms.<svc>.members`). */
export const isPdmsPodListed = (members: readonly string[] | undefined, podName: string): boolean => (members ?? []).some((m) => isAddressOfPod(m, podName));

/** As v1 §1.6: `Scale` when the replicas differ from the spec, else `Upgrade` while rolling, else `Normal`. */
export function pdmsPhaseOf(desiredReplicas: number, sts: NonNullable<MemberInput['scope']['set']>, pods: readonly IPod[]): 'Scale' | 'Upgrade' | 'Normal' {
  if (desiredReplicas !== replicasOf(sts)) return 'Scale';
  return isStatefulSetUpgrading(sts, pods, sts.status?.updateRevision) ? 'Upgrade' : 'Normal';
}

/**
 * The `<Svc>Status` rule of `service` (runs paused or not). Guarantees: nothing changes when the
 * cluster does not run the service or before its StatefulSet exists; an unchanged world gives an
 * equal status; it always completes.
 */
export const planPdmsStatus =
  (service: PdmsServiceName) =>
  (input: MemberInput): StatusDecision => {
    const spec = pdmsSpecOf(input.cluster, service);
    const sts = input.scope.set;
    if (!spec || !sts) return { outcome: complete() };
    const previous = pdmsStatusOf(input, service);
    const view = pdmsViewOf(input, service);
    const read = view !== undefined && 'members' in view ? view.members.map((m) => m.serviceAddr) : undefined;
    const next: PdmsStatus = {
      ...previous,
      name: service,
      statefulSet: sts.status ?? { replicas: 0 },
      phase: pdmsPhaseOf(spec.replicas, sts, input.scope.pods),
      synced: read !== undefined,
      ...(read !== undefined ? { members: read } : {}),
    };
    const status = withPdmsStatus(input.status, service, next);
    const unlisted = input.scope.pods.filter((p) => isPodReady(p) && !isPdmsPodListed(next.members, p.metadata?.name ?? '')).map((p) => p.metadata?.name ?? '');
    if (unlisted.length === 0) return { status, outcome: complete() };
    const wakeAtMs = input.snapshot.nowMs + PDMS_RETRY_MS;
    return { status, outcome: complete(`${service} servers of Ready pods not registered with PD yet: ${unlisted.join(', ')}; looking again at ${toKubeTime(wakeAtMs)}`), wakeAtMs };
  };
