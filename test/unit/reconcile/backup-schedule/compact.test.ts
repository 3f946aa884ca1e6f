import { describe, expect, it } from '@jest/globals';

import { kubeTime } from '../../../../lib/reconcile/backup/conditions.js';
import { planBackupSchedule } from '../../../../lib/reconcile/backup-schedule/recipe.js';
import type { BackupScheduleSpec, BackupScheduleStatus } from '../../../../lib/reconcile/backup-schedule/types.js';
import type { CompactBackup } from '../../../../lib/reconcile/compact-backup/types.js';
import type { Plan } from '../../../../lib/model/plan.js';
import { HOUR, MIN, NOW, TEMPLATE, logBackupOf, schedule, snapOf, summary, written } from './fixtures.js';

const COMPACT_TEMPLATE = { br: { cluster: 'basic' }, s3: { provider: 'aws', region: 'us-west-2', bucket: 'backups', prefix: 'sched' }, concurrency: 4, maxRetryTimes: 6 };
/** `2006-01-02 15:04:05` in UTC. */
const utc = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** A schedule with log and compact templates whose log backup started an hour ago and is checkpointed now; no snapshot due. */
function compacting(spec: Partial<BackupScheduleSpec> = {}, status: BackupScheduleStatus = {}, lastCompact?: CompactBackup, logStartMs = NOW - HOUR) {
  const bks = schedule(
    { logBackupTemplate: { ...TEMPLATE, backupMode: 'log' }, compactBackupTemplate: COMPACT_TEMPLATE, compactInterval: '30m', ...spec },
    { logBackup: 'log-bs', logBackupStartTs: kubeTime(logStartMs), lastBackupTime: kubeTime(NOW), ...status },
  );
  return planBackupSchedule(snapOf(bks, { logBackup: logBackupOf(logStartMs, NOW), ...(lastCompact ? { lastCompact } : {}) }));
}

function createdCompacts(plan: Plan): CompactBackup[] {
  return plan.actions.flatMap((a) => (a.kind === 'create' && a.ref.kind === 'CompactBackup' ? [a.object as CompactBackup] : []));
}

function lastCompactOf(state: string, spec: { startTs: string; endTs: string }, endTs?: string): CompactBackup {
  return { apiVersion: 'pingcap.com/v1alpha1', kind: 'CompactBackup', metadata: { name: 'compact-bs-prev', namespace: 'demo' }, spec, status: { state, ...(endTs ? { endTs } : {}) } };
}

describe('§3.6 compaction scheduled by a BackupSchedule (S20–S24)', () => {
  it('S20: interval 30m, log started an hour ago, checkpoint now: a CompactBackup named by lastCompact, from the log start to the checkpoint', () => {
    const plan = compacting();
    const [compact] = createdCompacts(plan);
    expect(compact?.metadata.name).toBe('compact-bs-2026-01-10t12-00-00');
    expect(compact?.spec).toMatchObject({ startTs: utc(NOW - HOUR), endTs: utc(NOW), concurrency: 4, s3: { prefix: 'sched/log-2026-01-10t11-00-00' } });
    expect(compact?.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'BackupSchedule', name: 'bs', controller: true })]);
    expect(compact?.metadata.labels).toMatchObject({ 'app.kubernetes.io/instance': 'bs', 'tidb.pingcap.com/backup-schedule': 'bs' });
    expect(written(plan)?.status).toMatchObject({ lastCompact: 'compact-bs-2026-01-10t12-00-00', lastCompactExecutionTs: kubeTime(NOW) });
    expect(summary(plan).filter((line) => !line.startsWith('schedule.'))).toEqual(['create CompactBackup compact-bs-2026-01-10t12-00-00', 'update BackupSchedule bs', 'event SuccessfulCreate compact-bs-2026-01-10t12-00-00']);
    expect(plan.nextWakeAtMs).toBe(NOW + 30 * MIN);
  });

  it('S21: interval 5m: the window is at most three intervals, endTs = now − 45 min (UTC)', () => {
    const [compact] = createdCompacts(compacting({ compactInterval: '5m' }));
    expect(compact?.spec).toMatchObject({ startTs: utc(NOW - HOUR), endTs: utc(NOW - 45 * MIN) });
  });

  it('S22: progress now−10m, last compaction created 20 minutes ago, interval 30m: none, woken when the interval ends', () => {
    const plan = compacting({}, { lastCompactProgress: kubeTime(NOW - 10 * MIN), lastCompactExecutionTs: kubeTime(NOW - 20 * MIN) });
    expect(createdCompacts(plan)).toEqual([]);
    expect(plan.nextWakeAtMs).toBe(NOW + 10 * MIN);
  });

  it.each([
    { name: 'S23: a minCompactStartTs after the log start raises startTs', min: utc(NOW - 30 * MIN), startTs: utc(NOW - 30 * MIN) },
    { name: 'S24: an earlier minCompactStartTs leaves the log start', min: utc(NOW - 2 * HOUR), startTs: utc(NOW - HOUR) },
    { name: 'S24: an empty minCompactStartTs leaves the log start', min: '', startTs: utc(NOW - HOUR) },
    { name: 'a minCompactStartTs as a TSO counts the same', min: (BigInt(NOW - 30 * MIN) << 18n).toString(), startTs: utc(NOW - 30 * MIN) },
  ])('$name', ({ min, startTs }) => {
    const [compact] = createdCompacts(compacting({ minCompactStartTs: min }));
    expect(compact?.spec?.startTs).toBe(startTs);
  });

  it.each([
    { name: 'S24: an invalid minCompactStartTs makes none (and says why, once)', spec: { minCompactStartTs: 'yesterday-ish' }, event: 'event InvalidCompact bs' },
    { name: 'an invalid compactInterval makes none (and says why, once)', spec: { compactInterval: 'half an hour' }, event: 'event InvalidCompact bs' },
  ])('$name', ({ spec, event }) => {
    const plan = compacting(spec);
    expect(createdCompacts(plan)).toEqual([]);
    expect(summary(plan)).toContain(event);
  });
});

