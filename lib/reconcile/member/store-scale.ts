/**
 * Scaling a store component (TiKV, TiFlash) in and out, as TiDB Operator v1's `tikv_scaler.go`
 * (§2.2), on the shared one-ordinal walk of scale.ts. A store leaves in PD's order: refuse while the
 * Up stores would fall below PD's `max-replicas` (P12); mark the pod `scale-in-time`; evict its
 * leaders (at most 5 minutes); `DELETE` the store; poll until PD reports it Tombstone; only then do
 * its PVCs get marked defer-deleting, the evict-leader scheduler end and replicas drop. A scale-in
 * overtaken by a scale-out is cancelled (an Offline store set Up again) or, once Tombstone, finished
 * (P14); a claim of a tombstoned store is never mounted again (P21).
 */

import type { IPod } from 'kubernetes-models/v1/Pod';

import type { Action, PatchAction } from '../../model/action.js';
import type { PdStore } from '../../model/pd.js';
import { toKubeTime } from '../cluster/condition.js';
import { EVENT_REASON, clusterNormal, clusterWarning } from '../cluster/events.js';
import { observedPd } from '../cluster/observed.js';
import { fail, retry, wait } from '../engine/outcome.js';
import type { MemberDecision, MemberInput, ScaleInCheck, ScaleSettle } from './component.js';
import { clusterPath, unlessRecorded } from './members.js';
import { deferDeletingPatch, isDeferDeleting } from './scale.js';
import { isPodReady } from './statefulset.js';
import { currentStoreOfPod, isLeavingStore, isRemovedStore, isStoreId, isUpStore, storesOfPod } from './stores.js';
import { pdDeleteStore, pdBeginEvictLeader, pdEndEvictLeader, pdSetStoreUp } from './store-actions.js';

/** TiDB Operator's pod annotation: when the pod's scale-in began (RFC 3339); caps the leader eviction. */
export const SCALE_IN_TIME = 'tidb.pingcap.com/scale-in-time';

/** TiDB Operator's pod annotation: since when a Ready pod has had no store in PD (RFC 3339). */
export const NO_ACTIVE_STORE_SINCE = 'tidb.pingcap.com/tikv-no-active-store-since';

/** As TiDB Operator's `defaultEvictLeaderTimeoutWhenScaleIn`: leaders get 5 minutes to move before the store is deleted. */
export const SCALE_IN_EVICT_LEADER_TIMEOUT_MS = 5 * 60_000;

/** As TiDB Operator's 5 resync periods (5 × 30 s): how long a store may take to show up in PD. */
export const NO_STORE_GRACE_MS = 5 * 30_000;

/** What differs between store components' scale-in. */
export type StoreScaleOptions = {
  /** Move the store's leaders away before deleting it (TiKV; TiFlash holds no leaders). */
  readonly evictLeaders: boolean;
  /** The Up stores counted against PD's `max-replicas` (TiKV: those not labelled `engine=tiflash`). */
  readonly countsForReplicas: (store: PdStore) => boolean;
  /** Whether the component's stores have ever joined PD (`status.<component>.bootStrapped`). */
  readonly isBootstrapped: (input: MemberInput) => boolean;
};

const evictScheduler = (storeId: string): string => `evict-leader-scheduler-${storeId}`;

/** Whether PD runs the evict-leader scheduler of `storeId`. */
export const isEvictingLeaders = (input: MemberInput, storeId: string): boolean =>
  (observedPd(input.snapshot)?.schedulers ?? []).includes(evictScheduler(storeId));

const endEviction = (input: MemberInput, storeId: string): Action[] => (isEvictingLeaders(input, storeId) ? [pdEndEvictLeader(storeId)] : []);

const stamp = (time: string | undefined): number => (time === undefined ? Number.NaN : Date.parse(time));

/**
 * How far the removal of `storeId` has got, as PD counts it: `, N regions left` (its region replicas
 * still to move, TiFlash learners included), or nothing when PD's stores were not read. A store's
 * removal takes as long as its region count at PD's drain rate — minutes to hours — so the waiting
 * step says how much is left rather than only that it waits.
 */
export function removalProgress(input: MemberInput, storeId: string): string {
  const store = observedPd(input.snapshot)?.stores.find((s) => s.id === storeId);
  return store === undefined ? '' : `, ${store.regionCount} regions left`;
}

/** The merge patch setting (or, with null, removing) one annotation of `pod`, under its observed resourceVersion. */
function podAnnotation(pod: IPod, key: string, value: string | null): PatchAction {
  const ref = { kind: 'Pod', namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '' } as const;
  const patch = { metadata: { annotations: { [key]: value } } };
  return { kind: 'patch', ref, patchType: 'merge', patch, resourceVersion: pod.metadata?.resourceVersion ?? '' };
}

