import { describe, expect, it } from '@jest/globals';

import { parseObjectKey } from '../../../../lib/model/object-key.js';
import { shouldEnqueueBackup } from '../../../../lib/reconcile/backup/enqueue.js';
import { planBackup } from '../../../../lib/reconcile/backup/recipe.js';
import type { Backup } from '../../../../lib/reconcile/backup/types.js';
import { backup, backupSnap, created, envOf, job, jobs, summary, written } from './fixtures.js';

const cond = (type: string) => ({ phase: type, conditions: [{ type, status: 'True' as const }] });
const deleting = { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['tidb.pingcap.com/backup-protection'] } } as Partial<Backup>;

describe('Backup enqueue rules (B01–B03, v1 §1.3)', () => {
  it.each([
    { name: 'B01: a Backup being deleted is enqueued', b: backup({}, { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } } as Partial<Backup>), want: true },
    { name: 'B02: an Invalid Backup is dropped', b: backup({}, { status: cond('Invalid') }), want: false },
    { name: 'B02: a Complete snapshot Backup is dropped', b: backup({}, { status: cond('Complete') }), want: false },
    { name: 'B02: a Scheduled snapshot Backup is dropped', b: backup({}, { status: cond('Scheduled') }), want: false },
    { name: 'B02: a Failed Backup is dropped', b: backup({}, { status: cond('Failed') }), want: false },
    { name: 'B03: a Backup without conditions is enqueued', b: backup(), want: true },
    { name: 'a Complete log backup keeps being reconciled', b: backup({ backupMode: 'log' }, { status: { phase: 'Running', conditions: [{ type: 'Complete', status: 'True' }] } }), want: true },
  ])('$name', ({ b, want }) => {
    expect(shouldEnqueueBackup(b)).toBe(want);
  });
});

