/**
 * The simulated tidb-backup-manager in Job pods, against v1's cmd/backup-manager (release-1.6) as
 * TiDB Operator v1's `cmd/backup-manager/app/backup`, `pkg/backup/backup/backup_cleaner.go`, `cmd/backup-manager/app/restore` describe it: the status it writes (Prepare → Running
 * → Complete with backupSize / commitTs, or Failed `BackupDataToRemoteFailed` with BR's message),
 * the S3 objects it leaves, credentials (IRSA role or S3 Secret) refused with S3's error codes,
 * PD and TLS problems, a killed pod, the clean run, and restores that refuse a cluster with data.
 */
import { describe, expect, it } from '@jest/globals';
import { Datasets, datasetChecksum } from '../../lib/sim/backup/dataset.js';
import { killJobPods } from '../../lib/sim/backup/faults.js';
import { VirtualClock } from '../../lib/platform/clock.js';
import { NS, START_MS, backupWorld, managerJob, newBackup } from './sim-backup-harness.js';

const backupArgs = (name: string, extra: string[] = []): string[] => ['backup', `--namespace=${NS}`, `--backupName=${name}`, '--tikvVersion=v7.5.0', '--mode=snapshot', ...extra];
const conditionTypes = (obj: { status?: { conditions?: { type: string }[] } }): string[] => (obj.status?.conditions ?? []).map((c) => c.type);

