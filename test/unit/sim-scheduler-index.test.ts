import { describe, it, expect } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { Scheduler } from '../../lib/sim/kubelet-scheduler.js';
import { createNodes } from '../../lib/sim/nodes.js';
import { SchedulerPodIndex } from '../../lib/sim/scheduler-index.js';
import { ObjectStore } from '../../lib/sim/store.js';

type PodOpts = { node?: string; antiAffinityNamespaces?: string[] };

function pod(namespace: string, name: string, opts: PodOpts = {}): KubeObject {
  const affinity = opts.antiAffinityNamespaces
    ? { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', namespaces: opts.antiAffinityNamespaces, labelSelector: { matchLabels: { app: 'pd' } } }] } }
    : undefined;
  return { metadata: { name, namespace, labels: { app: 'pd' } }, spec: { containers: [{ name: 'main', image: 'pd' }], ...(opts.node ? { nodeName: opts.node } : {}), ...(affinity ? { affinity } : {}) } };
}

function world(): { store: ObjectStore; index: SchedulerPodIndex } {
  const store = new ObjectStore(new VirtualClock(Date.UTC(2026, 0, 1)));
  for (const ns of ['a', 'b', 'c']) store.create('Namespace', { metadata: { name: ns } });
  store.create('Pod', pod('a', 'early', { node: 'node-0' }));
  return { store, index: new SchedulerPodIndex(store) };
}

const names = (pods: readonly KubeObject[]): string[] => pods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort();

describe('the scheduler pod index follows the store', () => {
  it.each([
    {
      name: 'a new unbound pod is pending, and counts on no node',
      act: (s: ObjectStore) => void s.create('Pod', pod('a', 'p')),
      pending: ['a/p'],
      counts: { 'node-0': 1 },
    },
    {
      name: 'binding a pending pod moves it onto its node',
      act: (s: ObjectStore) => {
        const p = s.create('Pod', pod('a', 'p'));
        s.update('Pod', { ...p, spec: { ...p.spec, nodeName: 'node-1' } });
      },
      pending: [],
      counts: { 'node-0': 1, 'node-1': 1 },
    },
    {
      name: 'a finished pod frees its node',
      act: (s: ObjectStore) => void s.update('Pod', { ...s.mustGet('Pod', 'a', 'early'), status: { phase: 'Succeeded' } }, { subresource: 'status' }),
      pending: [],
      counts: {},
    },
    {
      name: 'a deleted pod is forgotten',
      act: (s: ObjectStore) => {
        s.create('Pod', pod('b', 'p'));
        s.delete('Pod', 'b', 'p');
        s.delete('Pod', 'a', 'early', { gracePeriodSeconds: 0 });
      },
      pending: [],
      counts: {},
    },
    {
      name: 'a pod being deleted is not pending but still occupies its node',
      act: (s: ObjectStore) => {
        s.create('Pod', { ...pod('b', 'p'), metadata: { ...pod('b', 'p').metadata, finalizers: ['keep'] } });
        s.delete('Pod', 'b', 'p');
        s.delete('Pod', 'a', 'early');
      },
      pending: [],
      counts: { 'node-0': 1 },
    },
  ])('$name', ({ act, pending, counts }) => {
    // Prepare
    const w = world();

    // Act
    act(w.store);

    // Assess
    expect(names(w.index.pendingPods())).toEqual(pending);
    expect(Object.fromEntries(w.index.podCount())).toEqual(counts);
  });

  it("a pod's anti-affinity neighbours are its namespace's placed pods, its terms' namespaces and pods whose terms reach across", () => {
    // Prepare
    const w = world();
    w.store.create('Pod', pod('b', 'other-namespace', { node: 'node-1' }));
    w.store.create('Pod', pod('c', 'reaches-everywhere', { node: 'node-2', antiAffinityNamespaces: ['a', 'b'] }));
    w.store.create('Pod', pod('a', 'placed-here', { node: 'node-1' }));

    // Act
    const nearA = w.index.placedNear(pod('a', 'new'));
    const nearAWithTerms = w.index.placedNear(pod('a', 'new', { antiAffinityNamespaces: ['b'] }));

    // Assess
    expect(names(nearA)).toEqual(['a/early', 'a/placed-here', 'c/reaches-everywhere']);
    expect(names(nearAWithTerms)).toEqual(['a/early', 'a/placed-here', 'b/other-namespace', 'c/reaches-everywhere']);
  });

  it('stopped, it no longer follows the store', () => {
    // Prepare
    const w = world();

    // Act
    w.index.stop();
    w.store.create('Pod', pod('a', 'late'));

    // Assess
    expect(names(w.index.pendingPods())).toEqual([]);
  });
});

describe('a scheduling pass reads what it schedules', () => {
  it('binding many pending pods lists no pods at all, and spreads them over the nodes', async () => {
    // Prepare
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const store = new ObjectStore(clock);
    store.create('Namespace', { metadata: { name: 'a' } });
    createNodes(store, 3);
    const scheduler = new Scheduler(store);
    scheduler.start();
    const listed: string[] = [];
    const list = store.list.bind(store);
    store.list = (kind, namespace, filter) => (listed.push(kind), list(kind, namespace, filter));

    // Act
    for (let i = 0; i < 30; i++) store.create('Pod', pod('a', `p-${i}`));
    await clock.advance(1000);

    // Assess
    const nodes = list('Pod', 'a').map((p) => String(p.spec?.nodeName));
    const perNode = Object.fromEntries([...new Set(nodes)].map((n) => [n, nodes.filter((x) => x === n).length]));
    expect(perNode).toEqual({ 'node-0': 10, 'node-1': 10, 'node-2': 10 });
    expect(listed.filter((k) => k === 'Pod')).toEqual([]);
    scheduler.stop();
  });
});
