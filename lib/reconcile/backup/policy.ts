/**
 * v1's Backup predicates (TiDB Operator v1's `pkg/apis/pingcap/v1alpha1/backup.go:173-323`): which backups get the
 * `tidb.pingcap.com/backup-protection` finalizer, which must keep their data, and when a deleted
 * Backup counts as cleaned.
 */

import { hasCondition } from './conditions.js';
import type { Backup } from './types.js';

/** The finalizer that holds a Backup until its data is cleaned (§1.3). */
export const BACKUP_PROTECTION_FINALIZER = 'tidb.pingcap.com/backup-protection';

/** The mode, `snapshot` when unset (the CRD default). */
export function backupMode(backup: Backup): string {
  return backup.spec?.backupMode || 'snapshot';
}

/** The clean policy, `Retain` when unset (the CRD default; §7.1: keep Retain the default). */
export function cleanPolicy(backup: Backup): string {
  return backup.spec?.cleanPolicy || 'Retain';
}

/** `IsCleanCandidate`: a log backup, or a policy of Delete / OnFailure. */
export function isCleanCandidate(backup: Backup): boolean {
  const policy = cleanPolicy(backup);
  return backupMode(backup) === 'log' || policy === 'Delete' || policy === 'OnFailure';
}

/** `NeedRetainData`: policy Retain, or OnFailure on a backup that did not fail. */
export function needRetainData(backup: Backup): boolean {
  const policy = cleanPolicy(backup);
  return policy === 'Retain' || (policy === 'OnFailure' && !hasCondition(backup.status, 'Failed'));
}

/**
 * `IsBackupClean`: never while a log backup is on track (Scheduled, Prepare, Running, Paused); always
 * when its data is retained; else once condition `Clean` is True.
 */
export function isBackupClean(backup: Backup): boolean {
  const phase = backup.status?.phase ?? '';
  if (backupMode(backup) === 'log' && ['Scheduled', 'Prepare', 'Running', 'Paused'].includes(phase)) return false;
  if (needRetainData(backup)) return true;
  return hasCondition(backup.status, 'Clean');
}

/** Whether the Backup is being deleted. */
export function isDeleting(backup: Backup): boolean {
  return backup.metadata.deletionTimestamp !== undefined && backup.metadata.deletionTimestamp !== null;
}

/** Whether the Backup holds the protection finalizer. */
export function hasProtection(backup: Backup): boolean {
  return (backup.metadata.finalizers ?? []).includes(BACKUP_PROTECTION_FINALIZER);
}
