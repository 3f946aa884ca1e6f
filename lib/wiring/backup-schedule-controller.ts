/**
 * The BackupSchedule controller as a deployment runs it: its reads (the BackupSchedule, its Backups
 * by v1's labels, its last and log Backups, the last Backups of its `backup-schedule-group`, and its
 * EventBridge schedule as Scheduler holds it) and the recipe (`lib/reconcile/backup-schedule/recipe.ts`)
 * to decide. Reads only; every Kubernetes call is bounded by the step's clients' deadline, every
 * Scheduler call by the adapter's.
 */

import type { ObjectReader } from '../kube/port.js';
import { planBackupSchedule } from '../reconcile/backup-schedule/recipe.js';
import type { BackupScheduleSnapshot, GroupMember, ScheduleTarget } from '../reconcile/backup-schedule/snapshot.js';
import { GROUP_LABEL, logBackupName, SCHEDULE_LABEL } from '../reconcile/backup-schedule/sync.js';
import type { BackupSchedule } from '../reconcile/backup-schedule/types.js';
import type { Backup } from '../reconcile/backup/types.js';
import type { CompactBackup } from '../reconcile/compact-backup/types.js';
import { observeWith, type Controller } from '../step/controller.js';
import type { SchedulerPort } from '../timer/port.js';
import { scheduleName } from '../timer/timers.js';

/** The timer kind a BackupSchedule's schedule name is derived from (with the object's key). */
export const BACKUP_SCHEDULE_TIMER = 'backup-schedule';

/** Where the deployment's schedules go and deliver (as its timers'), and the zone cron is read in. */
export type BackupScheduleControllerOptions = {
  readonly objects: ObjectReader;
  readonly scheduler: SchedulerPort;
  readonly target: { readonly queueArn: string; readonly schedulerRoleArn: string; readonly groupName?: string };
  readonly timeZone: string;
};

/** The BackupSchedule controller. */
export function backupScheduleController(options: BackupScheduleControllerOptions): Controller<BackupScheduleSnapshot> {
  return {
    kind: 'BackupSchedule',
    observe: (ctx) => observeWith(() => observeSchedule(options, ctx.key, ctx.ref.namespace, ctx.ref.name, () => ctx.ports.clock.nowMs())),
    decide: planBackupSchedule,
    subject: (snap) => ({ cluster: undefined, gone: snap.bks === undefined }),
  };
}

async function observeSchedule(options: BackupScheduleControllerOptions, key: string, ns: string, name: string, now: () => number): Promise<BackupScheduleSnapshot> {
  const { objects, scheduler } = options;
  const target: ScheduleTarget = {
    name: scheduleName(key, BACKUP_SCHEDULE_TIMER),
    ...(options.target.groupName === undefined ? {} : { groupName: options.target.groupName }),
    queueArn: options.target.queueArn,
    roleArn: options.target.schedulerRoleArn,
    key,
    timeZone: options.timeZone,
  };
  const [bks, schedule] = await Promise.all([objects.getObject('BackupSchedule', ns, name) as Promise<BackupSchedule | undefined>, scheduler.getSchedule(target.name, target.groupName)]);
  const empty = { backups: [], lastBackup: undefined, logBackup: undefined, group: [] };
  if (bks === undefined) return { nowMs: now(), bks, schedule, target, ...empty };
  const instance = bks.metadata.labels?.['app.kubernetes.io/instance'] ?? name;
  const lastName = bks.status?.lastBackup ?? '';
  const [backups, logBackup, group] = await Promise.all([
    objects.listObjects('Backup', ns, { 'app.kubernetes.io/instance': instance, [SCHEDULE_LABEL]: name }) as Promise<Backup[]>,
    bks.spec?.logBackupTemplate === undefined ? Promise.resolve(undefined) : (objects.getObject('Backup', ns, logBackupName(bks)) as Promise<Backup | undefined>),
    readGroup(objects, ns, bks),
  ]);
  const lastBackup = lastName === '' ? undefined : (backups.find((b) => b.metadata.name === lastName) ?? ((await objects.getObject('Backup', ns, lastName)) as Backup | undefined));
  const compactName = bks.spec?.compactBackupTemplate === undefined ? '' : (bks.status?.lastCompact ?? '');
  const lastCompact = compactName === '' ? undefined : ((await objects.getObject('CompactBackup', ns, compactName)) as CompactBackup | undefined);
  // Retention applies to the schedule's CompactBackups too (compact-retention.ts): listed only when a policy is set.
  const retains = (bks.spec?.maxReservedTime ?? '') !== '' || (bks.spec?.maxBackups ?? 0) > 0;
  const compacts = retains ? ((await objects.listObjects('CompactBackup', ns, { 'app.kubernetes.io/instance': instance, [SCHEDULE_LABEL]: name })) as CompactBackup[]) : undefined;
  return { nowMs: now(), bks, schedule, target, backups, lastBackup, logBackup, group, ...(lastCompact ? { lastCompact } : {}), ...(compacts ? { compacts } : {}) };
}

/** The last Backup of every schedule in this one's group (itself included), when it has a group. */
async function readGroup(objects: ObjectReader, ns: string, bks: BackupSchedule): Promise<GroupMember[]> {
  const group = bks.metadata.labels?.[GROUP_LABEL];
  if (group === undefined) return [];
  const members = (await objects.listObjects('BackupSchedule', ns, { [GROUP_LABEL]: group })) as BackupSchedule[];
  return Promise.all(
    members
      .filter((m) => (m.status?.lastBackup ?? '') !== '')
      .map(async (m) => {
        const lastBackup = m.status?.lastBackup ?? '';
        return { schedule: m.metadata.name ?? '', lastBackup, backup: (await objects.getObject('Backup', ns, lastBackup)) as Backup | undefined };
      }),
  );
}
