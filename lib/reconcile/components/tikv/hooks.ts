/**
 * TiKV's hooks into the shared scale, failover and upgrade, as far as this recipe goes: the
 * smallest honest behaviour for what the store machinery (scale-in to Tombstone, store failover,
 * leader eviction around a restart) will replace. Each says what it does not do yet rather than
 * pretend: a scale-in holds, saying so; there is no failover; a pod restarts as a plain member.
 */

import { wait } from '../../engine/outcome.js';
import type { MemberDecision, MemberInput, ScaleInCheck, Walk } from '../../member/component.js';
import { nothing } from '../../member/members.js';

/** What a scale-in holds with until TiKV's scale-in (evict, delete the store, wait for Tombstone) exists. */
export const TIKV_SCALE_IN_NOT_HANDLED = 'TiKV scale-in is not handled yet';

/** Before a TiKV member goes: hold, so no store loses its pod before PD has moved its data away. */
export function beforeTikvScaleIn(_input: MemberInput, podName: string): ScaleInCheck {
  return { hold: { actions: [], outcome: wait(`${TIKV_SCALE_IN_NOT_HANDLED} (${podName} stays)`), stop: true } };
}

/** TiKV's failover: none yet (a Down store is reported in the status, nothing more). */
export function planTikvFailover(_input: MemberInput): MemberDecision {
  return nothing();
}

/** Before a TiKV pod restarts for an upgrade: nothing of its own yet, it rolls as a plain member. */
export function beforeTikvRestart(_input: MemberInput, ordinal: number): Walk {
  return { kind: 'roll', ordinal };
}

/** An updated TiKV pod that is available may be left behind (no store check of its own yet). */
export function tikvUpdatedPodHold(_input: MemberInput, _podName: string): undefined {
  return undefined;
}
