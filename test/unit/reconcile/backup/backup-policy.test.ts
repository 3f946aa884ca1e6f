import { describe, expect, it } from '@jest/globals';

import { kubeTime } from '../../../../lib/reconcile/backup/conditions.js';
import { planBackup } from '../../../../lib/reconcile/backup/recipe.js';
import type { Backup, BackupStatus } from '../../../../lib/reconcile/backup/types.js';
import { T0, argsOf, backup, backupSnap, created, envOf, job, jobs, readyTc, summary, written } from './fixtures.js';

const POLICY = { backoffRetryPolicy: { minRetryDuration: '300s', maxRetryTimes: 2, retryTimeout: '30m' } };
const running: BackupStatus = { phase: 'Running', conditions: [{ type: 'Scheduled', status: 'True' }, { type: 'Running', status: 'True' }] };
const record = (n: number, detectMs: number, real?: number) => ({ retryNum: n, detectFailedAt: kubeTime(detectMs), expectedRetryAt: kubeTime(detectMs + 300_000 * 2 ** (n - 1)), retryReason: 'Job backup-b1 has failed', originalReason: 'BackoffLimitExceeded', ...(real === undefined ? {} : { realRetryAt: kubeTime(real) }) });

describe('backoffRetryPolicy: the retry state lives in the Backup status (§1.10)', () => {
  it.each([
    {
      name: 'a first failure is recorded, the Job kept, and the key woken when the retry is due',
      status: running, atMs: T0, jobList: [job('backup-b1', 'Failed')],
      want: { actions: ['update Backup b1'], wakeAtMs: T0 + 300_000, phase: 'Running', records: 1 },
    },
    {
      name: 'at the due time the retry is marked RetryFailed, Restart written and the old Job deleted',
      status: { ...running, backoffRetryStatus: [record(1, T0)] }, atMs: T0 + 300_000, jobList: [job('backup-b1', 'Failed')],
      want: { actions: ['delete Job backup-b1', 'update Backup b1'], wakeAtMs: undefined, phase: 'RetryFailed', records: 1 },
    },
    {
      name: 'once the old Job is gone a new one is created and the Backup Scheduled again',
      status: { ...running, phase: 'RetryFailed', backoffRetryStatus: [record(1, T0, T0 + 300_000)] }, atMs: T0 + 310_000, jobList: [],
      want: { actions: ['create Job backup-b1', 'update Backup b1', 'event SuccessfulCreate'], wakeAtMs: undefined, phase: 'Scheduled', records: 1 },
    },
    {
      name: 'a second failure waits twice as long',
      status: { ...running, backoffRetryStatus: [record(1, T0, T0 + 300_000)] }, atMs: T0 + 400_000, jobList: [job('backup-b1', 'Failed')],
      want: { actions: ['update Backup b1'], wakeAtMs: T0 + 400_000 + 600_000, phase: 'Running', records: 2 },
    },
    {
      name: 'a third failure exceeds maxRetryTimes 2: Failed AlreadyFailed',
      status: { ...running, backoffRetryStatus: [record(1, T0, T0 + 300_000), record(2, T0 + 400_000, T0 + 1_000_000)] }, atMs: T0 + 1_100_000, jobList: [job('backup-b1', 'Failed')],
      want: { actions: ['update Backup b1', 'event AlreadyFailed'], wakeAtMs: undefined, phase: 'Failed', records: 3 },
    },
  ])('$name', ({ status, atMs, jobList, want }) => {
    const plan = planBackup(backupSnap(backup(POLICY, { status }), { nowMs: atMs, jobs: jobs(...jobList) }));
    expect(summary(plan)).toEqual(want.actions);
    expect(plan.nextWakeAtMs).toBe(want.wakeAtMs);
    const out = written(plan)?.status;
    expect(out?.phase).toBe(want.phase);
    expect((out?.['backoffRetryStatus'] as unknown[] | undefined)?.length).toBe(want.records);
  });

  it('a retry past retryTimeout fails the Backup with v1 message', () => {
    const status = { ...running, backoffRetryStatus: [record(1, T0)] };
    const plan = planBackup(backupSnap(backup(POLICY, { status }), { nowMs: T0 + 31 * 60_000, jobs: jobs(job('backup-b1', 'Failed')) }));
    expect(written(plan)?.status.conditions).toContainEqual(expect.objectContaining({ type: 'Failed', reason: 'AlreadyFailed', message: 'retry timeout, max is 30m' }));
  });
});

