/**
 * The backup parts of a scenario file: `sim.buckets` and `sim.workload` as issue #29's format
 * gives them, the `s3-down` and `job-pod-killed` faults, and the file errors a typo in them makes.
 */
import { describe, expect, it } from '@jest/globals';
import { parseScenario } from '../../lib/local/scenario/file.js';

const file = (sim: string, timeline = '  - advance: 1m\n'): string => `name: t
sim:
${sim}
cluster:
  metadata: {name: basic, namespace: demo}
  spec:
    pd: {replicas: 1}
    tikv: {replicas: 1}
timeline:
${timeline}`;

const BUCKETS = `  buckets:
    - {name: backups, region: us-west-2, allowRoles: ["arn:aws:iam::123456789012:role/tidb-backup"], allowKeys: [{accessKey: AKIAEXAMPLE, secretKey: example}]}
  workload: {writesPerMinute: 60}`;

describe('sim.buckets and sim.workload', () => {
  it('the issue\'s example reads as buckets and a workload', () => {
    // Act
    const r = parseScenario(file(BUCKETS), 's.yaml');

    // Assert
    if (!r.ok) throw new Error(r.error);
    expect(r.scenario.sim.buckets).toEqual([{ name: 'backups', region: 'us-west-2', allowRoles: ['arn:aws:iam::123456789012:role/tidb-backup'], allowKeys: [{ accessKey: 'AKIAEXAMPLE', secretKey: 'example' }] }]);
    expect(r.scenario.sim.workload).toEqual({ writesPerMinute: 60 });
  });

  it.each([
    { name: 'a bad bucket name', sim: '  buckets: [{name: Backups_1, region: us-west-2}]', error: 'sim.buckets[0].name: "Backups_1" is not a valid S3 bucket name' },
    { name: 'a bucket declared twice', sim: '  buckets: [{name: backups, region: a}, {name: backups, region: b}]', error: 'sim.buckets[1].name: bucket backups is declared twice' },
    { name: 'a role that is not a role ARN', sim: '  buckets: [{name: backups, region: a, allowRoles: [tidb-backup]}]', error: 'sim.buckets[0].allowRoles[0]: "tidb-backup" is not an IAM role ARN' },
    { name: 'a key pair without its secret', sim: '  buckets: [{name: backups, region: a, allowKeys: [{accessKey: AKIA}]}]', error: 'sim.buckets[0].allowKeys[0].secretKey: required field is missing' },
    { name: 'a misspelt bucket field', sim: '  buckets: [{name: backups, region: a, allowRole: []}]', error: 'sim.buckets[0].allowRole: unknown field for a bucket' },
    { name: 'a negative workload', sim: '  workload: {writesPerMinute: -1}', error: 'sim.workload.writesPerMinute' },
  ])('$name is a file error naming the field', ({ sim, error }) => {
    // Act
    const r = parseScenario(file(sim), 's.yaml');

    // Assert
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(error);
  });
});

describe('backup faults', () => {
  it.each([
    { entry: '  - fault: {kind: s3-down, for: 2m}\n', fault: { kind: 's3-down', forMs: 120_000 } },
    { entry: '  - fault: {kind: job-pod-killed, job: backup-b1}\n', fault: { kind: 'job-pod-killed', job: 'backup-b1' } },
  ])('$entry reads as $fault', ({ entry, fault }) => {
    // Act
    const r = parseScenario(file(BUCKETS, entry), 's.yaml');

    // Assert
    if (!r.ok) throw new Error(r.error);
    expect(r.scenario.timeline[0]).toMatchObject({ fault });
  });

  it('job-pod-killed without its job is a file error', () => {
    // Act
    const r = parseScenario(file(BUCKETS, '  - fault: {kind: job-pod-killed}\n'), 's.yaml');

    // Assert
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain('job: required field is missing');
  });
});