/**
 * As TiDB Operator's `preCheckUpStores`: a refusal message when deleting `target` would leave fewer
 * Up stores than PD's `max-replicas` (fewer already, or exactly as many with the target Up), else
 * undefined. Only a store still to be deleted is checked: one already leaving or gone costs no more.
 */
export function upStoresRefusal(input: MemberInput, podName: string, target: PdStore | undefined, options: StoreScaleOptions): string | undefined {
  const pd = observedPd(input.snapshot);
  if (!pd || !options.isBootstrapped(input) || (target && (isLeavingStore(target) || isRemovedStore(target)))) return undefined;
  const maxReplicas = pd.config?.replication.maxReplicas;
  // Without PD's replication config (not read) the check cannot be made, and a scale-in without it is not safe.
  if (maxReplicas === undefined) return `PD's replication config was not read: can't check max-replicas before scaling in ${input.scope.component.title}, podname ${podName}`;
  const up = pd.stores.filter((s) => isUpStore(s) && options.countsForReplicas(s)).length;
  const where = `TidbCluster [${clusterPath(input)}]`;
  if (up < maxReplicas) {
    return `the number of stores in Up state of ${where} is ${up}, less than MaxReplicas in PD configuration(${maxReplicas}), can't scale in ${input.scope.component.title}, podname ${podName}`;
  }
  if (up === maxReplicas && target !== undefined && isUpStore(target)) {
    return `can't scale in ${input.scope.component.title} of ${where}, cause the number of up stores is equal to MaxReplicas in PD configuration(${maxReplicas}), and the store in Pod ${podName} which is going to be deleted is up too`;
  }
  return undefined;
}

/**
 * A store component's `beforeScaleIn` (see the module comment). Guarantees: nothing is deleted while
 * the Up-stores check refuses (a `FailedScaleIn` Warning, once; the scale waits without a retry
 * storm); a live store is only ever evicted, deleted or polled (the block stops, replicas stay);
 * the PVCs are released only for a pod whose store is Tombstone, or that never had one.
 */
export function planStoreScaleIn(input: MemberInput, podName: string, options: StoreScaleOptions): ScaleInCheck {
  const pd = observedPd(input.snapshot);
  if (!pd) return { hold: { actions: [], outcome: fail(`cannot scale in ${podName}: PD's stores could not be read`) } };
  const store = currentStoreOfPod(input, podName);
  const refusal = upStoresRefusal(input, podName, store, options);
  if (refusal !== undefined) {
    const warning = clusterWarning(input.cluster, EVENT_REASON.failedScaleIn, refusal);
    return { hold: { actions: unlessRecorded(warning), outcome: wait(refusal) } };
  }
  if (store !== undefined && !isStoreId(store.id)) return { hold: { actions: [], outcome: fail(`store id ${JSON.stringify(store.id)} of ${podName} is not an integer`) } };
  if (store !== undefined && !isRemovedStore(store)) return { hold: removeStore(input, podName, store, options) };
  // As TiDB Operator: the claims of a tombstoned store also record when the scale-in released them.
  const released = { [SCALE_IN_TIME]: toKubeTime(input.snapshot.nowMs) };
  if (store !== undefined) return { first: [], then: endEviction(input, store.id), pvcAnnotations: released };
  return noStore(input, podName, options);
}

/** The live store of the pod: scale-in-time, leader eviction (capped), DELETE, then polling for Tombstone. */
function removeStore(input: MemberInput, podName: string, store: PdStore, options: StoreScaleOptions): MemberDecision {
  const { nowMs } = input.snapshot;
  const retryMs = input.scope.component.retryMs;
  const pod = input.scope.pod(podName);
  const startedMs = stamp(pod?.metadata?.annotations?.[SCALE_IN_TIME]);
  const sinceMs = Number.isNaN(startedMs) ? nowMs : startedMs;
  const actions: Action[] = pod && Number.isNaN(startedMs) ? [podAnnotation(pod, SCALE_IN_TIME, toKubeTime(nowMs))] : [];
  const still = `${input.scope.component.title} ${input.cluster.metadata.namespace ?? ''}/${podName} store ${store.id} is still in cluster, state: ${store.state}${removalProgress(input, store.id)}`;
  if (isLeavingStore(store)) return { actions, outcome: retry(retryMs, still), stop: true };
  const evictUntilMs = sinceMs + SCALE_IN_EVICT_LEADER_TIMEOUT_MS;
  if (options.evictLeaders && store.leaderCount > 0 && nowMs <= evictUntilMs) {
    if (!isEvictingLeaders(input, store.id)) actions.push(pdBeginEvictLeader(store.id));
    const message = `evicting the leaders of ${podName} (store ${store.id}, ${store.leaderCount} left) before deleting its store`;
    return { actions, outcome: retry(Math.min(retryMs, evictUntilMs + 1_000 - nowMs), message), stop: true };
  }
  return { actions: [...actions, pdDeleteStore(store.id)], outcome: retry(retryMs, still), stop: true };
}

