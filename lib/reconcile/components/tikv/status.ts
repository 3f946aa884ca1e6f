/**
 * TiKV's status, synced from the StatefulSet and PD's stores as TiDB Operator v1's
 * `syncTidbClusterStatus` for TiKV (§2.2, §1.6, Fixture I): `status.tikv.statefulSet` (a copy), the
 * phase (Scale takes precedence; Upgrade only while PD is not upgrading and no leader is being
 * evicted for a volume change), and from PD — this cluster's stores by id (`stores`), stores of
 * other clusters sharing PD (`peerStores`, TiFlash excluded) and this cluster's Tombstones
 * (`tombstoneStores`), each with its pod name, address host, leader count and state;
 * `lastTransitionTime` moves only when the state changes and `leaderCountBeforeUpgrade` is carried
 * over. "Not bootstrapped" (no TiKV ever joined) is a state: synced, not bootstrapped. PD not read:
 * not synced, the stores as last seen. While a Ready pod has no Up store yet the rule asks to look
 * again within seconds (as PD's does), so the status follows the stores promptly.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { PdStore, PdView } from '../../../model/pd.js';
import { toKubeTime } from '../../cluster/condition.js';
import { observedPd, pdReadError } from '../../cluster/observed.js';
import { tikvDesiredReplicas } from '../../cluster/replicas.js';
import { complete } from '../../engine/outcome.js';
import type { RuleInput, StatusDecision } from '../../engine/rule.js';
import type { MemberInput } from '../../member/component.js';
import { convergingRetryMs } from '../../member/converging.js';
import { podReadySinceMs, podRevision, replicasOf } from '../../member/statefulset.js';
import { tikvPeerServiceName, tikvSetName, type TikvStatus, type TikvStatusStore } from './names.js';

type Stores = Record<string, TikvStatusStore>;

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The TiKV condition v1's volume modifier sets while it evicts leaders to resize a volume. */
export const LEADER_EVICTING_CONDITION = 'LeaderEvicting';

/**
 * As TiDB Operator's `tikvStoreLimitPattern`: whether a store's address is a pod of this cluster
 * (`<tc>-tikv-N.<tc>-tikv-peer.<ns>.svc[.<domain>]:<port>`) rather than of another cluster sharing PD.
 */
export function isOwnTikvStoreAddress(input: RuleInput, address: string): boolean {
  const tc = input.cluster;
  const domain = tc.spec.clusterDomain ? `\\.${escape(tc.spec.clusterDomain)}` : '';
  const host = `^${escape(tikvSetName(tc))}-\\d+\\.${escape(tikvPeerServiceName(tc))}\\.${escape(tc.metadata.namespace ?? '')}\\.svc${domain}:\\d+`;
  return new RegExp(host).test(address);
}

/**
 * As TiDB Operator's `tikvStatefulSetIsUpgrading`: the StatefulSet is between revisions, or has a
 * newer generation not observed yet; else a pod without a revision means "not upgrading", and any
 * pod on another revision than the recorded update revision (when there is one) means "upgrading".
 */
export function isTikvUpgrading(sts: IStatefulSet, pods: readonly IPod[], updateRevision: string | undefined): boolean {
  const status = sts.status;
  if (status && status.currentRevision !== status.updateRevision) return true;
  const generation = sts.metadata?.generation ?? 0;
  if (status && generation > (status.observedGeneration ?? 0) && replicasOf(sts) === status.replicas) return true;
  if (pods.some((p) => podRevision(p) === undefined)) return false;
  return updateRevision !== undefined && updateRevision !== '' && pods.some((p) => podRevision(p) !== updateRevision);
}

/**
 * The phase, as TiDB Operator §1.6 for TiKV: `Scale` when the desired replicas (spec + failure stores
 * + spare) differ from the StatefulSet's; else, while upgrading and PD is not upgrading, `Upgrade` —
 * unless a leader is being evicted (condition `LeaderEvicting=True`), which leaves the phase as it
 * was; else `Normal`.
 */
export function tikvPhaseOf(input: RuleInput, sts: IStatefulSet, pods: readonly IPod[]): string {
  if (tikvDesiredReplicas(input.cluster.spec, input.status) !== replicasOf(sts)) return 'Scale';
  const previous = input.status.tikv;
  const upgrading = isTikvUpgrading(sts, pods, sts.status?.updateRevision);
  if (!upgrading || input.status.pd?.phase === 'Upgrade') return 'Normal';
  const evicting = (previous?.conditions ?? []).some((c) => c.type === LEADER_EVICTING_CONDITION && c.status === 'True');
  return evicting ? (previous?.phase ?? 'Normal') : 'Upgrade';
}

/** The host of a store address (`<pod>.<peer>.<ns>.svc:20160` → `<pod>.<peer>.<ns>.svc`). */
const hostOf = (address: string): string => address.split(':')[0] ?? address;

