/**
 * The compaction Job and the CompactBackup's states as v1's controller drives them: the Job's exact
 * shape, what an existing Job means, and the retries (records, back-off, exhaustion).
 */
import { describe, expect, it } from '@jest/globals';

import { planCompactBackup } from '../../../../lib/reconcile/compact-backup/recipe.js';
import { compactBackoffMs } from '../../../../lib/reconcile/compact-backup/retry.js';
import { shouldEnqueueCompact } from '../../../../lib/reconcile/compact-backup/enqueue.js';
import type { Job } from '../../../../lib/reconcile/backup/types.js';
import { cluster, compact, created, events, snap, T0, writtenStatus } from './fixtures.js';

type PodSpec = { restartPolicy: string; serviceAccountName: string; initContainers: { name: string; image: string; args: string[] }[]; containers: { name: string; image: string; args: string[]; env: { name: string; value?: string; valueFrom?: unknown }[]; volumeMounts: { mountPath: string }[] }[]; volumes: { name: string }[] };
const podSpecOf = (job: unknown): PodSpec => (job as { spec: { template: { spec: PodSpec } } }).spec.template.spec;

function job(condition?: { type: 'Complete' | 'Failed'; message?: string }): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'c1', namespace: 'demo', uid: 'uid-job' },
    status: condition ? { conditions: [{ type: condition.type, status: 'True', reason: condition.type === 'Failed' ? 'BackoffLimitExceeded' : 'CompletionsReached', message: condition.message ?? '' }] } : { active: 1 },
  };
}

describe('the compaction Job', () => {
  it("a fresh, valid CompactBackup gets v1's Job and goes Prepare with SuccessfulCreate", () => {
    // Act
    const plan = planCompactBackup(snap(compact()));

    // Assess
    const [create] = created(plan);
    expect(create?.object.metadata).toMatchObject({
      name: 'c1',
      namespace: 'demo',
      labels: { 'app.kubernetes.io/name': 'backup', 'app.kubernetes.io/managed-by': 'backup-operator', 'app.kubernetes.io/component': 'backup', 'app.kubernetes.io/instance': 'Compact-Backup', 'tidb.pingcap.com/backup': 'c1' },
      ownerReferences: [{ apiVersion: 'pingcap.com/v1alpha1', kind: 'CompactBackup', name: 'c1', uid: 'uid-c1', controller: true, blockOwnerDeletion: true }],
    });
    expect((create?.object.spec as { backoffLimit: number }).backoffLimit).toBe(6);
    const pod = podSpecOf(create?.object);
    expect(pod.restartPolicy).toBe('OnFailure');
    expect(pod.serviceAccountName).toBe('tidb-backup-manager');
    expect(pod.initContainers.map((c) => [c.name, c.image, c.args[0]])).toEqual([
      ['br', 'pingcap/br:v9.0.0', "cp /br /var/lib/br-bin/br; echo 'BR copy finished'"],
      ['tikv-ctl', 'pingcap/tikv:v9.0.0', "cp /tikv-ctl /var/lib/kvctl-bin/tikv-ctl; echo 'tikv-ctl copy finished'"],
    ]);
    expect(pod.containers[0]).toMatchObject({ name: 'backup-manager', image: 'pingcap/tidb-backup-manager:v1.6.6', args: ['compact', '--namespace=demo', '--resourceName=c1'] });
    expect(pod.containers[0]?.volumeMounts.map((m) => m.mountPath)).toEqual(['/var/lib/br-bin', '/var/lib/kvctl-bin']);
    expect(writtenStatus(plan)).toEqual({ state: 'Prepare' });
    expect(events(plan)).toEqual(['Normal SuccessfulCreate: create job demo/c1 for cluster Compact-Backup compactbackup successful']);
    expect(plan.actions.map((a) => a.kind)).toEqual(['create', 'update', 'event']);
  });

  it.each([
    { name: 'untagged images get the cluster\'s TiKV version', spec: { toolImage: 'registry/br', tikvImage: 'registry/tikv' }, images: ['registry/br:v9.0.0', 'registry/tikv:v9.0.0'] },
    { name: 'tagged images are kept', spec: { toolImage: 'registry/br:v9.0.1', tikvImage: 'registry/tikv:v9.1.0' }, images: ['registry/br:v9.0.1', 'registry/tikv:v9.1.0'] },
  ])('images: $name', ({ spec, images }) => {
    const pod = podSpecOf(created(planCompactBackup(snap(compact(spec))))[0]?.object);
    expect(pod.initContainers.map((c) => c.image)).toEqual(images);
  });

  it('the env is the storage env only, an S3 Secret as references, spec.env overriding in place; no cluster TLS even on a TLS cluster', () => {
    // Arrange
    const c = compact({ s3: { provider: 'aws', region: 'us-west-2', bucket: 'backups', prefix: 'log', secretName: 's3' }, env: [{ name: 'S3_PROVIDER', value: 'ceph' }, { name: 'EXTRA', value: 'x' }] });
    const tc = cluster('v9.0.0', (t) => ({ ...t, spec: { ...t.spec, tlsCluster: { enabled: true } } }));

    // Act
    const pod = podSpecOf(created(planCompactBackup(snap(c, { tc, s3SecretKeys: ['access_key', 'secret_key'] })))[0]?.object);

    // Assess
    expect(pod.containers[0]?.env.map((e) => e.name)).toEqual(['S3_PROVIDER', 'S3_ENDPOINT', 'AWS_REGION', 'AWS_ACL', 'AWS_STORAGE_CLASS', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'EXTRA']);
    expect(pod.containers[0]?.env[0]).toEqual({ name: 'S3_PROVIDER', value: 'ceph' });
    expect(pod.containers[0]?.env.find((e) => e.name === 'AWS_SECRET_ACCESS_KEY')?.valueFrom).toEqual({ secretKeyRef: { name: 's3', key: 'secret_key' } });
    expect(pod.volumes.map((v) => v.name)).toEqual(['tool-bin']);
  });
});

