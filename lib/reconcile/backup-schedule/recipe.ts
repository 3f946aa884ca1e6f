/**
 * The BackupSchedule controller's recipe, as v1's `backupScheduleManager.Sync`
 * (TiDB Operator v1's `pkg/backup/backupschedule/backup_schedule_manager.go`, §3.3), one named stage a line:
 *   Finalizer   hold the object until its EventBridge schedule is deleted; on deletion delete it, then let go
 *   Validate    `spec.schedule` (robfig's words for what v1 refuses) and what EventBridge cannot express
 *   Schedule    one EventBridge Scheduler schedule per BackupSchedule: the converted cron in the
 *               deployment's zone, ENABLED, or DISABLED while `pause` — created or updated as observed
 *   Retention   `maxReservedTime` / `maxBackups` (retention.ts), then the CompactBackups by the same
 *               policy (compact-retention.ts); runs on every step, paused or not
 *   Pause       `pause: true` → nothing more ("has been paused")
 *   LogBackup   create `log-<bs>` from `logBackupTemplate` once; read its checkpoint after
 *   Due         the latest cron slot since the last run (missed slots collapse into one run, at now)
 *   Running     a slot is due but the previous backup still runs → no new one; the slot waits
 *               (v1's Requeue) until that Backup finishes (its end wakes this key) — never overlapping
 *   Create      `<bs>-<UTC now>` from `backupTemplate`; `lastBackup`, `lastBackupTime`, `allBackupCleanTime`
 *   Compact     whatever the snapshot part decided (v1 defers it): `compact-<bs>-<UTC now>` of the log
 *               backup every `compactInterval`, never while the last one runs (compact.ts); woken when
 *               the next one may be due, or when the running one finishes
 * A step runs when the schedule fires (its target is the reconcile queue with this object's key), when
 * the object changes, when one of its Backups or CompactBackups finishes, and (with compaction) when
 * the next compaction may be due; nothing else polls between runs.
 */

import type { Action } from '../../model/action.js';
import type { Outcome } from '../../model/outcome.js';
import type { Plan } from '../../model/plan.js';
import type { ScheduleRequest } from '../../timer/port.js';
import { hasCondition, kubeTime, parseKubeTime } from '../backup/conditions.js';
import type { Backup } from '../backup/types.js';
import { jsonEqual } from '../engine/equal.js';
import { draftPlan, updateOf, wakeAt } from '../engine/draft.js';
import { planCompaction } from './compact.js';
import { planCompactRetention } from './compact-retention.js';
import { complete, fail, retry } from '../engine/outcome.js';
import { convertSchedule } from './cron.js';
import { planRetention, tsMs } from './retention.js';
import { draftOf, eventOn, note, nsName, type BackupScheduleSnapshot, type ScheduleDraft } from './snapshot.js';
import { buildBackup, buildLogBackup, lastScheduledTime, logBackupName, runningBackup } from './sync.js';
import type { BackupSchedule, BackupScheduleStatus } from './types.js';

/** The finalizer that keeps a BackupSchedule until its EventBridge schedule is deleted. */
export const SCHEDULE_FINALIZER = 'tidb.pingcap.com/backup-schedule-protection';
/** The reason a schedule's fire carries on the reconcile queue. */
export const FIRE_REASON = 'cron:backup-schedule';
/** How soon a slot blocked by a running backup is looked at again (v1's Requeue; the Backup's end wakes it sooner). */
export const BLOCKED_RETRY_MS = 60_000;
/** A fire that arrives this early (Scheduler's precision) is followed by a wake-up at the slot. */
export const EARLY_FIRE_WINDOW_MS = 90_000;

