/**
 * The Backup controller's recipe (BR mode), as v1's `UpdateBackup` + `backupManager.Sync`
 * (TiDB Operator v1's `pkg/controller/backup/backup_controller.go`, `pkg/backup/backup/backup_manager.go`), one named stage a line:
 *   Finalizer      add `backup-protection` to a clean candidate; remove it once cleaned
 *   Clean          a deleted Backup: stop its log task, clean its own data (cleaner.ts)
 *   Validate       sub-command, TidbCluster present and Ready, spec (v1's messages), S3 Secret
 *   JobFailure     a failed snapshot Job: backoff retry or Failed (retry.ts) — never Running forever
 *   Snapshot/Log   skip what is done or owned by a running Job, else create the Job (job.ts)
 *   Track          a started log backup: its checkpoint and kernel state from PD's etcd (log-tracker.ts)
 * The step writes the Backup once, after its Job writes (Backup has no status subresource).
 */

import type { Action } from '../../model/action.js';
import type { Outcome } from '../../model/outcome.js';
import type { Plan } from '../../model/plan.js';
import { combineOutcomes, complete, fail, retry, wait } from '../engine/outcome.js';
import { draftPlan, updateOf } from '../engine/draft.js';
import { jsonEqual } from '../engine/equal.js';
import { planClean } from './cleaner.js';
import { hasCondition } from './conditions.js';
import { s3SecretProblem, tidbSecretProblem } from './env.js';
import { tikvVersionOf } from './job.js';
import { resolveLogSubcommand } from './log-subcommand.js';
import { planLog } from './log-job.js';
import { planLogTracking } from './log-tracker.js';
import { BACKUP_PROTECTION_FINALIZER, backupMode, hasProtection, isBackupClean, isCleanCandidate, isDeleting } from './policy.js';
import { planSnapshot } from './snapshot-job.js';
import { backupEvent, draftOf, note, setCondition, type BackupDraft, type BackupSnapshot } from './snapshot.js';
import type { Backup } from './types.js';
import { validateBackup } from './validate.js';

/** How long a Backup waits for its TidbCluster to become Ready before looking again (v1: rate-limited requeue). */
export const TC_NOT_READY_RETRY_MS = 30_000;

/** Plans one step of a Backup. Pure: the same snapshot gives the same plan. */
export function planBackup(snap: BackupSnapshot): Plan {
  const backup = snap.backup;
  if (backup === undefined) return { actions: [], status: undefined, outcome: complete('Backup not found'), ruleResults: [] };
  const draft = draftOf(backup);
  const outcome = runStages(draft, snap, backup);
  return toPlan(draft, backup, outcome);
}

function runStages(draft: BackupDraft, snap: BackupSnapshot, backup: Backup): Outcome {
  if (isDeleting(backup)) return planDeletion(draft, snap, backup);
  if (isCleanCandidate(backup) && !hasProtection(backup)) {
    draft.finalizers.push(BACKUP_PROTECTION_FINALIZER);
    note(draft, 'Finalizer', complete('added'));
  }
  const invalid = validate(draft, snap, backup);
  if (invalid !== undefined) return invalid;
  if (backupMode(backup) !== 'log') return planSnapshot(draft, snap, backup);
  const log = planLog(draft, snap, backup);
  const tracked = planLogTracking(draft, snap, backup);
  return tracked === undefined ? log : combineOutcomes([log, tracked]);
}

/** As v1's `UpdateBackup` on a deleting Backup: clean while needed, then drop the finalizer. */
function planDeletion(draft: BackupDraft, snap: BackupSnapshot, backup: Backup): Outcome {
  if (!hasProtection(backup)) return note(draft, 'Clean', complete('no finalizer: nothing to clean'));
  if (!isCleanCandidate(backup) || isBackupClean({ ...backup, status: draft.status })) {
    draft.finalizers = draft.finalizers.filter((f) => f !== BACKUP_PROTECTION_FINALIZER);
    return note(draft, 'Finalizer', complete('cleaned: finalizer removed'));
  }
  const progress = planClean(draft, snap, backup);
  if (progress === 'wait') return note(draft, 'Clean', wait('waiting for the backup Jobs and the clean Job'));
  if (isBackupClean({ ...backup, status: draft.status })) {
    draft.finalizers = draft.finalizers.filter((f) => f !== BACKUP_PROTECTION_FINALIZER);
    return note(draft, 'Finalizer', complete('cleaned: finalizer removed'));
  }
  return note(draft, 'Clean', hasCondition(draft.status, 'CleanFailed') ? fail('clean failed: the finalizer stays', true) : wait('clean in progress'));
}

