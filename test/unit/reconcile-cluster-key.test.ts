import { describe, expect, it } from '@jest/globals';

import { clusterKeyOf, scheduleKeyOfBackup } from '../../lib/exporter/cluster-key.js';
import { formatClusterKey, parseClusterKey } from '../../lib/model/key.js';

describe('cluster keys: <k8sCluster>/<namespace>/<name>', () => {
  it.each([
    { name: 'an EKS cluster key', key: 'eks-prod/tidb/basic', ref: { k8sCluster: 'eks-prod', namespace: 'tidb', name: 'basic' } },
    { name: 'a dotted cluster and object name', key: 'kind.local/ns-1/tc.v2', ref: { k8sCluster: 'kind.local', namespace: 'ns-1', name: 'tc.v2' } },
  ])('parses and formats back: $name', ({ key, ref }) => {
    // Act
    const parsed = parseClusterKey(key);
    // Assess
    expect(parsed).toEqual({ ok: true, ref });
    expect(formatClusterKey(ref)).toBe(key);
  });

  it.each([
    { name: 'two parts', key: 'tidb/basic', field: 'key' },
    { name: 'four parts', key: 'a/b/c/d', field: 'key' },
    { name: 'an empty cluster', key: '/tidb/basic', field: 'k8sCluster' },
    { name: 'a cluster with #', key: 'eks#1/tidb/basic', field: 'k8sCluster' },
    { name: 'an upper-case namespace', key: 'eks/TiDB/basic', field: 'namespace' },
    { name: 'a namespace of 64 characters', key: `eks/${'n'.repeat(64)}/basic`, field: 'namespace' },
    { name: 'a name ending in a dash', key: 'eks/tidb/basic-', field: 'name' },
    { name: 'an empty name', key: 'eks/tidb/', field: 'name' },
  ])('rejects $name, naming the bad part', ({ key, field }) => {
    const parsed = parseClusterKey(key);
    expect(parsed).toMatchObject({ ok: false, field });
  });

  it('refuses to format a key that would not parse', () => {
    expect(() => formatClusterKey({ k8sCluster: 'eks', namespace: 'a/b', name: 'c' })).toThrow(/namespace must be a DNS-1123 label/);
  });
});