/** Plans one step of a BackupSchedule. Pure. */
export function planBackupSchedule(snap: BackupScheduleSnapshot): Plan {
  const bks = snap.bks;
  if (bks === undefined) {
    // Gone without our finalizer (removed by hand): its schedule must not outlive it.
    const actions: Action[] = snap.schedule === undefined ? [] : [deleteSchedule(snap)];
    return { actions, status: undefined, outcome: complete('BackupSchedule not found'), ruleResults: [] };
  }
  const draft = draftOf(bks);
  const outcome = stages(draft, snap, bks);
  return toPlan(draft, bks, outcome);
}

function stages(draft: ScheduleDraft, snap: BackupScheduleSnapshot, bks: BackupSchedule): Outcome {
  if (bks.metadata.deletionTimestamp != null) {
    if (snap.schedule !== undefined) draft.scheduleActions.push(deleteSchedule(snap));
    draft.finalizers = draft.finalizers.filter((f) => f !== SCHEDULE_FINALIZER);
    return note(draft, 'Finalizer', complete('schedule deleted: finalizer removed'));
  }
  if (!draft.finalizers.includes(SCHEDULE_FINALIZER)) draft.finalizers.push(SCHEDULE_FINALIZER);
  const spec = bks.spec ?? {};
  const converted = convertSchedule(spec.schedule ?? '');
  if (!converted.ok) {
    const message = converted.v1Refuses
      ? `parse backup schedule ${nsName(bks)} cron format ${spec.schedule ?? ''} failed, err: ${converted.message}`
      : `${converted.field} of ${nsName(bks)}: ${converted.message}`;
    if (snap.schedule !== undefined) draft.scheduleActions.push(deleteSchedule(snap));
    draft.events.push(eventOn('BackupSchedule', bks, 'Warning', 'InvalidSchedule', message, true));
    return note(draft, 'Validate', fail(message, true));
  }
  ensureSchedule(draft, snap, bks, converted.expression);
  retention(draft, snap, bks);
  if (spec.pause === true) return note(draft, 'Pause', complete(`backup schedule ${nsName(bks)} has been paused`));
  const log = logBackup(draft, snap, bks);
  if (log !== undefined) return log;
  const outcome = due(draft, snap, bks, converted.expression);
  // v1 defers the compaction: it runs whatever the snapshot part decided.
  compaction(draft, snap, bks);
  return outcome;
}

/** §3.6: a CompactBackup of the log backup when one is due (compact.ts); never while the last one runs. */
function compaction(draft: ScheduleDraft, snap: BackupScheduleSnapshot, bks: BackupSchedule): void {
  const checkpointMs = tsMs(snap.logBackup?.status?.['logCheckpointTs'] as string | undefined);
  const decision = planCompaction(bks, draft.status, snap.lastCompact, checkpointMs > 0 ? checkpointMs : undefined, snap.nowMs);
  if (decision === undefined) return;
  draft.status = decision.status;
  switch (decision.kind) {
    case 'create': {
      const compact = decision.compact;
      const ref = { kind: 'CompactBackup' as const, namespace: bks.metadata.namespace ?? '', name: compact.metadata.name ?? '' };
      draft.backupActions.push({ kind: 'create', ref, object: compact });
      draft.events.push(eventOn('CompactBackup', compact, 'Normal', 'SuccessfulCreate', `create CompactBackup ${nsName(compact)} for backupSchedule/${bks.metadata.name ?? ''} successful`));
      wakeAt(draft, decision.nextAtMs);
      note(draft, 'Compact', complete(`created ${ref.name} from ${compact.spec?.startTs ?? ''} to ${compact.spec?.endTs ?? ''}`));
      return;
    }
    case 'skip':
      if (decision.nextAtMs !== undefined) wakeAt(draft, decision.nextAtMs);
      note(draft, 'Compact', complete(decision.why));
      return;
    case 'invalid':
      draft.events.push(eventOn('BackupSchedule', bks, 'Warning', 'InvalidCompact', decision.message, true));
      note(draft, 'Compact', complete(`no compaction: ${decision.message}`));
      return;
    default: {
      const never: never = decision;
      throw new TypeError(`unknown compaction decision ${JSON.stringify(never)}`);
    }
  }
}

