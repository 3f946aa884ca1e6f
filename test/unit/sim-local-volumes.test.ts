/**
 * Static local volumes as Kubernetes binds them: the local volume provisioner publishes each node's
 * disks, the scheduler's VolumeBinding plugin places a WaitForFirstConsumer pod only where a free
 * matching volume is, an Immediate claim binds any free matching volume, a claim nothing matches
 * stays Pending with the PV controller's events, and a released volume is kept (Retain) or cleaned
 * and published again (Delete) on its node.
 */
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { SimControllers } from '../../lib/sim/controllers/index.js';
import { localVolumeName } from '../../lib/sim/controllers/local-volumes.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { setNodeReady } from '../../lib/sim/nodes.js';
import type { StorageClassSim } from '../../lib/sim/storage-classes.js';
import { ObjectStore } from '../../lib/sim/store.js';

const START_MS = Date.UTC(2026, 0, 1);
const NS = 'demo';
const NO_PROVISIONER = 'kubernetes.io/no-provisioner';

/** A world of node pools `general` (1 node) and `tikv` (2 nodes), with `local` as given. */
function world(local: StorageClassSim) {
  const clock = new VirtualClock(START_MS);
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: NS } });
  const nodes = [{ name: 'general', count: 1 }, { name: 'tikv', count: 2 }];
  const controllers = new SimControllers(store, { podStartupMs: 1000, nodes, storageClasses: { local: { provisioner: NO_PROVISIONER, ...local } } });
  controllers.start();
  const get = (kind: string, name: string, ns: string | undefined = NS): KubeObject | undefined => store.get(kind, ns, name);
  const events = (claim: string): { type: string; reason: string; message: string }[] =>
    store.list('Event', NS).filter((e) => (e.involvedObject as { name?: string } | undefined)?.name === claim).map((e) => ({ type: String(e.type), reason: String(e.reason), message: String(e.message) }));
  return { clock, store, get, events };
}

function claim(name: string, storage = '20Gi'): KubeObject {
  return { metadata: { name, namespace: NS }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'local', resources: { requests: { storage } } } };
}

function pod(name: string, ...claims: string[]): KubeObject {
  return { metadata: { name, namespace: NS }, spec: { containers: [{ name: 'main', image: 'busybox' }], volumes: claims.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } })) } };
}

const scheduledMessage = (p: KubeObject | undefined): string | undefined => (p?.status?.conditions as { type: string; message?: string }[] | undefined)?.find((c) => c.type === 'PodScheduled')?.message;

const WFFC: StorageClassSim = { volumeBindingMode: 'WaitForFirstConsumer', localVolumes: { perNode: 1, capacity: '100Gi', pools: ['tikv'] } };

describe('local volumes: published by the provisioner', () => {
  it('every node of the pools gets its disks as Available volumes pinned to the node by hostname', async () => {
    // Prepare
    const w = world({ ...WFFC, localVolumes: { perNode: 2, capacity: '100Gi', pools: ['tikv'] } });
    // Act
    await w.clock.advance(1);
    // Assess
    const volumes = w.store.list('PersistentVolume');
    expect(volumes.map((v) => v.metadata.name).sort()).toEqual([0, 1].flatMap((i) => [localVolumeName('local', 'tikv-0', i), localVolumeName('local', 'tikv-1', i)]).sort());
    expect(w.get('PersistentVolume', localVolumeName('local', 'tikv-1', 0), undefined)).toMatchObject({
      metadata: { annotations: { 'pv.kubernetes.io/provisioned-by': expect.stringMatching(/^local-volume-provisioner-tikv-1-/) } },
      spec: {
        capacity: { storage: '100Gi' },
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'local',
        persistentVolumeReclaimPolicy: 'Delete',
        local: { path: '/mnt/disks/local/vol0' },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['tikv-1'] }] }] } },
      },
      status: { phase: 'Available' },
    });
  });
});

