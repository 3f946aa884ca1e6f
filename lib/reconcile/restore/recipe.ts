/**
 * The Restore controller's recipe (BR mode, snapshot and PiTR), as v1's `syncRestoreJob`
 * (TiDB Operator v1's `pkg/controller/restore/restore_controller.go`, `pkg/backup/restore/restore_manager.go`), one named stage a line:
 *   Validate     TidbCluster present, spec (v1's messages), S3 Secret
 *   JobFailure   the `restore-<name>` Job failed → Failed `AlreadyFailed` (v1: no retry)
 *   Running      a Job exists → its pod owns progress
 *   FreshTarget  refuse a cluster that holds user tables unless the Restore allows it (v1 has no check)
 *   PitrGate     PiTR waits for TiKV `gc.ratio-threshold = -1`
 *   Job          create `restore-<name>`, mark Scheduled
 * The step writes the Restore once, after its Job write (no status subresource).
 */

import type { Action, EventAction } from '../../model/action.js';
import type { Outcome } from '../../model/outcome.js';
import type { Plan } from '../../model/plan.js';
import { createJob, isJobFinished } from '../backup/cleaner.js';
import { hasCondition, withCondition } from '../backup/conditions.js';
import { s3SecretProblem, tidbSecretProblem } from '../backup/env.js';
import { buildJob, tidbClientTls, tikvVersionOf, tlsArgs } from '../backup/job.js';
import { jobFailure } from '../backup/retry.js';
import type { BackupCondition, Restore, RestoreStatus } from '../backup/types.js';
import { validateRestore } from '../backup/validate.js';
import { draftPlan, emptyLog, eventOn, note, updateOf, type DraftLog } from '../engine/draft.js';
import { jsonEqual } from '../engine/equal.js';
import { complete, fail, retry, wait } from '../engine/outcome.js';
import { ALLOW_RESTORE_INTO_DATA, type RestoreSnapshot } from './snapshot.js';

/** How soon a PiTR Restore looks again at the TiKV config (v1: a rate-limited requeue). */
export const PITR_GATE_RETRY_MS = 15_000;
/** How soon a Restore asks again when the target's TiDB could not say whether it holds data. */
export const TARGET_UNKNOWN_RETRY_MS = 30_000;

type Draft = DraftLog & { status: RestoreStatus; readonly actions: Action[] };

/** Plans one step of a Restore. Pure. */
export function planRestore(snap: RestoreSnapshot): Plan {
  const restore = snap.restore;
  if (restore === undefined) return { actions: [], status: undefined, outcome: complete('Restore not found'), ruleResults: [] };
  const draft: Draft = { ...emptyLog(), status: { ...(restore.status ?? {}) }, actions: [] };
  const outcome = stages(draft, snap, restore);
  const writes = [...draft.actions];
  if (!jsonEqual(draft.status, restore.status ?? {})) writes.push(updateOf('Restore', restore, { ...restore, status: draft.status }));
  return draftPlan(draft, writes, outcome);
}

function stages(draft: Draft, snap: RestoreSnapshot, restore: Restore): Outcome {
  const ns = restore.metadata.namespace ?? '';
  const name = restore.metadata.name ?? '';
  const spec = restore.spec ?? {};
  if (['Complete', 'Failed', 'Invalid'].some((t) => hasCondition(draft.status, t))) return note(draft, 'Done', complete(`restore ${draft.status.phase ?? ''}`));
  if (spec.br === undefined) return invalid(draft, snap, restore, `Lightning restores (no spec.br) are not supported by this reconciler: set spec.br for BR, in spec of ${ns}/${name}`);
  if (snap.tc === undefined) {
    const reason = `failed to fetch tidbcluster ${spec.br.clusterNamespace || ns}/${spec.br.cluster ?? ''}`;
    if (!spec.br.cluster) return invalid(draft, snap, restore, validateRestore(ns, name, spec, 'latest') ?? reason);
    setCondition(draft, { type: 'RetryFailed', status: 'True', reason, message: reason }, snap.nowMs);
    return note(draft, 'Validate', fail(reason));
  }
  const problem = validateRestore(ns, name, spec, tikvVersionOf(snap.tc));
  if (problem !== undefined) return invalid(draft, snap, restore, problem);
  const jobName = `restore-${name}`;
  const job = snap.jobs[jobName];
  if (job !== undefined) return planExisting(draft, snap, restore, job);
  const secret = tidbSecretProblem(ns, name, spec.to?.secretName, snap.tidbSecretKeys) ?? s3SecretProblem(ns, spec.s3, snap.s3SecretKeys);
  if (secret !== undefined) {
    setCondition(draft, { type: 'RetryFailed', status: 'True', reason: secret.reason, message: secret.message }, snap.nowMs);
    return note(draft, 'Validate', fail(secret.message));
  }
  const fresh = freshTarget(draft, snap, restore);
  if (fresh !== undefined) return fresh;
  const pitr = spec.restoreMode === 'pitr';
  if (pitr && snap.tikvGcRatioThreshold !== -1) {
    const theirs = snap.tikvGcRatioThreshold === undefined ? 'unset' : String(snap.tikvGcRatioThreshold);
    return note(draft, 'PitrGate', retry(PITR_GATE_RETRY_MS, `config reset, waiting for configmap updated(wants = -1.0, theirs = ${theirs})`));
  }
  const mode = pitr ? ['--mode=pitr', `--pitrRestoredTs=${spec.pitrRestoredTs ?? ''}`] : ['--mode=snapshot'];
  const version = tikvVersionOf(snap.tc);
  const client = tidbClientTls(snap.tc, spec.br?.cluster ?? '', spec.to);
  const args = ['restore', `--namespace=${ns}`, `--restoreName=${name}`, ...(version === '' ? [] : [`--tikvVersion=${version}`]), ...mode, ...tlsArgs(snap.tc), ...client.args];
  const built = buildJob({ owner: restore, ownerKind: 'Restore', jobName, component: 'restore', container: 'restore', args, spec, tc: snap.tc, managerImage: snap.managerImage, backoffLimit: spec.backoffLimit ?? 0, withBr: true, ...(spec.to?.secretName ? { tidbSecretName: spec.to.secretName } : {}), ...client.request });
  draft.actions.push(createJob(built));
  draft.events.push(restoreEvent(restore, 'Normal', 'SuccessfulCreate', `create job ${jobName} for restore ${name} successful`));
  if (draft.status.phase !== 'Scheduled') setCondition(draft, { type: 'Scheduled', status: 'True', reason: '', message: '' }, snap.nowMs);
  return note(draft, 'Job', wait(`Job ${jobName} created`));
}

