import { describe, expect, it } from '@jest/globals';

import { kubeTime } from '../../../../lib/reconcile/backup/conditions.js';
import type { Backup } from '../../../../lib/reconcile/backup/types.js';
import { planBackupSchedule } from '../../../../lib/reconcile/backup-schedule/recipe.js';
import { tsoOf } from '../../../../lib/reconcile/backup-schedule/retention.js';
import { buildBackup } from '../../../../lib/reconcile/backup-schedule/sync.js';
import type { BackupSchedule } from '../../../../lib/reconcile/backup-schedule/types.js';
import type { ScheduleRequest } from '../../../../lib/timer/port.js';
import { backupOf, createdBackups, DAY, deletedBackups, HOUR, MIN, NOW, schedule, snapOf, summary, written } from './fixtures.js';

const YESTERDAY = kubeTime(NOW - DAY - HOUR);
/** The EventBridge schedule as the recipe wants it for `bks` (what a previous step put). */
const existing = (bks: BackupSchedule): ScheduleRequest => {
  const put = planBackupSchedule(snapOf(bks)).actions.find((a) => a.kind === 'schedule.put');
  if (put?.kind !== 'schedule.put') throw new Error('no put');
  return put.request;
};
const stable = (bks: BackupSchedule, more: Parameters<typeof snapOf>[1] = {}) => snapOf(bks, { schedule: existing(bks), ...more });

describe('the EventBridge schedule of a BackupSchedule', () => {
  it('is created with the converted cron, the deployment zone, ENABLED, targeting the reconcile queue with this key', () => {
    const plan = planBackupSchedule(snapOf(schedule({ schedule: '30 2 * * 1-5' }, { lastBackupTime: kubeTime(NOW) }), { target: { ...snapOf(undefined).target, timeZone: 'Asia/Shanghai' } }));
    const put = plan.actions.find((a) => a.kind === 'schedule.put');
    expect(put).toMatchObject({
      exists: false,
      request: {
        Name: 'sched-bs',
        GroupName: 'timers',
        ScheduleExpression: 'cron(30 2 ? * 2-6 *)',
        ScheduleExpressionTimezone: 'Asia/Shanghai',
        State: 'ENABLED',
        FlexibleTimeWindow: { Mode: 'OFF' },
        ActionAfterCompletion: 'NONE',
        Target: { Arn: 'arn:aws:sqs:us-east-1:1:q', RoleArn: 'arn:aws:iam::1:role/s', Input: JSON.stringify({ key: 'BackupSchedule:test/demo/bs', reason: 'cron:backup-schedule' }) },
      },
    });
  });

  it('is left alone when it already is as wanted (no Scheduler call between runs)', () => {
    const bks = schedule({}, { lastBackupTime: kubeTime(NOW) });
    expect(summary(planBackupSchedule(stable(bks)))).toEqual([]);
  });

  it('is updated when the cron changes, and DISABLED on pause', () => {
    const bks = schedule({}, { lastBackupTime: kubeTime(NOW) });
    const changed = planBackupSchedule(stable(bks, { bks: schedule({ schedule: '@hourly' }, { lastBackupTime: kubeTime(NOW) }) }));
    expect(summary(changed)).toEqual(['schedule.put cron(0 * * * ? *) ENABLED']);
    const paused = planBackupSchedule(stable(bks, { bks: schedule({ pause: true }, { lastBackupTime: kubeTime(NOW) }) }));
    expect(summary(paused)).toEqual(['schedule.put cron(0 0 * * ? *) DISABLED']);
  });

  it('is deleted before the finalizer goes when the BackupSchedule is deleted, and when it is gone without the finalizer', () => {
    const bks = schedule({}, {}, { deletionTimestamp: kubeTime(NOW) });
    const plan = planBackupSchedule(stable(schedule(), { bks }));
    expect(summary(plan)).toEqual(['schedule.delete sched-bs', 'update BackupSchedule bs']);
    expect(written(plan)?.metadata.finalizers).toEqual([]);
    expect(summary(planBackupSchedule(stable(schedule(), { bks: undefined })))).toEqual(['schedule.delete sched-bs']);
    expect(summary(planBackupSchedule(snapOf(undefined)))).toEqual([]);
  });

  it('a new BackupSchedule gets the finalizer', () => {
    const plan = planBackupSchedule(snapOf(schedule({}, { lastBackupTime: kubeTime(NOW) }, { finalizers: [] })));
    expect(written(plan)?.metadata.finalizers).toEqual(['tidb.pingcap.com/backup-schedule-protection']);
  });

  it('S09: an invalid cron is refused with v1\'s message, once-reported, terminal, and no schedule is left to fire', () => {
    const bks = schedule({ schedule: '#$#$#$@' });
    const plan = planBackupSchedule(snapOf(bks, { schedule: existing(schedule()) }));
    expect(plan.outcome).toEqual({ kind: 'fail', error: 'parse backup schedule demo/bs cron format #$#$#$@ failed, err: Expected exactly 5 fields, found 1: #$#$#$@', terminal: true });
    expect(summary(plan)).toEqual(['schedule.delete sched-bs', 'event InvalidSchedule bs']);
    expect(plan.actions.find((a) => a.kind === 'event')).toMatchObject({ type: 'Warning', once: true });
  });

  it('a cron EventBridge cannot express names spec.schedule', () => {
    const plan = planBackupSchedule(snapOf(schedule({ schedule: '0 0 1 * MON' })));
    expect(plan.outcome).toMatchObject({ kind: 'fail', terminal: true, error: expect.stringMatching(/^spec\.schedule of demo\/bs: 0 0 1 \* MON: restricts both day-of-month/) });
  });
});

