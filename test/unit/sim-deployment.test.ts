import { describe, it, expect } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { SimControllers } from '../../lib/sim/controllers/index.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { ObjectStore } from '../../lib/sim/store.js';

const START_MS = Date.UTC(2026, 0, 1);
const NS = 'demo';

function world() {
  const clock = new VirtualClock(START_MS);
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: NS } });
  const controllers = new SimControllers(store, { podStartupMs: 5000, nodes: 3 });
  const log: { atMs: number; what: string }[] = [];
  store.subscribe((ev) => {
    if (ev.kind !== 'Pod') return;
    const atMs = clock.nowMs() - START_MS;
    if (ev.type === 'ADDED') log.push({ atMs, what: `create ${ev.object.spec.containers[0].image}` });
    else if (ev.type === 'MODIFIED' && ev.object.metadata.deletionTimestamp && !ev.previous?.metadata.deletionTimestamp) log.push({ atMs, what: `delete ${ev.object.spec.containers[0].image}` });
  });
  controllers.start();
  const deployment = (name: string): KubeObject => store.mustGet('Deployment', NS, name);
  const endpoints = (name: string): KubeObject | undefined => store.get('Endpoints', NS, name);
  type Subset = { addresses?: Record<string, unknown>[]; notReadyAddresses?: Record<string, unknown>[]; ports: unknown[] };
  const subsets = (name: string): Subset[] | undefined => endpoints(name)?.subsets as Subset[] | undefined;
  return { clock, store, controllers, log, deployment, endpoints, subsets };
}

function newDeployment(name: string, replicas = 1, image = 'nginx:1.27'): KubeObject {
  return {
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image, ports: [{ name: 'http', containerPort: 8080 }] }] } },
    },
  };
}

describe('Deployment controller', () => {
  it('a pod is created as <deployment>-<template hash>-<5 chars>, labelled and owned by the Deployment', async () => {
    // Prepare
    const w = world();

    // Act
    w.store.create('Deployment', newDeployment('web'));
    await w.clock.advance(6000);

    // Assess
    const [pod, ...others] = w.store.list('Pod', NS);
    const hash = pod?.metadata.labels?.['pod-template-hash'] ?? '';
    expect(others).toEqual([]);
    expect(pod?.metadata.name).toMatch(new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
    expect(pod?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name: 'web', controller: true });
    expect(w.deployment('web').status).toMatchObject({ observedGeneration: 1, replicas: 1, readyReplicas: 1, updatedReplicas: 1, availableReplicas: 1 });
    expect(w.deployment('web').status.conditions).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' })]));
  });

  it('a template change creates the new pod first and deletes the old one once the new one is Ready', async () => {
    // Prepare
    const w = world();
    w.store.create('Deployment', newDeployment('web'));
    await w.clock.advance(6000);
    w.log.length = 0;
    const d = structuredClone(w.deployment('web'));
    d.spec.template.spec.containers[0].image = 'nginx:1.28';

    // Act
    w.store.update('Deployment', d);
    await w.clock.advance(10_000);

    // Assess
    expect(w.log).toEqual([
      { atMs: 6000, what: 'create nginx:1.28' },
      { atMs: 11_000, what: 'delete nginx:1.27' },
    ]);
    expect(w.store.list('Pod', NS).map((p) => p.spec.containers[0].image)).toEqual(['nginx:1.28']);
    expect(w.deployment('web').status).toMatchObject({ observedGeneration: 2, replicas: 1, updatedReplicas: 1, availableReplicas: 1 });
  });

  it.each([
    { name: 'scaling up creates the missing pods', from: 1, to: 3 },
    { name: 'scaling down removes the extra pods', from: 3, to: 1 },
  ])('$name', async ({ from, to }) => {
    // Prepare
    const w = world();
    w.store.create('Deployment', newDeployment('web', from));
    await w.clock.advance(6000);
    const d = w.deployment('web');

    // Act
    w.store.update('Deployment', { ...d, spec: { ...d.spec, replicas: to } });
    await w.clock.advance(10_000);

    // Assess
    expect(w.store.list('Pod', NS)).toHaveLength(to);
    expect(w.deployment('web').status).toMatchObject({ replicas: to, readyReplicas: to });
  });
});

