/**
 * The backup stories of test/scenarios run end to end — the Backup and Restore controllers on the
 * step engine against the simulated world's Job controller, backup-manager pods, S3 and datasets —
 * and show what they are about in the report: v1's Job contract, the data in the bucket, the
 * restored dataset, the retries, and exactly which prefixes a clean removes.
 */
import { describe, expect, it } from '@jest/globals';
import { datasetChecksum } from '../../lib/sim/backup/dataset.js';
import type { ScenarioReport } from '../../lib/local/scenario/report.js';
import { runStory } from '../support/story.js';
import { itChecksOwnedStoriesPass } from '../support/story-owners.js';


const run = (file: string): Promise<ScenarioReport> => runStory(file);

type Obj = { metadata: { labels?: Record<string, string> }; spec: Record<string, unknown>; status?: Record<string, unknown> };
const objectOf = (r: ScenarioReport, key: string): Obj | undefined => (r.final as unknown as { objects: Record<string, Obj> }).objects[key];
const bucketsOf = (r: ScenarioReport): Record<string, string[]> => (r.final as unknown as { buckets: Record<string, string[]> }).buckets;
const violations = (r: ScenarioReport): unknown[] => r.invariants.flatMap((i) => i.violations);
const container = (job: Obj | undefined): { image?: string; args?: string[]; env?: { name: string; value?: string; valueFrom?: unknown }[] } =>
  ((job?.spec['template'] as { spec: { containers: unknown[] } } | undefined)?.spec.containers[0] ?? {}) as never;