describe('Sync (S01–S03, S08, S10–S12)', () => {
  it('S01: paused → "has been paused", nothing created; retention still runs', () => {
    const backups = [backupOf('a', NOW - 2 * DAY), backupOf('b', NOW - DAY)];
    const bks = schedule({ pause: true, maxBackups: 1 }, { lastBackupTime: YESTERDAY });
    const plan = planBackupSchedule(stable(bks, { backups }));
    expect(plan.outcome).toEqual({ kind: 'complete', message: 'backup schedule demo/bs has been paused' });
    expect(createdBackups(plan)).toEqual([]);
    expect(deletedBackups(plan)).toEqual(['a']);
  });

  it.each([
    { name: 'missing', last: undefined },
    { name: 'Complete', last: backupOf('prev', NOW - DAY - HOUR) },
    { name: 'Invalid', last: backupOf('prev', NOW - DAY - HOUR, 'Invalid') },
    { name: 'Scheduled and Failed', last: backupOf('prev', NOW - DAY - HOUR, 'Failed') },
  ])('S02: the last backup $name → the due slot runs', ({ last }) => {
    const bks = schedule({}, { lastBackup: 'prev', lastBackupTime: YESTERDAY });
    const plan = planBackupSchedule(stable(bks, { lastBackup: last, backups: last ? [last] : [] }));
    expect(createdBackups(plan).map((b) => b.metadata.name)).toEqual(['bs-2026-01-10t12-00-00']);
    expect(written(plan)?.status).toEqual({ lastBackup: 'bs-2026-01-10t12-00-00', lastBackupTime: kubeTime(NOW) });
  });

  it.each([
    { name: 'S03: only Failed=True (never Scheduled, as v1)', last: backupOf('prev', NOW - HOUR, 'FailedOnly') },
    { name: 'Running', last: backupOf('prev', NOW - HOUR, 'Running') },
  ])('$name → the slot waits: no overlap', ({ last }) => {
    const bks = schedule({}, { lastBackup: 'prev', lastBackupTime: YESTERDAY });
    const plan = planBackupSchedule(stable(bks, { lastBackup: last }));
    expect(plan.outcome).toEqual({ kind: 'retry', afterMs: 60_000, message: 'backup schedule demo/bs, the last backup prev is still running' });
    expect(createdBackups(plan)).toEqual([]);
  });

  it('a running Backup of the schedule blocks even when retention reset lastBackup (#4220)', () => {
    const bks = schedule({}, { lastBackup: '', allBackupCleanTime: YESTERDAY });
    const plan = planBackupSchedule(stable(bks, { backups: [backupOf('orphan', NOW - 13 * HOUR, 'Running')] }));
    expect(plan.outcome).toMatchObject({ kind: 'retry', message: 'backup schedule demo/bs, the last backup orphan is still running' });
  });

  it('S08: in a backup-schedule-group, another schedule\'s running backup blocks this one', () => {
    const bks = schedule({}, { lastBackupTime: YESTERDAY }, { labels: { 'tidb.pingcap.com/backup-schedule-group': 'group2' } });
    const group = [{ schedule: 'bs21', lastBackup: 'bs21_backupname', backup: backupOf('bs21_backupname', NOW - HOUR, 'Running') }];
    expect(planBackupSchedule(stable(bks, { group })).outcome).toMatchObject({ kind: 'retry', message: 'backup schedule demo/bs, the last backup bs21_backupname is still running' });
  });

  it('S10: lastBackupTime in the future → nothing (timestamp fallback)', () => {
    const plan = planBackupSchedule(stable(schedule({}, { lastBackupTime: kubeTime(NOW + DAY) })));
    expect(plan.outcome).toMatchObject({ kind: 'complete', message: expect.stringMatching(/timestamp fallback/) });
  });

  it.each([1, 2, 5, 10])('S11: lastBackupTime %i day(s) ago → one run for today 00:00, missed slots collapsed', (k) => {
    const plan = planBackupSchedule(stable(schedule({}, { lastBackupTime: kubeTime(NOW - k * DAY) })));
    expect(createdBackups(plan)).toHaveLength(1);
    expect(plan.ruleResults.at(-1)?.outcome).toMatchObject({ message: 'created bs-2026-01-10t12-00-00 for the slot 2026-01-10T00:00:00.000Z' });
  });

  it('S12: more than 1000 missed slots → lastBackupTime rewound one period, then the next step runs', () => {
    const bks = schedule({ schedule: '0 * * * *' }, { lastBackupTime: kubeTime(NOW - 10 * 365 * DAY) });
    const first = planBackupSchedule(stable(bks));
    expect(createdBackups(first)).toEqual([]);
    const rewound = written(first)?.status?.lastBackupTime;
    expect(rewound).toBe(kubeTime(NOW - HOUR));
    const second = planBackupSchedule(stable(bks, { bks: schedule({ schedule: '0 * * * *' }, { lastBackupTime: rewound }) }));
    expect(createdBackups(second)).toHaveLength(1);
  });

  it('a fire that comes a little early looks again at the slot instead of skipping it', () => {
    const plan = planBackupSchedule(stable(schedule({ schedule: '1 12 * * *' }, { lastBackupTime: kubeTime(NOW - 30 * MIN) })));
    expect(plan.outcome).toEqual({ kind: 'retry', afterMs: MIN, message: 'no slot since the last backup; the next slot is due shortly' });
  });

  it('a Backup made by a step whose status write was lost counts as the run', () => {
    const bks = schedule({}, { lastBackupTime: YESTERDAY });
    const plan = planBackupSchedule(stable(bks, { backups: [backupOf('bs-2026-01-10t00-00-01', Date.UTC(2026, 0, 10, 0, 0, 1))] }));
    expect(createdBackups(plan)).toEqual([]);
  });

  it('S04: a daily schedule stepped one day at a time for 10 days makes one Backup a day', () => {
    let bks = schedule({}, {}, { creationTimestamp: kubeTime(NOW - 10 * DAY - HOUR) });
    const backups: Backup[] = [];
    for (let day = 9; day >= 0; day--) {
      const now = NOW - day * DAY;
      const plan = planBackupSchedule({ ...stable(bks, { backups: [...backups] }), nowMs: now });
      for (const b of createdBackups(plan)) backups.push({ ...b, metadata: { ...b.metadata, creationTimestamp: kubeTime(now) }, status: { phase: 'Complete', commitTs: tsoOf(now + 10 * MIN), conditions: [{ type: 'Complete', status: 'True' }] } });
      bks = written(plan) ?? bks;
    }
    expect(backups.map((b) => b.metadata.name)).toHaveLength(10);
    expect(new Set(backups.map((b) => b.metadata.name)).size).toBe(10);
  });
});

