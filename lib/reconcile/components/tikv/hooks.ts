/**
 * TiKV's failover hook, as far as this recipe goes: the smallest honest behaviour for what the
 * store failover will replace — there is none yet. (Its scale hooks are scale.ts, its upgrade's
 * hooks upgrade.ts.)
 */

import type { MemberDecision, MemberInput } from '../../member/component.js';
import { nothing } from '../../member/members.js';

/** TiKV's failover: none yet (a Down store is reported in the status, nothing more). */
export function planTikvFailover(_input: MemberInput): MemberDecision {
  return nothing();
}