function toStatusStore(store: PdStore, previous: TikvStatusStore | undefined, now: string): TikvStatusStore {
  const ip = hostOf(store.address);
  const kept = previous !== undefined && previous.state === store.state ? previous.lastTransitionTime : undefined;
  return {
    id: store.id,
    podName: ip.split('.')[0] ?? ip,
    ip,
    leaderCount: store.leaderCount,
    state: store.state,
    lastTransitionTime: kept ?? now,
    ...(previous?.leaderCountBeforeUpgrade === undefined ? {} : { leaderCountBeforeUpgrade: previous.leaderCountBeforeUpgrade }),
  };
}

/**
 * The `stores`, `peerStores` and `tombstoneStores` maps from what PD reports (see the module
 * comment); an unchanged state keeps its `lastTransitionTime`.
 */
export function planTikvStores(input: RuleInput, view: PdView): { stores: Stores; peerStores: Stores; tombstoneStores: Stores } {
  const previous = input.status.tikv ?? {};
  const before = (id: string): TikvStatusStore | undefined => previous.stores?.[id] ?? previous.peerStores?.[id] ?? previous.tombstoneStores?.[id];
  const now = toKubeTime(input.snapshot.nowMs);
  const stores: Stores = {};
  const peerStores: Stores = {};
  const tombstoneStores: Stores = {};
  for (const store of view.stores) {
    const own = isOwnTikvStoreAddress(input, store.address);
    const record = toStatusStore(store, before(store.id), now);
    if (store.state === 'Tombstone') {
      if (own) tombstoneStores[store.id] = record;
    } else if (own) stores[store.id] = record;
    else if (store.labels.engine !== 'tiflash') peerStores[store.id] = record;
  }
  return { stores, peerStores, tombstoneStores };
}

/** The Ready TiKV pods whose store is not Up yet, and since when the latest of them is Ready (undefined: none). */
export function tikvConverging(input: MemberInput, tikv: TikvStatus): { reason: string; sinceMs: number } | undefined {
  if (tikv.synced !== true) return undefined;
  const upPods = new Set(Object.values(tikv.stores ?? {}).filter((s) => s.state === 'Up').map((s) => s.podName));
  const lagging = input.scope.pods.flatMap((pod) => {
    const sinceMs = podReadySinceMs(pod);
    const name = pod.metadata?.name ?? '';
    return sinceMs === undefined || upPods.has(name) ? [] : [{ name, sinceMs }];
  });
  if (lagging.length === 0) return undefined;
  return { reason: `TiKV stores of Ready pods not Up yet: ${lagging.map((p) => p.name).join(', ')}`, sinceMs: Math.max(...lagging.map((p) => p.sinceMs)) };
}

function fromPd(input: MemberInput, sts: IStatefulSet, view: PdView, base: TikvStatus): TikvStatus {
  // As TiDB Operator: PD answering "not bootstrapped" is synced, with no store to report.
  if (!view.bootstrapped) return { ...base, synced: true, bootStrapped: false };
  const { stores, peerStores, tombstoneStores } = planTikvStores(input, view);
  const image = sts.spec?.template.spec?.containers.find((c) => c.name === 'tikv')?.image;
  return {
    ...base,
    synced: true,
    bootStrapped: true,
    stores,
    peerStores: Object.keys(peerStores).length === 0 ? undefined : peerStores,
    tombstoneStores: Object.keys(tombstoneStores).length === 0 ? undefined : tombstoneStores,
    image,
  };
}

/**
 * The `TikvStatus` rule (a status rule: it runs on paused clusters too, as TiDB Operator §1.7).
 * Guarantees: nothing changes without TiKV in the spec or before its StatefulSet exists; the status
 * is rebuilt from observations only, so an unchanged world gives an equal status; it always
 * completes, and asks to be woken while a Ready pod's store is not Up (`tikvConverging`).
 */
export function planTikvStatus(input: MemberInput): StatusDecision {
  const sts = input.scope.set;
  if (!input.cluster.spec.tikv || !sts) return { outcome: complete() };
  const base: TikvStatus = {
    ...(input.status.tikv ?? {}),
    statefulSet: sts.status ?? { replicas: 0 },
    phase: tikvPhaseOf(input, sts, input.scope.pods),
  };
  const view = observedPd(input.snapshot);
  const tikv = view ? fromPd(input, sts, view, base) : { ...base, synced: false };
  const status = { ...input.status, tikv };
  const note = view ? undefined : `TiKV not synced: ${pdReadError(input.snapshot) ?? 'PD not read'}`;
  const converging = tikvConverging(input, tikv);
  if (converging === undefined) return { status, outcome: complete(note) };
  const wakeAtMs = input.snapshot.nowMs + convergingRetryMs(converging.sinceMs, input.snapshot.nowMs);
  return { status, outcome: complete(`${converging.reason}: looking again at ${toKubeTime(wakeAtMs)}`), wakeAtMs };
}