/** `validateBackup` (§1.4 step 3): an outcome when the Backup cannot go on, undefined when valid. */
function validate(draft: BackupDraft, snap: BackupSnapshot, backup: Backup): Outcome | undefined {
  const ns = backup.metadata.namespace ?? '';
  const name = backup.metadata.name ?? '';
  const spec = backup.spec ?? {};
  if (spec.br === undefined) return invalid(draft, snap, backup, validateDumpling(ns, name, spec) ?? `Dumpling backups (no spec.br) are not supported by this reconciler: set spec.br for BR, in spec of ${ns}/${name}`);
  if (backupMode(backup) === 'log' && resolveLogSubcommand(backup) === 'log-unknown') {
    const message = `log backup subcommand \`${spec.logSubcommand ?? ''}\` is not supported`;
    setCondition(draft, { type: 'RetryFailed', status: 'True', reason: message, message }, snap.nowMs);
    return note(draft, 'Validate', fail(message));
  }
  if (snap.tc === undefined) {
    const reason = `failed to fetch tidbcluster ${spec.br.clusterNamespace || ns}/${spec.br.cluster ?? ''}`;
    setCondition(draft, { type: 'RetryFailed', status: 'True', reason, message: reason }, snap.nowMs);
    return note(draft, 'Validate', fail(reason));
  }
  const problem = spec.br.cluster === undefined || spec.br.cluster === '' ? validateBackup(ns, name, spec, 'latest') : validateBackup(ns, name, spec, tikvVersionOf(snap.tc));
  if (problem !== undefined) return invalid(draft, snap, backup, problem);
  if (backupMode(backup) !== 'volume-snapshot' && !isReady(snap)) {
    return note(draft, 'Validate', retry(TC_NOT_READY_RETRY_MS, `waiting for TidbCluster ${spec.br.clusterNamespace || ns}/${spec.br.cluster} to be ready`));
  }
  const secret = tidbSecretProblem(ns, name, spec.from?.secretName, snap.tidbSecretKeys) ?? s3SecretProblem(ns, spec.s3, snap.s3SecretKeys);
  if (secret !== undefined) {
    setCondition(draft, { type: 'RetryFailed', status: 'True', reason: secret.reason, message: secret.message }, snap.nowMs);
    return note(draft, 'Validate', fail(secret.message));
  }
  return undefined;
}

/**
 * An invalid spec: condition `Invalid` reason `InvalidSpec` and one Warning Event, then a terminal
 * outcome (v1's Ignore): no retry until the Backup changes, so no retry storm and no Event storm.
 */
function invalid(draft: BackupDraft, snap: BackupSnapshot, backup: Backup, message: string): Outcome {
  if (!hasCondition(draft.status, 'Invalid')) draft.events.push(backupEvent(backup, 'Warning', 'InvalidSpec', message));
  setCondition(draft, { type: 'Invalid', status: 'True', reason: 'InvalidSpec', message }, snap.nowMs);
  return note(draft, 'Validate', fail(`invalid spec: ${message}`, true));
}

/** v1's Dumpling checks (§1.5), so an empty Backup gets v1's message before ours. */
function validateDumpling(ns: string, name: string, spec: NonNullable<Backup['spec']>): string | undefined {
  if (spec.from?.host === undefined || spec.from.host === '') return `missing cluster config in spec of ${ns}/${name}`;
  if (spec.from.secretName === undefined || spec.from.secretName === '') return `missing tidbSecretName config in spec of ${ns}/${name}`;
  if (spec.storageSize === undefined || spec.storageSize === '') return `missing StorageSize config in spec of ${ns}/${name}`;
  return undefined;
}

function isReady(snap: BackupSnapshot): boolean {
  const conditions = (snap.tc?.status?.conditions ?? []) as readonly { type?: string; status?: string }[];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The plan: the Job writes, then the one write of the Backup when it changed, then Events. */
function toPlan(draft: BackupDraft, backup: Backup, outcome: Outcome): Plan {
  const writes: Action[] = [...draft.jobActions];
  const changedFinalizers = !jsonEqual(draft.finalizers, backup.metadata.finalizers ?? []);
  const changedAnnotations = !jsonEqual(draft.annotations, backup.metadata.annotations ?? {});
  const changedStatus = !jsonEqual(draft.status, backup.status ?? {});
  if (changedFinalizers || changedAnnotations || changedStatus) {
    const annotations = changedAnnotations ? { annotations: draft.annotations } : {};
    writes.push(updateOf('Backup', backup, { ...backup, metadata: { ...backup.metadata, finalizers: draft.finalizers, ...annotations }, status: draft.status }));
  }
  return draftPlan(draft, writes, outcome);
}