/** A Job exists: failed → Failed `AlreadyFailed` with the Job's reason (v1's handler, §2.2); else its pod owns progress. */
function planExisting(draft: Draft, snap: RestoreSnapshot, restore: Restore, job: NonNullable<RestoreSnapshot['jobs'][string]>): Outcome {
  const failure = jobFailure(job);
  const jobName = job.metadata.name ?? '';
  if (failure !== undefined) {
    const message = `Job ${jobName} has failed: ${failure.reason}`;
    setCondition(draft, { type: 'Failed', status: 'True', reason: 'AlreadyFailed', message }, snap.nowMs);
    draft.events.push(restoreEvent(restore, 'Warning', 'AlreadyFailed', message));
    return note(draft, 'JobFailure', complete('restore failed'));
  }
  return note(draft, 'Running', isJobFinished(job) ? complete(`Job ${jobName} finished`) : wait(`Job ${jobName} is running`));
}

/**
 * Refuses to restore into a cluster that holds user tables, unless the Restore carries
 * `ALLOW_RESTORE_INTO_DATA: "true"`: condition `Failed` reason `TargetClusterNotEmpty` and a Warning
 * Event (terminal: recreate the Restore to go on). A target that cannot be asked is asked again later.
 */
function freshTarget(draft: Draft, snap: RestoreSnapshot, restore: Restore): Outcome | undefined {
  if (restore.metadata.annotations?.[ALLOW_RESTORE_INTO_DATA] === 'true') return undefined;
  const data = snap.targetData;
  if (data.kind === 'empty') return undefined;
  if (data.kind === 'unknown') return note(draft, 'FreshTarget', retry(TARGET_UNKNOWN_RETRY_MS, `cannot tell whether the target cluster holds data: ${data.why}`));
  const shown = data.tables.slice(0, 5).join(', ') + (data.tables.length > 5 ? `, … (${data.tables.length} tables)` : '');
  const message = `refusing to restore into TidbCluster ${restore.spec?.br?.clusterNamespace || restore.metadata.namespace}/${restore.spec?.br?.cluster ?? ''}: it already holds user tables (${shown}); annotate the Restore ${ALLOW_RESTORE_INTO_DATA}: "true" to restore into it anyway`;
  setCondition(draft, { type: 'Failed', status: 'True', reason: 'TargetClusterNotEmpty', message }, snap.nowMs);
  draft.events.push(restoreEvent(restore, 'Warning', 'TargetClusterNotEmpty', message));
  return note(draft, 'FreshTarget', complete('refused: the target holds data'));
}

function invalid(draft: Draft, snap: RestoreSnapshot, restore: Restore, message: string): Outcome {
  if (!hasCondition(draft.status, 'Invalid')) draft.events.push(restoreEvent(restore, 'Warning', 'InvalidSpec', message));
  setCondition(draft, { type: 'Invalid', status: 'True', reason: 'InvalidSpec', message }, snap.nowMs);
  return note(draft, 'Validate', fail(`invalid spec: ${message}`, true));
}

function setCondition(draft: Draft, condition: Omit<BackupCondition, 'lastTransitionTime'>, nowMs: number): void {
  draft.status = withCondition(draft.status, condition, nowMs);
}

function restoreEvent(restore: Restore, type: 'Normal' | 'Warning', reason: string, message: string): EventAction {
  return eventOn('Restore', restore, type, reason, message);
}