describe('local volumes: WaitForFirstConsumer binding', () => {
  it('a pod goes only to a node with a free matching volume, and its claim binds that volume', async () => {
    // Prepare
    const w = world(WFFC);
    w.store.create('PersistentVolumeClaim', claim('a'));
    w.store.create('PersistentVolumeClaim', claim('b'));
    // Act
    w.store.create('Pod', pod('pa', 'a'));
    w.store.create('Pod', pod('pb', 'b'));
    await w.clock.advance(2000);
    // Assess: general-0 has fewer pods but no disk; each pod got one tikv node and its disk
    const nodes = [w.get('Pod', 'pa')?.spec?.nodeName, w.get('Pod', 'pb')?.spec?.nodeName];
    expect([...nodes].sort()).toEqual(['tikv-0', 'tikv-1']);
    expect(w.get('PersistentVolumeClaim', 'a')?.spec?.volumeName).toBe(localVolumeName('local', String(nodes[0]), 0));
    expect(w.get('PersistentVolumeClaim', 'a')?.status?.phase).toBe('Bound');
    expect(w.get('PersistentVolumeClaim', 'a')?.metadata.annotations?.['volume.kubernetes.io/selected-node']).toBeUndefined();
  });

  it.each([
    { name: 'every disk is taken', claims: ['a', 'b', 'c'], storage: '20Gi' },
    { name: 'no disk is large enough', claims: ['c'], storage: '200Gi' },
  ])('when $name the pod stays Pending: no node has a volume to bind', async ({ claims, storage }) => {
    // Prepare
    const w = world(WFFC);
    for (const c of claims) w.store.create('PersistentVolumeClaim', claim(c, storage));
    for (const c of claims.slice(0, -1)) w.store.create('Pod', pod(`p${c}`, c));
    await w.clock.advance(2000);
    // Act
    w.store.create('Pod', pod('pc', 'c'));
    await w.clock.advance(2000);
    // Assess
    expect(w.get('Pod', 'pc')?.spec?.nodeName).toBeUndefined();
    expect(scheduledMessage(w.get('Pod', 'pc'))).toBe("0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind.");
    expect(w.get('PersistentVolumeClaim', 'c')?.status?.phase).toBe('Pending');
    expect(w.events('c')).toEqual([{ type: 'Normal', reason: 'WaitForFirstConsumer', message: 'waiting for first consumer to be created before binding' }]);
  });

  it('a pod with two claims gets two disks of one node', async () => {
    // Prepare
    const w = world({ ...WFFC, localVolumes: { perNode: 2, capacity: '100Gi', pools: ['tikv'] } });
    w.store.create('PersistentVolumeClaim', claim('raft'));
    w.store.create('PersistentVolumeClaim', claim('rocks'));
    // Act
    w.store.create('Pod', pod('p', 'raft', 'rocks'));
    await w.clock.advance(2000);
    // Assess
    const node = String(w.get('Pod', 'p')?.spec?.nodeName);
    const bound = [w.get('PersistentVolumeClaim', 'raft')?.spec?.volumeName, w.get('PersistentVolumeClaim', 'rocks')?.spec?.volumeName];
    expect(new Set(bound).size).toBe(2);
    expect(bound.every((v) => [0, 1].some((i) => v === localVolumeName('local', node, i)))).toBe(true);
  });

  it('a pod whose disk is on a lost node cannot move: recreated, it fits no other node', async () => {
    // Prepare
    const w = world(WFFC);
    w.store.create('PersistentVolumeClaim', claim('a'));
    w.store.create('Pod', pod('pa', 'a'));
    await w.clock.advance(2000);
    const node = String(w.get('Pod', 'pa')?.spec?.nodeName);
    // Act
    setNodeReady(w.store, node, false);
    w.store.delete('Pod', NS, 'pa', { gracePeriodSeconds: 0 });
    w.store.create('Pod', pod('pa', 'a'));
    await w.clock.advance(2000);
    // Assess
    expect(w.get('Pod', 'pa')?.spec?.nodeName).toBeUndefined();
    expect(scheduledMessage(w.get('Pod', 'pa'))).toBe("0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 2 node(s) had volume node affinity conflict.");
  });
});

