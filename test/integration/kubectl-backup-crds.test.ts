/**
 * kubectl 1.34 against `tidb-reconciler sim serve` and the backup CRDs every world installs
 * (TiDB Operator release-1.6's manifests/crd/v1/pingcap.com_{backups,restores,backupschedules,
 * compactbackups}.yaml): TiDB Operator's own examples (manifests/backup/*.yaml, copied unchanged
 * into test/fixtures/tidb-operator-backup/) apply, `kubectl get bk,rt,bks,cpbk` prints v1's printer
 * columns, and the CRD schemas refuse what a cluster running TiDB Operator refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type SimServe, startSimServe } from '../support/sim-serve.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'tidb-operator-backup');
let sim: SimServe;

beforeAll(async () => {
  sim = await startSimServe('200ms');
  await sim.ok(['create', 'namespace', 'test1']);
}, 90000);

afterAll(async () => {
  await sim.stop();
}, 30000);

const COMPACT = `
apiVersion: pingcap.com/v1alpha1
kind: CompactBackup
metadata: {name: demo1-compact, namespace: test1}
spec:
  startTs: "2026-11-01 00:00:00"
  endTs: "2026-11-01 01:00:00"
  br: {cluster: myCluster}
  s3: {provider: aws, region: us-west-2, bucket: backup, prefix: test1-demo1/log}
`;

describe('the backup CRDs as kubectl reads them', () => {
  it('TiDB Operator\'s backup examples apply unchanged', async () => {
    // Act
    const out = await sim.ok(['apply', '-n', 'test1', ...['backup-rbac', 'backup-aws-s3-br', 'restore-aws-s3-br', 'backup-schedule-aws-s3-br'].flatMap((f) => ['-f', join(FIXTURES, `${f}.yaml`)])]);
    await sim.ok(['apply', '-f', '-'], COMPACT);

    // Assert
    expect(out).toContain('backup.pingcap.com/demo1-backup-s3 created');
    expect(out).toContain('restore.pingcap.com/demo1-restore-s3-br created');
    expect(out).toContain('backupschedule.pingcap.com/demo1-backup-schedule-s3 created');
  }, 60000);

  // manifests/crd/v1/pingcap.com_<plural>.yaml, additionalPrinterColumns of priority 0.
  it.each([
    ['bk', 'demo1-backup-s3', ['NAME', 'TYPE', 'MODE', 'STATUS', 'BACKUPPATH', 'BACKUPSIZE', 'COMMITTS', 'LOGTRUNCATEUNTIL', 'TIMETAKEN', 'AGE']],
    ['rt', 'demo1-restore-s3-br', ['NAME', 'STATUS', 'TIMETAKEN', 'COMMITTS', 'AGE']],
    ['bks', 'demo1-backup-schedule-s3', ['NAME', 'SCHEDULE', 'MAXBACKUPS', 'MAXRESERVEDTIME', 'AGE']],
    ['cpbk', 'demo1-compact', ['NAME', 'STATUS', 'ENDTS', 'PROGRESS', 'MESSAGE']],
  ])('kubectl get %s prints v1\'s columns', async (short, name, header) => {
    // Act
    const out = await sim.ok(['get', short, '-n', 'test1']);

    // Assert
    const [head = '', row = ''] = out.split('\n');
    expect(head.trim().split(/\s+/)).toEqual(header);
    expect(row.startsWith(name)).toBe(true);
  }, 60000);

  it('kubectl get bks -o wide adds the priority-1 columns and the schedule reads from spec', async () => {
    // Act
    const out = await sim.ok(['get', 'bks', '-n', 'test1', '-o', 'wide']);

    // Assert
    expect(out.split('\n')[0]?.trim().split(/\s+/)).toEqual(['NAME', 'SCHEDULE', 'MAXBACKUPS', 'MAXRESERVEDTIME', 'LASTBACKUP', 'LASTBACKUPTIME', 'AGE']);
    expect(out).toContain('*/2 * * * *');
    expect(out).toContain('3h');
  }, 60000);

  // The enums of pingcap.com_backups.yaml (cleanPolicy, logSubcommand) and of restores (prune).
  it.each([
    ['Backup', 'cleanPolicy: Sometimes', 'spec.cleanPolicy', 'Unsupported value: "Sometimes"'],
    ['Backup', 'backupMode: log, logSubcommand: log-resume', 'spec.logSubcommand', 'Unsupported value: "log-resume"'],
    ['Restore', 'prune: always', 'spec.prune', 'Unsupported value: "always"'],
  ])('a %s with %s is refused naming %s', async (kind, field, path, message) => {
    // Arrange
    const object = `{apiVersion: pingcap.com/v1alpha1, kind: ${kind}, metadata: {name: bad, namespace: test1}, spec: {${field}, br: {cluster: basic}, s3: {provider: aws, bucket: b}}}`;

    // Act
    const r = await sim.kubectl(['apply', '-f', '-'], { input: object, timeoutMs: 60000 });

    // Assert
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(path);
    expect(r.stderr).toContain(message);
  }, 60000);

  it('kubectl explain backup.spec.cleanPolicy reads the CRD\'s description', async () => {
    // Act
    const out = await sim.ok(['explain', 'backup.spec.cleanPolicy']);

    // Assert
    expect(out).toContain('KIND:       Backup');
    expect(out).toContain('FIELD: cleanPolicy <string>');
  }, 60000);
});

it('the fixtures are TiDB Operator\'s files, not edited copies', () => {
  // Assert: the example still names the bucket and prefix of release-1.6's manifests/backup/backup-aws-s3-br.yaml.
  expect(readFileSync(join(FIXTURES, 'backup-aws-s3-br.yaml'), 'utf8')).toContain('prefix: test1-demo1');
});
