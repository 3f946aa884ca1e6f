/**
 * v1's `Sync` pieces (TiDB Operator v1's `pkg/backup/backupschedule/backup_schedule_manager.go`,
 * §3.3): which cron slot is due (`getLastScheduledTime`, with v1's missed-run handling — every slot
 * missed since the last run collapses into one run, made at `now`), whether the previous backup still
 * runs (`canPerformNextBackup`), and the Backups a schedule creates (`buildBackup`, `buildLogBackup`).
 * Slots are those of the EventBridge expression the schedule was converted to, in the deployment's
 * zone, so the reconciler and Scheduler agree on every minute.
 */

import { eventBridgeCron } from '../../timer/eventbridge-cron.js';
import type { KubeObject } from '../../model/kube.js';
import { hasCondition, kubeTime, parseKubeTime } from '../backup/conditions.js';
import type { Backup, BackupSpec } from '../backup/types.js';
import type { GroupMember } from './snapshot.js';
import type { BackupSchedule } from './types.js';

/** v1 gives up counting missed slots past this many (`:417-478`). */
export const MAX_MISSED_SLOTS = 1000;
/** The label that puts schedules in one group whose backups never overlap (§3.3 step 4). */
export const GROUP_LABEL = 'tidb.pingcap.com/backup-schedule-group';
/** The label naming the schedule a Backup was made by. */
export const SCHEDULE_LABEL = 'tidb.pingcap.com/backup-schedule';
/** Dumpling backups built by a schedule get this size when neither template nor schedule gives one. */
export const DEFAULT_STORAGE_SIZE = '100Gi';

/** What `getLastScheduledTime` found: a slot to run now, nothing due, or a status repair with its outcome. */
export type LastScheduled =
  | { readonly kind: 'due'; readonly slotMs: number }
  | { readonly kind: 'none'; readonly nextSlotMs: number | undefined; readonly why: string }
  | { readonly kind: 'refresh-clean-time'; readonly message: string }
  | { readonly kind: 'rewind'; readonly lastBackupTime: string; readonly message: string };

/**
 * `getLastScheduledTime`: `earliest = lastBackupTime ?? allBackupCleanTime ?? creationTimestamp`; in
 * the future → none; the slots in `(earliest, now]` — none → none; more than 1000 → with no
 * `lastBackupTime` but an `allBackupCleanTime`, refresh that to now (a schedule resumed from a long
 * pause), else set `lastBackupTime` to one period before now; otherwise the latest slot.
 */
export function lastScheduledTime(bks: BackupSchedule, expression: string, timeZone: string, nowMs: number): LastScheduled {
  const status = bks.status ?? {};
  const lastMs = parseKubeTime(status.lastBackupTime ?? undefined);
  const cleanMs = parseKubeTime(status.allBackupCleanTime ?? undefined);
  const earliest = lastMs ?? cleanMs ?? parseKubeTime(bks.metadata.creationTimestamp) ?? nowMs;
  const cron = eventBridgeCron(expression, timeZone);
  if (earliest > nowMs) return { kind: 'none', nextSlotMs: cron.nextRun(new Date(nowMs))?.getTime(), why: 'timestamp fallback: the last backup time is in the future' };
  let latest: number | undefined;
  let count = 0;
  let at = cron.nextRun(new Date(earliest));
  while (at !== null && at.getTime() <= nowMs) {
    latest = at.getTime();
    if (++count > MAX_MISSED_SLOTS) break;
    at = cron.nextRun(at);
  }
  if (latest === undefined) return { kind: 'none', nextSlotMs: at?.getTime(), why: 'no slot since the last backup' };
  if (count <= MAX_MISSED_SLOTS) return { kind: 'due', slotMs: latest };
  const name = `${bks.metadata.namespace ?? ''}/${bks.metadata.name ?? ''}`;
  if (lastMs === undefined && cleanMs !== undefined) {
    return { kind: 'refresh-clean-time', message: `recovery backup schedule ${name} from pause status, refresh AllBackupCleanTime.` };
  }
  const next = cron.nextRun(new Date(nowMs));
  const after = next === null ? null : cron.nextRun(next);
  const periodMs = next !== null && after !== null ? after.getTime() - next.getTime() : 0;
  return { kind: 'rewind', lastBackupTime: kubeTime(nowMs - periodMs), message: 'Too many missed start backup schedule time (> 1000). Check the clock.' };
}

/** Whether a Backup lets the next one start (v1: Complete, Scheduled∧Failed, Invalid; in a group Invalid does not). */
function allowsNext(backup: Backup, inGroup: boolean): boolean {
  const s = backup.status;
  if (hasCondition(s, 'Complete')) return true;
  if (hasCondition(s, 'Scheduled') && hasCondition(s, 'Failed')) return true;
  return !inGroup && hasCondition(s, 'Invalid');
}

/** Whether a Backup has finished one way or another (Complete, Failed, Invalid) or is being deleted. */
export function isFinished(backup: Backup): boolean {
  const s = backup.status;
  return backup.metadata.deletionTimestamp != null || hasCondition(s, 'Complete') || hasCondition(s, 'Failed') || hasCondition(s, 'Invalid');
}

/**
 * `canPerformNextBackup` (`:230-284`): undefined when the next backup may start, else v1's message.
 * In a `backup-schedule-group` every member's last backup is checked. Stricter than v1 (#4220): any
 * snapshot Backup of this schedule still running blocks too, even when retention reset `lastBackup`.
 */
