/**
 * PD's side of the host-down recovery, as TiDB Operator v1's `RestartPodOnHostDown` and
 * `canDoCleanUpNow` run by `pd_failover.go` between marking a failure member and deleting it
 * (`failure_recovery.go`, §2.8; only with `--detect-node-failure`). A member whose pod's host is
 * down (or whose disk turned read-only, or which has been down past `podHardRecoveryPeriod`) is
 * marked `hostDown`; with the TidbCluster annotation `app.kubernetes.io/auto-failure-recovery:
 * "true"` its pod — stuck Terminating on a lost node, its claim bound to a volume there (local
 * storage) — is force-deleted once, and the member, its recreated pod and its recorded claims are
 * deleted only `restartToDeleteStoreGap` after that pod was recreated. The ordinal then comes back
 * on a new claim, bound wherever a volume is free.
 */

import type { Action } from '../../../model/action.js';
import { clusterWarning } from '../../cluster/events.js';
import { observedNodes } from '../../cluster/observed.js';
import { retry } from '../../engine/outcome.js';
import type { MemberDecision, MemberInput } from '../../member/component.js';
import { AUTO_FAILURE_RECOVERY_ANNOTATION, cleanUpAtMs, hostDownReasonOf, isPodBeforeFailure } from '../../member/failure-recovery.js';
import { unlessRecorded } from '../../member/members.js';
import { PD_RETRY_MS, pdStatusOf, withPdStatus, type PdFailureMember } from './names.js';

/** What PD's host-down recovery wants: a decision that ends the failover rule, or the moment the clean-up may start (undefined: not yet known). */
export type PdHostDownStep = { readonly decision: MemberDecision } | { readonly cleanUpAtMs: number | undefined };

type Failure = readonly [string, PdFailureMember];

const stamp = (time: string | undefined): number => (time === undefined ? Number.NaN : Date.parse(time));

/** The failure members not yet deleted (v1's `IsFailing`), by name. */
function failing(input: MemberInput): Failure[] {
  return Object.entries(pdStatusOf(input).failureMembers ?? {}).filter(([, f]) => f.memberDeleted !== true).sort(([a], [b]) => a.localeCompare(b));
}

/** As v1's `checkAndMarkHostDown`: the first failing member with claims, a pod and a reason is marked `hostDown`. */
function markHostDown(input: MemberInput, failures: readonly Failure[]): MemberDecision | undefined {
  const members = pdStatusOf(input).members ?? {};
  for (const [name, failure] of failures) {
    const pod = input.scope.pod(failure.podName ?? '');
    if (!pod || failure.hostDown === true) continue;
    const node = observedNodes(input.snapshot).find((n) => n.metadata?.name === pod.spec?.nodeName);
    const reason = hostDownReasonOf(failure, stamp(members[name]?.lastTransitionTime), pod, node, input.snapshot.nowMs);
    if (!reason) continue;
    const message = `pd pod[${failure.podName ?? ''}] of member[${failure.memberID ?? ''}] is host-down: ${reason}`;
    const failureMembers = { ...pdStatusOf(input).failureMembers, [name]: { ...failure, hostDown: true } };
    const status = withPdStatus(input, { ...pdStatusOf(input), failureMembers });
    return { status, actions: unlessRecorded(clusterWarning(input.cluster, reason, message)), outcome: retry(PD_RETRY_MS, message), stop: true };
  }
  return undefined;
}

/** As v1's `restartPodForHostDown`: the pod a host-down failure was recorded against is force-deleted (grace 0), guarded by its uid. */
function forceDelete(input: MemberInput, failures: readonly Failure[]): MemberDecision | undefined {
  for (const [, failure] of failures) {
    const pod = input.scope.pod(failure.podName ?? '');
    if (failure.hostDown !== true || !pod || !isPodBeforeFailure(failure, pod)) continue;
    const ref = { kind: 'Pod', namespace: input.cluster.metadata.namespace ?? '', name: failure.podName ?? '' } as const;
    const action: Action = { kind: 'delete', ref, uid: pod.metadata?.uid ?? '', resourceVersion: pod.metadata?.resourceVersion ?? '', gracePeriodSeconds: 0 };
    return { actions: [action], outcome: retry(1_000, `Failed pd pod ${ref.namespace}/${ref.name} is force deleted for recovery`), stop: true };
  }
  return undefined;
}

/**
 * The host-down step of PD failover for the failure member `name` about to be deleted. Guarantees:
 * nothing without `detectNodeFailure` (clean-up at once, as before); while no failing member is
 * host-down, only the mark; the force delete only with the annotation and only of the pod created
 * before its failure was recorded; with `hostDown`, the clean-up waits for a recreated pod and
 * `restartToDeleteStoreGap` after its creation.
 */
export function planPdHostDown(input: MemberInput, name: string): PdHostDownStep {
  const failure = pdStatusOf(input).failureMembers?.[name];
  if (input.snapshot.config.detectNodeFailure !== true || !failure) return { cleanUpAtMs: 0 };
  const failures = failing(input);
  if (!failures.some(([, f]) => f.hostDown === true)) {
    const marked = markHostDown(input, failures);
    if (marked) return { decision: marked };
  } else if (input.cluster.metadata.annotations?.[AUTO_FAILURE_RECOVERY_ANNOTATION] === 'true') {
    const forced = forceDelete(input, failures);
    if (forced) return { decision: forced };
  }
  return { cleanUpAtMs: cleanUpAtMs(failure, input.scope.pod(failure.podName ?? '')) };
}
