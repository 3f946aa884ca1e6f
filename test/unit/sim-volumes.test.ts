import { describe, it, expect } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { SimControllers } from '../../lib/sim/controllers/index.js';
import type { StorageClassSim } from '../../lib/sim/controllers/volumes.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { ObjectStore } from '../../lib/sim/store.js';
import { dataUidOfClaim } from '../../lib/sim/tidb/pod-info.js';

const START_MS = Date.UTC(2026, 0, 1);
const NS = 'demo';

function world(storageClasses: Record<string, StorageClassSim> = {}) {
  const clock = new VirtualClock(START_MS);
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: NS } });
  const controllers = new SimControllers(store, { podStartupMs: 5000, nodes: 3, storageClasses });
  controllers.start();
  const claim = (name: string): KubeObject | undefined => store.get('PersistentVolumeClaim', NS, name);
  return { clock, store, controllers, claim };
}

function newClaim(name: string, storageClassName?: string): KubeObject {
  return {
    metadata: { name, namespace: NS },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Gi' } }, ...(storageClassName ? { storageClassName } : {}) },
  };
}

function podUsing(name: string, claimName: string): KubeObject {
  return { metadata: { name, namespace: NS }, spec: { containers: [{ name: 'main', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] } };
}

describe('volumes: provisioning and binding', () => {
  it('a WaitForFirstConsumer claim stays Pending until a pod is scheduled, then binds to a volume in that node\'s zone', async () => {
    // Prepare
    const w = world();
    w.store.create('PersistentVolumeClaim', newClaim('data'));
    await w.clock.advance(10_000);
    const waiting = w.claim('data');

    // Act
    w.store.create('Pod', podUsing('p', 'data'));
    await w.clock.advance(1);

    // Assess
    const claim = w.claim('data') as KubeObject;
    const pod = w.store.mustGet('Pod', NS, 'p');
    const node = w.store.mustGet('Node', undefined, pod.spec.nodeName);
    const pv = w.store.mustGet('PersistentVolume', undefined, `pvc-${claim.metadata.uid}`);
    expect(waiting?.status?.phase).toBe('Pending');
    expect(claim.metadata.annotations?.['volume.kubernetes.io/selected-node']).toBe(pod.spec.nodeName);
    expect(claim.spec.volumeName).toBe(pv.metadata.name);
    expect(claim.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '20Gi' } });
    expect(pv.spec).toMatchObject({
      capacity: { storage: '20Gi' },
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'gp2',
      persistentVolumeReclaimPolicy: 'Delete',
      claimRef: { kind: 'PersistentVolumeClaim', namespace: NS, name: 'data', uid: claim.metadata.uid },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [node.metadata.labels?.['topology.kubernetes.io/zone']] }] }] } },
    });
    expect(pv.status.phase).toBe('Bound');
  });

  it('an Immediate claim binds without a pod', async () => {
    // Prepare
    const w = world({ fast: { volumeBindingMode: 'Immediate' } });

    // Act
    w.store.create('PersistentVolumeClaim', newClaim('data', 'fast'));
    await w.clock.advance(1);

    // Assess
    expect(w.claim('data')?.status?.phase).toBe('Bound');
  });

  it('a pod whose volume is pinned to a zone is only scheduled in that zone', async () => {
    // Prepare
    const w = world();
    w.store.create('PersistentVolumeClaim', newClaim('data'));
    w.store.create('Pod', podUsing('first', 'data'));
    await w.clock.advance(6000);
    const zoneOf = (pod: string): string | undefined => w.store.mustGet('Node', undefined, w.store.mustGet('Pod', NS, pod).spec.nodeName).metadata.labels?.['topology.kubernetes.io/zone'];
    const zone = zoneOf('first');
    w.store.delete('Pod', NS, 'first');
    await w.clock.advance(2000);
    // Two pods elsewhere so the spread alone would avoid the first node.
    w.store.create('Pod', { metadata: { name: 'filler', namespace: NS }, spec: { containers: [{ name: 'main', image: 'busybox' }], nodeSelector: { 'topology.kubernetes.io/zone': zone } } });
    await w.clock.advance(1);

    // Act
    w.store.create('Pod', podUsing('second', 'data'));
    await w.clock.advance(1);

    // Assess
    expect(zoneOf('second')).toBe(zone);
  });
});

