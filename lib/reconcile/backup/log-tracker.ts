/**
 * The log-backup checkpoint tracker, as TiDB Operator v1's `backup_tracker.go` (release-1.6) — but
 * kept in the Backup's own step instead of a goroutine per Backup in operator memory (lost at every
 * restart, #4745):
 *   Due        a started log backup (Running or Paused, not deleting) is read from PD's etcd once
 *              per `LOG_TRACK_INTERVAL_MS` (v1's `refreshCheckpointTsPeriod`, 1 min): the key's
 *              wake-up comes back for it, and the echo of the step's own write does not re-read
 *   Checkpoint while Running: `status.logCheckpointTs` and `timeSynced` (v1 writes both when the
 *              checkpoint is above 0)
 *   Kernel     when the current sub-command is done (v1's `SyncLogBackupState`): the task missing
 *              from PD ⇒ Failed `LogBackupTaskNotFound` (but for stop); paused by an error ⇒
 *              RetryFailed `LogBackupErrorPaused`; the kernel running while the Backup says paused
 *              (or the reverse) seen on two reads in a row for the same command ⇒ Complete of the
 *              kernel's command, `LogBackupKernelSync`. v1 keeps the "seen once" flag in memory;
 *              here it is the Backup's `tidb-reconciler/log-kernel-mismatch` annotation.
 *   Failure    a read that fails (PD down, timeout) is a Warning Event `LogBackupTrackFailed` and
 *              the next read one interval later — no status change, no retry storm (v1 only logs)
 */

import { complete, wait } from '../engine/outcome.js';
import type { Outcome } from '../../model/outcome.js';
import { kubeTime, parseKubeTime } from './conditions.js';
import { commandForKernel, isConsistentWithKernel, kernelStateOf, type LogKernelState } from './log-kernel.js';
import { isLogSynced, resolveLogSubcommand, withLogCondition } from './log-subcommand.js';
import { backupMode, isDeleting } from './policy.js';
import { backupEvent, note, wakeAt, type BackupDraft, type BackupSnapshot } from './snapshot.js';
import type { Backup } from './types.js';

/** How often a started log backup is read from PD (v1's `refreshCheckpointTsPeriod`). */
export const LOG_TRACK_INTERVAL_MS = 60_000;

/** The annotation remembering a kernel mismatch seen once, by the command it was seen for. */
export const KERNEL_MISMATCH_ANNOTATION = 'tidb-reconciler/log-kernel-mismatch';

/** What the step observed of the task in PD: not due yet, read, or the read failed. */
export type LogKernelObservation =
  | { readonly kind: 'notDue'; readonly dueAtMs: number }
  | { readonly kind: 'read'; readonly state: LogKernelState }
  | { readonly kind: 'failed'; readonly message: string };

/** Whether the tracker follows `backup`: a log backup that started (commitTs), Running or Paused, not being deleted. */
export function isTracked(backup: Backup): boolean {
  const phase = backup.status?.phase ?? '';
  return backupMode(backup) === 'log' && !isDeleting(backup) && (backup.status?.commitTs ?? '') !== '' && (phase === 'Running' || phase === 'Paused');
}

/**
 * When the tracker reads `backup` next: undefined when it is not tracked; at or before `nowMs` when
 * due. Not before one interval after `timeSynced`, nor before the key's stored wake-up while that is
 * still to come (a step woken by an event — such as the echo of the last write — waits for it).
 */
export function logTrackDueAtMs(backup: Backup, storedWakeAtMs: number | undefined, nowMs: number): number | undefined {
  if (!isTracked(backup)) return undefined;
  const synced = parseKubeTime(backup.status?.['timeSynced'] as string | undefined);
  const afterSync = synced === undefined ? nowMs : synced + LOG_TRACK_INTERVAL_MS;
  return storedWakeAtMs !== undefined && storedWakeAtMs > nowMs ? Math.max(afterSync, storedWakeAtMs) : afterSync;
}

