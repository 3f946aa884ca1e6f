import { describe, it, expect } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { SimControllers } from '../../lib/sim/controllers/index.js';
import type { StorageClassSim } from '../../lib/sim/controllers/volumes.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { ObjectStore } from '../../lib/sim/store.js';

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
