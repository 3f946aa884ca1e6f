/**
 * A snapshot backup whose Job failed (TiDB Operator v1's `backup_controller.go`). As v1's `backoffRetryPolicy`:
 * each failure is recorded in `status.backoffRetryStatus` (`retryNum`, `detectFailedAt`,
 * `expectedRetryAt = detect + minRetryDuration << n`), the retry is due at `expectedRetryAt` (the
 * key is woken then, not left to a 30 s resync), the old Job is deleted and a `Restart` condition
 * written, and the Backup fails `AlreadyFailed` past `maxRetryTimes` or `retryTimeout`. Better than v1:
 * without the field (v1 records nothing and leaves the Backup Running forever, §1.10) the Backup
 * fails at once with the Job's reason. Its state is the Backup's own status, so a restarted or
 * replaced reconciler resumes exactly where the last one stopped.
 */

import { kubeTime, parseKubeTime } from './conditions.js';
import { backupEvent, setCondition, wakeAt, type BackupDraft } from './snapshot.js';
import type { BackoffRetryRecord, Backup, Job } from './types.js';
import { parseGoDurationMs } from './validate.js';

/** The CRD defaults of `backoffRetryPolicy`, applied when the object is present (§1.1). */
export const RETRY_DEFAULTS = { minRetryDuration: '300s', maxRetryTimes: 2, retryTimeout: '30m' } as const;

/** The Job's `Failed=True` condition, when it has one. */
export function jobFailure(job: Job | undefined): { reason: string; message: string } | undefined {
  const failed = (job?.status?.conditions ?? []).find((c) => c.type === 'Failed' && c.status === 'True');
  return failed === undefined ? undefined : { reason: failed.reason ?? '', message: failed.message ?? '' };
}

/** What the retry rule decided: `deleteJob` when the old Job is to go now; `done` when the Backup ended Failed. */
export type RetryDecision = { readonly deleteJob: boolean; readonly done: boolean; readonly waiting: boolean };

/**
 * Handles a failed Job of a snapshot Backup not yet Complete/Failed/Invalid. Guarantees: the Backup
 * never stays Running on a failed Job; at most one record per failure; the old Job is deleted only
 * when a retry is due and never deleted otherwise.
 */
export function planJobFailure(draft: BackupDraft, backup: Backup, job: Job, nowMs: number): RetryDecision {
  const failure = jobFailure(job) ?? { reason: '', message: '' };
  const jobName = job.metadata.name ?? '';
  const policy = backup.spec?.backoffRetryPolicy;
  if (policy === undefined) return failNow(draft, backup, `Job ${jobName} has failed: ${failure.reason}`, nowMs);
  const minMs = parseGoDurationMs(policy.minRetryDuration || RETRY_DEFAULTS.minRetryDuration) ?? 300_000;
  const timeoutMs = parseGoDurationMs(policy.retryTimeout || RETRY_DEFAULTS.retryTimeout) ?? 1_800_000;
  const maxTimes = policy.maxRetryTimes ?? RETRY_DEFAULTS.maxRetryTimes;
  const records = [...(draft.status.backoffRetryStatus ?? [])];
  const latest = records[records.length - 1];
  if (draft.status.phase === 'RetryFailed') return restart(draft, records, nowMs);
  if (latest === undefined || latest.realRetryAt !== undefined) {
    const n = records.length;
    const record: BackoffRetryRecord = {
      retryNum: n + 1,
      detectFailedAt: kubeTime(nowMs),
      expectedRetryAt: kubeTime(nowMs + minMs * 2 ** n),
      retryReason: `Job ${jobName} has failed`,
      originalReason: failure.reason,
    };
    draft.status = { ...draft.status, backoffRetryStatus: [...records, record] };
    return checkDue(draft, [...records, record], { maxTimes, timeoutMs, policyText: policy.retryTimeout || RETRY_DEFAULTS.retryTimeout }, backup, nowMs);
  }
  return checkDue(draft, records, { maxTimes, timeoutMs, policyText: policy.retryTimeout || RETRY_DEFAULTS.retryTimeout }, backup, nowMs);
}

function checkDue(draft: BackupDraft, records: BackoffRetryRecord[], limits: { maxTimes: number; timeoutMs: number; policyText: string }, backup: Backup, nowMs: number): RetryDecision {
  const latest = records[records.length - 1];
  const first = parseKubeTime(records[0]?.detectFailedAt) ?? nowMs;
  if (latest === undefined) return { deleteJob: false, done: false, waiting: false };
  if (latest.retryNum > limits.maxTimes) return failNow(draft, backup, `exceed retry times, max is ${limits.maxTimes}, but got ${latest.retryNum}`, nowMs);
  if (nowMs - first > limits.timeoutMs) return failNow(draft, backup, `retry timeout, max is ${limits.policyText}`, nowMs);
  const dueAtMs = parseKubeTime(latest.expectedRetryAt) ?? nowMs;
  if (nowMs < dueAtMs) {
    wakeAt(draft, dueAtMs);
    return { deleteJob: false, done: false, waiting: true };
  }
  setCondition(draft, { type: 'RetryFailed', status: 'True', reason: 'RetryFailedBackup', message: `${latest.retryReason ?? ''}, retry ${latest.retryNum}` }, nowMs);
  return restart(draft, records, nowMs);
}

/** The retry is due: the old Job goes (foreground), `realRetryAt` and `Restart` are written. */
function restart(draft: BackupDraft, records: BackoffRetryRecord[], nowMs: number): RetryDecision {
  const latest = records[records.length - 1];
  if (latest !== undefined && latest.realRetryAt === undefined) {
    const updated = [...records.slice(0, -1), { ...latest, realRetryAt: kubeTime(nowMs) }];
    draft.status = { ...draft.status, backoffRetryStatus: updated };
  }
  setCondition(draft, { type: 'Restart', status: 'True', reason: 'RetryFailedBackup', message: 'the failed Job is deleted and the backup runs again' }, nowMs);
  return { deleteJob: true, done: false, waiting: false };
}

function failNow(draft: BackupDraft, backup: Backup, message: string, nowMs: number): RetryDecision {
  setCondition(draft, { type: 'Failed', status: 'True', reason: 'AlreadyFailed', message }, nowMs);
  draft.events.push(backupEvent(backup, 'Warning', 'AlreadyFailed', message));
  return { deleteJob: false, done: true, waiting: false };
}