/** The schedule as it should be; a put when the observed one differs (or is missing). */
function ensureSchedule(draft: ScheduleDraft, snap: BackupScheduleSnapshot, bks: BackupSchedule, expression: string): void {
  const t = snap.target;
  const want: ScheduleRequest = {
    Name: t.name,
    ...(t.groupName === undefined ? {} : { GroupName: t.groupName }),
    Description: `tidb-reconciler: BackupSchedule ${nsName(bks)} (${bks.spec?.schedule ?? ''})`.slice(0, 512),
    ScheduleExpression: expression,
    ScheduleExpressionTimezone: t.timeZone,
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'NONE',
    State: bks.spec?.pause === true ? 'DISABLED' : 'ENABLED',
    Target: { Arn: t.queueArn, RoleArn: t.roleArn, Input: JSON.stringify({ key: t.key, reason: FIRE_REASON }) },
  };
  const have = snap.schedule;
  const same = have !== undefined && jsonEqual(comparable(have), comparable(want));
  if (same) return;
  draft.scheduleActions.push({ kind: 'schedule.put', request: want, exists: have !== undefined });
  note(draft, 'Schedule', complete(`${have === undefined ? 'create' : 'update'} ${expression} ${t.timeZone} ${want.State ?? ''}`));
}

function comparable(r: ScheduleRequest): unknown {
  return { e: r.ScheduleExpression, z: r.ScheduleExpressionTimezone, s: r.State ?? 'ENABLED', d: r.Description ?? '', t: r.Target, f: r.FlexibleTimeWindow.Mode };
}

function deleteSchedule(snap: BackupScheduleSnapshot): Action {
  return { kind: 'schedule.delete', name: snap.target.name, ...(snap.target.groupName === undefined ? {} : { groupName: snap.target.groupName }) };
}

/** Retention over the schedule's snapshot Backups (the log backup is never one). */
function retention(draft: ScheduleDraft, snap: BackupScheduleSnapshot, bks: BackupSchedule): void {
  const logName = logBackupName(bks);
  const snapshots = snap.backups.filter((b) => b.metadata.name !== logName && (b.spec?.backupMode ?? 'snapshot') !== 'log');
  const spec = bks.spec ?? {};
  const progressMs = parseKubeTime(draft.status.lastCompactProgress);
  const capMs = spec.compactBackupTemplate === undefined ? undefined : (progressMs ?? 0);
  const plan = planRetention({ maxBackups: spec.maxBackups, maxReservedTime: spec.maxReservedTime, snapshots, logBackup: snap.logBackup, nowMs: snap.nowMs, ...(capMs === undefined ? {} : { truncateCapMs: capMs }) });
  for (const b of plan.deletes) {
    draft.backupActions.push({ kind: 'delete', ref: { kind: 'Backup', namespace: b.metadata.namespace ?? '', name: b.metadata.name ?? '' }, ...(b.metadata.uid ? { uid: b.metadata.uid } : {}) });
    draft.events.push(eventOn('Backup', b, 'Normal', 'SuccessfulDelete', `delete Backup ${nsName(b)} for backupSchedule/${bks.metadata.name ?? ''} successful`));
  }
  const log = snap.logBackup;
  if (plan.truncateUntil !== undefined && log !== undefined && log.spec?.logTruncateUntil !== plan.truncateUntil) {
    const object = { ...log, spec: { ...log.spec, logTruncateUntil: plan.truncateUntil } };
    draft.backupActions.push({ kind: 'update', ref: { kind: 'Backup', namespace: log.metadata.namespace ?? '', name: log.metadata.name ?? '' }, object, resourceVersion: log.metadata.resourceVersion ?? '' });
    draft.events.push(eventOn('Backup', log, 'Normal', 'SuccessfulTruncate', `truncate log backup ${nsName(log)} until ${plan.truncateUntil} for backupSchedule/${bks.metadata.name ?? ''} successful`));
  }
  if (plan.allDeleted) draft.status = { ...omit(draft.status, 'lastBackupTime'), lastBackup: '', allBackupCleanTime: kubeTime(snap.nowMs) };
  if (plan.deletes.length > 0 || plan.truncateUntil !== undefined) note(draft, 'Retention', complete(plan.why));
  compactRetention(draft, snap, bks, snapshots.filter((b) => !plan.deletes.includes(b)));
}

