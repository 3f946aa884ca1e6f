/**
 * TiCDC's status, as TiDB Operator v1's `syncTiCDCStatus` (§2.5, §1.6): `status.ticdc.statefulSet`
 * (a copy), the phase — `Upgrade` while the StatefulSet is between revisions, else `Normal`, never
 * `Scale` — and one capture per pod of the StatefulSet's ordinals (id, version, owner, `ready` when
 * its `/status` answered), `synced` when there are as many captures as `spec.ticdc.replicas` and all
 * are ready. Beyond TiDB Operator, which logs and waits for the 30 s resync: while a pod is Ready but
 * its capture is not (the server registers a moment after it starts), the rule asks to look again
 * within seconds.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import { toKubeTime } from '../../cluster/condition.js';
import { observedTicdc } from '../../cluster/observed.js';
import { complete } from '../../engine/outcome.js';
import type { StatusDecision } from '../../engine/rule.js';
import type { MemberInput } from '../../member/component.js';
import { isPodReady, isStatefulSetUpgrading } from '../../member/statefulset.js';
import { TICDC_RETRY_MS, ticdcStatusOf, type TicdcStatus, type TicdcStatusCapture } from './names.js';

/** As TiDB Operator: `Upgrade` while the StatefulSet is upgrading, else `Normal` (TiCDC never reports `Scale`). */
export function ticdcPhaseOf(input: MemberInput, sts: IStatefulSet): 'Upgrade' | 'Normal' {
  return isStatefulSetUpgrading(sts, input.scope.pods, sts.status?.updateRevision) ? 'Upgrade' : 'Normal';
}

/** The captures of the pods of ordinals `[0, status.replicas)` that exist, from this step's reads. */
export function planTicdcCaptures(input: MemberInput, sts: IStatefulSet): Record<string, TicdcStatusCapture> {
  const view = observedTicdc(input.snapshot);
  const captures: Record<string, TicdcStatusCapture> = {};
  for (let ordinal = 0; ordinal < (sts.status?.replicas ?? 0); ordinal += 1) {
    const podName = input.scope.podName(ordinal);
    if (!input.scope.pod(podName)) continue;
    const read = view?.captures[podName];
    captures[podName] = read?.ready === true ? { podName, id: read.id, version: read.version, isOwner: read.isOwner, ready: true } : { podName, ready: false };
  }
  return captures;
}

/**
 * The `TicdcStatus` rule (runs paused or not). Guarantees: nothing changes without TiCDC in the
 * spec or before its StatefulSet exists; the status is rebuilt from observations only (an unchanged
 * world gives an equal status); it always completes, and asks to be woken in a few seconds while a
 * Ready pod has no ready capture yet.
 */
export function planTicdcStatus(input: MemberInput): StatusDecision {
  const sts = input.scope.set;
  if (!input.cluster.spec.ticdc || !sts) return { outcome: complete() };
  const captures = planTicdcCaptures(input, sts);
  const list = Object.values(captures);
  const ticdc: TicdcStatus = {
    ...ticdcStatusOf(input),
    statefulSet: sts.status ?? { replicas: 0 },
    phase: ticdcPhaseOf(input, sts),
    captures,
    synced: list.length === input.cluster.spec.ticdc.replicas && list.every((c) => c.ready === true),
  };
  const status = { ...input.status, ticdc };
  const lagging = input.scope.pods.filter((p) => isPodReady(p) && captures[p.metadata?.name ?? '']?.ready === false).map((p) => p.metadata?.name ?? '');
  if (lagging.length === 0) return { status, outcome: complete() };
  const wakeAtMs = input.snapshot.nowMs + TICDC_RETRY_MS;
  return { status, outcome: complete(`TiCDC captures of Ready pods not ready yet: ${lagging.join(', ')}; looking again at ${toKubeTime(wakeAtMs)}`), wakeAtMs };
}
