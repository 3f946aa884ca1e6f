/**
 * TiKV's evict-leader schedulers as owned desired state (§2.2 Upgrade, pain points P2 and P3): which
 * stores an upgrade or a scale-in targets right now, and the rule that removes every
 * `evict-leader-scheduler-<id>` of one of our stores no one targets — after an aborted or rolled-back
 * upgrade, a finished one, or a scheduler whose eviction was forgotten. It is the one place a
 * scheduler of an upgrade is ended, so "end eviction only once the restarted store is Up" is decided
 * once.
 */

import type { IPod } from 'kubernetes-models/v1/Pod';

import type { Action, PatchAction } from '../../../model/action.js';
import type { TidbClusterStatus } from '../../../model/kube.js';
import { EVICT_LEADER_BEGIN_TIME_ANNOTATION } from '../../../model/labels.js';
import type { PdStore, PdView } from '../../../model/pd.js';
import { observedPd } from '../../cluster/observed.js';
import { complete } from '../../engine/outcome.js';
import type { MemberDecision, MemberInput } from '../../member/component.js';
import { isTerminating, nothing } from '../../member/members.js';
import { isPodReady, podRevision } from '../../member/statefulset.js';
import type { TikvStatus, TikvStatusStore } from './names.js';

/** TiDB Operator's keys around leader eviction (§2.2, §2.10). */
export const EVICT_KEYS = {
  /** Pod annotation (unprefixed, as v1): when eviction before the pod's restart began. */
  beginTime: EVICT_LEADER_BEGIN_TIME_ANNOTATION,
  /** Pod annotation: when the scheduler was removed after the restart (the leaders-back wait starts). */
  endAt: 'tidb.pingcap.com/tikv-evict-leader-end-at',
  /** Pod annotation a TiKV scale-in sets when it starts evicting a store it will delete. */
  scaleInTime: 'tidb.pingcap.com/scale-in-time',
} as const;

/** As TiDB Operator: leaders are waited back only for a store that had at least this many before. */
export const LEADERS_BACK_MIN_BEFORE = 200;

/** As TiDB Operator's default `spec.tikv.waitLeaderTransferBackTimeout`: 400 s. */
export const DEFAULT_WAIT_LEADERS_BACK_MS = 400_000;

/** `status.tikv` as the rules before this one left it (empty when there is none). */
export const tikvStatusOf = (input: MemberInput): TikvStatus => input.status.tikv ?? {};

/** PD's name of the evict-leader scheduler of `storeId`. */
export const evictSchedulerName = (storeId: string): string => `evict-leader-scheduler-${storeId}`;

/** Whether PD (as observed) runs the evict-leader scheduler of `storeId`. */
export const hasEvictScheduler = (view: PdView, storeId: string): boolean => view.schedulers.includes(evictSchedulerName(storeId));

/** The store id of a PD evict-leader scheduler name, or undefined for any other scheduler. */
export function storeIdOfScheduler(name: string): string | undefined {
  return /^evict-leader-scheduler-(\d+)$/.exec(name)?.[1];
}

/**
 * A Go duration as TiDB Operator's spec fields hold them (`1500m`, `400s`, `1h30m`, `500ms`), in ms;
 * undefined when absent or not one (the caller keeps its default, as v1 does).
 */
export function goDurationMs(text: string | undefined): number | undefined {
  if (text === undefined || !/^(\d+(\.\d+)?(h|m|s|ms|us|µs|ns))+$/.test(text.trim())) return undefined;
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 1e-3, µs: 1e-3, ns: 1e-6 };
  let total = 0;
  for (const m of text.trim().matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)) total += Number(m[1]) * (unit[m[2] ?? ''] ?? 0);
  return Math.round(total);
}

/** The time an RFC 3339 annotation holds, in ms; undefined when absent or unreadable. */
export function annotationTimeMs(pod: IPod | undefined, key: string): number | undefined {
  const text = pod?.metadata?.annotations?.[key];
  const at = text === undefined ? Number.NaN : Date.parse(text);
  return Number.isNaN(at) ? undefined : at;
}