/** Applies the observation to the draft; the outcome to combine with the rest, or undefined when nothing was observed. */
export function planLogTracking(draft: BackupDraft, snap: BackupSnapshot, backup: Backup): Outcome | undefined {
  const seen = snap.logKernel;
  if (seen === undefined) return undefined;
  switch (seen.kind) {
    case 'notDue':
      wakeAt(draft, seen.dueAtMs);
      return note(draft, 'Track', wait(`next checkpoint read at ${new Date(seen.dueAtMs).toISOString()}`));
    case 'failed': {
      wakeAt(draft, snap.nowMs + LOG_TRACK_INTERVAL_MS);
      const message = `read log backup ${backup.metadata.name ?? ''} from PD failed: ${seen.message}`;
      draft.events.push(backupEvent(backup, 'Warning', 'LogBackupTrackFailed', message));
      return note(draft, 'Track', wait(`${message}; read again in ${LOG_TRACK_INTERVAL_MS / 1000}s`));
    }
    case 'read':
      wakeAt(draft, snap.nowMs + LOG_TRACK_INTERVAL_MS);
      if ((backup.status?.phase ?? '') === 'Running' && seen.state.checkpointTs !== '0') {
        draft.status = { ...draft.status, logCheckpointTs: seen.state.checkpointTs, timeSynced: kubeTime(snap.nowMs) };
      }
      return note(draft, 'Track', syncKernel(draft, snap, backup, seen.state));
    default: {
      const never: never = seen;
      throw new TypeError(`unknown observation ${String(never)}`);
    }
  }
}

/** v1's `SyncLogBackupState`, run when the current sub-command (not a truncate) is done. */
function syncKernel(draft: BackupDraft, snap: BackupSnapshot, backup: Backup, state: LogKernelState): Outcome {
  const command = resolveLogSubcommand(backup);
  const checkpoint = `checkpoint ${state.checkpointTs}`;
  if (command === 'log-truncate' || command === 'log-unknown' || !isLogSynced(backup, command)) return complete(checkpoint);
  if (!state.infoExists) {
    if (command === 'log-stop') return complete(checkpoint);
    const message = 'Log backup task not found in TiKV, the task may have been deleted or cluster state is inconsistent';
    draft.status = withLogCondition(draft.status, command, { type: 'Failed', status: 'True', reason: 'LogBackupTaskNotFound', message }, snap.nowMs);
    draft.events.push(backupEvent(backup, 'Warning', 'LogBackupTaskNotFound', message));
    return complete(`${command}: ${message}`);
  }
  if (state.paused && state.pauseReason !== '' && state.pauseReason !== 'manual') {
    const message = `Log backup paused due to error: ${state.pauseReason}`;
    // Written once: a RetryFailed phase is no longer tracked, so this runs on the transition only.
    draft.events.push(backupEvent(backup, 'Warning', 'LogBackupErrorPaused', message));
    draft.status = { ...withLogCondition(draft.status, command, { type: 'RetryFailed', status: 'True', reason: 'LogBackupErrorPaused', message }, snap.nowMs), timeSynced: kubeTime(snap.nowMs) };
    return complete(message);
  }
  const kernel = kernelStateOf(state);
  const flagged = draft.annotations[KERNEL_MISMATCH_ANNOTATION];
  if (isConsistentWithKernel(command, kernel)) {
    if (flagged !== undefined) delete draft.annotations[KERNEL_MISMATCH_ANNOTATION];
    return complete(checkpoint);
  }
  if (flagged !== command) {
    // Seen once for this command: may be a lag between the Job's write and the kernel; look again next read.
    draft.annotations[KERNEL_MISMATCH_ANNOTATION] = command;
    return complete(`${command} but the kernel is ${kernel}: checked again at the next read`);
  }
  delete draft.annotations[KERNEL_MISMATCH_ANNOTATION];
  const actual = commandForKernel(kernel);
  draft.status = { ...withLogCondition(draft.status, actual, { type: 'Complete', status: 'True', reason: 'LogBackupKernelSync', message: `Synced with kernel state: ${kernel}` }, snap.nowMs), timeSynced: kubeTime(snap.nowMs) };
  return complete(`${command} but the kernel is ${kernel} again: ${actual} Complete`);
}