describe('buildBackup (S13)', () => {
  it('a Dumpling template: named <bs>-<UTC now>, the schedule\'s labels and controller reference, storageSize 100Gi', () => {
    const b = buildBackup(schedule({ backupTemplate: { from: { host: 'h', secretName: 's' } } }, {}, { labels: { team: 'a' } }), NOW);
    expect(b.metadata).toMatchObject({
      name: 'bs-2026-01-10t12-00-00',
      labels: { 'app.kubernetes.io/name': 'backup-schedule', 'app.kubernetes.io/managed-by': 'backup-schedule-operator', 'app.kubernetes.io/instance': 'bs', 'tidb.pingcap.com/backup-schedule': 'bs', team: 'a' },
      ownerReferences: [{ apiVersion: 'pingcap.com/v1alpha1', kind: 'BackupSchedule', name: 'bs', uid: 'uid-bs', controller: true, blockOwnerDeletion: true }],
    });
    expect(b.spec?.storageSize).toBe('100Gi');
  });

  it('the schedule\'s storageSize and volume attributes class propagate to a Dumpling template', () => {
    const b = buildBackup(schedule({ storageSize: '9527G', volumeAttributesClassName: 'gold', backupTemplate: { from: { host: 'h' } } }), NOW);
    expect(b.spec).toMatchObject({ storageSize: '9527G', volumeAttributesClassName: 'gold' });
  });

  it('with br: storageSize stays unset, the template\'s class wins, the S3 prefix gets <cluster>-pd.<ns>-2379-<time>', () => {
    const b = buildBackup(schedule({ storageSize: '9527G', volumeAttributesClassName: 'gold', backupTemplate: { br: { cluster: 'basic' }, s3: { bucket: 'x', prefix: 'p/q' }, volumeAttributesClassName: 'silver' } as never }), NOW);
    expect(b.spec?.storageSize).toBeUndefined();
    expect((b.spec as Record<string, unknown>)['volumeAttributesClassName']).toBe('silver');
    expect(b.spec?.s3?.prefix).toBe('p/q/basic-pd.demo-2379-2026-01-10t12-00-00');
  });
});

