/**
 * The CompactBackup controller's recipe, as v1's `sync` (`pkg/controller/compactbackup/
 * compact_backup_controller.go` on release-1.6), one named stage a line:
 *   Validate   v1's checks and messages, then ours (br, S3, timestamps, TiKV ≥ v9.0); a fresh object
 *              becomes Scheduled, or Failed with the message — terminal, no retry storm
 *   Done       Complete and Failed need nothing
 *   Job        the Job named like the object: failed ⇒ Failed; running ⇒ the pod owns progress
 *              (Running, progress, endTs, Complete / RetryFailed); completed without the pod saying
 *              Complete ⇒ Failed (v1 would leave it Running forever)
 *   Retry      no Job: past maxRetryTimes ⇒ Failed; within the back-off ⇒ wake when it ends
 *   Create     build the Job (a build error is a RetryFailed record), create it ⇒ Prepare
 * The step writes the object once, after its Job write (no status subresource).
 */

import type { Action } from '../../model/action.js';
import type { Outcome } from '../../model/outcome.js';
import type { Plan } from '../../model/plan.js';
import { draftPlan, updateOf } from '../engine/draft.js';
import { jsonEqual } from '../engine/equal.js';
import { complete, fail, wait } from '../engine/outcome.js';
import { createJob } from '../backup/cleaner.js';
import { s3SecretProblem } from '../backup/env.js';
import { jobFailure } from '../backup/retry.js';
import { buildCompactJob, COMPACT_JOB_INSTANCE } from './job.js';
import { retryGate, withRetryRecord } from './retry.js';
import { compactEvent, draftOf, note, wakeAt, type CompactDraft, type CompactSnapshot } from './snapshot.js';
import type { CompactBackup } from './types.js';
import { compactVersionProblem, validateCompactSpec } from './validate.js';

/** v1's Event reason when the Job failed or the retries ran out (its literal text). */
export const JOB_FAILED_REASON = 'The compact job is failed.';

/** Plans one step of a CompactBackup. Pure: the same snapshot gives the same plan. */
export function planCompactBackup(snap: CompactSnapshot): Plan {
  const compact = snap.compact;
  if (compact === undefined) return { actions: [], status: undefined, outcome: complete('CompactBackup not found'), ruleResults: [] };
  const draft = draftOf(compact);
  const outcome = runStages(draft, snap, compact);
  return toPlan(draft, compact, outcome);
}

function runStages(draft: CompactDraft, snap: CompactSnapshot, compact: CompactBackup): Outcome {
  const invalid = validate(draft, snap, compact);
  if (invalid !== undefined) return invalid;
  const state = draft.status.state ?? '';
  if (state === 'Complete' || state === 'Failed') return note(draft, 'Done', complete(`compact ${state}`));
  const job = snap.job;
  if (job !== undefined) return planExistingJob(draft, snap, compact);
  const gate = retryGate(draft.status, compact.spec?.maxRetryTimes ?? 0, snap.nowMs);
  if (gate.kind === 'exhausted') return failCompact(draft, compact, 'create job failed, reached max retry times', 'Retry');
  if (gate.kind === 'backoff') {
    wakeAt(draft, gate.dueAtMs);
    return note(draft, 'Retry', wait(`backoff in effect until ${new Date(gate.dueAtMs).toISOString()}`));
  }
  return create(draft, snap, compact);
}

/** Validate: v1 writes Scheduled (or Failed with the message) only on a fresh object; an invalid one stops here. */
function validate(draft: CompactDraft, snap: CompactSnapshot, compact: CompactBackup): Outcome | undefined {
  const spec = compact.spec ?? {};
  const problem = validateCompactSpec(compact.metadata.namespace ?? '', compact.metadata.name ?? '', spec) ?? (snap.tc === undefined ? undefined : compactVersionProblem(spec, snap.tc));
  const fresh = (draft.status.state ?? '') === '';
  if (problem === undefined) {
    if (fresh) draft.status = { ...draft.status, state: 'Scheduled' };
    return undefined;
  }
  if (fresh) {
    draft.status = { ...draft.status, state: 'Failed', message: problem };
    draft.events.push(compactEvent(compact, 'Warning', 'InvalidSpec', problem));
  }
  return note(draft, 'Validate', fail(`invalid spec: ${problem}`, true));
}