describe('backup stories', () => {
  it('backup-snapshot-s3: the Job is v1\'s, the Backup Complete with its size, the data under its prefix, the Secret\'s keys only as references', async () => {
    // Act
    const r = await run('backup-snapshot-s3.yaml');

    // Assert
    expect(r.passed).toBe(true);
    expect(violations(r)).toEqual([]);
    const job = objectOf(r, 'Job/demo/backup-b1');
    expect(job?.metadata.labels).toMatchObject({ 'app.kubernetes.io/name': 'backup', 'app.kubernetes.io/managed-by': 'backup-operator', 'app.kubernetes.io/component': 'backup', 'tidb.pingcap.com/backup': 'b1' });
    expect(container(job)).toMatchObject({ image: 'pingcap/tidb-backup-manager:latest', args: ['backup', '--namespace=demo', '--backupName=b1', '--tikvVersion=v8.5.0', '--mode=snapshot'] });
    const status = objectOf(r, 'Backup/demo/b1')?.status ?? {};
    expect(status).toMatchObject({ phase: 'Complete', backupPath: 's3://backups/basic/b1', commitTs: expect.stringMatching(/^\d+$/) });
    expect(status['backupSize']).toBeGreaterThan(0);
    expect(bucketsOf(r)['backups']).toEqual(expect.arrayContaining(['basic/b1/backupmeta', expect.stringMatching(/^basic\/b1\/1\/.*\.sst$/)]));
    expect(bucketsOf(r)['keyed']).toContain('basic/b2/backupmeta');
    const keyed = JSON.stringify(objectOf(r, 'Job/demo/backup-b2'));
    expect(keyed).toContain('"secretKeyRef":{"name":"s3-secret","key":"secret_key"}');
    expect(keyed).not.toContain('"example"');
  });

  it('backup-restore-fresh-cluster: the fresh cluster ends with the backup\'s dataset; the cluster holding data is refused with a Warning and gets no Job', async () => {
    // Act
    const r = await run('backup-restore-fresh-cluster.yaml');

    // Assert
    expect(r.passed).toBe(true);
    expect(violations(r)).toEqual([]);
    expect(objectOf(r, 'Restore/demo/r1')?.status?.['commitTs']).toBe(objectOf(r, 'Backup/demo/b1')?.status?.['commitTs']);
    const datasets = (r.final as unknown as { datasets: Record<string, { checksum: string }> }).datasets;
    expect(datasets['demo/fresh']?.checksum).not.toBe('0');
    expect(bucketsOf(r)['backups']?.some((k) => k.includes(`_${datasets['demo/fresh']?.checksum ?? ''}_`))).toBe(true);
    const warning = r.actions.find((a) => a.verb === 'event' && a.args?.['reason'] === 'TargetClusterNotEmpty');
    expect(warning?.args).toMatchObject({ type: 'Warning', object: { kind: 'Restore', name: 'r2' } });
    expect(r.actions.some((a) => a.verb === 'create' && a.kind === 'Job' && a.name === 'restore-r2')).toBe(false);
  });

  it('backup-pitr-restore: the fresh cluster holds exactly the dataset the source had at pitrRestoredTs', async () => {
    // Act
    const r = await run('backup-pitr-restore.yaml');

    // Assert
    expect(r.passed).toBe(true);
    expect(violations(r)).toEqual([]);
    const datasets = (r.final as unknown as { datasets: Record<string, { checksum: string }> }).datasets;
    // The workload writes 60 a minute from t = 0: at 00:05:00, 300 writes of demo/basic's lineage.
    expect(datasets['demo/fresh']?.checksum).toBe(datasetChecksum('demo/basic', 300));
    expect(objectOf(r, 'Backup/demo/log')?.status?.['phase']).toBe('Stopped');
  });

  it('backup-job-pod-killed: retried once then Complete; without the policy Failed at once; past maxRetryTimes Failed', async () => {
    // Act
    const r = await run('backup-job-pod-killed.yaml');

    // Assert
    expect(r.passed).toBe(true);
    const statusOf = (name: string): Record<string, unknown> => objectOf(r, `Backup/demo/${name}`)?.status ?? {};
    expect(statusOf('b1')).toMatchObject({ phase: 'Complete', backoffRetryStatus: [{ retryNum: 1, retryReason: 'Job backup-b1 has failed' }] });
    expect(statusOf('b2')['phase']).toBe('Failed');
    expect(statusOf('b2')['backoffRetryStatus']).toBeUndefined();
    expect(JSON.stringify(statusOf('b3')['conditions'])).toContain('exceed retry times, max is 1, but got 2');
  });

  it('backup-clean-policy: the clean Job removes exactly the Delete backup\'s prefix; the sibling and the Retain backup keep theirs', async () => {
    // Act
    const r = await run('backup-clean-policy.yaml');

    // Assert
    expect(r.passed).toBe(true);
    expect(violations(r)).toEqual([]);
    const keys = bucketsOf(r)['backups'] ?? [];
    expect(keys.filter((k) => k.startsWith('basic/del/'))).toEqual([]);
    expect(keys).toEqual(expect.arrayContaining(['basic/del-sibling/backupmeta', 'basic/keep/backupmeta']));
    const clean = r.actions.find((a) => a.verb === 'create' && a.kind === 'Job' && a.name === 'clean-del');
    expect(container(clean?.object as Obj).args).toEqual(['clean', '--namespace=demo', '--backupName=del']);
    expect(r.actions.some((a) => a.verb === 'create' && a.kind === 'Job' && (a.name === 'clean-keep' || a.name === 'clean-del-sibling'))).toBe(false);
  });

  it('backup-schedule-day: one Backup per fire, in order, none started before the previous one completed; retention through cleanPolicy leaves no data once the schedules are gone', async () => {
    // Act
    const r = await run('backup-schedule-day.yaml');

    // Assert
    expect(r.passed).toBe(true);
    expect(violations(r)).toEqual([]);
    const creates = r.actions.filter((a) => a.verb === 'create' && a.kind === 'Backup');
    const nightly = creates.filter((a) => a.name?.startsWith('nightly-')).map((a) => a.name);
    expect(nightly).toEqual(expect.arrayContaining(['nightly-2026-01-01t03-00-01', 'nightly-2026-01-01t06-00-01', 'nightly-2026-01-01t12-00-01', 'nightly-2026-01-02t00-00-01']));
    expect(nightly).toHaveLength(8);
    expect(nightly).not.toContain('nightly-2026-01-01t09-00-01');
    // Each rapid backup that retention deleted carries its run times: the next one began after it
    // completed (report times count from the virtual clock's start, 2026-01-01T00:00Z).
    const startMs = Date.UTC(2026, 0, 1);
    const rapidDone = r.actions
      .filter((a) => a.verb === 'delete' && a.kind === 'Backup' && a.name?.startsWith('rapid-'))
      .map((a) => ({ name: a.name ?? '', completedMs: Date.parse(String((a.object as Obj).status?.['timeCompleted'] ?? '')) - startMs }));
    expect(rapidDone.length).toBeGreaterThan(0);
    for (const done of rapidDone) {
      const next = creates.find((a) => a.name?.startsWith('rapid-') && (a.name ?? '') > done.name);
      if (next) expect(next.atMs).toBeGreaterThanOrEqual(done.completedMs);
    }
    expect((bucketsOf(r)['backups'] ?? []).filter((k) => k.startsWith('schedules/'))).toEqual([]);
    // A virtual day and a bit: longer than the other stories.
  }, 600_000);
});

itChecksOwnedStoriesPass('scenarios-backup');