describe('CompactBackup states around its Job', () => {
  it.each([
    { name: 'Complete', state: 'Complete' },
    { name: 'Failed', state: 'Failed' },
  ])('a $name CompactBackup plans nothing', ({ state }) => {
    const plan = planCompactBackup(snap(compact({}, { state }), { job: job() }));
    expect(plan.actions).toEqual([]);
    expect(plan.outcome.kind).toBe('complete');
  });

  it('a running Job owns progress: nothing is written, the step waits for its events', () => {
    const plan = planCompactBackup(snap(compact({}, { state: 'Running' }), { job: job() }));
    expect(plan.actions).toEqual([]);
    expect(plan.outcome.kind).toBe('wait');
  });

  it("a failed Job makes it Failed, with v1's Warning (reason and the Job's message)", () => {
    // Act
    const plan = planCompactBackup(snap(compact({}, { state: 'RetryFailed', message: 'NoSuchBucket' }), { job: job({ type: 'Failed', message: 'Job has reached the specified backoff limit' }) }));

    // Assess
    expect(writtenStatus(plan)).toEqual({ state: 'Failed', message: 'NoSuchBucket' });
    expect(events(plan)).toEqual(['Warning The compact job is failed.: Job has reached the specified backoff limit']);
  });

  it('a Job that completed without its pod writing Complete ends Failed, not Running forever (better than v1)', () => {
    const plan = planCompactBackup(snap(compact({}, { state: 'Running' }), { job: job({ type: 'Complete' }) }));
    expect(writtenStatus(plan)).toEqual({ state: 'Failed', message: 'Job c1 completed but its pod never reported the compaction Complete' });
  });
});

