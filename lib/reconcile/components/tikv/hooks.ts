/**
 * TiKV's hooks into the shared scale, failover and upgrade, as far as this recipe goes: the
 * smallest honest behaviour for what the store machinery (scale-in to Tombstone, store failover,
 * leader eviction around a restart) will replace. Each says what it does not do yet rather than
 * pretend: a scale-in holds, saying so; a pod restarts as a plain member. (Store failover is the
 * shared one, member/store-failover.ts, with TiKV's access in failover.ts.)
 */

import { wait } from '../../engine/outcome.js';
import type { MemberInput, ScaleInCheck, Walk } from '../../member/component.js';

/** What a scale-in holds with until TiKV's scale-in (evict, delete the store, wait for Tombstone) exists. */
export const TIKV_SCALE_IN_NOT_HANDLED = 'TiKV scale-in is not handled yet';

/** Before a TiKV member goes: hold, so no store loses its pod before PD has moved its data away. */
export function beforeTikvScaleIn(_input: MemberInput, podName: string): ScaleInCheck {
  return { hold: { actions: [], outcome: wait(`${TIKV_SCALE_IN_NOT_HANDLED} (${podName} stays)`), stop: true } };
}

/** Before a TiKV pod restarts for an upgrade: nothing of its own yet, it rolls as a plain member. */
export function beforeTikvRestart(_input: MemberInput, ordinal: number): Walk {
  return { kind: 'roll', ordinal };
}

/** An updated TiKV pod that is available may be left behind (no store check of its own yet). */
export function tikvUpdatedPodHold(_input: MemberInput, _podName: string): undefined {
  return undefined;
}
