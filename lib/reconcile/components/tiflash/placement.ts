/**
 * TiFlash needs PD's placement rules (its replicas are learners placed by rule), so, as TiDB
 * Operator v1 does before anything else in TiFlash's sync (§2.3): when PD reports
 * `replication.enable-placement-rules = false`, ask PD to turn them on. As v1, a failure does not
 * stop TiFlash's rules; the next step reads PD's config again and asks again while it is off.
 */

import type { PdSetReplicationAction } from '../../../model/action.js';
import { observedPd } from '../../cluster/observed.js';
import { complete } from '../../engine/outcome.js';
import type { MemberDecision, MemberInput } from '../../member/component.js';
import { nothing } from '../../member/members.js';

/** The PD call that turns placement rules on. */
export const ENABLE_PLACEMENT_RULES: PdSetReplicationAction = { kind: 'pd.setReplication', change: { enablePlacementRules: true } };

/**
 * The `TiflashPlacementRules` rule: `pd.setReplication {enablePlacementRules: true}` when PD was read
 * and says they are off (a PD that does not say — before v4 — is left alone); otherwise nothing.
 * Never stops the block.
 */
export function planTiflashPlacementRules(input: MemberInput): MemberDecision {
  const enabled = observedPd(input.snapshot)?.config?.replication.enablePlacementRules;
  if (enabled !== false) return nothing();
  return { actions: [ENABLE_PLACEMENT_RULES], outcome: complete('TiFlash: enabling placement rules in PD') };
}