/** As TiDB Operator when PD lists no store for the pod: release a pod that never joined, after 5 resync periods. */
function noStore(input: MemberInput, podName: string, options: StoreScaleOptions): ScaleInCheck {
  const path = `${input.cluster.metadata.namespace ?? ''}/${podName}`;
  const pod = input.scope.pod(podName);
  const { nowMs } = input.snapshot;
  if (!pod) return { hold: { actions: [], outcome: fail(`${input.scope.component.title} ${path} has no store and its pod is gone; waiting for the StatefulSet to recreate it`) } };
  if (!isPodReady(pod)) {
    const safeAtMs = stamp(pod.metadata?.creationTimestamp) + NO_STORE_GRACE_MS;
    if (!options.isBootstrapped(input) || !(nowMs < safeAtMs)) return { first: [] };
    const message = `${input.scope.component.title} ${path} is not ready, wait for 5 resync periods to sync its status`;
    return { hold: { actions: [], outcome: retry(safeAtMs - nowMs, message), stop: true } };
  }
  const sinceMs = stamp(pod.metadata?.annotations?.[NO_ACTIVE_STORE_SINCE]);
  if (nowMs > sinceMs + NO_STORE_GRACE_MS) return { first: [] };
  return { hold: { actions: [], outcome: fail(`${input.scope.component.title} ${path} not found in cluster`) } };
}

/**
 * A scale-in left in flight on the highest ordinal when the component is no longer scaling in
 * (P14): the pod carries `scale-in-time`. Guarantees: an Offline store is set Up again and a
 * still-live one keeps its data (evict-leader scheduler ended, mark removed, with a Normal Event);
 * a store PD already buried is finished as a scale-in (its claims are never reused, P21); a pod
 * without the mark is none of this rule's business.
 */
export function planStoreScaleInSettle(input: MemberInput, podName: string): ScaleSettle {
  const pod = input.scope.pod(podName);
  if (!pod || pod.metadata?.annotations?.[SCALE_IN_TIME] === undefined) return { kind: 'none' };
  const store = currentStoreOfPod(input, podName);
  if (store !== undefined && isRemovedStore(store)) return { kind: 'finish' };
  const cancel: Action[] = store === undefined ? [] : [...(isLeavingStore(store) ? [pdSetStoreUp(store.id)] : []), ...endEviction(input, store.id)];
  const what = store === undefined ? 'no store' : `store ${store.id} (${store.state})`;
  const message = `scale-in of ${podName} cancelled by a scale-out: ${what} kept`;
  const event = clusterNormal(input.cluster, 'ScaleInCancelled', message);
  return { kind: 'hold', decision: { actions: [...cancel, podAnnotation(pod, SCALE_IN_TIME, null), event], outcome: retry(input.scope.component.retryMs, message), stop: true } };
}

/**
 * As TiDB Operator's TiKV `scaleOutOne`: a claim of the next ordinal that is not marked
 * defer-deleting holds the scale-out when PD knows no store at that pod's address (the data is
 * unknown: never mounted blindly). When every store PD had there is Tombstone, the claim holds a
 * removed store's data, which TiKV can never serve again (P21): it is marked defer-deleting, so the
 * shared scaler deletes it next and the pod starts on a fresh volume. When PD still counts a store
 * there (its pod gone, e.g. a StatefulSet scaled by hand), the claim is that store's data and is
 * mounted again, bringing the store back rather than waiting forever for a mark (P12).
 */
export function planStoreScaleOutClaims(input: MemberInput, podName: string): MemberDecision | undefined {
  const claims = input.scope.pvcsLabelledFor(podName).filter((pvc) => !isDeferDeleting(pvc));
  if (claims.length === 0) return undefined;
  const stores = storesOfPod(input, podName);
  if (stores.some((store) => !isRemovedStore(store))) return undefined;
  const retryMs = input.scope.component.retryMs;
  if (stores.length > 0 && stores.every(isRemovedStore)) {
    const message = `the claims of ${podName} hold removed store ${stores[0]?.id ?? ''}: releasing them before scaling out`;
    return { actions: claims.map((pvc) => deferDeletingPatch(pvc, input.snapshot.nowMs)), outcome: retry(retryMs, message), stop: true };
  }
  const names = claims.map((pvc) => pvc.metadata?.name ?? '').join(', ');
  const message = `${input.scope.component.title} ${clusterPath(input)} ready to scale out, wait for next round: PVC ${names} of ${podName} still exists`;
  const warning = clusterWarning(input.cluster, 'FailedScaleOut', `${message} and is not marked ${'tidb.pingcap.com/pvc-defer-deleting'}`);
  return { actions: unlessRecorded(warning), outcome: retry(retryMs, message) };
}
