/**
 * The scenario format's way to create what a user creates beside a TidbCluster mid-run: `objects:`
 * taking ServiceAccounts and TiDB Operator's Backup / Restore, the timeline's `apply:` and
 * `deleteObject:`, and `waitFor: {object, jsonpath, equals}` aimed at one object (docs/SCENARIOS.md).
 * Bad input names the field.
 */
import { describe, expect, it } from '@jest/globals';
import { parseScenario } from '../../lib/local/scenario/file.js';

// The timeline's first entry is on line 8.
const HEAD = `name: t
cluster:
  metadata: {name: basic, namespace: demo}
  spec:
    pd: {replicas: 3}
    tikv: {replicas: 3}
`;
const withTimeline = (...entries: string[]): string => `${HEAD}timeline:\n${entries.map((e) => `  - ${e}\n`).join('')}`;
const BACKUP = '{apiVersion: pingcap.com/v1alpha1, kind: Backup, metadata: {name: b1}, spec: {br: {cluster: basic}, s3: {bucket: backups}}}';

describe('apply, deleteObject and waitFor on an object', () => {
  it('reads them, defaulting namespaces to the cluster\'s', () => {
    // Act
    const result = parseScenario(withTimeline(`apply: ${BACKUP}`, 'waitFor: {object: Backup/b1, jsonpath: $.status.phase, equals: Complete}', 'waitFor: {object: Job/other/backup-b1, jsonpath: $.metadata.name, equals: null}', 'deleteObject: {kind: Backup, name: b1}'), 's.yaml');

    // Assert
    if (!result.ok) throw new Error(result.error);
    const [apply, wait, waitOther, del] = result.scenario.timeline;
    expect(apply).toMatchObject({ verb: 'apply', manifest: { kind: 'Backup', metadata: { name: 'b1', namespace: 'demo' }, spec: { br: { cluster: 'basic' } } } });
    expect(wait).toMatchObject({ verb: 'waitFor', until: { kind: 'jsonpath', object: { kind: 'Backup', name: 'b1' }, equals: 'Complete' } });
    expect(waitOther).toMatchObject({ until: { object: { kind: 'Job', namespace: 'other', name: 'backup-b1' } } });
    expect(del).toMatchObject({ verb: 'deleteObject', object: { kind: 'Backup', name: 'b1' } });
  });

  it('objects: takes a ServiceAccount and a Restore', () => {
    // Act
    const text = `${HEAD}objects:\n  - {apiVersion: v1, kind: ServiceAccount, metadata: {name: tidb-backup-manager, annotations: {eks.amazonaws.com/role-arn: "arn:aws:iam::1:role/r"}}}\n  - {apiVersion: pingcap.com/v1alpha1, kind: Restore, metadata: {name: r1}, spec: {br: {cluster: basic}}}\ntimeline: []\n`;
    const result = parseScenario(text, 's.yaml');

    // Assert
    if (!result.ok) throw new Error(result.error);
    expect(result.scenario.objects.map((o) => [o.kind, o.metadata.namespace])).toEqual([['ServiceAccount', 'demo'], ['Restore', 'demo']]);
  });

  it.each([
    { name: 'an apply of a kind objects: does not take', entry: 'apply: {apiVersion: v1, kind: Pod, metadata: {name: x}}', error: 's.yaml:8: timeline[0].apply.kind: expected one of: Secret, ConfigMap, ServiceAccount, Role, RoleBinding, ClusterRole, ClusterRoleBinding, Backup, Restore, BackupSchedule, CompactBackup, TidbInitializer, TidbMonitor, TidbDashboard, TidbNGMonitoring, Deployment, VolumeAttributesClass, StorageClass, got "Pod"' },
    { name: 'a Backup with the core apiVersion', entry: 'apply: {apiVersion: v1, kind: Backup, metadata: {name: b1}, spec: {}}', error: 's.yaml:8: timeline[0].apply.apiVersion: expected pingcap.com/v1alpha1 for Backup, got "v1"' },
    { name: 'a Backup without spec', entry: 'apply: {apiVersion: pingcap.com/v1alpha1, kind: Backup, metadata: {name: b1}}', error: 's.yaml:8: timeline[0].apply.spec: required field is missing' },
    { name: 'a Backup with status', entry: 'apply: {apiVersion: pingcap.com/v1alpha1, kind: Backup, metadata: {name: b1}, spec: {}, status: {phase: Complete}}', error: 's.yaml:8: timeline[0].apply.status: unknown field (expected one of: apiVersion, kind, metadata, spec)' },
    { name: 'a waitFor object without a name', entry: 'waitFor: {object: Backup, jsonpath: $.status.phase, equals: Complete}', error: 's.yaml:8: timeline[0].waitFor.object: expected Kind/name or Kind/namespace/name, got "Backup"' },
    { name: 'a waitFor object of an unknown kind', entry: 'waitFor: {object: Bakup/b1, jsonpath: $.status.phase, equals: Complete}', error: 's.yaml:8: timeline[0].waitFor.object: unknown kind "Bakup" (expected one of: Secret, ConfigMap, ServiceAccount, Role, RoleBinding, ClusterRole, ClusterRoleBinding, Backup, Restore, BackupSchedule, CompactBackup, TidbInitializer, TidbMonitor, TidbDashboard, TidbNGMonitoring, Deployment, VolumeAttributesClass, StorageClass, TidbCluster, Job, Pod, PersistentVolumeClaim, StatefulSet, Lease)' },
    { name: 'a deleteObject without kind', entry: 'deleteObject: {name: b1}', error: 's.yaml:8: timeline[0].deleteObject.kind: required field is missing' },
    { name: 'a deleteObject with an unknown field', entry: 'deleteObject: {kind: Backup, name: b1, grace: 0}', error: 's.yaml:8: timeline[0].deleteObject.grace: unknown field (expected one of: kind, name, namespace)' },
  ])('$name', ({ entry, error }) => {
    // Act
    const result = parseScenario(withTimeline(entry), 's.yaml');

    // Assert
    expect(result.ok ? 'accepted' : result.error).toBe(error);
  });
});
