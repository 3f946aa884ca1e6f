/**
 * What one BackupSchedule step reads (`BackupScheduleSnapshot`) and how its stages collect the step's
 * writes (`ScheduleDraft`): the BackupSchedule has no status subresource, so its finalizer and status
 * go out as one full-object update under the observed resourceVersion, after the Backup writes.
 */

import type { Action } from '../../model/action.js';
import type { ScheduleRequest } from '../../timer/port.js';
import type { Backup } from '../backup/types.js';
import type { CompactBackup } from '../compact-backup/types.js';
import { emptyLog, type DraftLog } from '../engine/draft.js';
import type { BackupSchedule, BackupScheduleStatus } from './types.js';

/** Where this deployment's BackupSchedule schedules live and deliver, and the zone their cron is read in. */
export type ScheduleTarget = {
  /** The schedule's name (derived from the BackupSchedule's key) and group (the deployment's). */
  readonly name: string;
  readonly groupName?: string;
  /** The reconcile queue's ARN and the role Scheduler assumes to send to it. */
  readonly queueArn: string;
  readonly roleArn: string;
  /** The BackupSchedule's object key: the message a fire sends names it. */
  readonly key: string;
  /** The IANA zone `spec.schedule` is read in (the deployment's `BACKUP_SCHEDULE_TIMEZONE`, default UTC). */
  readonly timeZone: string;
};

/** The last backup of another schedule of the same `backup-schedule-group` (§3.3 step 4). */
export type GroupMember = { readonly schedule: string; readonly lastBackup: string; readonly backup: Backup | undefined };

/**
 * One step's reads. `backups` are the Backups labelled as this schedule's (the log backup included);
 * `lastBackup` the one `status.lastBackup` names (undefined: none, or not found); `logBackup` is
 * `log-<name>` when a log template is set; `schedule` the EventBridge schedule as it is now.
 */
export type BackupScheduleSnapshot = {
  readonly nowMs: number;
  readonly bks: BackupSchedule | undefined;
  readonly backups: readonly Backup[];
  readonly lastBackup: Backup | undefined;
  readonly logBackup: Backup | undefined;
  readonly group: readonly GroupMember[];
  readonly schedule: ScheduleRequest | undefined;
  readonly target: ScheduleTarget;
  /** The CompactBackup `status.lastCompact` names, when compaction is configured (undefined: none, or gone). */
  readonly lastCompact?: CompactBackup;
  /** The CompactBackups labelled as this schedule's, when retention is configured (compact-retention.ts). */
  readonly compacts?: readonly CompactBackup[];
};

/** The step's pending writes, as stages add to them. */
export type ScheduleDraft = DraftLog & {
  finalizers: string[];
  status: BackupScheduleStatus;
  /** Backups created, updated (log truncation) and deleted; then the Scheduler calls. */
  readonly backupActions: Action[];
  readonly scheduleActions: Action[];
};

/** A fresh draft of the observed BackupSchedule. */
export function draftOf(bks: BackupSchedule): ScheduleDraft {
  return { ...emptyLog(), finalizers: [...(bks.metadata.finalizers ?? [])], status: { ...(bks.status ?? {}) }, backupActions: [], scheduleActions: [] };
}

export { eventOn, note } from '../engine/draft.js';

/** `<namespace>/<name>` of an object. */
export function nsName(obj: { readonly metadata: { readonly namespace?: string; readonly name?: string } }): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}
