/**
 * The backup world's monitors (lib/sim/backup/monitors.ts) catch what they are for:
 * `backup-data-deleted-only-by-policy` (a Backup's objects deleted by anything but its clean Job
 * under Delete / OnFailure), `restore-matches-backup` and `no-restore-into-live-data`.
 */
import { describe, expect, it } from '@jest/globals';
import { datasetChecksum } from '../../lib/sim/backup/dataset.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { NS, ROLE, backupWorld, managerJob, newBackup } from './sim-backup-harness.js';

const IRSA = { kind: 'role' as const, roleArn: ROLE };
const backupArgs = (name: string): string[] => ['backup', `--namespace=${NS}`, `--backupName=${name}`, '--tikvVersion=v7.5.0', '--mode=snapshot'];

const violationsOf = (w: ReturnType<typeof backupWorld>, name: string): string[] => (w.backups.invariants().find((i) => i.name === name)?.violations ?? []).map((v) => v.message);

/** A pod owned (as its controller) by Job `job`, as the Job controller makes them. */
function podOfJob(w: ReturnType<typeof backupWorld>, job: string): string {
  const name = `${job}-x1y2z`;
  w.store.create('Pod', { metadata: { name, namespace: NS, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: job, uid: 'u', controller: true }] }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } as KubeObject);
  return `${NS}/${name}`;
}

describe('backup-data-deleted-only-by-policy', () => {
  it.each([
    { name: 'the clean Job of a Delete backup being deleted may delete its prefix', policy: 'Delete', deleting: true, job: 'clean-b1', key: 'demo/b1/backupmeta', violations: 0 },
    { name: 'the clean Job of a Retain backup may not', policy: 'Retain', deleting: true, job: 'clean-b1', key: 'demo/b1/backupmeta', violations: 1 },
    { name: 'a clean Job of a backup not being deleted may not', policy: 'Delete', deleting: false, job: 'clean-b1', key: 'demo/b1/backupmeta', violations: 1 },
    { name: "another backup's clean Job may not", policy: 'Delete', deleting: true, job: 'clean-b10', key: 'demo/b1/backupmeta', violations: 1 },
    { name: 'an object of a sibling prefix (demo/b10 beside demo/b1) is not the backup\'s', policy: 'Retain', deleting: true, job: 'clean-b1', key: 'demo/b10/backupmeta', violations: 0 },
  ])('$name', async ({ policy, deleting, job, key, violations }) => {
    // Prepare
    const w = backupWorld();
    w.backups.datasets.setWorkload(NS, 'basic', 60);
    await w.clock.advance(5 * 60_000);
    newBackup(w.store, 'b1', { cleanPolicy: policy });
    w.store.create('Job', managerJob('backup-b1', backupArgs('b1'), { serviceAccount: 'irsa' }));
    await w.clock.advance(60_000);
    w.backups.s3.put(IRSA, 'backups', 'demo/b10/backupmeta', 10);
    if (deleting) {
      const b = w.cr('Backup', 'b1');
      w.store.update('Backup', { ...b, metadata: { ...b.metadata, finalizers: ['tidb.pingcap.com/backup-protection'] } });
      w.store.delete('Backup', NS, 'b1');
    }
    const by = podOfJob(w, job);

    // Act
    w.backups.s3.delete(IRSA, 'backups', [key], by);

    // Assert
    expect(violationsOf(w, 'backup-data-deleted-only-by-policy')).toHaveLength(violations);
  });

  it('a deletion nobody can be named for is a violation', async () => {
    // Prepare
    const w = backupWorld();
    newBackup(w.store, 'b1', {});
    w.backups.s3.put(IRSA, 'backups', 'demo/b1/backupmeta', 10);

    // Act
    w.backups.s3.delete(IRSA, 'backups', ['demo/b1/backupmeta']);

    // Assert
    expect(violationsOf(w, 'backup-data-deleted-only-by-policy')).toEqual([expect.stringContaining('s3://backups/demo/b1/backupmeta of Backup demo/b1 (cleanPolicy Retain) deleted by an unknown requester')]);
  });
});

