/**
 * BackupSchedule test objects: a schedule `demo/bs`, Backups of it made at given times (completed
 * with a commitTs, failed, running), and the step's snapshot around them.
 */
import type { Action } from '../../../../lib/model/action.js';
import type { Plan } from '../../../../lib/model/plan.js';
import { kubeTime } from '../../../../lib/reconcile/backup/conditions.js';
import type { Backup, BackupCondition } from '../../../../lib/reconcile/backup/types.js';
import { tsoOf } from '../../../../lib/reconcile/backup-schedule/retention.js';
import type { BackupScheduleSnapshot } from '../../../../lib/reconcile/backup-schedule/snapshot.js';
import type { BackupSchedule, BackupScheduleSpec, BackupScheduleStatus } from '../../../../lib/reconcile/backup-schedule/types.js';

/** A fixed now: 2026-01-10 12:00 UTC. */
export const NOW = Date.UTC(2026, 0, 10, 12, 0, 0);
export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;

/** A BR template to S3. */
export const TEMPLATE = { br: { cluster: 'basic' }, s3: { provider: 'aws', region: 'us-west-2', bucket: 'backups', prefix: 'sched' }, cleanPolicy: 'Delete' as const };

/** The schedule `demo/bs`, created 30 days before NOW. */
export function schedule(spec: BackupScheduleSpec = {}, status: BackupScheduleStatus = {}, metadata: Partial<BackupSchedule['metadata']> = {}): BackupSchedule {
  return {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'BackupSchedule',
    metadata: { name: 'bs', namespace: 'demo', uid: 'uid-bs', resourceVersion: '7', creationTimestamp: kubeTime(NOW - 30 * DAY), finalizers: ['tidb.pingcap.com/backup-schedule-protection'], ...metadata },
    spec: { schedule: '0 0 * * *', backupTemplate: TEMPLATE, ...spec },
    status,
  };
}

const conditions = (...types: string[]): BackupCondition[] => types.map((type) => ({ type, status: 'True' as const }));

/** A Backup of `bs` created at `createdMs`: `Complete` (commitTs `commitMs`, default created + 10 min), `Failed`, `Running`, … */
export function backupOf(name: string, createdMs: number, phase: 'Complete' | 'Failed' | 'Running' | 'Invalid' | 'FailedOnly' = 'Complete', commitMs = createdMs + 10 * MIN): Backup {
  const status =
    phase === 'Complete' ? { phase, commitTs: tsoOf(commitMs), conditions: conditions('Scheduled', 'Running', 'Complete') }
    : phase === 'Failed' ? { phase, conditions: conditions('Scheduled', 'Failed') }
    : phase === 'FailedOnly' ? { phase: 'Failed', conditions: conditions('Failed') }
    : phase === 'Invalid' ? { phase, conditions: conditions('Invalid') }
    : { phase, conditions: conditions('Scheduled', 'Running') };
  return {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'Backup',
    metadata: { name, namespace: 'demo', uid: `uid-${name}`, resourceVersion: '3', creationTimestamp: kubeTime(createdMs), labels: { 'app.kubernetes.io/instance': 'bs', 'tidb.pingcap.com/backup-schedule': 'bs' } },
    spec: { ...TEMPLATE },
    status,
  };
}

/** The log backup `log-bs`: started at `commitMs` (undefined: not started), checkpoint at `checkpointMs`. */
export function logBackupOf(commitMs: number | undefined, checkpointMs: number | undefined): Backup {
  const status = { phase: 'Running', ...(commitMs === undefined ? {} : { commitTs: tsoOf(commitMs) }), ...(checkpointMs === undefined ? {} : { logCheckpointTs: tsoOf(checkpointMs) }) };
  return { apiVersion: 'pingcap.com/v1alpha1', kind: 'Backup', metadata: { name: 'log-bs', namespace: 'demo', uid: 'uid-log', resourceVersion: '4', creationTimestamp: kubeTime(NOW - 20 * DAY) }, spec: { ...TEMPLATE, backupMode: 'log' }, status };
}

/** The step's snapshot: the schedule's EventBridge schedule exists as wanted unless `schedule` says otherwise. */
export function snapOf(bks: BackupSchedule | undefined, more: Partial<BackupScheduleSnapshot> = {}): BackupScheduleSnapshot {
  return {
    nowMs: NOW,
    bks,
    backups: [],
    lastBackup: undefined,
    logBackup: undefined,
    group: [],
    schedule: undefined,
    target: { name: 'sched-bs', groupName: 'timers', queueArn: 'arn:aws:sqs:us-east-1:1:q', roleArn: 'arn:aws:iam::1:role/s', key: 'BackupSchedule:test/demo/bs', timeZone: 'UTC' },
    ...more,
  };
}

/** The actions as `verb Kind name` lines. */
export function summary(plan: Plan): string[] {
  return plan.actions.map((a: Action) => {
    if (a.kind === 'event') return `event ${a.reason} ${a.object.name}`;
    if (a.kind === 'schedule.put') return `schedule.put ${a.request.ScheduleExpression} ${a.request.State ?? ''}`;
    if (a.kind === 'schedule.delete') return `schedule.delete ${a.name}`;
    return 'ref' in a ? `${a.kind} ${a.ref.kind} ${a.ref.name}` : a.kind;
  });
}

/** The BackupSchedule the plan writes back, if any. */
export function written(plan: Plan): BackupSchedule | undefined {
  const a = plan.actions.find((x) => x.kind === 'update' && x.ref.kind === 'BackupSchedule');
  return a && a.kind === 'update' ? (a.object as BackupSchedule) : undefined;
}

/** The Backups the plan creates. */
export function createdBackups(plan: Plan): Backup[] {
  return plan.actions.flatMap((a) => (a.kind === 'create' && a.ref.kind === 'Backup' ? [a.object as Backup] : []));
}

/** The Backups the plan deletes, by name. */
export function deletedBackups(plan: Plan): string[] {
  return plan.actions.flatMap((a) => (a.kind === 'delete' && a.ref.kind === 'Backup' ? [a.ref.name] : []));
}