describe('volumes: protection and reclaim', () => {
  it('every claim gets the pvc-protection finalizer', async () => {
    // Prepare
    const w = world();

    // Act
    w.store.create('PersistentVolumeClaim', newClaim('data'));
    await w.clock.advance(1);

    // Assess
    expect(w.claim('data')?.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
  });

  it.each([
    { name: 'a deleted claim whose class reclaims Delete takes its volume with it', policy: 'Delete' as const, volumeLeft: undefined },
    { name: 'a deleted claim whose class reclaims Retain leaves its volume Released', policy: 'Retain' as const, volumeLeft: 'Released' },
  ])('$name, but only once no running pod uses it', async ({ policy, volumeLeft }) => {
    // Prepare
    const w = world({ gp2: { reclaimPolicy: policy } });
    w.store.create('PersistentVolumeClaim', newClaim('data'));
    w.store.create('Pod', podUsing('p', 'data'));
    await w.clock.advance(6000);
    const pvName = `pvc-${w.claim('data')?.metadata.uid ?? ''}`;

    // Act
    w.store.delete('PersistentVolumeClaim', NS, 'data');
    await w.clock.advance(10_000);
    const whilePodRuns = w.claim('data');
    w.store.delete('Pod', NS, 'p');
    await w.clock.advance(2000);

    // Assess
    expect(whilePodRuns?.metadata.deletionTimestamp).toBeDefined();
    expect(w.claim('data')).toBeUndefined();
    expect(w.store.get('PersistentVolume', undefined, pvName)?.status?.phase).toBe(volumeLeft);
  });
});

describe('volumes: storage classes', () => {
  it('the world has EKS\'s classes, gp2 the default, and a claim without a class is given the default one on create', async () => {
    // Prepare
    const w = world();

    // Act
    const created = w.store.create('PersistentVolumeClaim', newClaim('data'));

    // Assess
    const classes = w.store.list('StorageClass').map((sc) => ({ name: sc.metadata.name, isDefault: sc.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'], reclaimPolicy: sc.reclaimPolicy, mode: sc.volumeBindingMode }));
    expect(classes).toEqual([
      { name: 'gp2', isDefault: 'true', reclaimPolicy: 'Delete', mode: 'WaitForFirstConsumer' },
      { name: 'gp3', isDefault: undefined, reclaimPolicy: 'Delete', mode: 'WaitForFirstConsumer' },
    ]);
    expect(created.spec.storageClassName).toBe('gp2');
  });

  it.each([
    { name: 'a class without reclaimPolicy or volumeBindingMode gets the API defaults Delete and Immediate', input: { provisioner: 'ebs.csi.aws.com' }, want: { reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' } },
    { name: 'a class keeps the policy and mode it names', input: { provisioner: 'ebs.csi.aws.com', reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' }, want: { reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' } },
  ])('$name', ({ input, want }) => {
    // Prepare
    const w = world();

    // Act
    const sc = w.store.create('StorageClass', { metadata: { name: 'custom' }, ...input });

    // Assess
    expect({ reclaimPolicy: sc.reclaimPolicy, volumeBindingMode: sc.volumeBindingMode }).toEqual(want);
  });

  it.each([
    { name: 'a class without a provisioner is refused', input: { reclaimPolicy: 'Retain' }, message: 'provisioner: Required value' },
    { name: 'a class with an unknown reclaim policy is refused', input: { provisioner: 'x', reclaimPolicy: 'Keep' }, message: 'reclaimPolicy: Unsupported value: "Keep"' },
    { name: 'a class with an unknown binding mode is refused', input: { provisioner: 'x', volumeBindingMode: 'Later' }, message: 'volumeBindingMode: Unsupported value: "Later"' },
  ])('$name', ({ input, message }) => {
    // Prepare
    const w = world();

    // Act
    const create = () => w.store.create('StorageClass', { metadata: { name: 'bad' }, ...input });

    // Assess
    expect(create).toThrow(message);
  });

  it('a claim naming a class that does not exist stays Pending with a ProvisioningFailed event, and provisions once the class is created', async () => {
    // Prepare
    const w = world();
    w.store.create('PersistentVolumeClaim', newClaim('data', 'io2'));

    // Act
    await w.clock.advance(5000);
    const pending = w.claim('data');
    const events = w.store.list('Event', NS).map((e) => ({ type: e.type, reason: e.reason, message: e.message, object: (e.involvedObject as { name?: string } | undefined)?.name }));
    w.store.create('StorageClass', { metadata: { name: 'io2' }, provisioner: 'ebs.csi.aws.com' });
    await w.clock.advance(1);

    // Assess
    expect(pending?.status?.phase).toBe('Pending');
    expect(pending?.spec.volumeName).toBeUndefined();
    expect(events).toEqual([{ type: 'Warning', reason: 'ProvisioningFailed', message: 'storageclass.storage.k8s.io "io2" not found', object: 'data' }]);
    expect(w.claim('data')?.status?.phase).toBe('Bound');
  });
});

describe('volumes: retained volumes', () => {
  async function releasedVolume() {
    const w = world({ keep: { reclaimPolicy: 'Retain', volumeBindingMode: 'Immediate' } });
    w.store.create('PersistentVolumeClaim', newClaim('data', 'keep'));
    await w.clock.advance(1);
    const pvName = w.claim('data')?.spec.volumeName as string;
    const handle = w.store.mustGet('PersistentVolume', undefined, pvName).spec.csi.volumeHandle as string;
    w.store.delete('PersistentVolumeClaim', NS, 'data');
    await w.clock.advance(1);
    return { w, pvName, handle };
  }

  it('a Released volume keeps its claimRef, its disk and its phase while nobody touches it', async () => {
    // Prepare
    const { w, pvName, handle } = await releasedVolume();

    // Act
    w.store.create('PersistentVolumeClaim', newClaim('other', 'keep'));
    await w.clock.advance(60_000);

    // Assess
    const pv = w.store.mustGet('PersistentVolume', undefined, pvName);
    expect(pv.status.phase).toBe('Released');
    expect(pv.spec.claimRef.name).toBe('data');
    expect(pv.spec.csi.volumeHandle).toBe(handle);
    expect(w.claim('other')?.spec.volumeName).not.toBe(pvName);
  });

  it('a claim naming a Released volume stays Pending: the volume is still bound to its old claim', async () => {
    // Prepare
    const { w, pvName } = await releasedVolume();

    // Act
    w.store.create('PersistentVolumeClaim', { ...newClaim('again', 'keep'), spec: { ...newClaim('again', 'keep').spec, volumeName: pvName } });
    await w.clock.advance(1000);

    // Assess
    expect(w.claim('again')?.status?.phase).toBe('Pending');
    expect(w.store.list('Event', NS).map((e) => e.reason)).toContain('FailedBinding');
  });

  it.each([
    { name: 'an admin who clears the claimRef makes the volume Available, and a claim naming it binds it with its data', byName: true },
    { name: 'an admin who clears the claimRef makes the volume Available, and a matching claim of its class binds it', byName: false },
  ])('$name', async ({ byName }) => {
    // Prepare
    const { w, pvName, handle } = await releasedVolume();
    const pv = w.store.mustGet('PersistentVolume', undefined, pvName);
    w.store.update('PersistentVolume', { ...pv, spec: { ...pv.spec, claimRef: undefined } });
    await w.clock.advance(1);
    const available = w.store.mustGet('PersistentVolume', undefined, pvName).status.phase;

    // Act
    const claim = newClaim('again', 'keep');
    w.store.create('PersistentVolumeClaim', byName ? { ...claim, spec: { ...claim.spec, volumeName: pvName } } : claim);
    await w.clock.advance(1);

    // Assess
    const bound = w.store.mustGet('PersistentVolume', undefined, pvName);
    expect(available).toBe('Available');
    expect(w.claim('again')?.status?.phase).toBe('Bound');
    expect(w.claim('again')?.spec.volumeName).toBe(pvName);
    expect(bound.status.phase).toBe('Bound');
    expect(bound.spec.claimRef).toMatchObject({ name: 'again', uid: w.claim('again')?.metadata.uid });
    expect(bound.spec.csi.volumeHandle).toBe(handle);
  });

  it('the simulated processes\' data lives on the volume: a new claim bound to a retained volume finds the old data', async () => {
    // Prepare
    const { w, pvName } = await releasedVolume();
    const dataBefore = w.store.mustGet('PersistentVolume', undefined, pvName).metadata.uid;
    const pv = w.store.mustGet('PersistentVolume', undefined, pvName);
    w.store.update('PersistentVolume', { ...pv, spec: { ...pv.spec, claimRef: undefined } });
    const claim = newClaim('again', 'keep');

    // Act
    w.store.create('PersistentVolumeClaim', { ...claim, spec: { ...claim.spec, volumeName: pvName } });
    await w.clock.advance(1);
    const unbound = w.store.create('PersistentVolumeClaim', newClaim('waiting', 'missing-class'));

    // Assess
    expect(dataUidOfClaim(w.store, w.store.mustGet('PersistentVolumeClaim', NS, 'again'))).toBe(dataBefore);
    expect(dataUidOfClaim(w.store, unbound)).toBe(unbound.metadata.uid);
  });
});
