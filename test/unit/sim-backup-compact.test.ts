/**
 * The simulated backup-manager's compaction (`compact --namespace --resourceName`) in the Job the
 * CompactBackup controller builds: it compacts the log metadata under the prefix into BR's layout
 * over virtual time and writes v1's status; a storage or credential error is RetryFailed with a
 * record, the container restarts in its pod, and the Job fails at its backoffLimit.
 */
import { describe, expect, it } from '@jest/globals';

import type { KubeObject as ModelObject, TidbCluster } from '../../lib/model/kube.js';
import { buildCompactJob } from '../../lib/reconcile/compact-backup/job.js';
import type { CompactBackup } from '../../lib/reconcile/compact-backup/types.js';
import { mergeStatus } from '../../lib/sim/backup/compact.js';
import { tsoOf } from '../../lib/sim/backup/dataset.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { tidbCluster, withSpec } from '../support/fixtures.js';
import { NS, ROLE, START_MS, backupWorld } from './sim-backup-harness.js';

const MINUTE = 60_000;
const TC = tidbCluster(withSpec({ version: 'v9.0.0' })) as TidbCluster;

/** Five flushed minutes of log (60 writes of 1 MiB a minute) under `backups/demo/log`, as the log task writes them. */
function seedLog(w: ReturnType<typeof backupWorld>): void {
  const who = { kind: 'role' as const, roleArn: ROLE };
  for (let m = 0; m < 5; m++) {
    const fromMs = START_MS + m * MINUTE;
    w.backups.s3.put(who, 'backups', `demo/log/v1/backupmeta/${fromMs + MINUTE}.meta`, 4096, { fromMs, toMs: fromMs + MINUTE, segments: [{ fromMs: START_MS, lineage: 'demo/basic', baseVersion: 0, writesPerMinute: 60 }] });
  }
}

/** Creates the CompactBackup and the Job the controller builds for it (maxRetryTimes, SA and storage as given). */
function startCompaction(w: ReturnType<typeof backupWorld>, spec: Record<string, unknown> = {}): KubeObject {
  const cr = w.store.create('CompactBackup', {
    metadata: { name: 'c1', namespace: NS },
    spec: { startTs: '2026-01-01 00:00:00', endTs: '2026-01-01 00:03:00', serviceAccount: 'irsa', br: { cluster: 'basic', clusterNamespace: NS }, s3: { provider: 'aws', region: 'us-west-2', bucket: 'backups', prefix: 'demo/log' }, ...spec },
  });
  const job = buildCompactJob(cr as unknown as CompactBackup, TC, 'pingcap/tidb-backup-manager:v1.6.6') as ModelObject;
  return w.store.create('Job', job as unknown as KubeObject);
}

describe('simulated compaction', () => {
  it('compacts the metas overlapping [startTs, endTs] into outputs, metas and one migration, then Complete with progress and endTs', async () => {
    // Prepare
    const w = backupWorld();
    seedLog(w);
    startCompaction(w);

    // Act
    await w.clock.advance(2 * MINUTE);

    // Assert: three overlapping minutes (the fourth starts at until), 60 MiB each at 10 MiB/s after a 5 s start.
    const status = w.cr('CompactBackup', 'c1').status ?? {};
    expect(status).toEqual({ state: 'Complete', progress: `[READ_META(3/3),COMPACT_WORK(${3 * 60 * 1024 * 1024}/${3 * 60 * 1024 * 1024})]`, endTs: tsoOf(START_MS + 3 * MINUTE) });
    const keys = w.backups.s3.contents()['backups'] ?? [];
    const label = `${tsoOf(START_MS)}_${tsoOf(START_MS + 3 * MINUTE)}`;
    expect(keys.filter((k) => k.includes('compaction_out') || k.includes('migrations'))).toEqual([
      `demo/log/v1/compaction_out/${label}/metas/1.cmeta`,
      `demo/log/v1/compaction_out/${label}/metas/2.cmeta`,
      `demo/log/v1/compaction_out/${label}/metas/3.cmeta`,
      `demo/log/v1/compaction_out/${label}/outputs/1.sst`,
      `demo/log/v1/compaction_out/${label}/outputs/2.sst`,
      `demo/log/v1/compaction_out/${label}/outputs/3.sst`,
      `demo/log/v1/migrations/00000001_${label}.mgrt`,
    ]);
    expect(keys.filter((k) => k.includes('/backupmeta/'))).toHaveLength(5);
    expect(w.store.mustGet('Job', NS, 'c1').status?.conditions).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'Complete', status: 'True' })]));
  });

  it('takes virtual time by size: still Running before the work is done', async () => {
    const w = backupWorld();
    seedLog(w);
    startCompaction(w);
    await w.clock.advance(12_000);
    expect(w.cr('CompactBackup', 'c1').status?.['state']).toBe('Running');
  });

  it.each([
    { name: 'a bucket that does not exist', spec: { s3: { provider: 'aws', region: 'us-west-2', bucket: 'nope', prefix: 'demo/log' } }, message: /^NoSuchBucket: / },
    { name: 'a role the bucket does not admit', spec: { serviceAccount: 'other' }, message: /^AccessDenied: Access Denied/ },
    { name: 'a Secret with the wrong secret key', spec: { serviceAccount: 'irsa', s3: { provider: 'aws', region: 'us-west-2', bucket: 'backups', prefix: 'demo/log', secretName: 'bad-secret' } }, message: /^SignatureDoesNotMatch: / },
  ])('$name: RetryFailed with a record per run, restarted in its pod, the Job Failed at backoffLimit', async ({ spec, message }) => {
    // Prepare
    const w = backupWorld();
    seedLog(w);
    startCompaction(w, { maxRetryTimes: 2, ...spec });

    // Act
    await w.clock.advance(2 * MINUTE);

    // Assert
    const status = w.cr('CompactBackup', 'c1').status ?? {};
    expect(status['state']).toBe('RetryFailed');
    expect(String(status['message'])).toMatch(message);
    expect((status['backoffRetryStatus'] as { retryNum: number }[]).map((r) => r.retryNum)).toEqual([0, 1]);
    const job = w.store.mustGet('Job', NS, 'c1');
    expect(job.status?.conditions).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'Failed', reason: 'BackoffLimitExceeded' })]));
    expect((w.backups.s3.contents()['backups'] ?? []).filter((k) => k.includes('compaction_out'))).toEqual([]);
  });

  it.each([
    { name: 'state and message replace', before: { state: 'Running' }, change: { state: 'RetryFailed', message: 'x' }, after: { state: 'RetryFailed', message: 'x' } },
    { name: 'an empty message keeps the old one', before: { message: 'old' }, change: { message: '' }, after: { message: 'old' } },
    { name: 'endTs only grows', before: { endTs: '200' }, change: { endTs: '100' }, after: { endTs: '200' } },
    { name: 'endTs grows numerically, not as text', before: { endTs: '99' }, change: { endTs: '100' }, after: { endTs: '100' } },
    { name: 'a retry record is numbered by the records so far', before: { backoffRetryStatus: [{ retryNum: 0 }] }, change: { retry: { detectFailedAt: 't', retryReason: 'r' } }, after: { backoffRetryStatus: [{ retryNum: 0 }, { retryNum: 1, detectFailedAt: 't', retryReason: 'r' }] } },
  ])("v1's status merge: $name", ({ before, change, after }) => {
    expect(mergeStatus(before, change)).toEqual(after);
  });
});