describe('restore monitors', () => {
  const restore = (name: string, cluster: string, annotations: Record<string, string> = {}): KubeObject =>
    ({ metadata: { name, namespace: NS, annotations }, spec: { br: { cluster }, s3: { provider: 'aws', region: 'us-west-2', bucket: 'backups', prefix: 'demo/b1' } } }) as KubeObject;

  it.each([
    { name: 'a Restore Complete with the target holding the backup\'s dataset is fine', restoredVersion: 7, violations: 0 },
    { name: 'a Restore Complete with the target holding other data is caught', restoredVersion: 6, violations: 1 },
  ])('$name', ({ restoredVersion, violations }) => {
    // Prepare
    const w = backupWorld();
    w.backups.s3.put(IRSA, 'backups', 'demo/b1/backupmeta', 10, { files: [], dataset: { lineage: 'demo/basic', version: 7, checksum: datasetChecksum('demo/basic', 7), tsMs: 0 } });
    const r = w.store.create('Restore', restore('r1', 'fresh'));
    w.backups.datasets.restore(NS, 'fresh', { lineage: 'demo/basic', version: restoredVersion });

    // Act
    w.store.update('Restore', { ...r, status: { phase: 'Complete' } });

    // Assert
    expect(violationsOf(w, 'restore-matches-backup')).toHaveLength(violations);
  });

  it.each([
    { name: 'a restore Job for a target holding data, not annotated, is caught', annotations: {} as Record<string, string>, violations: 1 },
    { name: 'annotated restore-into-existing-data, it is allowed', annotations: { 'tidb.pingcap.com/restore-into-existing-data': 'true' }, violations: 0 },
  ])('$name', async ({ annotations, violations }) => {
    // Prepare
    const w = backupWorld();
    w.backups.datasets.setWorkload(NS, 'basic', 60);
    await w.clock.advance(60_000);
    w.store.create('Restore', restore('r1', 'basic', annotations));

    // Act
    w.store.create('Job', managerJob('restore-r1', ['restore', `--namespace=${NS}`, '--restoreName=r1', '--mode=snapshot'], { serviceAccount: 'irsa', container: 'restore' }));

    // Assert
    expect(violationsOf(w, 'no-restore-into-live-data')).toHaveLength(violations);
  });
});

describe('backup-schedule-no-overlap', () => {
  const scheduled = (w: ReturnType<typeof backupWorld>, name: string, schedule: string, mode?: string): KubeObject =>
    w.store.create('Backup', { metadata: { name, namespace: NS, labels: { 'tidb.pingcap.com/backup-schedule': schedule } }, spec: { br: { cluster: 'basic' }, ...(mode ? { backupMode: mode } : {}) } });
  const finish = (w: ReturnType<typeof backupWorld>, name: string, type: string): void => {
    const b = w.cr('Backup', name);
    w.store.update('Backup', { ...b, status: { phase: type, conditions: [{ type, status: 'True' }] } });
  };

  it.each([
    { name: 'a second run while the first still runs is a violation', first: undefined, violations: 1 },
    { name: 'a run after the previous one completed is not', first: 'Complete', violations: 0 },
    { name: 'a run after the previous one failed is not', first: 'Failed', violations: 0 },
  ])('$name', ({ first, violations }) => {
    const w = backupWorld();
    scheduled(w, 'nightly-1', 'nightly');
    if (first) finish(w, 'nightly-1', first);
    scheduled(w, 'nightly-2', 'nightly');
    expect(violationsOf(w, 'backup-schedule-no-overlap')).toHaveLength(violations);
  });

  it('the schedule\'s log backup and another schedule\'s backups do not count', () => {
    const w = backupWorld();
    scheduled(w, 'log-nightly', 'nightly', 'log');
    scheduled(w, 'other-1', 'other');
    scheduled(w, 'nightly-1', 'nightly');
    expect(violationsOf(w, 'backup-schedule-no-overlap')).toEqual([]);
  });

  it.each([
    { name: 'a second compaction of the schedule while the first still runs is a violation', first: 'Running', other: 'nightly', violations: 1 },
    { name: 'one after the previous ended Complete is not', first: 'Complete', other: 'nightly', violations: 0 },
    { name: 'one after the previous ended Failed is not', first: 'Failed', other: 'nightly', violations: 0 },
    { name: 'another schedule\'s running compaction does not count', first: 'Running', other: 'weekly', violations: 0 },
  ])('$name', ({ first, other, violations }) => {
    const w = backupWorld();
    const compact = (name: string, schedule: string) => w.store.create('CompactBackup', { metadata: { name, namespace: NS, labels: { 'tidb.pingcap.com/backup-schedule': schedule } }, spec: { startTs: '1', endTs: '2' } });
    const c1 = compact('compact-1', other);
    w.store.update('CompactBackup', { ...c1, status: { state: first } });
    compact('compact-2', 'nightly');
    expect(violationsOf(w, 'backup-schedule-no-overlap')).toHaveLength(violations);
  });
});
