/**
 * Retention of a schedule's CompactBackups (compact-retention.ts): v1's compactGCByMaxReservedTime /
 * compactGCByMaxBackups, never a compaction still running nor one the PiTR window uses; the log
 * never truncated past the compaction's progress; and the recipe's deletes and `lastCompact` reset.
 */
import { describe, expect, it } from '@jest/globals';

import { kubeTime } from '../../../../lib/reconcile/backup/conditions.js';
import { planBackupSchedule } from '../../../../lib/reconcile/backup-schedule/recipe.js';
import { planCompactRetention } from '../../../../lib/reconcile/backup-schedule/compact-retention.js';
import { planRetention, tsoOf } from '../../../../lib/reconcile/backup-schedule/retention.js';
import type { CompactBackup } from '../../../../lib/reconcile/compact-backup/types.js';
import { backupOf, DAY, HOUR, logBackupOf, MIN, NOW, schedule, snapOf } from './fixtures.js';

/** `compact-<name>` of `bs`, created at `createdMs`, covering [start, end] (UTC datetimes, as v1 writes them), in `state`. */
function compactOf(name: string, createdMs: number, endMs: number, state = 'Complete'): CompactBackup {
  const utc = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
  return {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'CompactBackup',
    metadata: { name, namespace: 'demo', uid: `uid-${name}`, creationTimestamp: kubeTime(createdMs), labels: { 'app.kubernetes.io/instance': 'bs', 'tidb.pingcap.com/backup-schedule': 'bs' } },
    spec: { startTs: utc(endMs - 3 * HOUR), endTs: utc(endMs) },
    status: { state },
  };
}

/** Compactions ending at the given offsets from NOW (created just after they end), oldest first. */
const endingAt = (...offsets: number[]): CompactBackup[] => offsets.map((o, i) => compactOf(`c${i}`, NOW + o + MIN, NOW + o));
const names = (list: readonly { metadata: { name?: string } }[]): string[] => list.map((c) => c.metadata.name ?? '');

describe('CompactBackup retention', () => {
  it.each([
    { name: 'maxReservedTime: the leading ones that ended before now − 24h (v1)', input: { maxReservedTime: '24h', compacts: endingAt(-3 * DAY, -2 * DAY, -1 * DAY - HOUR, -2 * HOUR), hasLog: false, neededFromMs: undefined }, deletes: ['c0', 'c1', 'c2'], all: false },
    { name: 'maxReservedTime: a running one stops the prefix (v1)', input: { maxReservedTime: '24h', compacts: [compactOf('c0', NOW - 3 * DAY, NOW - 3 * DAY, 'Running'), ...endingAt(-2 * DAY).map((c) => ({ ...c, metadata: { ...c.metadata, name: 'c1' } }))], hasLog: false, neededFromMs: undefined }, deletes: [], all: false },
    { name: 'maxReservedTime: every one expired — all deleted', input: { maxReservedTime: '24h', compacts: endingAt(-3 * DAY, -2 * DAY), hasLog: false, neededFromMs: undefined }, deletes: ['c0', 'c1'], all: true },
    { name: 'maxReservedTime with a log: one ending after the oldest snapshot kept stays, and stops the prefix', input: { maxReservedTime: '24h', compacts: endingAt(-4 * DAY, -3 * DAY, -2 * DAY), hasLog: true, neededFromMs: NOW - 3 * DAY - HOUR }, deletes: ['c0'], all: false },
    { name: 'maxReservedTime with a log but no Complete snapshot left: every Complete compaction stays', input: { maxReservedTime: '24h', compacts: endingAt(-4 * DAY, -3 * DAY), hasLog: true, neededFromMs: undefined }, deletes: [], all: false },
    { name: 'maxReservedTime with a log: a Failed compaction is no restore\'s', input: { maxReservedTime: '24h', compacts: [compactOf('c0', NOW - 2 * DAY, NOW - 2 * DAY, 'Failed')], hasLog: true, neededFromMs: undefined }, deletes: ['c0'], all: true },
    { name: 'maxBackups 2: beyond the newest two (v1)', input: { maxBackups: 2, compacts: endingAt(-4 * DAY, -3 * DAY, -2 * DAY, -1 * DAY), hasLog: false, neededFromMs: undefined }, deletes: ['c1', 'c0'], all: false },
    { name: 'maxBackups 1: never one still running (v1 deletes it)', input: { maxBackups: 1, compacts: [compactOf('c0', NOW - 2 * DAY, NOW - 2 * DAY, 'Running'), ...endingAt(-1 * DAY).map((c) => ({ ...c, metadata: { ...c.metadata, name: 'c1' } }))], hasLog: false, neededFromMs: undefined }, deletes: [], all: false },
    { name: 'maxBackups 1 with a log: only those ending at or before the oldest snapshot kept', input: { maxBackups: 1, compacts: endingAt(-4 * DAY, -3 * DAY, -2 * DAY), hasLog: true, neededFromMs: NOW - 3 * DAY }, deletes: ['c1', 'c0'], all: false },
    { name: 'maxReservedTime wins over maxBackups', input: { maxBackups: 1, maxReservedTime: '240h', compacts: endingAt(-4 * DAY, -3 * DAY), hasLog: false, neededFromMs: undefined }, deletes: [], all: false },
    { name: 'no policy: nothing', input: { compacts: endingAt(-40 * DAY), hasLog: false, neededFromMs: undefined }, deletes: [], all: false },
    { name: 'an unparsable maxReservedTime: nothing', input: { maxReservedTime: '1 day', compacts: endingAt(-40 * DAY), hasLog: false, neededFromMs: undefined }, deletes: [], all: false },
  ])('$name', ({ input, deletes, all }) => {
    // Act
    const plan = planCompactRetention({ maxBackups: undefined, maxReservedTime: undefined, nowMs: NOW, ...input });

    // Assert
    expect(names(plan.deletes)).toEqual(deletes);
    expect(plan.allDeleted).toBe(all);
  });
});

