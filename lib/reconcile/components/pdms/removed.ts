/**
 * PD microservices no longer asked for, as TiDB Operator v1.6's `pdMSMemberManager.Sync` when
 * `spec.pdms` is gone or PD left `mode: ms` (docs/reference/pd-microservices.md §4, step 2): every
 * service recorded in `status.pdms` whose StatefulSet still has replicas is marked synced and scaled
 * in by one replica a step (v1's scaler, one ordinal a round) until it has none; the StatefulSet and
 * its Services stay (v1 deletes nothing). A service still asked for is left to its own block.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import { observedObjects } from '../../cluster/observed.js';
import { complete, retry } from '../../engine/outcome.js';
import type { Decision, RuleInput } from '../../engine/rule.js';
import { STATEFUL_SET_APPLY, planApply } from '../../member/apply.js';
import { replicasOf, withLastApplied } from '../../member/statefulset.js';
import { PDMS_RETRY_MS, PDMS_SERVICES, pdmsSetName, withPdmsStatus } from './names.js';

/** The live StatefulSet with one replica fewer (everything else as it is), its last-applied record refreshed. */
function oneFewer(live: IStatefulSet): IStatefulSet {
  const { status: _status, ...rest } = live;
  return withLastApplied({ ...rest, spec: { ...(live.spec ?? { selector: {}, template: {} }), replicas: replicasOf(live) - 1 } });
}

/** The `PdmsRemoved` rule (see the module comment). Guarantees: at most one write per service a step; completes when nothing is left to scale in. */
export function planPdmsRemoved(input: RuleInput): Decision {
  const tc = input.cluster;
  // As v1: PD microservices without PD are left alone; and only the whole of them goes (pdms unset or PD not in ms mode).
  if (tc.spec.pd === undefined || (tc.spec.pdms !== undefined && tc.spec.pd.mode === 'ms')) return { actions: [], outcome: complete() };
  let status = input.status;
  const actions = [];
  for (const service of PDMS_SERVICES) {
    const recorded = status.pdms?.[service];
    if (recorded === undefined) continue;
    const live = observedObjects(input.snapshot, 'StatefulSet').find((s) => s.metadata?.name === pdmsSetName(tc, service));
    if (live === undefined || (live.status?.replicas ?? 0) === 0 || replicasOf(live) === 0) continue;
    status = withPdmsStatus(status, service, { ...recorded, synced: true });
    const write = planApply(STATEFUL_SET_APPLY, oneFewer(live), live);
    if (write) actions.push(write);
  }
  if (actions.length === 0) return { ...(status === input.status ? {} : { status }), actions: [], outcome: complete() };
  return { status, actions, outcome: retry(PDMS_RETRY_MS, 'PD microservices no longer asked for: scaling in by one') };
}
