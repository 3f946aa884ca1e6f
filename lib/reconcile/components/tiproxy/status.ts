/**
 * TiProxy's status, as TiDB Operator v1.6's `syncStatus` for TiProxy: `status.tiproxy.statefulSet`
 * (a copy); the phase — `Scale` while `spec.tiproxy.replicas` differs from the StatefulSet's,
 * `Upgrade` while the StatefulSet is between revisions, else `Normal`; one member per ordinal of
 * `[0, status.replicas)` named `<tc>-tiproxy-<i>`, healthy when its `/api/debug/health` answered
 * (its answer kept as `info`), its `lastTransitionTime` kept while the health stays; `synced` true.
 * Beyond TiDB Operator, which waits for its 30 s resync: while a Ready pod is not healthy yet, the
 * rule asks to look again within seconds.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import { toKubeTime } from '../../cluster/condition.js';
import { observedTiproxy } from '../../cluster/observed.js';
import { complete } from '../../engine/outcome.js';
import type { StatusDecision } from '../../engine/rule.js';
import type { MemberInput } from '../../member/component.js';
import { isPodReady, isStatefulSetUpgrading, replicasOf } from '../../member/statefulset.js';
import { TIPROXY_RETRY_MS, tiproxyStatusOf, type TiproxyMember, type TiproxyStatus } from './names.js';

/** As TiDB Operator: `Scale` while the replicas differ, then `Upgrade` while the StatefulSet upgrades, else `Normal`. */
export function tiproxyPhaseOf(input: MemberInput, sts: IStatefulSet): 'Scale' | 'Upgrade' | 'Normal' {
  if ((input.cluster.spec.tiproxy?.replicas ?? 0) !== replicasOf(sts)) return 'Scale';
  return isStatefulSetUpgrading(sts, input.scope.pods, sts.status?.updateRevision) ? 'Upgrade' : 'Normal';
}

/** The members of ordinals `[0, status.replicas)`, from this step's health reads (a pod not read is not healthy). */
export function planTiproxyMembers(input: MemberInput, sts: IStatefulSet): Record<string, TiproxyMember> {
  const view = observedTiproxy(input.snapshot);
  const previous = tiproxyStatusOf(input).members ?? {};
  const now = toKubeTime(input.snapshot.nowMs);
  const members: Record<string, TiproxyMember> = {};
  for (let ordinal = 0; ordinal < (sts.status?.replicas ?? 0); ordinal += 1) {
    const name = input.scope.podName(ordinal);
    const read = view?.members[name];
    const health = read?.healthy === true;
    const before = previous[name];
    const since = before !== undefined && before.health === health ? (before.lastTransitionTime ?? now) : now;
    members[name] = { name, health, ...(read?.healthy === true ? { info: read.info } : {}), lastTransitionTime: since };
  }
  return members;
}

/**
 * The `TiproxyStatus` rule (runs paused or not). Guarantees: nothing changes without TiProxy in the
 * spec or before its StatefulSet exists; an unchanged world gives an equal status; it always
 * completes, and asks to be woken in a few seconds while a Ready pod is not healthy yet.
 */
export function planTiproxyStatus(input: MemberInput): StatusDecision {
  const sts = input.scope.set;
  if (!input.cluster.spec.tiproxy || !sts) return { outcome: complete() };
  const members = planTiproxyMembers(input, sts);
  const tiproxy: TiproxyStatus = { ...tiproxyStatusOf(input), statefulSet: sts.status ?? { replicas: 0 }, phase: tiproxyPhaseOf(input, sts), members, synced: true };
  const status = { ...input.status, tiproxy };
  const lagging = input.scope.pods.filter((p) => isPodReady(p) && members[p.metadata?.name ?? '']?.health === false).map((p) => p.metadata?.name ?? '');
  if (lagging.length === 0) return { status, outcome: complete() };
  const wakeAtMs = input.snapshot.nowMs + TIPROXY_RETRY_MS;
  return { status, outcome: complete(`TiProxy members of Ready pods not healthy yet: ${lagging.join(', ')}; looking again at ${toKubeTime(wakeAtMs)}`), wakeAtMs };
}