describe('cleanPolicy and the protection finalizer (§1.3, §1.11)', () => {
  const deleting = (status: BackupStatus): Partial<Backup> => ({ metadata: { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['tidb.pingcap.com/backup-protection'] }, status });
  const complete: BackupStatus = { phase: 'Complete', backupPath: 's3://backups/b1', conditions: [{ type: 'Complete', status: 'True' }] };
  const failed: BackupStatus = { phase: 'Failed', backupPath: 's3://backups/b1', conditions: [{ type: 'Failed', status: 'True' }] };

  it.each([
    { name: 'Retain (the default) never gets the finalizer', spec: {}, finalizers: undefined },
    { name: 'Delete gets the finalizer with its first write', spec: { cleanPolicy: 'Delete' }, finalizers: ['tidb.pingcap.com/backup-protection'] },
    { name: 'OnFailure gets the finalizer', spec: { cleanPolicy: 'OnFailure' }, finalizers: ['tidb.pingcap.com/backup-protection'] },
  ])('$name', ({ spec, finalizers }) => {
    expect(written(planBackup(backupSnap(backup(spec))))?.metadata.finalizers).toEqual(finalizers ?? []);
  });

  it.each([
    { name: 'OnFailure of a Complete backup keeps its data: finalizer removed, no clean Job', spec: { cleanPolicy: 'OnFailure' }, status: complete, want: ['update Backup b1'], finalizers: [] },
    { name: 'OnFailure of a Failed backup cleans it', spec: { cleanPolicy: 'OnFailure' }, status: failed, want: ['create Job clean-b1', 'update Backup b1', 'event SuccessfulCreate'], finalizers: ['tidb.pingcap.com/backup-protection'] },
    { name: 'Delete of a Complete backup cleans it', spec: { cleanPolicy: 'Delete' }, status: complete, want: ['create Job clean-b1', 'update Backup b1', 'event SuccessfulCreate'], finalizers: ['tidb.pingcap.com/backup-protection'] },
    { name: 'Delete of a backup at a bucket root is refused: CleanFailed, no Job, finalizer kept', spec: { cleanPolicy: 'Delete', s3: { bucket: 'backups' } }, status: { ...complete, backupPath: 's3://backups' }, want: ['update Backup b1', 'event CleanRefusedBucketRoot'], finalizers: ['tidb.pingcap.com/backup-protection'] },
  ])('$name', ({ spec, status, want, finalizers }) => {
    const plan = planBackup(backupSnap(backup(spec, deleting(status))));
    expect(summary(plan)).toEqual(want);
    expect(written(plan)?.metadata.finalizers).toEqual(finalizers);
  });

  it('the clean Job runs `clean` for exactly this Backup, with backoffLimit 6 and no BR', () => {
    const [create] = created(planBackup(backupSnap(backup({ cleanPolicy: 'Delete' }, deleting(complete)))));
    expect(create && argsOf(create)).toEqual(['clean', '--namespace=demo', '--backupName=b1']);
    expect(create?.object).toMatchObject({ spec: { backoffLimit: 6, template: { metadata: { labels: { 'app.kubernetes.io/component': 'clean', 'tidb.pingcap.com/backup': 'b1' } }, spec: { initContainers: [] } } } });
  });

  it('a deleted Retain Backup without the finalizer plans nothing', () => {
    const plan = planBackup(backupSnap(backup({}, { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' }, status: complete })));
    expect(plan.actions).toEqual([]);
  });
});

describe('the backup Job as v1 builds it (§1.6, §1.7)', () => {
  const jobOf = (b: Backup, tc = readyTc()) => created(planBackup(backupSnap(b, { tc, s3SecretKeys: ['access_key', 'secret_key'] })))[0];

  it('name, labels, owner, args, image, service account and backoffLimit 0', () => {
    const create = jobOf(backup({}, { metadata: { labels: { team: 'a' } } } as Partial<Backup>));
    expect(create?.object).toMatchObject({
      metadata: {
        name: 'backup-b1',
        labels: { team: 'a', 'app.kubernetes.io/name': 'backup', 'app.kubernetes.io/managed-by': 'backup-operator', 'app.kubernetes.io/component': 'backup', 'app.kubernetes.io/instance': 'b1', 'tidb.pingcap.com/backup': 'b1' },
        ownerReferences: [{ apiVersion: 'pingcap.com/v1alpha1', kind: 'Backup', name: 'b1', uid: 'uid-b1', controller: true, blockOwnerDeletion: true }],
      },
      spec: { backoffLimit: 0, template: { spec: { serviceAccountName: 'tidb-backup-manager', restartPolicy: 'Never', initContainers: [{ name: 'br', image: 'pingcap/br:v8.5.0' }], containers: [{ name: 'backup', image: 'pingcap/tidb-backup-manager:v1.6.6' }] } } },
    });
    expect(create && argsOf(create)).toEqual(['backup', '--namespace=demo', '--backupName=b1', '--tikvVersion=v8.5.0', '--mode=snapshot']);
  });

  it.each([
    { name: 'IRSA: no Secret, no key env; the service account of the spec', spec: { serviceAccount: 'irsa-sa' }, keys: undefined, sa: 'irsa-sa' },
    { name: 'an S3 Secret reaches the pod only as secretKeyRefs', spec: { s3: { bucket: 'backups', prefix: 'b1', secretName: 's3-secret' } }, keys: ['ref:s3-secret/access_key', 'ref:s3-secret/secret_key'], sa: 'tidb-backup-manager' },
  ])('credentials — $name', ({ spec, keys, sa }) => {
    const create = jobOf(backup(spec));
    const env = create ? envOf(create) : {};
    expect([env['AWS_ACCESS_KEY_ID'], env['AWS_SECRET_ACCESS_KEY']].filter(Boolean)).toEqual(keys ?? []);
    expect(env).toMatchObject({ S3_PROVIDER: 'aws', AWS_ACL: 'private', AWS_STORAGE_CLASS: 'STANDARD_IA', BR_LOG_TO_TERM: '\u0001' });
    expect(create?.object).toMatchObject({ spec: { template: { spec: { serviceAccountName: sa } } } });
  });

  it.each([
    { name: 'a missing S3 Secret', keys: undefined, reason: 'GetS3SecretFailed' },
    { name: 'an S3 Secret without secret_key', keys: ['access_key'], reason: 's3KeyNotExist' },
  ])('$name is RetryFailed, no Job, retried', ({ keys, reason }) => {
    const plan = planBackup(backupSnap(backup({ s3: { bucket: 'backups', secretName: 's3-secret' } }), { s3SecretKeys: keys }));
    expect(created(plan)).toEqual([]);
    expect(written(plan)?.status.conditions).toContainEqual(expect.objectContaining({ type: 'RetryFailed', reason }));
    expect(plan.outcome).toMatchObject({ kind: 'fail', terminal: false });
  });

  it('a TLS cluster mounts <cluster>-cluster-client-secret and passes --cluster-tls=true', () => {
    const tls = readyTc((tc) => ({ ...tc, spec: { ...tc.spec, tlsCluster: { enabled: true } } }));
    const create = jobOf(backup(), tls);
    expect(create && argsOf(create)).toContain('--cluster-tls=true');
    expect(create?.object).toMatchObject({ spec: { template: { spec: { volumes: [{ name: 'br-bin' }, { name: 'cluster-client-tls', secret: { secretName: 'basic-cluster-client-secret' } }] } } } });
  });

  it('a TidbCluster not Ready: no Job, no status change, looked at again later', () => {
    const plan = planBackup(backupSnap(backup(), { tc: readyTc((tc) => ({ ...tc, status: { conditions: [{ type: 'Ready', status: 'False' }] } }) as never) }));
    expect(plan.actions).toEqual([]);
    expect(plan.outcome).toMatchObject({ kind: 'retry', message: 'waiting for TidbCluster demo/basic to be ready' });
  });
});