describe('CompactBackup retries', () => {
  it.each([
    { attempts: 0, ms: 0 },
    { attempts: 1, ms: 0 },
    { attempts: 2, ms: 20_000 },
    { attempts: 3, ms: 40_000 },
    { attempts: 6, ms: 320_000 },
    { attempts: 7, ms: 360_000 },
    { attempts: 12, ms: 360_000 },
  ])("v1's back-off after $attempts failures is $ms ms", ({ attempts, ms }) => {
    expect(compactBackoffMs(attempts)).toBe(ms);
  });

  it('a missing TidbCluster is a RetryFailed record (v1: the build error), woken when the back-off ends', () => {
    // Act
    const plan = planCompactBackup(snap(compact({}, { state: 'Scheduled' }), { tc: undefined }));

    // Assess
    expect(writtenStatus(plan)).toEqual({ state: 'RetryFailed', message: 'tidbcluster.pingcap.com "basic" not found', backoffRetryStatus: [{ retryNum: 0, detectFailedAt: '2026-01-01T00:00:00Z', retryReason: 'tidbcluster.pingcap.com "basic" not found' }] });
    expect(created(plan)).toEqual([]);
    expect(plan.nextWakeAtMs).toBe(T0);
  });

  it('a second build error is woken when its 20 s back-off ends', () => {
    const records = [{ retryNum: 0, detectFailedAt: '2025-12-31T23:59:00Z', retryReason: 'x' }];
    const plan = planCompactBackup(snap(compact({}, { state: 'RetryFailed', backoffRetryStatus: records }), { tc: undefined }));
    expect(writtenStatus(plan)?.backoffRetryStatus?.map((r) => r.retryNum)).toEqual([0, 1]);
    expect(plan.nextWakeAtMs).toBe(T0 + 20_000);
  });

  it("an S3 Secret without its keys is a RetryFailed record with v1's wording", () => {
    const plan = planCompactBackup(snap(compact({ s3: { bucket: 'backups', secretName: 's3' } }, { state: 'Scheduled' }), { s3SecretKeys: ['access_key'] }));
    expect(writtenStatus(plan)).toMatchObject({ state: 'RetryFailed', message: 'compact demo/c1, secret demo/s3 missing some keys [secret_key]' });
  });

  it('within the back-off no Job is created and the key is woken when it ends', () => {
    // Arrange: two failures, the last at T0 — the third attempt is due 20 s later.
    const records = [{ retryNum: 0, detectFailedAt: '2025-12-31T23:59:00Z', retryReason: 'x' }, { retryNum: 1, detectFailedAt: '2026-01-01T00:00:00Z', retryReason: 'y' }];

    // Act
    const early = planCompactBackup(snap(compact({}, { state: 'RetryFailed', backoffRetryStatus: records }), { nowMs: T0 + 10_000 }));
    const due = planCompactBackup(snap(compact({}, { state: 'RetryFailed', backoffRetryStatus: records }), { nowMs: T0 + 20_000 }));

    // Assess
    expect(created(early)).toEqual([]);
    expect(early.nextWakeAtMs).toBe(T0 + 20_000);
    expect(created(due)).toHaveLength(1);
    expect(writtenStatus(due)?.state).toBe('Prepare');
  });

  it('past maxRetryTimes it fails with no new Job', () => {
    // Arrange
    const records = [0, 1, 2].map((n) => ({ retryNum: n, detectFailedAt: '2025-12-31T23:00:00Z', retryReason: 'AccessDenied' }));

    // Act
    const plan = planCompactBackup(snap(compact({ maxRetryTimes: 1 }, { state: 'RetryFailed', message: 'AccessDenied', backoffRetryStatus: records })));

    // Assess
    expect(writtenStatus(plan)?.state).toBe('Failed');
    expect(events(plan)).toEqual(['Warning The compact job is failed.: create job failed, reached max retry times']);
    expect(created(plan)).toEqual([]);
  });
});

describe('which CompactBackup events are worth a step (v1 updateCompact)', () => {
  it.each([
    { state: undefined, want: true },
    { state: 'Scheduled', want: true },
    { state: 'Running', want: true },
    { state: 'RetryFailed', want: true },
    { state: 'Complete', want: false },
    { state: 'Failed', want: false },
  ])('state $state → $want', ({ state, want }) => {
    expect(shouldEnqueueCompact(compact({}, state === undefined ? undefined : { state }))).toBe(want);
  });
});
