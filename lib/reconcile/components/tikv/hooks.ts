/**
 * TiKV's hooks into the shared failover and upgrade, as far as this recipe goes: the smallest
 * honest behaviour for what the store machinery (store failover, leader eviction around a restart)
 * will replace. Each says what it does not do yet rather than pretend: there is no failover; a pod
 * restarts as a plain member. (Its scale hooks are scale.ts.)
 */

import type { MemberDecision, MemberInput, Walk } from '../../member/component.js';
import { nothing } from '../../member/members.js';

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
