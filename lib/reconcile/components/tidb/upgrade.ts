/**
 * What TiDB's rolling upgrade needs beyond the shared walk (member/upgrade.ts), as TiDB Operator
 * v1's `tidb_upgrader.go` (§2.4, Fixture J): an updated pod's member must answer healthy before the
 * partition moves on; nothing else is asked before a TiDB pod restarts (v1 has no TiDB drain).
 */

import type { Outcome } from '../../../model/outcome.js';
import { retry } from '../../engine/outcome.js';
import type { MemberInput, Walk } from '../../member/component.js';
import { upgraderWho } from '../../member/upgrade.js';
import { TIDB_RETRY_MS, tidbStatusOf } from './names.js';

/** TiDB's `updatedPodHold`: the updated pod's member is healthy by `/status`, else why not. */
export function tidbUpdatedPodHold(input: MemberInput, podName: string): Outcome | undefined {
  if (tidbStatusOf(input).members?.[podName]?.health === true) return undefined;
  return retry(TIDB_RETRY_MS, `${upgraderWho(input)}'s tidb upgraded pod: [${podName}] is not ready`);
}

/** TiDB's `beforeRestart`: the pod may roll (the walk already holds it to one pod at a time). */
export const beforeTidbRestart = (_input: MemberInput, ordinal: number): Walk => ({ kind: 'roll', ordinal });
