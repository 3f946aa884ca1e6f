import { describe, expect, it } from '@jest/globals';

import { planRetention, tsoOf } from '../../../../lib/reconcile/backup-schedule/retention.js';
import { backupOf, DAY, HOUR, logBackupOf, MIN, NOW } from './fixtures.js';

/** Completed backups whose commitTs lie at the given offsets from NOW, oldest first. */
const completedAt = (...offsets: number[]) => offsets.map((o, i) => backupOf(`b${i}`, NOW + o - MIN, 'Complete', NOW + o));

describe('retention with a log backup, maxReservedTime 24h (S14–S19, v1 §3.7)', () => {
  it.each([
    { name: 'S14', at: [-10 * MIN], log: [undefined, undefined], deletes: 0, truncate: undefined },
    { name: 'S15', at: [-3 * DAY, -2 * DAY, -1 * DAY, -10 * MIN], log: [-10 * MIN, undefined], deletes: 1, truncate: undefined },
    { name: 'S16', at: [-3 * DAY, -1 * DAY], log: [-4 * DAY, -10 * MIN], deletes: 0, truncate: undefined },
    { name: 'S17', at: [-3 * DAY, -2 * DAY, -1 * DAY], log: [-1 * DAY, -10 * MIN], deletes: 1, truncate: undefined },
    { name: 'S18', at: [-4 * DAY, -3 * DAY, -2 * DAY, -1 * DAY], log: [-1 * DAY, -10 * MIN], deletes: 2, truncate: undefined },
    { name: 'S19', at: [-4 * DAY, -3 * DAY, -2 * DAY, -1 * DAY], log: [-3 * DAY, -10 * MIN], deletes: 2, truncate: tsoOf(NOW - 2 * DAY) },
  ])('$name: delete $deletes, truncate $truncate', ({ at, log, deletes, truncate }) => {
    const [start, checkpoint] = log as [number | undefined, number | undefined];
    const plan = planRetention({
      maxBackups: undefined,
      maxReservedTime: '24h',
      snapshots: completedAt(...at),
      logBackup: logBackupOf(start === undefined ? undefined : NOW + start, checkpoint === undefined ? undefined : NOW + checkpoint),
      nowMs: NOW,
    });
    expect(plan.deletes.map((b) => b.metadata.name)).toEqual(completedAt(...at).slice(0, deletes).map((b) => b.metadata.name));
    expect(plan.truncateUntil).toBe(truncate);
  });
});

describe('retention by count and by age (S05–S07)', () => {
  // Ten daily backups, each completed 10 minutes after creation (S04's outcome).
  const ten = Array.from({ length: 10 }, (_, i) => backupOf(`daily-${i}`, NOW - (9 - i) * DAY, 'Complete'));
  const kept = (deleted: readonly { metadata: { name?: string } }[]) => ten.length - deleted.length;

  it('S05: maxBackups 5 keeps 5', () => {
    expect(kept(planRetention({ maxBackups: 5, maxReservedTime: undefined, snapshots: ten, logBackup: undefined, nowMs: NOW }).deletes)).toBe(5);
  });

  it('S06: maxReservedTime 71h wins over maxBackups and keeps 3', () => {
    const plan = planRetention({ maxBackups: 5, maxReservedTime: '71h', snapshots: ten.slice(5), logBackup: undefined, nowMs: NOW });
    expect(plan.deletes.map((b) => b.metadata.name)).toEqual(['daily-5', 'daily-6']);
  });

  it('S07: with a log backup (commit now−72h, checkpoint now) and 23h, 2 snapshots remain, the log truncated to the kept boundary', () => {
    const three = ten.slice(7);
    const plan = planRetention({ maxBackups: undefined, maxReservedTime: '23h', snapshots: three, logBackup: logBackupOf(NOW - 72 * HOUR, NOW), nowMs: NOW });
    expect(plan.deletes.map((b) => b.metadata.name)).toEqual(['daily-7']);
    expect(plan.truncateUntil).toBe(tsoOf(NOW - DAY + 10 * MIN));
  });

  it('an unparsable maxReservedTime deletes nothing (v1 logs it and skips GC)', () => {
    expect(planRetention({ maxBackups: 1, maxReservedTime: '3 days', snapshots: ten, logBackup: undefined, nowMs: NOW })).toMatchObject({ deletes: [], why: 'invalid MaxReservedTime 3 days' });
  });
});

describe('retention is safer than v1 (§3.4, §7.3)', () => {
  it('maxBackups never deletes the newest Complete snapshot, even when newer backups all failed (v1 deletes it)', () => {
    const backups = [backupOf('good', NOW - 3 * DAY), backupOf('f1', NOW - 2 * DAY, 'Failed'), backupOf('f2', NOW - DAY, 'Failed')];
    const plan = planRetention({ maxBackups: 1, maxReservedTime: undefined, snapshots: backups, logBackup: undefined, nowMs: NOW });
    expect(plan.deletes.map((b) => b.metadata.name)).toEqual(['f1']);
  });

  it('maxReservedTime without a log backup keeps the newest Complete snapshot however old (v1 expires it and leaves none)', () => {
    const backups = [backupOf('old', NOW - 5 * DAY), backupOf('last-good', NOW - 4 * DAY), backupOf('failed', NOW - 3 * DAY, 'Failed')];
    const plan = planRetention({ maxBackups: undefined, maxReservedTime: '24h', snapshots: backups, logBackup: undefined, nowMs: NOW });
    expect(plan.deletes.map((b) => b.metadata.name)).toEqual(['old', 'failed']);
  });

  it('with a log backup the PiTR boundary is a Complete snapshot: a failed backup (commitTs 0) never becomes it (v1 would delete the Complete one before it)', () => {
    const backups = [backupOf('complete', NOW - 3 * DAY), backupOf('failed', NOW - 2 * DAY, 'Failed'), backupOf('recent', NOW - 10 * MIN)];
    const plan = planRetention({ maxBackups: undefined, maxReservedTime: '24h', snapshots: backups, logBackup: logBackupOf(NOW - 4 * DAY, NOW), nowMs: NOW });
    expect(plan.deletes).toEqual([]);
  });

  it('a Running backup is never deleted by age', () => {
    const backups = [backupOf('running', NOW - 3 * DAY, 'Running'), backupOf('recent', NOW - MIN)];
    expect(planRetention({ maxBackups: undefined, maxReservedTime: '1h', snapshots: backups, logBackup: undefined, nowMs: NOW }).deletes).toEqual([]);
  });
});