describe('backup-manager: snapshot backup', () => {
  it.each([
    { name: 'IRSA role of the service account', opts: { serviceAccount: 'irsa' } },
    { name: 'S3 Secret keys in the env', opts: { serviceAccount: 'irsa', secret: 's3-secret' } },
  ])('with the $name: Prepare → Running → Complete, backupmeta and SST files under the prefix', async ({ opts }) => {
    // Prepare
    const w = backupWorld();
    w.backups.datasets.setWorkload(NS, 'basic', 60);
    await w.clock.advance(10 * 60_000);
    newBackup(w.store, 'b1', {});
    const seen: string[] = [];
    w.store.subscribe((ev) => {
      const phase = ev.kind === 'Backup' ? (ev.object.status as { phase?: string } | undefined)?.phase : undefined;
      if (phase && seen[seen.length - 1] !== phase) seen.push(phase);
    });

    // Act
    w.store.create('Job', managerJob('backup-b1', backupArgs('b1'), opts));
    await w.clock.advance(120_000);

    // Assert
    const b = w.cr('Backup', 'b1');
    expect(seen).toEqual(['Prepare', 'Running', 'Complete']);
    expect(conditionTypes(b)).toEqual(['Scheduled', 'Prepare', 'Running', 'Complete']);
    // The pod starts 1 s after the Job and takes its snapshot as BR starts: 601 writes of 1 MiB at one a second.
    const commitMs = Number(BigInt(String(b.status?.commitTs)) >> 18n);
    expect(commitMs).toBe(START_MS + 10 * 60_000 + 1000);
    expect(b.status).toMatchObject({ backupPath: 's3://backups/demo/b1', backupSize: 601 * 1024 * 1024, backupSizeReadable: '630 MB', timeTaken: expect.stringMatching(/^\d+s$/) });
    const keys = w.backups.s3.contents().backups ?? [];
    expect(keys).toEqual(expect.arrayContaining(['demo/b1/backupmeta', 'demo/b1/backup.lock', expect.stringMatching(/^demo\/b1\/1\/\d+_[0-9a-f]{16}_default\.sst$/), expect.stringMatching(/^demo\/b1\/4\//)]));
    expect(w.cr('Job', 'backup-b1').status?.succeeded).toBe(1);
  });

  // S3's error codes (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html) and the AWS SDK's credential chain.
  it.each([
    { name: 'a wrong secret key', opts: { serviceAccount: 'irsa', secret: 'bad-secret' }, bucket: 'backups', message: 'SignatureDoesNotMatch' },
    { name: 'an access key the world does not know', opts: { serviceAccount: 'irsa', secret: 'unknown-secret' }, bucket: 'backups', message: 'InvalidAccessKeyId' },
    { name: 'a role the bucket does not allow', opts: { serviceAccount: 'other' }, bucket: 'backups', message: 'AccessDenied: Access Denied' },
    { name: 'a bucket that does not exist', opts: { serviceAccount: 'irsa' }, bucket: 'nope', message: 'NoSuchBucket' },
    { name: 'no credentials at all', opts: { serviceAccount: 'tidb-backup-manager' }, bucket: 'backups', message: 'NoCredentialProviders: no valid providers in chain' },
  ])('$name: Failed BackupDataToRemoteFailed ($message), the pod exits 1 and the Job fails', async ({ opts, bucket, message }) => {
    // Prepare
    const w = backupWorld();
    newBackup(w.store, 'b1', { s3: { provider: 'aws', bucket, prefix: 'demo/b1' } });

    // Act
    w.store.create('Job', managerJob('backup-b1', backupArgs('b1'), opts));
    await w.clock.advance(60_000);

    // Assert
    const failed = (w.cr('Backup', 'b1').status?.conditions as { type: string; reason?: string; message?: string }[]).find((c) => c.type === 'Failed');
    expect(w.cr('Backup', 'b1').status?.phase).toBe('Failed');
    expect(failed).toMatchObject({ reason: 'BackupDataToRemoteFailed', message: expect.stringContaining(message) });
    expect(w.store.list('Pod', NS)[0]?.status?.phase).toBe('Failed');
    expect(conditionTypes(w.cr('Job', 'backup-b1'))).toEqual(['FailureTarget', 'Failed']);
  });

  it.each([
    { name: 'PD without a leader', world: {}, pdUp: false, args: [] as string[], message: 'failed to get cluster id' },
    { name: 'a TLS cluster reached without --cluster-tls', world: { tls: true }, pdUp: true, args: [] as string[], message: 'error reading server preface: EOF' },
    { name: '--cluster-tls against a plain cluster', world: {}, pdUp: true, args: ['--cluster-tls=true'], message: 'first record does not look like a TLS handshake' },
  ])('$name: Failed with BR\'s message', async ({ world, pdUp, args, message }) => {
    // Prepare
    const w = backupWorld(world);
    w.pd.up = pdUp;
    w.store.create('Secret', { metadata: { name: 'basic-cluster-client-secret', namespace: NS }, stringData: { 'ca.crt': 'x', 'tls.crt': 'x', 'tls.key': 'x' } });
    newBackup(w.store, 'b1', {});

    // Act
    w.store.create('Job', managerJob('backup-b1', backupArgs('b1', args), { serviceAccount: 'irsa', clusterTls: args.length > 0 }));
    await w.clock.advance(120_000);

    // Assert
    expect(w.cr('Backup', 'b1').status?.phase).toBe('Failed');
    expect(JSON.stringify(w.cr('Backup', 'b1').status?.conditions)).toContain(message);
  });

  it('a pod killed mid-run leaves the Backup Running (v1 writes nothing more) and fails the Job (backoffLimit 0)', async () => {
    // Prepare
    const w = backupWorld();
    w.backups.datasets.setWorkload(NS, 'basic', 600);
    await w.clock.advance(60 * 60_000);
    newBackup(w.store, 'b1', {});
    w.store.create('Job', managerJob('backup-b1', backupArgs('b1'), { serviceAccount: 'irsa' }));
    await w.clock.advance(10_000);
    const [pod] = w.store.list('Pod', NS);

    // Act: the job-pod-killed fault.
    const killed = killJobPods(w.store, NS, 'backup-b1');
    await w.clock.advance(600_000);

    // Assert
    expect(killed).toEqual([pod?.metadata.name]);
    expect(killJobPods(w.store, NS, 'backup-b1')).toEqual([]);
    expect(w.cr('Backup', 'b1').status?.phase).toBe('Running');
    expect(w.backups.s3.contents().backups).toEqual(['demo/b1/backup.lock']);
    expect(((w.cr('Job', 'backup-b1').status?.conditions ?? []) as { reason?: string }[]).map((c) => c.reason)).toEqual(['BackoffLimitExceeded', 'BackoffLimitExceeded']);
  });

  it('a second backup into a prefix that holds a backupmeta is refused, as BR does', async () => {
    // Prepare
    const w = backupWorld();
    newBackup(w.store, 'b1', {});
    w.store.create('Job', managerJob('backup-b1', backupArgs('b1'), { serviceAccount: 'irsa' }));
    await w.clock.advance(60_000);
    newBackup(w.store, 'b2', { s3: { provider: 'aws', bucket: 'backups', prefix: 'demo/b1' } });

    // Act
    w.store.create('Job', managerJob('backup-b2', backupArgs('b2'), { serviceAccount: 'irsa' }));
    await w.clock.advance(60_000);

    // Assert
    expect(w.cr('Backup', 'b2').status?.phase).toBe('Failed');
    expect(JSON.stringify(w.cr('Backup', 'b2').status?.conditions)).toContain('backup meta file exists in s3://backups/demo/b1');
  });

  it('without the operator\'s RBAC the pod cannot read its Backup and exits 1, the Backup untouched', async () => {
    // Prepare
    const w = backupWorld({ rbac: false });
    newBackup(w.store, 'b1', {});

    // Act
    w.store.create('Job', managerJob('backup-b1', backupArgs('b1'), { serviceAccount: 'irsa' }));
    await w.clock.advance(30_000);

    // Assert
    const [pod] = w.store.list('Pod', NS);
    expect(w.cr('Backup', 'b1').status?.phase).toBe('Scheduled');
    expect(pod?.status?.phase).toBe('Failed');
    expect(w.backups.manager.processes.get(`${NS}/${pod?.metadata.name ?? ''}`)?.failure).toBe('backups.pingcap.com "b1" is forbidden: User "system:serviceaccount:demo:irsa" cannot get resource "backups" in API group "pingcap.com" in the namespace "demo"');
  });
});

describe('backup-manager: clean', () => {
  it('deletes every object under the backup\'s prefix, nothing else, and writes Clean', async () => {
    // Prepare
    const w = backupWorld();
    w.backups.datasets.setWorkload(NS, 'basic', 60);
    await w.clock.advance(5 * 60_000);
    for (const name of ['b1', 'b10']) {
      newBackup(w.store, name, {});
      w.store.create('Job', managerJob(`backup-${name}`, backupArgs(name), { serviceAccount: 'irsa' }));
    }
    await w.clock.advance(60_000);

    // Act
    w.store.create('Job', managerJob('clean-b1', ['clean', `--namespace=${NS}`, '--backupName=b1'], { serviceAccount: 'irsa' }));
    await w.clock.advance(60_000);

    // Assert
    const keys = w.backups.s3.contents().backups ?? [];
    expect(keys.filter((k) => k.startsWith('demo/b1/'))).toEqual([]);
    expect(keys).toContain('demo/b10/backupmeta');
    expect(w.cr('Backup', 'b1').status?.phase).toBe('Clean');
  });
});

describe('backup-manager: restore', () => {
  async function backedUp(writesPerMinute = 60) {
    const w = backupWorld();
    w.backups.datasets.setWorkload(NS, 'basic', writesPerMinute);
    await w.clock.advance(10 * 60_000);
    newBackup(w.store, 'b1', {});
    w.store.create('Job', managerJob('backup-b1', backupArgs('b1'), { serviceAccount: 'irsa' }));
    await w.clock.advance(60_000);
    return w;
  }
  const restoreSpec = (cluster: string, br: Record<string, unknown> = {}) => ({ metadata: { name: 'r1', namespace: NS }, spec: { br: { cluster, ...br }, s3: { provider: 'aws', region: 'us-west-2', bucket: 'backups', prefix: 'demo/b1' } } });
  const restoreArgs = ['restore', `--namespace=${NS}`, '--restoreName=r1', '--tikvVersion=v7.5.0', '--mode=snapshot'];

  it('into a fresh cluster: Complete with the backup\'s commitTs, the cluster holding exactly the backed-up dataset', async () => {
    // Prepare
    const w = await backedUp();
    const backup = w.cr('Backup', 'b1');
    const commitMs = Number(BigInt(String(backup.status?.commitTs)) >> 18n);

    // Act
    w.store.create('Restore', restoreSpec('fresh'));
    w.store.create('Job', managerJob('restore-r1', restoreArgs, { serviceAccount: 'irsa', container: 'restore' }));
    await w.clock.advance(120_000);

    // Assert
    expect(w.cr('Restore', 'r1').status).toMatchObject({ phase: 'Complete', commitTs: backup.status?.commitTs });
    expect(w.backups.datasets.at(NS, 'fresh').checksum).toBe(w.backups.datasets.at(NS, 'basic', commitMs).checksum);
    expect(w.backups.datasets.at(NS, 'fresh').checksum).not.toBe('0');
  });

  it.each([
    { name: 'a cluster with data is refused (BR\'s fresh-cluster check)', br: {}, phase: 'Failed' },
    { name: 'checkRequirements: false skips the check', br: { checkRequirements: false }, phase: 'Complete' },
  ])('$name', async ({ br, phase }) => {
    // Prepare
    const w = await backedUp();

    // Act
    w.store.create('Restore', restoreSpec('basic', br));
    w.store.create('Job', managerJob('restore-r1', restoreArgs, { serviceAccount: 'irsa', container: 'restore' }));
    await w.clock.advance(120_000);

    // Assert
    expect(w.cr('Restore', 'r1').status?.phase).toBe(phase);
    if (phase === 'Failed') expect(JSON.stringify(w.cr('Restore', 'r1').status?.conditions)).toContain('RestoreDataFromRemoteFailed');
  });
});

describe('Datasets', () => {
  it.each([
    { writesPerMinute: 60, afterMs: 90_000, version: 90 },
    { writesPerMinute: 1, afterMs: 59_999, version: 0 },
    { writesPerMinute: 0, afterMs: 600_000, version: 0 },
  ])('$writesPerMinute writes/min for $afterMs ms: version $version', async ({ writesPerMinute, afterMs, version }) => {
    // Prepare
    const clock = new VirtualClock(START_MS);
    const d = new Datasets(clock);
    d.setWorkload(NS, 'basic', writesPerMinute);

    // Act
    await clock.advance(afterMs);

    // Assert
    expect(d.at(NS, 'basic')).toMatchObject({ version, checksum: datasetChecksum(`${NS}/basic`, version) });
  });
});
