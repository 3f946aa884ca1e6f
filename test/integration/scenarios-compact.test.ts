/**
 * The compaction stories of test/scenarios run end to end — the CompactBackup controller on the step
 * engine against the simulated Job controller, the backup-manager's compaction and the S3 — and show
 * what they are about: v1's Job, the compacted objects in BR's layout beside the log they came from,
 * the pod's status and Events, the failure path through the Job's backoffLimit, and the refusal of a
 * pre-v9.0 cluster without any Job.
 */
import { describe, expect, it } from '@jest/globals';
import type { ScenarioReport } from '../../lib/local/scenario/report.js';
import { runStoryAndInspect } from '../support/story.js';
import { itChecksOwnedStoriesPass } from '../support/story-owners.js';

type Obj = { metadata: { labels?: Record<string, string> }; spec: Record<string, unknown>; status?: Record<string, unknown> };
const objectOf = (r: ScenarioReport, key: string): Obj | undefined => (r.final as unknown as { objects: Record<string, Obj> }).objects[key];
const bucketsOf = (r: ScenarioReport): Record<string, string[]> => (r.final as unknown as { buckets: Record<string, string[]> }).buckets;
const podSpec = (job: Obj | undefined): { restartPolicy?: string; initContainers?: { name: string; image: string }[]; containers?: { name: string; args: string[] }[] } =>
  ((job?.spec['template'] as { spec?: unknown } | undefined)?.spec ?? {}) as never;

describe('compaction stories', () => {
  it('backup-compact: v1\'s Job compacts the log into BR\'s layout and ends Complete despite a killed pod; a missing bucket ends Failed through backoffLimit', async () => {
    // Act
    const { report: r, seen } = await runStoryAndInspect('backup-compact.yaml', {
      inspect: async (stack) => stack.world.store.list('Event', 'demo').map((e) => `${String(e.type)} ${String(e.reason)} ${(e.involvedObject as { name?: string }).name ?? ''}`),
    });

    // Assert: the story and its monitors.
    expect(r.passed).toBe(true);
    expect(r.invariants.flatMap((i) => i.violations)).toEqual([]);
    // v1's Job.
    const job = objectOf(r, 'Job/demo/compact-1');
    expect(job?.metadata.labels).toMatchObject({ 'app.kubernetes.io/instance': 'Compact-Backup', 'app.kubernetes.io/managed-by': 'backup-operator', 'tidb.pingcap.com/backup': 'compact-1' });
    expect(job?.spec['backoffLimit']).toBe(6);
    expect(podSpec(job).restartPolicy).toBe('OnFailure');
    expect(podSpec(job).initContainers?.map((c) => c.image)).toEqual(['pingcap/br:v9.0.0', 'pingcap/tikv:v9.0.0']);
    expect(podSpec(job).containers?.[0]).toMatchObject({ name: 'backup-manager', args: ['compact', '--namespace=demo', '--resourceName=compact-1'] });
    // The pod's status: Complete, all metas read and all bytes compacted, endTs past startTs.
    const status = objectOf(r, 'CompactBackup/demo/compact-1')?.status ?? {};
    expect(status['state']).toBe('Complete');
    const progress = /^\[READ_META\((\d+)\/(\d+)\),COMPACT_WORK\((\d+)\/(\d+)\)\]$/.exec(String(status['progress']));
    expect(progress?.[1]).toBe(progress?.[2]);
    expect(progress?.[3]).toBe(progress?.[4]);
    expect(Number(progress?.[4])).toBeGreaterThan(0);
    expect(BigInt(String(status['endTs']))).toBeGreaterThan(BigInt(Date.UTC(2026, 0, 1)) << 18n);
    // BR's layout under the log backup's prefix: outputs and their metas, one migration; the log itself stays.
    const keys = bucketsOf(r)['backups'] ?? [];
    const outputs = keys.filter((k) => /^basic\/log\/v1\/compaction_out\/\d+_\d+\/outputs\/\d+\.sst$/.test(k));
    expect(outputs).toHaveLength(Number(progress?.[2]));
    expect(keys.filter((k) => /^basic\/log\/v1\/compaction_out\/\d+_\d+\/metas\/\d+\.cmeta$/.test(k))).toHaveLength(outputs.length);
    expect(keys.filter((k) => k.startsWith('basic/log/v1/migrations/'))).toEqual([expect.stringMatching(/^basic\/log\/v1\/migrations\/00000001_\d+_\d+\.mgrt$/)]);
    expect(keys.filter((k) => k.startsWith('basic/log/v1/backupmeta/')).length).toBeGreaterThanOrEqual(outputs.length);
    expect(bucketsOf(r)['missing']).toBeUndefined();
    // The killed pod: the Job counts one failure and still completes.
    expect(objectOf(r, 'Job/demo/compact-1')?.status?.['failed']).toBe(1);
    // The missing bucket: RetryFailed records by the pod, then Failed once the Job failed.
    const failed = objectOf(r, 'CompactBackup/demo/compact-nobucket')?.status ?? {};
    expect(failed).toMatchObject({ state: 'Failed', message: expect.stringMatching(/^NoSuchBucket: /) });
    expect(failed['backoffRetryStatus']).toEqual([expect.objectContaining({ retryNum: 0, retryReason: expect.stringMatching(/^NoSuchBucket: /) })]);
    // Events: the controller's, and the pod's recorder (compact-manager).
    expect(seen?.filter((e) => e.includes('compact'))).toEqual(expect.arrayContaining([
      'Normal SuccessfulCreate compact-1',
      'Normal Started compact-1',
      'Normal Finished compact-1',
      'Warning Failed(Retryable) compact-nobucket',
      'Warning The compact job is failed. compact-nobucket',
    ]));
  }, 120_000);

  it('backup-compact-refused: a v8.5 cluster and a missing endTs are refused at once, no Job ever created', async () => {
    // Act
    const { report: r } = await runStoryAndInspect('backup-compact-refused.yaml');

    // Assert
    expect(r.passed).toBe(true);
    expect(objectOf(r, 'CompactBackup/demo/compact-v85')?.status).toEqual({ state: 'Failed', message: 'log backup compaction needs TiKV v9.0.0 or later (TiDB v9.0): spec.br.cluster demo/basic runs TiKV v8.5.0' });
    expect(r.actions.filter((a) => a.verb === 'create' && a.kind === 'Job')).toEqual([]);
    expect(r.actions.filter((a) => a.verb === 'event' && a.args?.['reason'] === 'InvalidSpec')).toHaveLength(2);
  }, 120_000);
});

itChecksOwnedStoriesPass('scenarios-compact');