/** The schedule's CompactBackups under the same policy (compact-retention.ts), keeping what the PiTR window uses. */
function compactRetention(draft: ScheduleDraft, snap: BackupScheduleSnapshot, bks: BackupSchedule, staying: readonly Backup[]): void {
  const spec = bks.spec ?? {};
  const commits = staying.filter((b) => hasCondition(b.status, 'Complete')).map((b) => tsMs(b.status?.commitTs)).filter((ms) => ms > 0);
  const plan = planCompactRetention({
    maxBackups: spec.maxBackups,
    maxReservedTime: spec.maxReservedTime,
    compacts: snap.compacts ?? [],
    hasLog: snap.logBackup !== undefined,
    neededFromMs: commits.length === 0 ? undefined : Math.min(...commits),
    nowMs: snap.nowMs,
  });
  for (const c of plan.deletes) {
    draft.backupActions.push({ kind: 'delete', ref: { kind: 'CompactBackup', namespace: c.metadata.namespace ?? '', name: c.metadata.name ?? '' }, ...(c.metadata.uid ? { uid: c.metadata.uid } : {}) });
    draft.events.push(eventOn('CompactBackup', c, 'Normal', 'SuccessfulDelete', `delete CompactBackup ${nsName(c)} for backupSchedule/${bks.metadata.name ?? ''} successful`));
  }
  if (plan.allDeleted) draft.status = { ...draft.status, lastCompact: '' };
  if (plan.deletes.length > 0) note(draft, 'Retention', complete(plan.why));
}

/** §3.3 step 2: the log backup, created once; its absence afterwards stops the snapshot part (v1's error). */
function logBackup(draft: ScheduleDraft, snap: BackupScheduleSnapshot, bks: BackupSchedule): Outcome | undefined {
  if (bks.spec?.logBackupTemplate === undefined) return undefined;
  const name = logBackupName(bks);
  if (!draft.status.logBackup) {
    if (snap.logBackup !== undefined) return note(draft, 'LogBackup', fail(`log backup ${bks.metadata.namespace ?? ''}/${name} already exists`));
    const backup = buildLogBackup(bks, snap.nowMs);
    draft.backupActions.push({ kind: 'create', ref: { kind: 'Backup', namespace: bks.metadata.namespace ?? '', name }, object: backup });
    draft.events.push(eventOn('Backup', backup, 'Normal', 'SuccessfulCreate', `create log Backup ${nsName(backup)} for backupSchedule/${bks.metadata.name ?? ''} successful`));
    draft.status = { ...draft.status, logBackup: name, logBackupStartTs: kubeTime(snap.nowMs) };
    note(draft, 'LogBackup', complete(`created ${name}`));
    return undefined;
  }
  if (snap.logBackup === undefined) return note(draft, 'LogBackup', fail(`log backup ${bks.metadata.namespace ?? ''}/${name} not found`));
  const checkpoint = snap.logBackup.status?.['logCheckpointTs'] as string | undefined;
  if (!draft.status.logBackupStartTs && checkpoint) draft.status = { ...draft.status, logBackupStartTs: kubeTime(tsMs(checkpoint)) };
  return undefined;
}

