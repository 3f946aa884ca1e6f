/**
 * A process fault belongs to the pod instance it broke and the volumes it ran on: a StatefulSet's
 * replacement pod on a fresh volume starts healthy, one recreated on the same claim stays down, and
 * healing ends the fault for whichever instance runs under the name.
 */
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { SimControllers } from '../../lib/sim/controllers/index.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { ObjectStore } from '../../lib/sim/store.js';

const NS = 'demo';

function statefulSet(claims: boolean): KubeObject {
  return {
    metadata: { name: 'pd', namespace: NS },
    spec: {
      replicas: 3,
      serviceName: 'pd-peer',
      selector: { matchLabels: { app: 'pd' } },
      podManagementPolicy: 'Parallel',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      template: { metadata: { labels: { app: 'pd' } }, spec: { containers: [{ name: 'main', image: 'pingcap/pd:v8.1.0' }] } },
      ...(claims ? { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] } : {}),
    },
  };
}

/** A running three-pod StatefulSet `pd` (with or without a claim per pod). */
async function running(claims = true) {
  const clock = new VirtualClock();
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: NS } });
  const controllers = new SimControllers(store, { podStartupMs: 5000, nodes: 3 });
  controllers.start();
  store.create('StatefulSet', statefulSet(claims));
  await clock.advance(20_000);
  const pod = (name: string): KubeObject => store.mustGet('Pod', NS, name);
  const ready = (name: string): boolean =>
    ((pod(name).status?.conditions ?? []) as { type: string; status: string }[]).some((c) => c.type === 'Ready' && c.status === 'True');
  return { clock, store, kubelet: controllers.kubelet, pod, ready };
}

describe('a pod-down fault belongs to the pod instance and its volumes', () => {
  it.each([
    { name: 'a replacement pod on a fresh volume starts healthy', claims: true, deleteClaim: true, healAfter: false, readyAfter: true },
    { name: 'a pod recreated on the same claim is the same process on the same data and stays down', claims: true, deleteClaim: false, healAfter: false, readyAfter: false },
    { name: 'a recreated pod without volumes is a new instance and starts healthy', claims: false, deleteClaim: false, healAfter: false, readyAfter: true },
    { name: 'healing ends the fault for the instance recreated on the same claim', claims: true, deleteClaim: false, healAfter: true, readyAfter: true },
  ])('$name', async ({ claims, deleteClaim, healAfter, readyAfter }) => {
    // Prepare
    const w = await running(claims);
    const before = w.pod('pd-1').metadata.uid;
    w.kubelet.setProcessDown(NS, 'pd-1', true);
    await w.clock.advance(1000);
    const downBefore = !w.ready('pd-1');

    // Act
    if (deleteClaim) w.store.delete('PersistentVolumeClaim', NS, 'data-pd-1');
    w.store.delete('Pod', NS, 'pd-1');
    await w.clock.advance(30_000);
    if (healAfter) w.kubelet.setProcessDown(NS, 'pd-1', false);
    await w.clock.advance(10_000);

    // Assess
    expect(downBefore).toBe(true);
    expect(w.pod('pd-1').metadata.uid).not.toBe(before);
    expect(w.ready('pd-1')).toBe(readyAfter);
    expect(w.kubelet.isProcessDown(w.pod('pd-1'))).toBe(!readyAfter);
  });

  it('killing a pod that does not exist is an error', async () => {
    // Prepare
    const w = await running(false);

    // Act
    const act = (): void => w.kubelet.setProcessDown(NS, 'pd-7', true);

    // Assess
    expect(act).toThrow('pod demo/pd-7 does not exist');
  });

  it('a node-down still affects whatever pod runs on the node', async () => {
    // Prepare
    const w = await running(false);
    const node = w.pod('pd-0').spec.nodeName as string;

    // Act
    w.kubelet.setNodeDown(node, true);
    // The node lifecycle controller marks its pods unready after the node-monitor grace period (50 s).
    await w.clock.advance(50_000);

    // Assess
    expect(w.ready('pd-0')).toBe(false);
    expect(w.kubelet.isProcessDown(w.pod('pd-0'))).toBe(false);
  });
});