export function runningBackup(bks: BackupSchedule, lastBackup: Backup | undefined, group: readonly GroupMember[], backups: readonly Backup[]): string | undefined {
  const self = `${bks.metadata.namespace ?? ''}/${bks.metadata.name ?? ''}`;
  const running = (name: string): string => `backup schedule ${self}, the last backup ${name} is still running`;
  if (bks.metadata.labels?.[GROUP_LABEL] !== undefined) {
    for (const member of group) if (member.backup !== undefined && !allowsNext(member.backup, true)) return running(member.lastBackup);
  } else if (lastBackup !== undefined && !allowsNext(lastBackup, false)) {
    return running(lastBackup.metadata.name ?? '');
  }
  const inFlight = backups.find((b) => (b.spec?.backupMode ?? 'snapshot') !== 'log' && !isFinished(b));
  return inFlight === undefined ? undefined : running(inFlight.metadata.name ?? '');
}

/** v1's backup name time format (`2006-01-02t15-04-05`, UTC, lower-case `t`). */
export function nameTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19).replace('T', 't').replaceAll(':', '-');
}

/** The labels, annotations and controller reference every Backup (and CompactBackup) of the schedule carries (§3.3 step 6). */
export function ownedMetadata(bks: BackupSchedule, name: string): KubeObject['metadata'] {
  const bsName = bks.metadata.name ?? '';
  const instance = bks.metadata.labels?.['app.kubernetes.io/instance'] ?? bsName;
  const labels = {
    'app.kubernetes.io/name': 'backup-schedule',
    'app.kubernetes.io/managed-by': 'backup-schedule-operator',
    'app.kubernetes.io/instance': instance,
    [SCHEDULE_LABEL]: bsName,
    ...(bks.metadata.labels ?? {}),
  };
  const owner = { apiVersion: 'pingcap.com/v1alpha1', kind: 'BackupSchedule', name: bsName, uid: bks.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
  return { name, namespace: bks.metadata.namespace ?? '', labels, ...(bks.metadata.annotations ? { annotations: { ...bks.metadata.annotations } } : {}), ownerReferences: [owner] };
}

/** `path.Join(prefix, part)` as Go cleans it for S3 prefixes. */
export function joinPrefix(prefix: string | undefined, part: string): string {
  return [...(prefix ?? '').split('/'), part].filter((s) => s !== '' && s !== '.').join('/');
}

/**
 * `buildBackup`: `<bs>-<UTC now>` with the schedule's labels, annotations and controller reference;
 * a BR template's S3 prefix gets `<cluster>-pd.<clusterNs>-2379-<time>`; a Dumpling template inherits
 * the schedule's storage class, volume attributes class and size (default 100Gi); the schedule's
 * `imagePullSecrets` win.
 */
export function buildBackup(bks: BackupSchedule, nowMs: number): Backup {
  const bsSpec = bks.spec ?? {};
  const template: BackupSpec & Record<string, unknown> = structuredClone((bsSpec.backupTemplate ?? {}) as BackupSpec & Record<string, unknown>);
  const time = nameTime(nowMs);
  let spec: Record<string, unknown> = template;
  if (template.br === undefined) {
    const fromSchedule = (field: 'storageClassName' | 'volumeAttributesClassName'): Record<string, unknown> => {
      const own = template[field];
      const theirs = bsSpec[field];
      return (own === undefined || own === '') && typeof theirs === 'string' && theirs !== '' ? { [field]: theirs } : {};
    };
    const size = template.storageSize ? {} : { storageSize: bsSpec.storageSize || DEFAULT_STORAGE_SIZE };
    spec = { ...spec, ...fromSchedule('storageClassName'), ...fromSchedule('volumeAttributesClassName'), ...size };
  } else if (template.s3 !== undefined) {
    const clusterNs = template.br.clusterNamespace || (bks.metadata.namespace ?? '');
    const part = `${template.br.cluster ?? ''}-pd.${clusterNs}-2379-${time}`;
    spec = { ...spec, s3: { ...template.s3, prefix: joinPrefix(template.s3.prefix, part) } };
  }
  if (bsSpec.imagePullSecrets !== undefined && bsSpec.imagePullSecrets !== null) spec = { ...spec, imagePullSecrets: bsSpec.imagePullSecrets };
  return { apiVersion: 'pingcap.com/v1alpha1', kind: 'Backup', metadata: ownedMetadata(bks, `${bks.metadata.name ?? ''}-${time}`), spec };
}

/** The name of a schedule's log backup. */
export function logBackupName(bks: BackupSchedule): string {
  return `log-${bks.metadata.name ?? ''}`;
}

/** `buildLogBackup`: `log-<bs>`, mode log, the S3 prefix extended by `log-<UTC now>`. */
export function buildLogBackup(bks: BackupSchedule, nowMs: number): Backup {
  const template = structuredClone(bks.spec?.logBackupTemplate ?? {});
  const s3 = template.s3 === undefined ? {} : { s3: { ...template.s3, prefix: joinPrefix(template.s3.prefix, `log-${nameTime(nowMs)}`) } };
  return { apiVersion: 'pingcap.com/v1alpha1', kind: 'Backup', metadata: ownedMetadata(bks, logBackupName(bks)), spec: { ...template, ...s3, backupMode: 'log' } };
}
