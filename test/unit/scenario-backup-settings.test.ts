/**
 * The backup parts of a scenario file: `sim.buckets`, `sim.workload` and `sim.podIdentityAssociations` as issue #29's format
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

describe('sim.podIdentityAssociations', () => {
  const ROLE = 'arn:aws:iam::123456789012:role/tidb-backup';

  it('reads associations, the namespace defaulting to the cluster\'s', () => {
    // Act
    const r = parseScenario(file(`  podIdentityAssociations:\n    - {serviceAccount: tidb-backup-manager, roleArn: "${ROLE}"}\n    - {namespace: team-a, serviceAccount: tidb-backup-manager, roleArn: "${ROLE}"}`), 's.yaml');

    // Assert
    if (!r.ok) throw new Error(r.error);
    expect(r.scenario.sim.podIdentityAssociations).toEqual([
      { namespace: 'demo', serviceAccount: 'tidb-backup-manager', roleArn: ROLE },
      { namespace: 'team-a', serviceAccount: 'tidb-backup-manager', roleArn: ROLE },
    ]);
  });

  it('is absent when the file gives none', () => {
    // Act
    const r = parseScenario(file(BUCKETS), 's.yaml');

    // Assert
    if (!r.ok) throw new Error(r.error);
    expect(r.scenario.sim.podIdentityAssociations).toBeUndefined();
  });

  it.each([
    { name: 'not a list', sim: '  podIdentityAssociations: {serviceAccount: sa}', error: 'sim.podIdentityAssociations: expected a list of pod identity associations' },
    { name: 'a missing service account', sim: `  podIdentityAssociations: [{roleArn: "${ROLE}"}]`, error: 'sim.podIdentityAssociations[0].serviceAccount: required field is missing' },
    { name: 'a missing role', sim: '  podIdentityAssociations: [{serviceAccount: sa}]', error: 'sim.podIdentityAssociations[0].roleArn: required field is missing' },
    { name: 'a role that is not a role ARN', sim: '  podIdentityAssociations: [{serviceAccount: sa, roleArn: "arn:aws:iam::1234:role/short"}]', error: 'sim.podIdentityAssociations[0].roleArn: "arn:aws:iam::1234:role/short" is not an IAM role ARN' },
    { name: 'a user ARN', sim: '  podIdentityAssociations: [{serviceAccount: sa, roleArn: "arn:aws:iam::123456789012:user/u"}]', error: 'sim.podIdentityAssociations[0].roleArn' },
    { name: 'a bad namespace', sim: `  podIdentityAssociations: [{namespace: Team_A, serviceAccount: sa, roleArn: "${ROLE}"}]`, error: 'sim.podIdentityAssociations[0].namespace: "Team_A" is not a valid namespace name' },
    { name: 'a bad service account name', sim: `  podIdentityAssociations: [{serviceAccount: -sa, roleArn: "${ROLE}"}]`, error: 'sim.podIdentityAssociations[0].serviceAccount: "-sa" is not a valid ServiceAccount name' },
    { name: 'a misspelt field', sim: `  podIdentityAssociations: [{serviceAccountName: sa, roleArn: "${ROLE}"}]`, error: 'sim.podIdentityAssociations[0].serviceAccountName: unknown field for a pod identity association' },
    {
      name: 'a second association for the same service account (namespace defaulted)',
      sim: `  podIdentityAssociations:\n    - {serviceAccount: sa, roleArn: "${ROLE}"}\n    - {namespace: demo, serviceAccount: sa, roleArn: "arn:aws:iam::123456789012:role/other"}`,
      error: 'sim.podIdentityAssociations[1].serviceAccount: service account demo/sa already has an association',
    },
  ])('$name is a file error naming the field', ({ sim, error }) => {
    // Act
    const r = parseScenario(file(sim), 's.yaml');

    // Assert
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(error);
  });

  it('the same service account in two namespaces is two associations', () => {
    // Act
    const r = parseScenario(file(`  podIdentityAssociations:\n    - {serviceAccount: sa, roleArn: "${ROLE}"}\n    - {namespace: other, serviceAccount: sa, roleArn: "${ROLE}"}`), 's.yaml');

    // Assert
    expect(r.ok).toBe(true);
  });
});
