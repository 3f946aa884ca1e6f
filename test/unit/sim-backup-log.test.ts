/**
 * Log backup and PiTR in the simulated backup-manager (TiDB Operator v1's `pkg/apis/pingcap/v1alpha1/backup.go`, `cmd/backup-manager/app/restore`):
 * `log-start` registers the task and writes commitTs / backupPath while the top-level phase stays
 * Running (v1 propagates every start condition but Complete); the task flushes to S3 each minute;
 * `log-truncate` deletes what lies wholly before `--truncate-until` without changing the phase;
 * `log-stop` makes the phase Stopped; a PiTR restore into a fresh cluster reaches exactly the
 * dataset at `--pitrRestoredTs`, and refuses a ts past the log's checkpoint.
 */
import { describe, expect, it } from '@jest/globals';
import { tsoOf } from '../../lib/sim/backup/dataset.js';
import { NS, START_MS, backupWorld, managerJob, newBackup } from './sim-backup-harness.js';

const logArgs = (cmd: string, extra: string[] = []): string[] => ['backup', `--namespace=${NS}`, '--backupName=log1', '--tikvVersion=v7.5.0', '--mode=log', `--subcommand=${cmd}`, ...extra];

async function logging() {
  const w = backupWorld();
  w.backups.datasets.setWorkload(NS, 'basic', 60);
  await w.clock.advance(5 * 60_000);
  newBackup(w.store, 'full', {});
  w.store.create('Job', managerJob('backup-full', ['backup', `--namespace=${NS}`, '--backupName=full', '--tikvVersion=v7.5.0', '--mode=snapshot'], { serviceAccount: 'irsa' }));
  newBackup(w.store, 'log1', { backupMode: 'log', s3: { provider: 'aws', bucket: 'backups', prefix: 'demo/log' } });
  w.store.create('Job', managerJob('backup-log1-log-start', logArgs('log-start'), { serviceAccount: 'irsa' }));
  await w.clock.advance(10 * 60_000);
  return w;
}

describe('log backup', () => {
  it('log-start: sub-status Complete with commitTs and backupPath, the top-level phase Running, flushes under v1/', async () => {
    // Act
    const w = await logging();

    // Assert
    const b = w.cr('Backup', 'log1');
    expect(b.status).toMatchObject({ phase: 'Running', backupPath: 's3://backups/demo/log', logSubCommandStatuses: { 'log-start': { command: 'log-start', phase: 'Complete' } } });
    expect(b.status?.commitTs).toBe(tsoOf(START_MS + 5 * 60_000 + 2000));
    expect((w.backups.s3.contents().backups ?? []).filter((k) => k.startsWith('demo/log/v1/backupmeta/')).length).toBeGreaterThanOrEqual(9);
  });

  it('log-truncate deletes the flushes wholly before the ts and keeps the phase; log-stop makes it Stopped', async () => {
    // Prepare
    const w = await logging();
    const until = tsoOf(START_MS + 10 * 60_000);
    const before = (w.backups.s3.contents().backups ?? []).filter((k) => k.startsWith('demo/log/v1/backupmeta/')).length;

    // Act
    w.store.create('Job', managerJob('backup-log1-log-truncate', logArgs('log-truncate', [`--truncate-until=${until}`]), { serviceAccount: 'irsa' }));
    await w.clock.advance(30_000);
    const afterTruncate = w.cr('Backup', 'log1');
    w.store.create('Job', managerJob('backup-log1-log-stop', logArgs('log-stop'), { serviceAccount: 'irsa' }));
    await w.clock.advance(30_000);

    // Assert
    const after = (w.backups.s3.contents().backups ?? []).filter((k) => k.startsWith('demo/log/v1/backupmeta/')).length;
    expect(after).toBeLessThan(before);
    expect(afterTruncate.status).toMatchObject({ phase: 'Running', logSuccessTruncateUntil: until });
    expect(w.cr('Backup', 'log1').status?.phase).toBe('Stopped');
    expect(w.backups.logTasks.get(NS, 'basic', 'log1')).toBeUndefined();
  });

  it.each([
    { name: 'a ts inside the log: the fresh cluster holds the dataset at that ts', offsetMs: 8 * 60_000 + 30_000, phase: 'Complete' },
    { name: 'a ts past the checkpoint is refused', offsetMs: 30 * 60_000, phase: 'Failed' },
  ])('PiTR restore to $name', async ({ offsetMs, phase }) => {
    // Prepare
    const w = await logging();
    const restoredMs = START_MS + offsetMs;
    w.store.create('Restore', {
      metadata: { name: 'pitr', namespace: NS },
      spec: { restoreMode: 'pitr', pitrRestoredTs: tsoOf(restoredMs), br: { cluster: 'fresh', clusterNamespace: NS }, s3: { provider: 'aws', bucket: 'backups', prefix: 'demo/log' }, pitrFullBackupStorageProvider: { s3: { provider: 'aws', bucket: 'backups', prefix: 'demo/full' } } },
    });

    // Act
    w.store.create('Job', managerJob('restore-pitr', ['restore', `--namespace=${NS}`, '--restoreName=pitr', '--mode=pitr', `--pitrRestoredTs=${tsoOf(restoredMs)}`], { serviceAccount: 'irsa', container: 'restore' }));
    await w.clock.advance(120_000);

    // Assert
    expect(w.cr('Restore', 'pitr').status?.phase).toBe(phase);
    if (phase === 'Complete') expect(w.backups.datasets.at(NS, 'fresh').checksum).toBe(w.backups.datasets.at(NS, 'basic', restoredMs).checksum);
    else expect(JSON.stringify(w.cr('Restore', 'pitr').status?.conditions)).toContain("larger than the log backup's checkpoint ts");
  });
});
