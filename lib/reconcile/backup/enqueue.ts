/**
 * Which Backup and Restore events are worth a step (TiDB Operator v1's `pkg/controller/backup/backup_controller.go`, `pkg/controller/restore/restore_controller.go`), as v1's event
 * handlers decide, adapted to a reconciler that also watches Jobs: the Job-failure detection v1 runs
 * inside its handler (§1.10) runs in the step here, reached through the Job's own events, so a Backup
 * event only needs a step when the controller has something to do.
 */

import { hasCondition } from './conditions.js';
import { backupMode, isDeleting } from './policy.js';
import type { Backup, Restore } from './types.js';

/**
 * Whether a Backup event enqueues (§1.3, in v1's order): deleting → yes; Invalid → no; a finished
 * snapshot (Complete) → no (a log backup keeps being reconciled); Failed → no; Scheduled, Running or
 * Prepare of a snapshot → no (its pod owns progress; its Job's events bring the key back); else yes.
 */
export function shouldEnqueueBackup(backup: Backup): boolean {
  if (isDeleting(backup)) return true;
  const status = backup.status;
  if (hasCondition(status, 'Invalid')) return false;
  const log = backupMode(backup) === 'log';
  if (!log && hasCondition(status, 'Complete')) return false;
  if (hasCondition(status, 'Failed') && (status?.phase === 'Failed' || !log)) return false;
  const phase = status?.phase ?? '';
  if (!log && ['Scheduled', 'Running', 'Prepare'].includes(phase)) return false;
  return true;
}

/**
 * Whether a Restore event enqueues (§2.2): Invalid, Prune* but PruneScheduled, Failed, Complete,
 * Scheduled and Running → no (the pod owns progress; the Job's events bring the key back); else yes.
 */
export function shouldEnqueueRestore(restore: Restore): boolean {
  const phase = restore.status?.phase ?? '';
  if (phase === 'PruneScheduled') return true;
  return !['Invalid', 'PruneComplete', 'PruneFailed', 'PruneRunning', 'Failed', 'Complete', 'Scheduled', 'Running'].includes(phase);
}
