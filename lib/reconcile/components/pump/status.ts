/**
 * Pump's status, as TiDB Operator v1's pump `syncTiDBClusterStatus` (§2.6, §1.6):
 * `status.pump.statefulSet` (a copy), the phase — `Upgrade` while the StatefulSet is between
 * revisions, else `Normal`, never `Scale` — and the members as the binlog registry lists them
 * (`nodeId`, `host`, `state`). When no Pump could be asked, the members stay as last seen (TiDB
 * Operator's sync fails and keeps them too).
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import { observedPump } from '../../cluster/observed.js';
import { complete } from '../../engine/outcome.js';
import type { StatusDecision } from '../../engine/rule.js';
import type { MemberInput } from '../../member/component.js';
import { isStatefulSetUpgrading } from '../../member/statefulset.js';
import { pumpStatusOf, type PumpStatus } from './names.js';

/** As TiDB Operator: `Upgrade` while the StatefulSet is upgrading, else `Normal`. */
export function pumpPhaseOf(input: MemberInput, sts: IStatefulSet): 'Upgrade' | 'Normal' {
  return isStatefulSetUpgrading(sts, input.scope.pods, sts.status?.updateRevision) ? 'Upgrade' : 'Normal';
}

/**
 * The `PumpStatus` rule (runs paused or not). Guarantees: nothing changes without Pump in the spec
 * or before its StatefulSet exists; an unchanged world gives an equal status; it always completes
 * (with a note when the registry could not be read).
 */
export function planPumpStatus(input: MemberInput): StatusDecision {
  const sts = input.scope.set;
  if (!input.cluster.spec.pump || !sts) return { outcome: complete() };
  const view = observedPump(input.snapshot);
  const previous = pumpStatusOf(input);
  const members = view?.nodes === undefined ? previous.members : view.nodes.map((n) => ({ nodeId: n.nodeId, host: n.host, state: n.state }));
  const pump: PumpStatus = { ...previous, statefulSet: sts.status ?? { replicas: 0 }, phase: pumpPhaseOf(input, sts), ...(members === undefined ? {} : { members }) };
  const note = view?.nodes === undefined ? `Pump registry not read: ${view?.detail ?? input.snapshot.components.pump.error ?? 'not asked'}` : undefined;
  return { status: { ...input.status, pump }, outcome: complete(note) };
}