/** §3.3 steps 5–7: the due slot, run now; or nothing (a fire a little early looks again at the slot). */
function due(draft: ScheduleDraft, snap: BackupScheduleSnapshot, bks: BackupSchedule, expression: string): Outcome {
  // The newest Backup made counts as a run even if the status write that recorded it was lost.
  const newest = Math.max(0, ...snap.backups.filter((b) => b.metadata.name !== logBackupName(bks)).map((b) => parseKubeTime(b.metadata.creationTimestamp) ?? 0));
  const recorded = parseKubeTime(bks.status?.lastBackupTime ?? undefined) ?? 0;
  const view = newest > recorded ? { ...bks, status: { ...bks.status, lastBackupTime: kubeTime(newest) } } : bks;
  const last = lastScheduledTime(view, expression, snap.target.timeZone, snap.nowMs);
  switch (last.kind) {
    case 'none': {
      const soon = last.nextSlotMs !== undefined && last.nextSlotMs - snap.nowMs <= EARLY_FIRE_WINDOW_MS;
      return note(draft, 'Due', soon ? retry((last.nextSlotMs ?? snap.nowMs) - snap.nowMs, `${last.why}; the next slot is due shortly`) : complete(last.why));
    }
    case 'refresh-clean-time':
      draft.status = { ...draft.status, allBackupCleanTime: kubeTime(snap.nowMs) };
      return note(draft, 'Due', retry(1000, last.message));
    case 'rewind':
      draft.status = { ...draft.status, lastBackupTime: last.lastBackupTime };
      return note(draft, 'Due', complete(last.message));
    case 'due': {
      // Only a due slot asks whether the previous backup still runs: between runs nothing polls.
      const running = runningBackup(bks, snap.lastBackup, snap.group, snap.backups);
      if (running !== undefined) return note(draft, 'Running', retry(BLOCKED_RETRY_MS, running));
      return create(draft, snap, bks, last.slotMs);
    }
    default: {
      const never: never = last;
      throw new TypeError(`unknown slot result ${JSON.stringify(never)}`);
    }
  }
}

function create(draft: ScheduleDraft, snap: BackupScheduleSnapshot, bks: BackupSchedule, slotMs: number): Outcome {
  const backup: Backup = buildBackup(bks, snap.nowMs);
  const name = backup.metadata.name ?? '';
  draft.backupActions.push({ kind: 'create', ref: { kind: 'Backup', namespace: bks.metadata.namespace ?? '', name }, object: backup });
  draft.events.push(eventOn('Backup', backup, 'Normal', 'SuccessfulCreate', `create Backup ${nsName(backup)} for backupSchedule/${bks.metadata.name ?? ''} successful`));
  draft.status = { ...omit(draft.status, 'allBackupCleanTime'), lastBackup: name, lastBackupTime: kubeTime(snap.nowMs) };
  return note(draft, 'Create', complete(`created ${name} for the slot ${new Date(slotMs).toISOString()}`));
}

/** `status` without `field` (v1's `*metav1.Time` fields are omitted when nil, never null). */
function omit(status: BackupScheduleStatus, field: string): BackupScheduleStatus {
  const { [field]: _gone, ...rest } = status;
  return rest;
}

/** Backup writes, then the BackupSchedule's one write, then Scheduler calls and Events; on deletion the schedule goes first. */
function toPlan(draft: ScheduleDraft, bks: BackupSchedule, outcome: Outcome): Plan {
  const writes: Action[] = [];
  const status = draft.status;
  if (!jsonEqual(draft.finalizers, bks.metadata.finalizers ?? []) || !jsonEqual(status, bks.status ?? {})) {
    writes.push(updateOf('BackupSchedule', bks, { ...bks, metadata: { ...bks.metadata, finalizers: draft.finalizers }, status }));
  }
  const deleting = bks.metadata.deletionTimestamp != null;
  return draftPlan(draft, deleting ? [...draft.scheduleActions, ...writes] : [...draft.backupActions, ...writes, ...draft.scheduleActions], outcome);
}