describe('Endpoints controller', () => {
  function service(name: string, spec: Record<string, unknown> = {}): KubeObject {
    return { metadata: { name, namespace: NS }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }], ...spec } };
  }

  it('lists ready pods under addresses and the others under notReadyAddresses, with the named port resolved', async () => {
    // Prepare
    const w = world();
    w.store.create('Deployment', newDeployment('web', 2));
    w.store.create('Service', service('web'));
    await w.clock.advance(6000);
    const [down, up] = w.store.list('Pod', NS);

    // Act
    w.controllers.kubelet.setProcessDown(NS, down?.metadata.name ?? '', true);
    await w.clock.advance(1);

    // Assess
    const ep = w.endpoints('web');
    expect(ep?.subsets).toEqual([
      {
        addresses: [{ ip: up?.status.podIP, nodeName: up?.spec.nodeName, targetRef: { kind: 'Pod', namespace: NS, name: up?.metadata.name, uid: up?.metadata.uid } }],
        notReadyAddresses: [{ ip: down?.status.podIP, nodeName: down?.spec.nodeName, targetRef: { kind: 'Pod', namespace: NS, name: down?.metadata.name, uid: down?.metadata.uid } }],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    ]);
  });

  it.each([
    { name: 'a pod that is not ready yet is listed as not ready', publish: false, field: 'notReadyAddresses' },
    { name: 'publishNotReadyAddresses lists a pod that is not ready yet as ready', publish: true, field: 'addresses' },
  ])('$name', async ({ publish, field }) => {
    // Prepare
    const w = world();
    w.store.create('Service', service('web', { clusterIP: 'None', publishNotReadyAddresses: publish }));
    w.store.create('Deployment', newDeployment('web'));
    await w.clock.advance(6000);
    const pod = w.store.list('Pod', NS)[0];

    // Act
    w.controllers.kubelet.setProcessDown(NS, pod?.metadata.name ?? '', true);
    await w.clock.advance(1);

    // Assess
    const subset = w.subsets('web')?.[0];
    expect(Object.keys(subset ?? {}).sort()).toEqual([field, 'ports'].sort());
    expect(w.endpoints('web')?.metadata.labels).toEqual({ 'service.kubernetes.io/headless': '' });
  });

  it('a Service without a clusterIP gets one from 10.100.0.0/16; a headless one keeps None', async () => {
    // Prepare
    const w = world();

    // Act
    w.store.create('Service', service('web'));
    w.store.create('Service', service('peer', { clusterIP: 'None' }));
    await w.clock.advance(1);

    // Assess
    const ip = w.store.mustGet('Service', NS, 'web').spec.clusterIP;
    expect(ip).toMatch(/^10\.100\.\d+\.\d+$/);
    expect(w.store.mustGet('Service', NS, 'web').spec.clusterIPs).toEqual([ip]);
    expect(w.store.mustGet('Service', NS, 'peer').spec.clusterIP).toBe('None');
  });

  it('a StatefulSet pod is published with its hostname on its governing service', async () => {
    // Prepare
    const w = world();
    w.store.create('Service', { metadata: { name: 'pd-peer', namespace: NS }, spec: { clusterIP: 'None', selector: { app: 'pd' }, ports: [{ name: 'peer', port: 2380 }] } });

    // Act
    w.store.create('StatefulSet', {
      metadata: { name: 'pd', namespace: NS },
      spec: { replicas: 1, serviceName: 'pd-peer', selector: { matchLabels: { app: 'pd' } }, template: { metadata: { labels: { app: 'pd' } }, spec: { containers: [{ name: 'pd', image: 'pingcap/pd' }] } } },
    });
    await w.clock.advance(6000);

    // Assess
    expect(w.subsets('pd-peer')?.[0]?.addresses?.[0]).toMatchObject({ hostname: 'pd-0', targetRef: { name: 'pd-0' } });
  });

  it('deleting the Service deletes its Endpoints', async () => {
    // Prepare
    const w = world();
    w.store.create('Service', service('web'));
    await w.clock.advance(1);
    const created = w.endpoints('web');

    // Act
    w.store.delete('Service', NS, 'web');
    await w.clock.advance(1);

    // Assess
    expect(created).toBeDefined();
    expect(w.endpoints('web')).toBeUndefined();
  });
});