/** The Job exists: v1's `checkJobStatus`. */
function planExistingJob(draft: CompactDraft, snap: CompactSnapshot, compact: CompactBackup): Outcome {
  const job = snap.job;
  const name = job?.metadata.name ?? '';
  const failure = jobFailure(job);
  if (failure !== undefined) {
    draft.status = { ...draft.status, state: 'Failed' };
    draft.events.push(compactEvent(compact, 'Warning', JOB_FAILED_REASON, failure.message));
    return note(draft, 'Job', complete(`Job ${name} failed: ${failure.reason}`));
  }
  const completed = (job?.status?.conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True');
  if (completed) {
    // Better than v1: a pod that exited 0 without writing Complete (its status write refused) would leave the state Running forever.
    return failCompact(draft, compact, `Job ${name} completed but its pod never reported the compaction Complete`, 'Job');
  }
  return note(draft, 'Job', wait(`Job ${name} is running`));
}

/** Create: build the Job (a build error is recorded as a retry, v1's `OnCreateJob(err)`), else create it and write Prepare. */
function create(draft: CompactDraft, snap: CompactSnapshot, compact: CompactBackup): Outcome {
  const ns = compact.metadata.namespace ?? '';
  const name = compact.metadata.name ?? '';
  const tc = snap.tc;
  const problem = buildProblem(snap, compact);
  if (problem !== undefined || tc === undefined) {
    const message = problem ?? '';
    draft.status = withRetryRecord(draft.status, message, snap.nowMs);
    // Come back when the next attempt is allowed (or, past maxRetryTimes, at once to fail it) — not on an echo of this write.
    const next = retryGate(draft.status, compact.spec?.maxRetryTimes ?? 0, snap.nowMs);
    wakeAt(draft, next.kind === 'backoff' ? next.dueAtMs : snap.nowMs);
    return note(draft, 'Create', wait(`cannot build Job ${name}: ${message}`));
  }
  draft.jobActions.push(createJob(buildCompactJob(compact, tc, snap.managerImage)));
  draft.events.push(compactEvent(compact, 'Normal', 'SuccessfulCreate', `create job ${ns}/${name} for cluster ${COMPACT_JOB_INSTANCE} compactbackup successful`));
  draft.status = { ...draft.status, state: 'Prepare' };
  return note(draft, 'Create', wait(`Job ${name} created`));
}

/** Why `makeCompactJob` fails, in v1's words: the S3 Secret (`GenerateStorageCertEnv`), then the TidbCluster lookup. */
function buildProblem(snap: CompactSnapshot, compact: CompactBackup): string | undefined {
  const ns = compact.metadata.namespace ?? '';
  const spec = compact.spec ?? {};
  const secret = s3SecretProblem(ns, spec.s3, snap.s3SecretKeys);
  if (secret !== undefined) return `compact ${ns}/${compact.metadata.name ?? ''}, ${secret.message}`;
  if (snap.tc === undefined) return `tidbcluster.pingcap.com "${spec.br?.cluster ?? ''}" not found`;
  return undefined;
}

/** v1's `OnJobFailed`: state Failed and a Warning Event; the message is kept (it holds the last failure), ours when there was none. */
function failCompact(draft: CompactDraft, compact: CompactBackup, why: string, rule: string): Outcome {
  draft.status = { ...draft.status, state: 'Failed', ...(draft.status.message ? {} : { message: why }) };
  draft.events.push(compactEvent(compact, 'Warning', JOB_FAILED_REASON, why));
  return note(draft, rule, complete(why));
}

/** The plan: the Job write, then the one write of the object when its status changed, then Events. */
function toPlan(draft: CompactDraft, compact: CompactBackup, outcome: Outcome): Plan {
  const writes: Action[] = [...draft.jobActions];
  if (!jsonEqual(draft.status, compact.status ?? {})) writes.push(updateOf('CompactBackup', compact, { ...compact, status: draft.status }));
  return draftPlan(draft, writes, outcome);
}
