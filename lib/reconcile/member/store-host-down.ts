/**
 * The host-down recovery of store failover, as TiDB Operator v1's failure-recovery hook with
 * `--detect-node-failure` (§2.8, §2.2 Failover steps 1 and 3): a failure store whose pod's host is
 * down is marked `hostDown`; with the TidbCluster annotation `app.kubernetes.io/auto-failure-recovery:
 * "true"` its pod is force-deleted once, and `restartToDeleteStoreGap` after the pod is recreated the
 * store is deleted in PD; only once PD calls it Tombstone (or no longer knows it) are the pod and the
 * recorded claims deleted and the failure `storeDeleted`, so the ordinal comes back on a fresh volume.
 */

import type { IPod } from 'kubernetes-models/v1/Pod';

import type { Action } from '../../model/action.js';
import { EVENT_REASON, clusterNormal, clusterWarning } from '../cluster/events.js';
import { observedNodes, observedObjects, observedPd } from '../cluster/observed.js';
import { fail, retry } from '../engine/outcome.js';
import type { MemberDecision, MemberInput } from './component.js';
import {
  AUTO_FAILURE_RECOVERY_ANNOTATION,
  cleanUpAtMs,
  hostDownReasonOf,
  isPodBeforeFailure,
  podAndPvcDeletes,
} from './failure-recovery.js';
import { clusterPath, unlessRecorded } from './members.js';
import { pdDeleteStore } from './store-actions.js';
import { storeStatusOf, withFailureFields, type FailureStore, type StoreAccess } from './store-access.js';
import { isLeavingStore, isRemovedStore, isUpStore } from './stores.js';

/** What the host-down recovery wants: a decision that ends the failover rule, or only a moment to be woken at. */
export type HostDownStep = { readonly decision: MemberDecision } | { readonly wakeAtMs?: number };

type Failures = Record<string, FailureStore>;

const stamp = (time: string | undefined): number => (time === undefined ? Number.NaN : Date.parse(time));
const failuresOf = (access: StoreAccess, input: MemberInput): Failures => ({ ...storeStatusOf(access, input).failureStores });
const byId = (failures: Failures): [string, FailureStore][] => Object.entries(failures).sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }));

/** The failures with one replaced: the status to write. */
function withFailure(access: StoreAccess, input: MemberInput, id: string, failure: FailureStore): MemberDecision['status'] {
  const failureStores = { ...failuresOf(access, input), [id]: failure };
  return withFailureFields(access, input, { failureStores, failoverUID: storeStatusOf(access, input).failoverUID });
}

/** As TiDB Operator: while no failure is host-down, the first one with claims, a pod and a reason is marked so. */
function markHostDown(access: StoreAccess, input: MemberInput, failures: Failures): MemberDecision | undefined {
  if (Object.values(failures).some((f) => f.hostDown === true)) return undefined;
  const stores = Object.values(storeStatusOf(access, input).stores ?? {});
  for (const [id, failure] of byId(failures)) {
    const pod = input.scope.pod(failure.podName ?? '');
    if (!pod) continue;
    const node = observedNodes(input.snapshot).find((n) => n.metadata?.name === pod.spec?.nodeName);
    const sinceMs = stamp(stores.find((s) => s.id === id)?.lastTransitionTime);
    const reason = hostDownReasonOf(failure, sinceMs, pod, node, input.snapshot.nowMs);
    if (!reason) continue;
    const message = `${access.component} pod[${failure.podName ?? ''}] of store[${id}] is host-down: ${reason}`;
    const actions = unlessRecorded(clusterWarning(input.cluster, reason, message));
    return { status: withFailure(access, input, id, { ...failure, hostDown: true }), actions, outcome: retry(access.retryMs, message), stop: true };
  }
  return undefined;
}

/** As TiDB Operator: the pod a host-down failure was recorded against is force-deleted (grace 0), guarded by its uid. */
function forceDelete(input: MemberInput, failures: readonly [string, FailureStore][]): MemberDecision | undefined {
  for (const [, failure] of failures) {
    const pod = input.scope.pod(failure.podName ?? '');
    if (!pod || !isPodBeforeFailure(failure, pod)) continue;
    const ref = { kind: 'Pod', namespace: input.cluster.metadata.namespace ?? '', name: failure.podName ?? '' } as const;
    const action: Action = { kind: 'delete', ref, uid: pod.metadata?.uid ?? '', resourceVersion: pod.metadata?.resourceVersion ?? '', gracePeriodSeconds: 0 };
    return { actions: [action], outcome: retry(1_000, `force deleting pod ${ref.namespace}/${ref.name} on a failed host`), stop: true };
  }
  return undefined;
}

