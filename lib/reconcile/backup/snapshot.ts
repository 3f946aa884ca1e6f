/**
 * What one Backup step reads (`BackupSnapshot`) and how its rules build the step's one write of the
 * Backup (`BackupDraft`): Backup and Restore have no status subresource, so metadata (the finalizer)
 * and status go out together as one full-object update under the observed resourceVersion (v1's
 * status updater does the same), after the step's Job writes.
 */

import type { Action, EventAction } from '../../model/action.js';
import type { TidbCluster } from '../../model/kube.js';
import { emptyLog, eventOn, type DraftLog } from '../engine/draft.js';
import { withCondition } from './conditions.js';
import type { LogKernelObservation } from './log-tracker.js';
import type { Backup, BackupCondition, BackupStatus, Job } from './types.js';

/**
 * One Backup step's reads. `tc` is undefined when the TidbCluster named by `br.cluster` does not
 * exist; `jobs` holds the Jobs of this Backup by name (absent = not found); `s3SecretKeys` the key
 * names of `s3.secretName` (undefined = no such Secret, or none named).
 */
export type BackupSnapshot = {
  readonly nowMs: number;
  readonly backup: Backup | undefined;
  readonly tc: TidbCluster | undefined;
  readonly jobs: Readonly<Record<string, Job>>;
  readonly s3SecretKeys: readonly string[] | undefined;
  /** The key names of the `from.secretName` Secret (the TiDB password); absent when none is named or it does not exist. */
  readonly tidbSecretKeys?: readonly string[];
  readonly managerImage: string;
  /** The log-backup task as PD's etcd has it, when the tracker is due (log-tracker.ts); undefined when not tracked. */
  readonly logKernel?: LogKernelObservation;
};

/** The step's pending write of the Backup and its other actions, as rules add to them. */
export type BackupDraft = DraftLog & {
  finalizers: string[];
  annotations: Record<string, string>;
  status: BackupStatus;
  readonly jobActions: Action[];
};

/** A fresh draft of the observed Backup. */
export function draftOf(backup: Backup): BackupDraft {
  return { ...emptyLog(), finalizers: [...(backup.metadata.finalizers ?? [])], annotations: { ...(backup.metadata.annotations ?? {}) }, status: { ...(backup.status ?? {}) }, jobActions: [] };
}

/** Writes `condition` into the draft's status (v1's `UpdateBackupCondition`). */
export function setCondition(draft: BackupDraft, condition: Omit<BackupCondition, 'lastTransitionTime'>, nowMs: number): void {
  draft.status = withCondition(draft.status, condition, nowMs);
}

export { note, wakeAt } from '../engine/draft.js';

/** An Event on the Backup (v1's recorder reasons). */
export function backupEvent(backup: Backup, type: 'Normal' | 'Warning', reason: string, message: string): EventAction {
  return eventOn('Backup', backup, type, reason, message);
}