/** The `status.tikv.stores` entry of the store `podName` runs, if any. */
export function storeOfPod(input: MemberInput, podName: string): TikvStatusStore | undefined {
  return Object.values(tikvStatusOf(input).stores ?? {}).find((s) => s.podName === podName);
}

/**
 * Whether the leaders of an upgraded store are back, or no longer waited for. As TiDB Operator: only
 * a store that had at least 200 leaders before is waited for, until it has 2/3 of them again or
 * `waitLeaderTransferBackTimeout` (default 400 s) has passed since its scheduler was removed
 * (`endAtMs`; now when not recorded yet).
 */
export function areLeadersBack(input: MemberInput, store: TikvStatusStore, endAtMs: number | undefined): boolean {
  const before = store.leaderCountBeforeUpgrade;
  if (before === undefined || before < LEADERS_BACK_MIN_BEFORE) return true;
  if (store.leaderCount >= (before * 2) / 3) return true;
  const timeoutMs = goDurationMs(input.cluster.spec.tikv?.waitLeaderTransferBackTimeout) ?? DEFAULT_WAIT_LEADERS_BACK_MS;
  return input.snapshot.nowMs > (endAtMs ?? input.snapshot.nowMs) + timeoutMs;
}

/** Whether `pod` runs the TiKV StatefulSet's update revision. */
export function isUpdated(input: MemberInput, pod: IPod): boolean {
  const update = tikvStatusOf(input).statefulSet?.updateRevision ?? input.scope.set?.status?.updateRevision;
  return update !== undefined && podRevision(pod) === update;
}

/**
 * The one store a rolling upgrade evicts next: the highest ordinal whose pod is not on the update
 * revision, while TiKV's phase is Upgrade. Reads only.
 */
function nextToRestart(input: MemberInput): string | undefined {
  if (tikvStatusOf(input).phase !== 'Upgrade') return undefined;
  const pods = [...input.scope.pods].reverse();
  return pods.find((pod) => !isUpdated(input, pod))?.metadata?.name;
}

/**
 * Whether an upgrade or a scale-in targets the store of `podName` (P2, P3): a scale-in is removing it
 * (its pod carries `scale-in-time`, or PD has it Offline); the upgrade is evicting it before its
 * restart (its pod is not updated and carries `evictLeaderBeginTime`, or is the next to restart);
 * or it is restarting (its pod is being deleted or recreated, or is updated but not yet Ready with
 * its store Up — the scheduler stays until then, as TiDB Operator since #3722).
 */
export function isEvictionTarget(input: MemberInput, store: Pick<PdStore, 'state'>, podName: string | undefined): boolean {
  if (store.state === 'Offline') return true;
  if (store.state === 'Tombstone' || podName === undefined) return false;
  const ordinal = input.scope.ordinalOf(podName);
  const pod = input.scope.pod(podName);
  if (!pod) return ordinal !== undefined && ordinal < (input.scope.set?.spec?.replicas ?? 0);
  if (pod.metadata?.annotations?.[EVICT_KEYS.scaleInTime] !== undefined || isTerminating(pod)) return true;
  if (!isUpdated(input, pod)) return pod.metadata?.annotations?.[EVICT_KEYS.beginTime] !== undefined || nextToRestart(input) === podName;
  return !isPodReady(pod) || store.state !== 'Up';
}

/** Our stores in PD, by id, with the pod each runs in: those `status.tikv` lists and those at our address. */
function ourStores(input: MemberInput, view: PdView): Map<string, { store: PdStore; podName: string | undefined }> {
  const tc = input.cluster.metadata.name ?? '';
  const ns = input.cluster.metadata.namespace ?? '';
  const own = new RegExp(`^(${tc}-tikv-\\d+)\\.${tc}-tikv-peer\\.${ns}\\.svc(\\.[^:]+)?:\\d+$`);
  const status = tikvStatusOf(input);
  const listed = new Map(Object.values({ ...status.tombstoneStores, ...status.stores }).map((s) => [s.id, s.podName]));
  const stores = new Map<string, { store: PdStore; podName: string | undefined }>();
  for (const store of view.stores) {
    const podName = own.exec(store.address)?.[1] ?? listed.get(store.id);
    if (podName !== undefined || listed.has(store.id)) stores.set(store.id, { store, podName });
  }
  return stores;
}

