/**
 * A snapshot Backup once valid (TiDB Operator v1's `pkg/backup/backup/backup_manager.go` `Sync`, steps 5–9, and `backup_controller.go`): a failed Job goes
 * through the backoff retry; a running Job owns progress (its pod writes Prepare → Running →
 * Complete/Failed); a finished Backup needs nothing; otherwise the `backup-<name>` Job is created and
 * the Backup marked `Scheduled`.
 */

import type { Outcome } from '../../model/outcome.js';
import { complete, retry, wait } from '../engine/outcome.js';
import { createJob, deleteJob, isJobFinished } from './cleaner.js';
import { hasCondition } from './conditions.js';
import { buildJob, tidbClientTls, tikvVersionOf, tlsArgs } from './job.js';
import { jobFailure, planJobFailure } from './retry.js';
import { backupEvent, note, setCondition, type BackupDraft, type BackupSnapshot } from './snapshot.js';
import type { Backup } from './types.js';

/** How soon a step looks again for a Job it deleted to be gone (foreground deletion takes a moment). */
export const JOB_GONE_RETRY_MS = 5_000;

/** Plans a snapshot Backup. */
export function planSnapshot(draft: BackupDraft, snap: BackupSnapshot, backup: Backup): Outcome {
  const name = backup.metadata.name ?? '';
  const jobName = `backup-${name}`;
  const job = snap.jobs[jobName];
  if (isFinished(draft)) return note(draft, 'Snapshot', complete(`backup ${draft.status.phase ?? ''}`));
  if (job !== undefined && job.metadata.deletionTimestamp !== undefined) return note(draft, 'Snapshot', retry(JOB_GONE_RETRY_MS, `Job ${jobName} is being deleted`));
  if (job !== undefined && jobFailure(job) !== undefined) {
    const decided = planJobFailure(draft, backup, job, snap.nowMs);
    if (decided.deleteJob) draft.jobActions.push(deleteJob(job));
    if (decided.done) return note(draft, 'JobFailure', complete('backup failed'));
    if (decided.deleteJob) return note(draft, 'JobFailure', retry(JOB_GONE_RETRY_MS, `retrying: Job ${jobName} deleted`));
    return note(draft, 'JobFailure', wait(`retry of Job ${jobName} due later`));
  }
  if (job !== undefined) {
    // As v1's skip: the Job pod owns progress; Job events bring the key back.
    return note(draft, 'Snapshot', isJobFinished(job) ? complete(`Job ${jobName} finished`) : wait(`Job ${jobName} is running`));
  }
  const client = tidbClientTls(snap.tc, backup.spec?.br?.cluster ?? '', backup.spec?.from);
  const args = ['backup', `--namespace=${backup.metadata.namespace ?? ''}`, `--backupName=${name}`, ...versionArg(snap), '--mode=snapshot', ...tlsArgs(snap.tc), ...client.args];
  const built = buildJob({ owner: backup, ownerKind: 'Backup', jobName, component: 'backup', container: 'backup', args, spec: backup.spec ?? {}, tc: snap.tc, managerImage: snap.managerImage, backoffLimit: 0, withBr: true, ...tidbSecretOf(backup), ...client.request });
  draft.jobActions.push(createJob(built));
  draft.events.push(backupEvent(backup, 'Normal', 'SuccessfulCreate', `create job ${jobName} for backup ${name} successful`));
  setCondition(draft, { type: 'Scheduled', status: 'True', reason: '', message: '' }, snap.nowMs);
  return note(draft, 'Snapshot', wait(`Job ${jobName} created`));
}

/** The TiDB password Secret of `from`, when set: the Job gets its `password` as BACKUP_MANAGER_PASSWORD (v1's GenerateTidbPasswordEnv). */
export function tidbSecretOf(backup: Backup): { tidbSecretName?: string } {
  const secret = backup.spec?.from?.secretName;
  return secret === undefined || secret === '' ? {} : { tidbSecretName: secret };
}

/** `--tikvVersion=<tag>` when the TiKV image has a tag (§1.6). */
export function versionArg(snap: BackupSnapshot): string[] {
  const tag = snap.tc ? tikvVersionOf(snap.tc) : '';
  return tag === '' ? [] : [`--tikvVersion=${tag}`];
}

function isFinished(draft: BackupDraft): boolean {
  return ['Complete', 'Failed', 'Invalid'].some((type) => hasCondition(draft.status, type));
}