describe('Backup sync fixtures (B04–B15, v1 §1.13)', () => {
  it.each(['Scheduled', 'Running', 'Prepare'])('B04: a %s Backup whose Job failed ends Failed AlreadyFailed without backoffRetryPolicy (v1 left it Running forever)', (phase) => {
    const plan = planBackup(backupSnap(backup({}, { status: cond(phase) }), { jobs: jobs(job('backup-b1', 'Failed')) }));
    expect(written(plan)?.status).toMatchObject({ phase: 'Failed' });
    expect(written(plan)?.status.conditions).toContainEqual(expect.objectContaining({ type: 'Failed', reason: 'AlreadyFailed', message: 'Job backup-b1 has failed: BackoffLimitExceeded' }));
    expect(summary(plan)).toEqual(['update Backup b1', 'event AlreadyFailed']);
  });

  it('B05: a malformed key is refused; a Backup gone from the API plans nothing', () => {
    expect(parseObjectKey('Backup:test/demo/x/y')).toMatchObject({ ok: false });
    expect(planBackup(backupSnap(undefined))).toMatchObject({ actions: [], outcome: { kind: 'complete', message: 'Backup not found' } });
  });

  it.each([
    { name: 'B06: a Dumpling Backup is refused as Invalid (Dumpling mode is not supported yet)', b: { ...backup({ from: { host: 'localhost', secretName: 's' }, storageSize: '1G' }), spec: { from: { host: 'localhost', secretName: 's' }, storageSize: '1G', s3: { bucket: 's3', prefix: 'prefix-' } } }, message: /Dumpling backups \(no spec\.br\) are not supported/ },
    { name: 'B07: an empty Backup is Invalid with v1 message', b: { ...backup(), spec: {} }, message: /^missing cluster config in spec of demo\/b1$/ },
    { name: 'B15: a volume-snapshot Backup is refused', b: backup({ backupMode: 'volume-snapshot' }), message: /^only support volume snapshot backup across k8s clusters$/ },
    { name: 'db type without br.db', b: backup({ backupType: 'db' }), message: /^DB should be configured for BR with backup type db in spec of demo\/b1$/ },
    { name: 'table type without br.table', b: backup({ backupType: 'table', br: { cluster: 'basic', db: 'd' } }), message: /^table should be configured for BR with backup type table in spec of demo\/b1$/ },
    { name: 'an invalid backup type', b: backup({ backupType: 'raw' }), message: /^invalid backup type raw for BR in spec of demo\/b1$/ },
    { name: 'an S3 storage without bucket', b: backup({ s3: { region: 'us-west-2' } }), message: /^bucket should be configured for BR in spec of demo\/b1$/ },
    { name: 'an S3 endpoint without scheme', b: backup({ s3: { bucket: 'x', endpoint: 'minio:9000' } }), message: /^(scheme|host) not found in endpoint minio:9000/ },
  ])('$name', ({ b, message }) => {
    const plan = planBackup(backupSnap(b as Backup));
    const status = written(plan)?.status;
    expect(status?.phase).toBe('Invalid');
    expect(status?.conditions?.find((c) => c.type === 'Invalid')).toMatchObject({ reason: 'InvalidSpec', message: expect.stringMatching(message) });
    expect(plan.outcome).toMatchObject({ kind: 'fail', terminal: true });
    expect(created(plan)).toEqual([]);
    expect(summary(plan)).toContain('event InvalidSpec');
  });

  it('an Invalid Backup stepped again records no second Event and writes nothing (no retry storm)', () => {
    const first = written(planBackup(backupSnap(backup({ backupType: 'raw' }))));
    const again = planBackup(backupSnap(backup({ backupType: 'raw' }, { status: first?.status as never })));
    expect(again.actions).toEqual([]);
    expect(again.outcome).toMatchObject({ kind: 'fail', terminal: true });
  });

  it.each(['aws', 'ceph', 'minio', 'alibaba', 'netease'])('B08: a %s Backup without its TidbCluster is RetryFailed "failed to fetch tidbcluster" and retried', (provider) => {
    const plan = planBackup(backupSnap(backup({ backupType: 'db', br: { cluster: 'tidb_i', db: 'd' }, s3: { provider, bucket: 'backups' } }), { tc: undefined }));
    expect(written(plan)?.status.conditions).toContainEqual(expect.objectContaining({ type: 'RetryFailed', reason: 'failed to fetch tidbcluster demo/tidb_i' }));
    expect(plan.outcome).toMatchObject({ kind: 'fail', terminal: false });
  });

  it('B09: with a Ready TidbCluster the Job is created and the Backup Scheduled; the user env wins', () => {
    const b = backup({ backupType: 'db', br: { cluster: 'basic', db: 'd' }, env: [{ name: 'BR_LOG_TO_TERM', value: 'value' }] });
    const plan = planBackup(backupSnap(b));
    const [create] = created(plan);
    expect(create?.ref).toEqual({ kind: 'Job', namespace: 'demo', name: 'backup-b1' });
    expect(create && envOf(create)['BR_LOG_TO_TERM']).toBe('value');
    expect(written(plan)?.status.phase).toBe('Scheduled');
    expect(summary(plan)).toEqual(['create Job backup-b1', 'update Backup b1', 'event SuccessfulCreate']);
  });

  it('B10: a deleted Delete-policy Backup with no backupPath is Clean at once, no Job, finalizer gone', () => {
    const plan = planBackup(backupSnap(backup({ cleanPolicy: 'Delete' }, deleting)));
    expect(created(plan)).toEqual([]);
    expect(written(plan)?.status.conditions).toContainEqual(expect.objectContaining({ type: 'Clean', status: 'True' }));
    expect(written(plan)?.metadata.finalizers).toEqual([]);
  });

  it('B11: a deleted Delete-policy Backup with data gets one clean-<name> Job; a second step creates none', () => {
    const b = backup({ cleanPolicy: 'Delete' }, { ...deleting, status: { ...cond('Complete'), backupPath: 's3://backups/b1' } });
    const first = planBackup(backupSnap(b));
    expect(summary(first)).toEqual(['create Job clean-b1', 'update Backup b1', 'event SuccessfulCreate']);
    expect(written(first)?.status.phase).toBe('Clean');
    const again = planBackup(backupSnap({ ...b, status: written(first)?.status as never }, { jobs: jobs(job('clean-b1')) }));
    expect(created(again)).toEqual([]);
    expect(again.outcome.kind).toBe('wait');
  });

  it.each([
    { name: 'B12: a Complete backup Job and a clean Job: neither is deleted', list: [job('backup-b1', 'Complete'), job('clean-b1')], want: [] as string[] },
    { name: 'B13: a running backup Job is deleted first, and the cleaner waits', list: [job('backup-b1')], want: ['delete Job backup-b1'] },
    { name: 'B14: a backup Job being deleted is waited for', list: [job('backup-b1', undefined, true)], want: [] as string[] },
  ])('$name', ({ list, want }) => {
    const b = backup({ cleanPolicy: 'Delete' }, { ...deleting, status: { ...cond('Running'), backupPath: 's3://backups/b1' } });
    const plan = planBackup(backupSnap(b, { jobs: jobs(...list) }));
    expect(summary(plan).filter((s) => s.includes('Job'))).toEqual(want);
    expect(plan.outcome.kind).toBe('wait');
  });
});