/** `status.tikv.stores[id]` changed by `change` (the rest of the status kept). */
export function withStore(status: TidbClusterStatus, id: string, change: (store: TikvStatusStore) => TikvStatusStore): TidbClusterStatus {
  const tikv = status.tikv ?? {};
  const store = tikv.stores?.[id];
  if (!store) return status;
  return { ...status, tikv: { ...tikv, stores: { ...tikv.stores, [id]: change(store) } } };
}

/** A merge patch of a pod's annotations (null removes one), applied only to the pod observed. */
export function patchPodAnnotations(input: MemberInput, pod: IPod, annotations: Record<string, string | null>): PatchAction {
  const ref = { kind: 'Pod' as const, namespace: input.cluster.metadata.namespace ?? '', name: pod.metadata?.name ?? '' };
  return { kind: 'patch', ref, patchType: 'merge', patch: { metadata: { annotations } }, resourceVersion: pod.metadata?.resourceVersion ?? '' };
}

/** The pod's annotations as the end of its eviction leaves them: `end-at` recorded once, `evictLeaderBeginTime` gone. */
function endAnnotations(input: MemberInput, pod: IPod): Record<string, string | null> {
  const annotations = pod.metadata?.annotations ?? {};
  return {
    ...(annotations[EVICT_KEYS.endAt] === undefined ? { [EVICT_KEYS.endAt]: new Date(input.snapshot.nowMs).toISOString() } : {}),
    ...(annotations[EVICT_KEYS.beginTime] !== undefined ? { [EVICT_KEYS.beginTime]: null } : {}),
  };
}

/**
 * The `TikvEvictLeaderCleanup` rule (P2, P3; TiDB Operator ends every store's eviction only when the
 * phase leaves Upgrade): every `evict-leader-scheduler-<id>` of one of our stores that no upgrade or
 * scale-in targets is removed, and the store's pod gets `tikv-evict-leader-end-at` (once) and loses
 * a stale `evictLeaderBeginTime`; `leaderCountBeforeUpgrade` is cleared from a store no longer
 * targeted once its leaders are back (or no longer waited for). Does nothing when PD was not read.
 */
export function planEvictLeaderCleanup(input: MemberInput): MemberDecision {
  const view = observedPd(input.snapshot);
  if (!view) return nothing();
  const actions: Action[] = [];
  let status = input.status;
  for (const [id, { store, podName }] of ourStores(input, view)) {
    if (isEvictionTarget(input, store, podName)) continue;
    const pod = podName === undefined ? undefined : input.scope.pod(podName);
    const scheduled = hasEvictScheduler(view, id);
    if (scheduled) actions.push({ kind: 'pd.endEvictLeader', storeId: id });
    const annotations = pod && (scheduled || pod.metadata?.annotations?.[EVICT_KEYS.beginTime] !== undefined) ? endAnnotations(input, pod) : {};
    if (pod && Object.keys(annotations).length > 0) actions.push(patchPodAnnotations(input, pod, annotations));
    const listed = tikvStatusOf(input).stores?.[id];
    if (listed?.leaderCountBeforeUpgrade !== undefined && !scheduled && areLeadersBack(input, listed, annotationTimeMs(pod, EVICT_KEYS.endAt))) {
      status = withStore(status, id, ({ leaderCountBeforeUpgrade: _done, ...rest }) => rest);
    }
  }
  const message = actions.length === 0 ? undefined : `evict-leader schedulers no upgrade or scale-in targets removed`;
  return { status, actions, outcome: complete(message) };
}

/** The pod annotations that begin an eviction now. */
export function beginAnnotations(input: MemberInput): Record<string, string> {
  return { [EVICT_KEYS.beginTime]: new Date(input.snapshot.nowMs).toISOString() };
}
