/**
 * A log Backup once valid (TiDB Operator v1's `pkg/backup/backup/backup_manager.go` `Sync`, steps 5–9, and `pkg/apis/pingcap/v1alpha1/backup.go`): resolve the sub-command;
 * skip it when already synced; a truncate already satisfied is written Complete at once; truncate,
 * stop and pause wait for start's `commitTs`; a Job of the same name still running is waited for, a
 * finished one deleted first; else the `backup-<name>-<subcommand>` Job is created. Unlike v1, a
 * failed stop / pause / truncate stays visible: the sub-command's Job failure is written Failed into
 * its sub-status (v1 hides it, §1.9), and the failed Job is kept — not re-run at every event — until a
 * person deletes it.
 */

import type { Outcome } from '../../model/outcome.js';
import { complete, retry, wait } from '../engine/outcome.js';
import { createJob, deleteJob, isJobFinished } from './cleaner.js';
import { kubeTime } from './conditions.js';
import { buildJob, tidbClientTls, tlsArgs } from './job.js';
import { isLogSynced, resolveLogSubcommand, withLogCondition, type LogSubcommand } from './log-subcommand.js';
import { jobFailure } from './retry.js';
import { tidbSecretOf, versionArg, JOB_GONE_RETRY_MS } from './snapshot-job.js';
import { backupEvent, note, type BackupDraft, type BackupSnapshot } from './snapshot.js';
import type { Backup } from './types.js';
import { parseTso } from './validate.js';

/** How soon a sub-command waiting for log-start's commitTs looks again. */
export const WAIT_FOR_START_MS = 10_000;

/** Plans a log Backup. */
export function planLog(draft: BackupDraft, snap: BackupSnapshot, backup: Backup): Outcome {
  const command = resolveLogSubcommand(backup);
  const name = backup.metadata.name ?? '';
  const jobName = `backup-${name}-${command}`;
  if (command !== 'log-truncate' && isLogSynced(backup, command)) return note(draft, 'Log', complete(`${command} already done`));
  if (command === 'log-truncate' && truncateSatisfied(backup)) {
    const until = backup.spec?.logTruncateUntil ?? '';
    draft.status = withLogCondition(draft.status, 'log-truncate', { type: 'Complete', status: 'True' }, snap.nowMs);
    const sub = draft.status.logSubCommandStatuses?.['log-truncate'] ?? {};
    draft.status = { ...draft.status, logSubCommandStatuses: { ...draft.status.logSubCommandStatuses, 'log-truncate': { ...sub, timeStarted: kubeTime(snap.nowMs), timeCompleted: kubeTime(snap.nowMs), logTruncatingUntil: until } } };
    return note(draft, 'Log', complete('truncate already satisfied'));
  }
  if (command !== 'log-start' && command !== 'log-resume' && (backup.status?.commitTs ?? '') === '') {
    return note(draft, 'Log', retry(WAIT_FOR_START_MS, `${command} waits for log-start to finish`));
  }
  const job = snap.jobs[jobName];
  if (job !== undefined) return planExistingJob(draft, snap, backup, command, job);
  const client = tidbClientTls(snap.tc, backup.spec?.br?.cluster ?? '', backup.spec?.from);
  const args = ['backup', `--namespace=${backup.metadata.namespace ?? ''}`, `--backupName=${name}`, ...versionArg(snap), '--mode=log', `--subcommand=${command}`, ...tsArgs(backup, command), ...tlsArgs(snap.tc), ...client.args];
  const built = buildJob({ owner: backup, ownerKind: 'Backup', jobName, component: 'backup', container: 'backup', args, spec: backup.spec ?? {}, tc: snap.tc, managerImage: snap.managerImage, backoffLimit: 0, withBr: true, ...tidbSecretOf(backup), ...client.request });
  draft.jobActions.push(createJob(built));
  draft.events.push(backupEvent(backup, 'Normal', 'SuccessfulCreate', `create job ${jobName} for backup ${name} successful`));
  draft.status = withLogCondition(draft.status, command, { type: 'Scheduled', status: 'True' }, snap.nowMs);
  if (command === 'log-truncate') {
    const sub = draft.status.logSubCommandStatuses?.['log-truncate'] ?? {};
    draft.status = { ...draft.status, logSubCommandStatuses: { ...draft.status.logSubCommandStatuses, 'log-truncate': { ...sub, logTruncatingUntil: backup.spec?.logTruncateUntil ?? '' } } };
  }
  return note(draft, 'Log', wait(`Job ${jobName} created`));
}

/** `waitPreTaskDone`: a Job being deleted → look again; failed → shown Failed and kept; finished → deleted; running → wait. */
function planExistingJob(draft: BackupDraft, snap: BackupSnapshot, backup: Backup, command: LogSubcommand, job: NonNullable<BackupSnapshot['jobs'][string]>): Outcome {
  const jobName = job.metadata.name ?? '';
  if (job.metadata.deletionTimestamp !== undefined) return note(draft, 'Log', retry(JOB_GONE_RETRY_MS, `Job ${jobName} is being deleted`));
  const failure = jobFailure(job);
  if (failure !== undefined) {
    // Kept, not re-run at every event (v1 deletes and re-creates it): deleting the Job runs it again.
    const subPhase = draft.status.logSubCommandStatuses?.[command]?.phase;
    const message = `Job ${jobName} has failed: ${failure.reason}`;
    if (subPhase !== 'Failed') {
      draft.status = withLogCondition(draft.status, command, { type: 'Failed', status: 'True', reason: 'AlreadyFailed', message }, snap.nowMs);
      draft.events.push(backupEvent(backup, 'Warning', 'AlreadyFailed', message));
    }
    return note(draft, 'Log', complete(`${message}; delete the Job to run ${command} again`));
  }
  if (isJobFinished(job)) {
    draft.jobActions.push(deleteJob(job));
    return note(draft, 'Log', retry(JOB_GONE_RETRY_MS, `finished Job ${jobName} deleted before running ${command} again`));
  }
  return note(draft, 'Log', wait(`Job ${jobName} is running`));
}

function tsArgs(backup: Backup, command: LogSubcommand): string[] {
  const spec = backup.spec ?? {};
  if (command === 'log-start' && (spec.commitTs ?? '') !== '') return [`--commit-ts=${spec.commitTs ?? ''}`];
  if (command === 'log-truncate') return [`--truncate-until=${spec.logTruncateUntil ?? ''}`];
  return [];
}

/** Truncate already satisfied: `spec.logTruncateUntil ≤ status.commitTs` or `≤ logSuccessTruncateUntil` (`:1130-1159`). */
function truncateSatisfied(backup: Backup): boolean {
  const until = parseTso(backup.spec?.logTruncateUntil ?? '');
  if (until === undefined) return false;
  const bound = (text: string | undefined) => (text === undefined || text === '' ? undefined : parseTso(text));
  const limits = [bound(backup.status?.commitTs), bound(backup.status?.logSuccessTruncateUntil)].filter((v): v is string => v !== undefined);
  return limits.some((limit) => BigInt(until) <= BigInt(limit));
}
