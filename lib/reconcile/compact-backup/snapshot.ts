/**
 * What one CompactBackup step reads (`CompactSnapshot`) and how its rules build the step's one write
 * of the object (`CompactDraft`): the CRD has no status subresource, so the status goes out as one
 * full-object update under the observed resourceVersion, after the Job write — a 409 (the Job pod,
 * v1's second status writer, wrote meanwhile) makes the next step re-read, never overwrite.
 */

import type { Action, EventAction } from '../../model/action.js';
import type { TidbCluster } from '../../model/kube.js';
import { emptyLog, eventOn, type DraftLog } from '../engine/draft.js';
import type { Job } from '../backup/types.js';
import type { CompactBackup, CompactStatus } from './types.js';

/**
 * One step's reads. `tc` is the TidbCluster `br.cluster` names (undefined when missing); `job` the
 * Job named like the CompactBackup (undefined when absent); `s3SecretKeys` the key names of
 * `s3.secretName` (undefined = no such Secret, or none named).
 */
export type CompactSnapshot = {
  readonly nowMs: number;
  readonly compact: CompactBackup | undefined;
  readonly tc: TidbCluster | undefined;
  readonly job: Job | undefined;
  readonly s3SecretKeys: readonly string[] | undefined;
  readonly managerImage: string;
};

/** The step's pending write and its other actions, as rules add to them. */
export type CompactDraft = DraftLog & {
  status: CompactStatus;
  readonly jobActions: Action[];
};

/** A fresh draft of the observed object. */
export function draftOf(compact: CompactBackup): CompactDraft {
  return { ...emptyLog(), status: { ...(compact.status ?? {}) }, jobActions: [] };
}

export { note, wakeAt } from '../engine/draft.js';

/** An Event on the CompactBackup (v1's recorder reasons). */
export function compactEvent(compact: CompactBackup, type: 'Normal' | 'Warning', reason: string, message: string): EventAction {
  return eventOn('CompactBackup', compact, type, reason, message);
}