/** The pod when it mounts a claim that still exists with one of the failure's recorded uids (it runs on the failed store's volume). */
function podOnRecordedClaim(input: MemberInput, pod: IPod | undefined, failure: FailureStore): IPod | undefined {
  const uids = new Set(Object.keys(failure.pvcUIDSet ?? {}));
  const claims = new Set((pod?.spec?.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim ? [v.persistentVolumeClaim.claimName] : [])));
  const uses = observedObjects(input.snapshot, 'PersistentVolumeClaim').some((pvc) => claims.has(pvc.metadata?.name ?? '') && uids.has(pvc.metadata?.uid ?? ''));
  return uses ? pod : undefined;
}

/** Once the store is Tombstone or gone: the pod on the old volume and the recorded claims are deleted, then `storeDeleted`. */
function deletePodAndClaims(access: StoreAccess, input: MemberInput, id: string, failure: FailureStore): MemberDecision {
  const claims = observedObjects(input.snapshot, 'PersistentVolumeClaim');
  const pod = podOnRecordedClaim(input, input.scope.pod(failure.podName ?? ''), failure);
  const deletes = podAndPvcDeletes(input.cluster.metadata.namespace ?? '', pod, claims, failure.pvcUIDSet);
  if (deletes.length > 0) return { actions: deletes, outcome: retry(access.retryMs, `deleting pod and volumes of ${access.title} store ${id}`), stop: true };
  const uids = new Set(Object.keys(failure.pvcUIDSet ?? {}));
  if (pod || claims.some((c) => uids.has(c.metadata?.uid ?? ''))) return waitFor(access, `pod and volumes of ${access.title} store ${id} terminating`);
  const status = withFailure(access, input, id, { ...failure, storeDeleted: true });
  return { status, actions: [], outcome: retry(access.retryMs, `${access.title} store ${id} deleted: its ordinal comes back on a fresh volume`), stop: true };
}

/** A retry that stops the block while something this recovery started finishes. */
function waitFor(access: StoreAccess, message: string): MemberDecision {
  return { actions: [], outcome: retry(access.retryMs, message), stop: true };
}

/**
 * The clean-up of one host-down failure (v1's `invokeDeleteFailureStore` with `canDoCleanUpNow`):
 * woken when the recreated pod is old enough; the store deleted in PD (only with PD vouching, never
 * an Up store); then pod and claims.
 */
function cleanUp(access: StoreAccess, input: MemberInput, id: string, failure: FailureStore, pdProblem: string | undefined): HostDownStep {
  const pd = observedPd(input.snapshot);
  const vouched = pd !== undefined && pd.storesRead && pdProblem === undefined;
  const store = pd?.stores.find((s) => s.id === id);
  // Once PD has let the store go, the pod on its old volume goes too, however young.
  if (vouched && (!store || isRemovedStore(store))) return { decision: deletePodAndClaims(access, input, id, failure) };
  const atMs = cleanUpAtMs(failure, input.scope.pod(failure.podName ?? ''));
  if (atMs === undefined) return {};
  if (input.snapshot.nowMs < atMs) return { wakeAtMs: atMs };
  if (!vouched || !store) return { decision: { actions: [], outcome: fail(`${access.title} host-down recovery held: ${pdProblem ?? 'PD stores not read'}`) } };
  if (isLeavingStore(store)) return { decision: waitFor(access, `${access.title} store ${id} is ${store.state}: waiting for Tombstone`) };
  // Data safety: a store that is Up again needs no recovery; it is left alone.
  if (isUpStore(store)) return {};
  const message = `Invoked delete on ${access.component} store '${id}' in cluster ${clusterPath(input)}`;
  const actions: Action[] = [pdDeleteStore(id), clusterNormal(input.cluster, EVENT_REASON.storeDeleted, message)];
  return { decision: { actions, outcome: retry(access.retryMs, message), stop: true } };
}

/**
 * The host-down part of the component's failover rule, run before marking (as v1's hook). Guarantees:
 * nothing without `detectNodeFailure`; without the annotation only the `hostDown` mark; a pod is
 * force-deleted only if created before its failure was recorded; a store is deleted only past
 * `restartToDeleteStoreGap` since its pod was recreated, with PD vouching and never while Up; claims
 * go only with their store Tombstone or gone, each by its recorded uid.
 */
export function planStoreHostDown(access: StoreAccess, input: MemberInput, pdProblem: string | undefined): HostDownStep {
  if (input.snapshot.config.detectNodeFailure !== true) return {};
  const failures = failuresOf(access, input);
  const marked = markHostDown(access, input, failures);
  if (marked) return { decision: marked };
  if (input.cluster.metadata.annotations?.[AUTO_FAILURE_RECOVERY_ANNOTATION] !== 'true') return {};
  const pending = byId(failures).filter(([, f]) => f.hostDown === true && f.storeDeleted !== true);
  const forced = forceDelete(input, pending);
  if (forced) return { decision: forced };
  const wakes: number[] = [];
  for (const [id, failure] of pending) {
    const step = cleanUp(access, input, id, failure, pdProblem);
    if ('decision' in step) return step;
    if (step.wakeAtMs !== undefined) wakes.push(step.wakeAtMs);
  }
  return wakes.length > 0 ? { wakeAtMs: Math.min(...wakes) } : {};
}
