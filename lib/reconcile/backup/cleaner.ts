/**
 * Deleting a Backup (TiDB Operator v1's `pkg/backup/backup/backup_cleaner.go`): a log backup's kernel task is
 * stopped first (every policy); then, only for a clean candidate whose data is not retained, the
 * running backup Jobs are deleted and waited for, and one `clean-<name>` Job deletes the objects under
 * this Backup's own path. Safer than v1: a path that is a bucket root is never cleaned (it would
 * take every other backup in the bucket, §7.1 (a)) — `CleanFailed` says so and the finalizer stays
 * for a person to decide; a Backup that never wrote data is clean at once (#4778).
 */

import type { Action } from '../../model/action.js';
import { hasCondition } from './conditions.js';
import { s3BackupPath } from './env.js';
import { buildJob, tlsArgs } from './job.js';
import { withLogCondition } from './log-subcommand.js';
import { backupMode, needRetainData } from './policy.js';
import { backupEvent, setCondition, type BackupDraft, type BackupSnapshot } from './snapshot.js';
import type { Backup, Job } from './types.js';

/** What the cleaner decided: `wait` for a Job to finish or go, or `done` (nothing more to do now). */
export type CleanProgress = 'wait' | 'done';

/** Plans one step of the cleaner for a Backup being deleted that still holds its finalizer. */
export function planClean(draft: BackupDraft, snap: BackupSnapshot, backup: Backup): CleanProgress {
  if (backupMode(backup) === 'log' && stopLogBackup(draft, snap, backup) === 'wait') return 'wait';
  if (needRetainData(backup)) return 'done';
  const running = ensureJobsFinished(draft, snap, backup);
  if (running) return 'wait';
  const name = backup.metadata.name ?? '';
  if (snap.jobs[`clean-${name}`] !== undefined) return 'wait';
  const path = draft.status.backupPath ?? '';
  if (path === '') {
    setCondition(draft, { type: 'Clean', status: 'True', reason: '', message: '' }, snap.nowMs);
    return 'done';
  }
  if (isBucketRoot(path)) {
    if (hasCondition(draft.status, 'CleanFailed')) return 'done';
    const message = `refusing to clean ${path}: it is a bucket root, and every object of the bucket would go; delete the data by hand and remove the finalizer ${'tidb.pingcap.com/backup-protection'}`;
    setCondition(draft, { type: 'CleanFailed', status: 'True', reason: 'CleanRefusedBucketRoot', message }, snap.nowMs);
    draft.events.push(backupEvent(backup, 'Warning', 'CleanRefusedBucketRoot', message));
    return 'done';
  }
  const job = buildJob({ owner: backup, ownerKind: 'Backup', jobName: `clean-${name}`, component: 'clean', container: 'backup', args: [`clean`, `--namespace=${backup.metadata.namespace ?? ''}`, `--backupName=${name}`], spec: backup.spec ?? {}, tc: snap.tc, managerImage: snap.managerImage, backoffLimit: 6, withBr: false });
  draft.jobActions.push(createJob(job));
  draft.events.push(backupEvent(backup, 'Normal', 'SuccessfulCreate', `create job clean-${name} for backup ${name} successful`));
  setCondition(draft, { type: 'Clean', status: 'False', reason: '', message: '' }, snap.nowMs);
  return 'wait';
}

/** Whether an `s3://bucket[/prefix]` path names a whole bucket. */
export function isBucketRoot(path: string): boolean {
  const rest = path.replace(/^[a-z0-9]+:\/\//, '');
  const slash = rest.indexOf('/');
  return slash < 0 || rest.slice(slash + 1).replace(/\/+$/, '') === '';
}

/** The create action of a Job. */
export function createJob(job: ReturnType<typeof buildJob>): Action {
  return { kind: 'create', ref: { kind: 'Job', namespace: job.metadata.namespace ?? '', name: job.metadata.name ?? '' }, object: job };
}

/** The foreground delete of an observed Job (v1 deletes Jobs with `propagationPolicy=Foreground`). */
export function deleteJob(job: Job): Action {
  return { kind: 'delete', ref: { kind: 'Job', namespace: job.metadata.namespace ?? '', name: job.metadata.name ?? '' }, ...(job.metadata.uid ? { uid: job.metadata.uid } : {}), propagationPolicy: 'Foreground' };
}

/** Whether a Job has finished (a `Complete` or `Failed` condition True). */
export function isJobFinished(job: Job): boolean {
  return (job.status?.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

/** `ensureBackupJobFinished`: a running backup Job is deleted and waited for; one being deleted is waited for. */
function ensureJobsFinished(draft: BackupDraft, snap: BackupSnapshot, backup: Backup): boolean {
  const name = backup.metadata.name ?? '';
  const names = backupMode(backup) === 'log' ? [`backup-${name}-log-start`, `backup-${name}-log-stop`, `backup-${name}-log-truncate`, `stop-${name}`] : [`backup-${name}`];
  let running = false;
  for (const jobName of names) {
    const job = snap.jobs[jobName];
    if (job === undefined || isJobFinished(job)) continue;
    running = true;
    if (job.metadata.deletionTimestamp === undefined && !jobName.startsWith('stop-')) draft.jobActions.push(deleteJob(job));
  }
  return running;
}

/** `StopLogBackup`: never started → stop Complete; Stopped → nothing; `stop-<name>` exists → wait; else create it. */
function stopLogBackup(draft: BackupDraft, snap: BackupSnapshot, backup: Backup): CleanProgress {
  const name = backup.metadata.name ?? '';
  if ((draft.status.commitTs ?? '') === '') {
    if (draft.status.phase !== 'Stopped') draft.status = withLogCondition(draft.status, 'log-stop', { type: 'Complete', status: 'True' }, snap.nowMs);
    return 'done';
  }
  if (draft.status.phase === 'Stopped') return 'done';
  const existing = snap.jobs[`stop-${name}`];
  if (existing !== undefined) return isJobFinished(existing) ? 'done' : 'wait';
  const args = ['backup', `--namespace=${backup.metadata.namespace ?? ''}`, `--backupName=${name}`, '--mode=log', '--subcommand=log-stop', ...tlsArgs(snap.tc)];
  const job = buildJob({ owner: backup, ownerKind: 'Backup', jobName: `stop-${name}`, component: 'backup', container: 'backup', args, spec: backup.spec ?? {}, tc: snap.tc, managerImage: snap.managerImage, backoffLimit: 0, withBr: true });
  draft.jobActions.push(createJob(job));
  draft.status = withLogCondition(draft.status, 'log-stop', { type: 'Scheduled', status: 'True' }, snap.nowMs);
  return 'wait';
}

/** The path a Backup's data is under (what the clean Job will delete), for status. */
export function backupPathOf(backup: Backup): string | undefined {
  return backup.spec?.s3 ? s3BackupPath(backup.spec.s3) : undefined;
}
