/**
 * TiDB's status, synced from the StatefulSet and each server's `/status` as TiDB Operator v1's
 * `syncTidbClusterStatus` (§2.4, §1.6): `status.tidb.statefulSet` (a copy), the phase (Scale when
 * the desired replicas differ from the StatefulSet's; Upgrade while it is between revisions — unless
 * PD, TiKV or Pump is upgrading; else Normal), the image, and one member per ordinal the StatefulSet
 * runs: healthy when its `/status` answered below 400, the node its pod is on, `lastTransitionTime`
 * moving only when health flips. A pod that does not run is unhealthy without being asked. When our
 * own path to the servers failed, the members keep their last health (nothing is invented).
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import { toKubeTime } from '../../cluster/condition.js';
import { observedTidb, tidbReadError } from '../../cluster/observed.js';
import { tidbDesiredReplicas } from '../../cluster/replicas.js';
import { complete } from '../../engine/outcome.js';
import type { RuleInput, StatusDecision } from '../../engine/rule.js';
import type { MemberInput } from '../../member/component.js';
import { isPodReady, isStatefulSetUpgrading, replicasOf } from '../../member/statefulset.js';
import type { TidbStatus, TidbStatusMember } from './names.js';

/** How soon the status looks again while a Ready pod's server does not answer healthy. */
export const TIDB_CONVERGING_RETRY_MS = 15_000;

type Members = Record<string, TidbStatusMember>;

/**
 * The phase, as TiDB Operator §1.6: `Scale` when the desired replicas (spec + failure members) differ
 * from the StatefulSet's; `Upgrade` while it is between revisions and neither PD, TiKV nor Pump is
 * upgrading; else `Normal`.
 */
export function tidbPhaseOf(input: MemberInput, sts: IStatefulSet): string {
  if (tidbDesiredReplicas(input.cluster.spec, input.status) !== replicasOf(sts)) return 'Scale';
  const upgrading = isStatefulSetUpgrading(sts, input.scope.pods, sts.status?.updateRevision);
  const othersUpgrading = [input.status.pd?.phase, input.status.tikv?.phase, input.status.pump?.phase].includes('Upgrade');
  return upgrading && !othersUpgrading ? 'Upgrade' : 'Normal';
}

/** The members of ordinals `[0, status replicas)`, from the servers' verdicts (see the module comment). */
export function planTidbMembers(input: MemberInput, sts: IStatefulSet): Members | undefined {
  const view = observedTidb(input.snapshot);
  const previous = input.status.tidb?.members ?? {};
  if (!view) return input.status.tidb?.members;
  const now = toKubeTime(input.snapshot.nowMs);
  const members: Members = {};
  for (let ordinal = 0; ordinal < (sts.status?.replicas ?? 0); ordinal++) {
    const name = input.scope.podName(ordinal);
    const pod = input.scope.pod(name);
    const health = view.servers[name]?.healthy === true;
    const old = previous[name];
    const kept = old !== undefined && old.health === health ? old.lastTransitionTime : undefined;
    const node = pod?.spec?.nodeName;
    members[name] = { name, health, lastTransitionTime: kept ?? now, ...(node === undefined ? {} : { node }) };
  }
  return members;
}

/** Whether a Ready pod's server is not (yet) healthy: the status should look again soon. */
function isConverging(input: MemberInput, members: Members | undefined): boolean {
  return input.scope.pods.some((pod) => isPodReady(pod) && members?.[pod.metadata?.name ?? '']?.health !== true);
}

/** Whether TiDB's status could be synced this step: the servers were read (TiDB's status has no `synced`). */
export const isTidbSynced = (input: RuleInput): boolean => tidbReadError(input.snapshot) === undefined;

/**
 * The `TidbStatus` rule (a status rule: it runs on paused clusters too, as TiDB Operator §1.7).
 * Guarantees: nothing changes without TiDB in the spec or before its StatefulSet exists; an
 * unchanged world gives an equal status; it always completes, and while a Ready pod's server is not
 * healthy it asks to be woken after `TIDB_CONVERGING_RETRY_MS` (a server losing PD or TiKV stays
 * Ready by its TCP probe, so no pod event would tell).
 */
export function planTidbStatus(input: MemberInput): StatusDecision {
  const sts = input.scope.set;
  if (!input.cluster.spec.tidb || !sts) return { outcome: complete() };
  const members = planTidbMembers(input, sts);
  const image = sts.spec?.template.spec?.containers.find((c) => c.name === 'tidb')?.image;
  const tidb: TidbStatus = {
    ...input.status.tidb,
    statefulSet: sts.status ?? { replicas: 0 },
    phase: tidbPhaseOf(input, sts),
    ...(members === undefined ? {} : { members }),
    ...(image === undefined ? {} : { image }),
  };
  const status = { ...input.status, tidb };
  const error = tidbReadError(input.snapshot);
  const note = error === undefined ? undefined : `TiDB not read: ${error}`;
  if (!isConverging(input, members)) return { status, outcome: complete(note) };
  const wakeAtMs = input.snapshot.nowMs + TIDB_CONVERGING_RETRY_MS;
  return { status, outcome: complete(`${note ?? 'a Ready TiDB pod does not answer healthy'}: looking again at ${toKubeTime(wakeAtMs)}`), wakeAtMs };
}