describe('retention inside a step', () => {
  it('maxBackups never counts nor deletes the schedule\'s log backup (v1 does, §3.4)', () => {
    const log = { ...backupOf('log-bs', NOW - 20 * DAY), spec: { backupMode: 'log' } } as Backup;
    const backups = [log, backupOf('a', NOW - 2 * DAY), backupOf('b', NOW - DAY)];
    const plan = planBackupSchedule(stable(schedule({ maxBackups: 2 }, { lastBackupTime: kubeTime(NOW) }), { backups }));
    expect(deletedBackups(plan)).toEqual([]);
  });

  it('a step whose retention deletes every backup and makes a new one keeps lastBackup on the new one (#4220)', () => {
    const backups = [backupOf('f1', NOW - 2 * DAY, 'Failed'), backupOf('f2', NOW - DAY - HOUR, 'Failed')];
    const bks = schedule({ maxReservedTime: '1h' }, { lastBackup: 'f2', lastBackupTime: YESTERDAY });
    const plan = planBackupSchedule(stable(bks, { backups, lastBackup: backups[1] }));
    expect(deletedBackups(plan)).toEqual(['f1', 'f2']);
    expect(written(plan)?.status).toMatchObject({ lastBackup: 'bs-2026-01-10t12-00-00', lastBackupTime: kubeTime(NOW) });
    expect(written(plan)?.status?.allBackupCleanTime).toBeUndefined();
  });
});