describe('when the schedule looks again', () => {
  it.each([
    { name: 'too little log checkpointed: a minute later (the tracker moves the checkpoint once a minute)', logStartMs: NOW - 10 * MIN, status: {}, want: NOW + MIN },
    { name: 'the last compaction made less than an interval ago: when the interval ends', logStartMs: NOW - HOUR, status: { lastCompactExecutionTs: kubeTime(NOW - 25 * MIN) }, want: NOW + 5 * MIN },
  ])('$name', ({ logStartMs, status, want }) => {
    const plan = compacting({}, status, undefined, logStartMs);
    expect(createdCompacts(plan)).toEqual([]);
    expect(plan.nextWakeAtMs).toBe(want);
  });
});

describe('never two compactions at once; progress from the last one', () => {
  const prevSpec = { startTs: utc(NOW - 2 * HOUR), endTs: utc(NOW - 90 * MIN) };
  const ran = { lastCompact: 'compact-bs-prev', lastCompactExecutionTs: kubeTime(NOW - HOUR) };

  it('the last compaction still runs: none, and no wake-up (its end wakes the schedule)', () => {
    const plan = compacting({}, ran, lastCompactOf('Running', prevSpec), NOW - 3 * HOUR);
    expect(createdCompacts(plan)).toEqual([]);
    expect(plan.nextWakeAtMs).toBeUndefined();
  });

  it('Complete: progress is its endTs, and the next one starts there', () => {
    const plan = compacting({}, ran, lastCompactOf('Complete', prevSpec, utc(NOW - 90 * MIN)), NOW - 3 * HOUR);
    expect(written(plan)?.status).toMatchObject({ lastCompactProgress: kubeTime(NOW - 90 * MIN) });
    expect(createdCompacts(plan)[0]?.spec).toMatchObject({ startTs: utc(NOW - 90 * MIN), endTs: utc(NOW) });
  });

  it('Failed: progress is its startTs, so the window runs again', () => {
    const plan = compacting({}, ran, lastCompactOf('Failed', prevSpec), NOW - 3 * HOUR);
    expect(createdCompacts(plan)[0]?.spec).toMatchObject({ startTs: utc(NOW - 2 * HOUR) });
  });

  it('progress never moves back: a Complete compaction behind the recorded progress leaves it, and the next starts there', () => {
    const plan = compacting({}, { ...ran, lastCompactProgress: kubeTime(NOW - 30 * MIN) }, lastCompactOf('Complete', prevSpec, utc(NOW - 90 * MIN)), NOW - 3 * HOUR);
    expect(written(plan)?.status?.lastCompactProgress).toBe(kubeTime(NOW - 30 * MIN));
    expect(createdCompacts(plan)[0]?.spec?.startTs).toBe(utc(NOW - 30 * MIN));
  });

  it.each([
    { name: 'paused: no compaction', spec: { pause: true }, logStartMs: NOW - HOUR },
    { name: 'no compactInterval: no compaction', spec: { compactInterval: undefined }, logStartMs: NOW - HOUR },
    { name: 'the log backup just started (less than an interval of log): none', spec: {}, logStartMs: NOW - 10 * MIN },
  ])('$name', ({ spec, logStartMs }) => {
    expect(createdCompacts(compacting(spec as Partial<BackupScheduleSpec>, {}, undefined, logStartMs))).toEqual([]);
  });
});
