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

import type { PdView } from '../../../model/pd.js';
import { toKubeTime } from '../../cluster/condition.js';
import { observedPd, pdReadError } from '../../cluster/observed.js';
import { tikvDesiredReplicas } from '../../cluster/replicas.js';
import { complete } from '../../engine/outcome.js';
import type { RuleInput, StatusDecision } from '../../engine/rule.js';
import type { MemberInput } from '../../member/component.js';
import { convergingRetryMs } from '../../member/converging.js';
import { podRevision, replicasOf } from '../../member/statefulset.js';
import { isOwnStoreAddress, planStoreMaps, storesConverging, type StoreMaps } from '../../member/store-status.js';
import type { TikvStatus } from './names.js';

/** The TiKV condition v1's volume modifier sets while it evicts leaders to resize a volume. */
export const LEADER_EVICTING_CONDITION = 'LeaderEvicting';

/**
 * As TiDB Operator's `tikvStoreLimitPattern`: whether a store's address is a pod of this cluster
 * (`<tc>-tikv-N.<tc>-tikv-peer.<ns>.svc[.<domain>]:<port>`) rather than of another cluster sharing PD.
 */
export const isOwnTikvStoreAddress = (input: RuleInput, address: string): boolean => isOwnStoreAddress(input, 'tikv', address);

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

/**
 * The `stores`, `peerStores` and `tombstoneStores` maps from what PD reports (see the module
 * comment; shared with TiFlash: member/store-status.ts); an unchanged state keeps its `lastTransitionTime`.
 */
export const planTikvStores = (input: RuleInput, view: PdView): StoreMaps => planStoreMaps(input, 'tikv', view);

/** The Ready TiKV pods whose store is not Up yet, and since when the latest of them is Ready (undefined: none). */
export function tikvConverging(input: MemberInput, tikv: TikvStatus): { reason: string; sinceMs: number } | undefined {
  return tikv.synced === true ? storesConverging('TiKV', input.scope.pods, tikv.stores) : undefined;
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