describe('local volumes: Immediate binding', () => {
  it('a claim binds any free matching volume without a pod, and its pod then goes to that volume\'s node', async () => {
    // Prepare
    const w = world({ localVolumes: { perNode: 1, capacity: '100Gi', pools: ['tikv'] } });
    // Act
    w.store.create('PersistentVolumeClaim', claim('a'));
    await w.clock.advance(1000);
    w.store.create('Pod', pod('pa', 'a'));
    await w.clock.advance(1000);
    // Assess
    const pv = w.get('PersistentVolume', String(w.get('PersistentVolumeClaim', 'a')?.spec?.volumeName), undefined);
    expect(w.get('PersistentVolumeClaim', 'a')?.status?.phase).toBe('Bound');
    expect(pv?.spec?.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values).toEqual([w.get('Pod', 'pa')?.spec?.nodeName]);
  });

  it('a claim no volume matches stays Pending with ProvisioningFailed, and its pod is not scheduled', async () => {
    // Prepare
    const w = world({ localVolumes: { perNode: 1, capacity: '100Gi', pools: ['tikv'] } });
    // Act
    w.store.create('PersistentVolumeClaim', claim('big', '1Ti'));
    w.store.create('Pod', pod('p', 'big'));
    await w.clock.advance(5000);
    // Assess
    expect(w.get('PersistentVolumeClaim', 'big')?.status?.phase).toBe('Pending');
    expect(w.events('big')).toEqual([{ type: 'Warning', reason: 'ProvisioningFailed', message: 'no volume plugin matched name: kubernetes.io/no-provisioner' }]);
    expect(scheduledMessage(w.get('Pod', 'p'))).toBe('0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.');
  });
});

describe('local volumes: reclaim', () => {
  it('Retain: a released volume is not bound again until an admin clears its claimRef', async () => {
    // Prepare
    const w = world({ ...WFFC, reclaimPolicy: 'Retain', localVolumes: { perNode: 1, capacity: '100Gi', pools: ['tikv'] } });
    for (const c of ['a', 'b']) {
      w.store.create('PersistentVolumeClaim', claim(c));
      w.store.create('Pod', pod(`p${c}`, c));
    }
    await w.clock.advance(2000);
    const pvName = String(w.get('PersistentVolumeClaim', 'a')?.spec?.volumeName);
    w.store.delete('Pod', NS, 'pa', { gracePeriodSeconds: 0 });
    w.store.delete('PersistentVolumeClaim', NS, 'a');
    await w.clock.advance(2000);
    // Act
    w.store.create('PersistentVolumeClaim', claim('c'));
    w.store.create('Pod', pod('pc', 'c'));
    await w.clock.advance(2000);
    const whileReleased = { phase: w.get('PersistentVolume', pvName, undefined)?.status?.phase, node: w.get('Pod', 'pc')?.spec?.nodeName };
    const pv = w.store.mustGet('PersistentVolume', undefined, pvName);
    w.store.update('PersistentVolume', { ...pv, spec: { ...pv.spec, claimRef: undefined } });
    await w.clock.advance(2000);
    // Assess
    expect(whileReleased).toEqual({ phase: 'Released', node: undefined });
    expect(w.get('PersistentVolumeClaim', 'c')?.spec?.volumeName).toBe(pvName);
    expect(w.get('Pod', 'pc')?.spec?.nodeName).toBeDefined();
  });

  it('Delete: the provisioner cleans a released volume on its node and publishes the disk again, empty — not while the node is down', async () => {
    // Prepare
    const w = world(WFFC);
    w.store.create('PersistentVolumeClaim', claim('a'));
    w.store.create('Pod', pod('pa', 'a'));
    await w.clock.advance(2000);
    const pvName = String(w.get('PersistentVolumeClaim', 'a')?.spec?.volumeName);
    const node = String(w.get('Pod', 'pa')?.spec?.nodeName);
    const oldUid = w.get('PersistentVolume', pvName, undefined)?.metadata.uid;
    // Act
    setNodeReady(w.store, node, false);
    w.store.delete('Pod', NS, 'pa', { gracePeriodSeconds: 0 });
    w.store.delete('PersistentVolumeClaim', NS, 'a');
    await w.clock.advance(60_000);
    const whileNodeDown = w.get('PersistentVolume', pvName, undefined)?.status?.phase;
    setNodeReady(w.store, node, true);
    await w.clock.advance(1000);
    // Assess
    const pv = w.get('PersistentVolume', pvName, undefined);
    expect(whileNodeDown).toBe('Released');
    expect(pv?.status?.phase).toBe('Available');
    expect(pv?.spec?.claimRef).toBeUndefined();
    expect(pv?.metadata.uid).not.toBe(oldUid);
  });
});
