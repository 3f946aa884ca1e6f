/**
 * `sim.storageClasses`: the StorageClasses a runbook creates before the cluster, read with the API
 * server's defaults, and every mistake rejected naming its field.
 */
import { describe, expect, it } from '@jest/globals';

import { parseScenario } from '../../lib/local/scenario/file.js';
import { worldStorageClasses } from '../../lib/local/scenario/storage-classes.js';

const CLUSTER = `cluster:
  metadata: {name: basic, namespace: demo}
  spec: {pd: {replicas: 1}}
timeline: []
`;

/** A file whose `sim:` is `sim` (indented two spaces, starting at line 3). */
const fileWith = (sim: string): string => `name: t\nsim:\n${sim}${CLUSTER}`;

const POOLS = `  nodes:
    - {name: general, count: 1}
    - {name: tikv, count: 2}
`;

describe('sim.storageClasses is read with the API defaults', () => {
  it.each([
    {
      name: 'a runbook local class keeps what it says',
      sim: `${POOLS}  storageClasses:\n    - {name: local-storage, provisioner: kubernetes.io/no-provisioner, volumeBindingMode: WaitForFirstConsumer, reclaimPolicy: Retain, localVolumes: {perNode: 4, capacity: 200Gi, pools: [tikv]}}\n`,
      want: [{ name: 'local-storage', provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer', reclaimPolicy: 'Retain', localVolumes: { perNode: 4, capacity: '200Gi', pools: ['tikv'] } }],
    },
    {
      name: 'a class with only a name binds Immediate, reclaims Delete and provisions as gp2',
      sim: `  storageClasses:\n    - {name: fast}\n`,
      want: [{ name: 'fast', provisioner: 'ebs.csi.aws.com', volumeBindingMode: 'Immediate', reclaimPolicy: 'Delete' }],
    },
    {
      name: 'an EBS class may forbid expansion (allowVolumeExpansion: false)',
      sim: `  storageClasses:\n    - {name: ebs-fixed, allowVolumeExpansion: false}\n`,
      want: [{ name: 'ebs-fixed', provisioner: 'ebs.csi.aws.com', volumeBindingMode: 'Immediate', reclaimPolicy: 'Delete', allowVolumeExpansion: false }],
    },
    {
      name: 'local volumes without pools are on every node',
      sim: `  storageClasses:\n    - {name: local-storage, provisioner: kubernetes.io/no-provisioner, localVolumes: {perNode: 1, capacity: 10Gi}}\n`,
      want: [{ name: 'local-storage', provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'Immediate', reclaimPolicy: 'Delete', localVolumes: { perNode: 1, capacity: '10Gi' } }],
    },
  ])('$name', ({ sim, want }) => {
    // Act
    const result = parseScenario(fileWith(sim), 's.yaml');
    // Assess
    if (!result.ok) throw new Error(result.error);
    expect(result.scenario.sim.storageClasses).toEqual(want);
  });

  it('a file without storageClasses leaves the world with EKS classes only', () => {
    // Act
    const result = parseScenario(fileWith('  nodes: 3\n'), 's.yaml');
    // Assess
    if (!result.ok) throw new Error(result.error);
    expect(result.scenario.sim.storageClasses).toBeUndefined();
  });

  it('the world takes the classes by name', () => {
    // Act
    const classes = worldStorageClasses([{ name: 'local-storage', provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer', reclaimPolicy: 'Retain', localVolumes: { perNode: 2, capacity: '1Gi' } }]);
    // Assess
    expect(classes).toEqual({ 'local-storage': { provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer', reclaimPolicy: 'Retain', localVolumes: { perNode: 2, capacity: '1Gi' } } });
  });
});

describe('a bad storage class is rejected naming its field', () => {
  it.each([
    { name: 'not a list', sim: '  storageClasses: {name: x}\n', error: 's.yaml:3: sim.storageClasses: expected a list of storage classes {name, provisioner, volumeBindingMode, reclaimPolicy, allowVolumeExpansion, localVolumes}, got a mapping' },
    { name: 'an expansion flag that is no boolean', sim: '  storageClasses:\n    - {name: a, allowVolumeExpansion: yes-please}\n', error: 's.yaml:4: sim.storageClasses[0].allowVolumeExpansion: expected true or false, got the string "yes-please"' },
    { name: 'no name', sim: '  storageClasses:\n    - {provisioner: x.io}\n', error: 's.yaml:4: sim.storageClasses[0].name: required field is missing' },
    { name: 'a name that is no DNS subdomain', sim: '  storageClasses:\n    - {name: Local_Storage}\n', error: 's.yaml:4: sim.storageClasses[0].name: "Local_Storage" is not a valid StorageClass name (a DNS-1123 subdomain)' },
    { name: 'the same class twice', sim: '  storageClasses:\n    - {name: a}\n    - {name: a}\n', error: 's.yaml:5: sim.storageClasses[1].name: duplicate storage class "a"' },
    { name: 'an unknown binding mode', sim: '  storageClasses:\n    - {name: a, volumeBindingMode: Lazy}\n', error: 's.yaml:4: sim.storageClasses[0].volumeBindingMode: unknown volume binding mode "Lazy" (expected one of: Immediate, WaitForFirstConsumer)' },
    { name: 'an unknown reclaim policy', sim: '  storageClasses:\n    - {name: a, reclaimPolicy: Recycle}\n', error: 's.yaml:4: sim.storageClasses[0].reclaimPolicy: unknown reclaim policy "Recycle" (expected one of: Delete, Retain)' },
    { name: 'an unknown field', sim: '  storageClasses:\n    - {name: a, parameters: {type: io2}}\n', error: 's.yaml:4: sim.storageClasses[0].parameters: unknown field (expected one of: name, provisioner, volumeBindingMode, reclaimPolicy, allowVolumeExpansion, localVolumes)' },
    { name: 'local volumes of a provisioning class', sim: '  storageClasses:\n    - {name: a, localVolumes: {perNode: 1, capacity: 1Gi}}\n', error: 's.yaml:4: sim.storageClasses[0].localVolumes: static local volumes need provisioner kubernetes.io/no-provisioner (got "ebs.csi.aws.com", which provisions its own)' },
    { name: 'no disks per node', sim: '  storageClasses:\n    - {name: a, provisioner: kubernetes.io/no-provisioner, localVolumes: {perNode: 0, capacity: 1Gi}}\n', error: 's.yaml:4: sim.storageClasses[0].localVolumes.perNode: 0 is out of range (1 to 64)' },
    { name: 'a capacity that is no quantity', sim: '  storageClasses:\n    - {name: a, provisioner: kubernetes.io/no-provisioner, localVolumes: {perNode: 1, capacity: lots}}\n', error: 's.yaml:4: sim.storageClasses[0].localVolumes.capacity: "lots" is not a positive quantity (e.g. 200Gi)' },
    { name: 'a pool the world lacks', sim: `${POOLS}  storageClasses:\n    - {name: a, provisioner: kubernetes.io/no-provisioner, localVolumes: {perNode: 1, capacity: 1Gi, pools: [ssd]}}\n`, error: 's.yaml:7: sim.storageClasses[0].localVolumes.pools[0]: no node pool "ssd" in sim.nodes (have: general, tikv)' },
    { name: 'pools with a node count', sim: '  storageClasses:\n    - {name: a, provisioner: kubernetes.io/no-provisioner, localVolumes: {perNode: 1, capacity: 1Gi, pools: [node]}}\n', error: 's.yaml:4: sim.storageClasses[0].localVolumes.pools: names node pools, but sim.nodes is a count: give sim.nodes as node pools, or leave pools out (every node)' },
  ])('$name', ({ sim, error }) => {
    // Act
    const result = parseScenario(fileWith(sim), 's.yaml');
    // Assess
    expect(result).toMatchObject({ ok: false, error });
  });
});