describe('backup controllers: Backup, Restore and Job events map to kinded keys', () => {
  const owned = (kind: string, name: string) => ({ metadata: { namespace: 'demo', name: `x-${name}`, ownerReferences: [{ apiVersion: 'pingcap.com/v1alpha1', kind, name, uid: 'u', controller: true }] } });
  it.each([
    { name: 'a new Backup is its own Backup key', kind: 'Backup' as const, obj: { metadata: { namespace: 'demo', name: 'b1' } }, key: 'Backup:eks/demo/b1' },
    { name: 'a Backup being deleted is enqueued', kind: 'Backup' as const, obj: { metadata: { namespace: 'demo', name: 'b1', deletionTimestamp: '2026-01-01T00:00:00Z' }, status: { phase: 'Complete', conditions: [{ type: 'Complete', status: 'True' }] } }, key: 'Backup:eks/demo/b1' },
    { name: 'a Complete snapshot Backup is dropped (B02)', kind: 'Backup' as const, obj: { metadata: { namespace: 'demo', name: 'b1' }, status: { phase: 'Complete', conditions: [{ type: 'Complete', status: 'True' }] } }, key: undefined },
    { name: 'a Running snapshot Backup is dropped: its Job owns progress', kind: 'Backup' as const, obj: { metadata: { namespace: 'demo', name: 'b1' }, status: { phase: 'Running' } }, key: undefined },
    { name: 'a Job owned by a Backup maps to that Backup', kind: 'Job' as const, obj: owned('Backup', 'b1'), key: 'Backup:eks/demo/b1' },
    { name: 'a Job owned by a Restore maps to that Restore', kind: 'Job' as const, obj: owned('Restore', 'r1'), key: 'Restore:eks/demo/r1' },
    { name: 'a Job owned by anything else maps to nothing', kind: 'Job' as const, obj: owned('CronJob', 'c1'), key: undefined },
    { name: 'a new Restore is its own Restore key', kind: 'Restore' as const, obj: { metadata: { namespace: 'demo', name: 'r1' } }, key: 'Restore:eks/demo/r1' },
    { name: 'a new CompactBackup is its own CompactBackup key', kind: 'CompactBackup' as const, obj: { metadata: { namespace: 'demo', name: 'c1' } }, key: 'CompactBackup:eks/demo/c1' },
    { name: 'a RetryFailed CompactBackup is enqueued (its retry is due after the back-off)', kind: 'CompactBackup' as const, obj: { metadata: { namespace: 'demo', name: 'c1' }, status: { state: 'RetryFailed' } }, key: 'CompactBackup:eks/demo/c1' },
    { name: 'a Complete CompactBackup is dropped (v1 updateCompact)', kind: 'CompactBackup' as const, obj: { metadata: { namespace: 'demo', name: 'c1' }, status: { state: 'Complete' } }, key: undefined },
    { name: 'a Failed CompactBackup is dropped (v1 updateCompact)', kind: 'CompactBackup' as const, obj: { metadata: { namespace: 'demo', name: 'c1' }, status: { state: 'Failed' } }, key: undefined },
    { name: 'a Job owned by a CompactBackup maps to that CompactBackup', kind: 'Job' as const, obj: owned('CompactBackup', 'c1'), key: 'CompactBackup:eks/demo/c1' },
    { name: 'a BackupSchedule is its own key on every change (v1 enqueues every add and update)', kind: 'BackupSchedule' as const, obj: { metadata: { namespace: 'demo', name: 'nightly' }, status: { lastBackup: 'x' } }, key: 'BackupSchedule:eks/demo/nightly' },
    { name: 'a TidbInitializer is its own key on every change (v1 WatchForObject)', kind: 'TidbInitializer' as const, obj: { metadata: { namespace: 'demo', name: 'ti' }, status: { phase: 'Completed' } }, key: 'TidbInitializer:eks/demo/ti' },
    { name: 'a Job owned by a TidbInitializer maps to that TidbInitializer', kind: 'Job' as const, obj: owned('TidbInitializer', 'ti'), key: 'TidbInitializer:eks/demo/ti' },
  ])('$name', ({ kind, obj, key }) => {
    expect(clusterKeyOf(kind, obj as never, 'eks')).toBe(key);
  });

  it.each([
    { name: 'a Complete scheduled Backup wakes its BackupSchedule', status: { conditions: [{ type: 'Complete', status: 'True' }] }, deleted: false, key: 'BackupSchedule:eks/demo/nightly' },
    { name: 'a Failed scheduled Backup wakes its BackupSchedule', status: { conditions: [{ type: 'Failed', status: 'True' }] }, deleted: false, key: 'BackupSchedule:eks/demo/nightly' },
    { name: 'a deleted scheduled Backup wakes its BackupSchedule', status: { conditions: [{ type: 'Running', status: 'True' }] }, deleted: true, key: 'BackupSchedule:eks/demo/nightly' },
    { name: 'a running scheduled Backup does not (nothing polls between runs)', status: { conditions: [{ type: 'Running', status: 'True' }] }, deleted: false, key: undefined },
    { name: 'a scheduled CompactBackup that ended Complete wakes its BackupSchedule (the next compaction)', status: { state: 'Complete' }, deleted: false, key: 'BackupSchedule:eks/demo/nightly' },
    { name: 'a scheduled CompactBackup that ended Failed wakes it too', status: { state: 'Failed' }, deleted: false, key: 'BackupSchedule:eks/demo/nightly' },
    { name: 'a running CompactBackup does not', status: { state: 'Running' }, deleted: false, key: undefined },
  ])('$name', ({ status, deleted, key }) => {
    const backup = { metadata: { namespace: 'demo', name: 'nightly-x', ownerReferences: [{ apiVersion: 'pingcap.com/v1alpha1', kind: 'BackupSchedule', name: 'nightly', uid: 'u', controller: true }] }, status };
    expect(scheduleKeyOfBackup(backup as never, 'eks', deleted)).toBe(key);
    expect(scheduleKeyOfBackup({ ...backup, metadata: { namespace: 'demo', name: 'b' } } as never, 'eks', true)).toBeUndefined();
  });

  it('a deleted Backup always maps to its key, even a Complete one, so its step forgets it', () => {
    const done = { metadata: { namespace: 'demo', name: 'b1' }, status: { phase: 'Complete', conditions: [{ type: 'Complete', status: 'True' }] } };
    expect(clusterKeyOf('Backup', done as never, 'eks', true)).toBe('Backup:eks/demo/b1');
  });
});
