/**
 * TiFlash's status, synced from its StatefulSet and PD's stores as TiDB Operator v1's
 * `syncTidbClusterStatus` for TiFlash (§2.3, §1.6): `status.tiflash.statefulSet` (a copy), the phase
 * (`Scale` when the desired replicas differ from the StatefulSet's, else `Upgrade` while it rolls,
 * else `Normal`), the stores (shared with TiKV: member/store-status.ts) and the TiFlash image. As v1,
 * PD not read — or PD answering that no TiKV ever bootstrapped the cluster, which TiFlash's sync
 * treats as an error — leaves TiFlash not synced, its stores as last seen.
 */

import { observedPd, pdReadError } from '../../cluster/observed.js';
import { tiflashDesiredReplicas } from '../../cluster/replicas.js';
import { complete } from '../../engine/outcome.js';
import type { StatusDecision } from '../../engine/rule.js';
import type { MemberInput } from '../../member/component.js';
import { isStatefulSetUpgrading, replicasOf } from '../../member/statefulset.js';
import { planStoreMaps, storesConverging } from '../../member/store-status.js';
import { convergingRetryMs } from '../../member/converging.js';
import { toKubeTime } from '../../cluster/condition.js';
import type { TiflashStatus } from './names.js';

const orNone = <T extends object>(record: T): T | undefined => (Object.keys(record).length === 0 ? undefined : record);

/** The phase, as TiDB Operator §1.6 for TiFlash: Scale over Upgrade over Normal. */
export function tiflashPhaseOf(input: MemberInput): string {
  const sts = input.scope.set;
  if (!sts) return input.status.tiflash?.phase ?? 'Normal';
  if (tiflashDesiredReplicas(input.cluster.spec, input.status) !== replicasOf(sts)) return 'Scale';
  return isStatefulSetUpgrading(sts, input.scope.pods, sts.status?.updateRevision) ? 'Upgrade' : 'Normal';
}

/**
 * The `TiflashStatus` rule (a status rule: it runs on paused clusters too). Guarantees: nothing
 * changes without TiFlash in the spec or before its StatefulSet exists; the status is rebuilt from
 * observations only, so an unchanged world gives an equal status; it always completes, and asks
 * to be woken while a Ready pod's store is not Up.
 */
export function planTiflashStatus(input: MemberInput): StatusDecision {
  const sts = input.scope.set;
  if (!input.cluster.spec.tiflash || !sts) return { outcome: complete() };
  const base: TiflashStatus = { ...(input.status.tiflash ?? {}), statefulSet: sts.status ?? { replicas: 0 }, phase: tiflashPhaseOf(input) };
  const view = observedPd(input.snapshot);
  if (!view || !view.bootstrapped) {
    const why = view ? 'TiKV cluster not bootstrapped, please start TiKV first' : (pdReadError(input.snapshot) ?? 'PD not read');
    return { status: { ...input.status, tiflash: { ...base, synced: false } }, outcome: complete(`TiFlash not synced: ${why}`) };
  }
  const { stores, peerStores, tombstoneStores } = planStoreMaps(input, 'tiflash', view);
  const image = sts.spec?.template.spec?.containers.find((c) => c.name === 'tiflash')?.image;
  const tiflash: TiflashStatus = { ...base, synced: true, stores, peerStores: orNone(peerStores), tombstoneStores: orNone(tombstoneStores), image };
  const status = { ...input.status, tiflash };
  // A Ready pod whose store is not Up yet: look again soon, as TiKV's status does (PD is not watched).
  const converging = storesConverging('TiFlash', input.scope.pods, stores);
  if (converging === undefined) return { status, outcome: complete() };
  const wakeAtMs = input.snapshot.nowMs + convergingRetryMs(converging.sinceMs, input.snapshot.nowMs);
  return { status, outcome: complete(`${converging.reason}: looking again at ${toKubeTime(wakeAtMs)}`), wakeAtMs };
}