describe('log truncation capped by the compaction progress (v1 backupGCByMaxReservedTime)', () => {
  const snapshots = [-4 * DAY, -3 * DAY, -2 * DAY, -1 * DAY].map((o, i) => backupOf(`b${i}`, NOW + o - MIN, 'Complete', NOW + o));
  const log = logBackupOf(NOW - 3 * DAY - HOUR, NOW - 10 * MIN);

  it.each([
    { name: 'no compaction configured: to the boundary snapshot (S19)', cap: undefined, truncate: tsoOf(NOW - 2 * DAY) },
    { name: 'compaction has progressed past it: to the boundary snapshot', cap: NOW - DAY, truncate: tsoOf(NOW - 2 * DAY) },
    { name: 'compaction behind it: only to the compaction\'s progress', cap: NOW - 3 * DAY, truncate: tsoOf(NOW - 3 * DAY) },
    { name: 'compaction not progressed: no truncation', cap: 0, truncate: undefined },
  ])('$name', ({ cap, truncate }) => {
    // Act
    const plan = planRetention({ maxBackups: undefined, maxReservedTime: '24h', snapshots, logBackup: log, nowMs: NOW, ...(cap === undefined ? {} : { truncateCapMs: cap }) });

    // Assert
    expect(names(plan.deletes)).toEqual(['b0', 'b1']);
    expect(plan.truncateUntil).toBe(truncate);
  });
});

describe('the schedule step deletes its expired CompactBackups', () => {
  const logSpec = { logBackupTemplate: { br: { cluster: 'basic' }, s3: { bucket: 'backups', prefix: 'log' } }, compactBackupTemplate: { br: { cluster: 'basic' }, s3: { bucket: 'backups', prefix: 'log' } }, compactInterval: '1h' };

  it('maxReservedTime 24h: the compaction ending before the oldest snapshot kept goes, with an Event; the one after it stays though it ended before now − 24h (v1 deletes it)', () => {
    // Prepare
    const bks = schedule({ maxReservedTime: '24h', pause: true, ...logSpec }, { logBackup: 'log-bs', logBackupStartTs: kubeTime(NOW - 5 * DAY), lastCompact: 'c2', lastCompactProgress: kubeTime(NOW - 2 * DAY) });
    const backups = [-4 * DAY, -3 * DAY, -2 * DAY, -1 * DAY].map((o, i) => backupOf(`b${i}`, NOW + o - MIN, 'Complete', NOW + o));

    // Act
    const plan = planBackupSchedule(snapOf(bks, { backups, logBackup: logBackupOf(NOW - 5 * DAY, NOW - 10 * MIN), compacts: endingAt(-4 * DAY - HOUR, -DAY - 2 * HOUR, -2 * HOUR) }));

    // Assert
    const deleted = plan.actions.flatMap((a) => (a.kind === 'delete' ? [`${a.ref.kind}/${a.ref.name}`] : []));
    expect(deleted).toEqual(['Backup/b0', 'Backup/b1', 'CompactBackup/c0']);
    expect(plan.actions).toContainEqual(expect.objectContaining({ kind: 'event', reason: 'SuccessfulDelete', message: 'delete CompactBackup demo/c0 for backupSchedule/bs successful' }));
  });

  it.each([
    { name: 'every CompactBackup expired: lastCompact is reset, as v1', compacts: endingAt(-3 * DAY, -2 * DAY), deleted: ['c0', 'c1'], lastCompact: '' },
    { name: 'one stays: lastCompact is kept', compacts: endingAt(-3 * DAY, -2 * HOUR), deleted: ['c0'], lastCompact: 'c1' },
  ])('$name', ({ compacts, deleted, lastCompact }) => {
    // Prepare
    const bks = schedule({ maxReservedTime: '24h', pause: true }, { lastCompact: 'c1' });

    // Act
    const plan = planBackupSchedule(snapOf(bks, { backups: [backupOf('b0', NOW - HOUR)], compacts }));

    // Assert
    expect(plan.actions.flatMap((a) => (a.kind === 'delete' ? [a.ref.name] : []))).toEqual(deleted);
    const update = plan.actions.find((a) => a.kind === 'update' && a.ref.kind === 'BackupSchedule');
    const status = update?.kind === 'update' ? (update.object as { status?: { lastCompact?: string } }).status : bks.status;
    expect(status?.lastCompact).toBe(lastCompact);
  });
});
