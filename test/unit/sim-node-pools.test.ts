import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { SimControllers } from '../../lib/sim/controllers/index.js';
import { type NodePool, createNodes } from '../../lib/sim/nodes.js';
import { SIM_VERSION } from '../../lib/sim/discovery.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { ObjectStore } from '../../lib/sim/store.js';

const NS = 'demo';

function world(nodes: readonly NodePool[]) {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: NS } });
  const controllers = new SimControllers(store, { podStartupMs: 1000, nodes });
  controllers.start();
  const nodeOf = (pod: string): string | undefined => store.get('Pod', NS, pod)?.spec?.nodeName;
  const scheduled = (pod: string) => (store.get('Pod', NS, pod)?.status?.conditions ?? []).find((c: { type: string }) => c.type === 'PodScheduled');
  return { clock, store, nodeOf, scheduled };
}

function pod(name: string, spec: Record<string, unknown> = {}, labels: Record<string, string> = {}): KubeObject {
  return { metadata: { name, namespace: NS, labels }, spec: { containers: [{ name: 'main', image: 'busybox:1' }], ...spec } };
}

const TIKV_POOL: NodePool = { name: 'tikv', count: 3, labels: { dedicated: 'tikv' }, taints: [{ key: 'dedicated', value: 'tikv', effect: 'NoSchedule' }], zones: ['us-west-2a', 'us-west-2b'] };
const GENERAL: NodePool = { name: 'general', count: 2 };

describe('node pools', () => {
  it('each pool has <name>-<i> nodes with its labels and taints, zones round robin over its zones or zone-a/b/c', () => {
    // Prepare
    const w = world([GENERAL, TIKV_POOL]);

    // Act
    const nodes = w.store.list('Node').map((n) => ({ name: n.metadata.name, zone: n.metadata.labels?.['topology.kubernetes.io/zone'], dedicated: n.metadata.labels?.['dedicated'], taints: n.spec?.taints }));

    // Assess
    const taints = [{ key: 'dedicated', value: 'tikv', effect: 'NoSchedule' }];
    expect(nodes).toEqual([
      { name: 'general-0', zone: 'zone-a', dedicated: undefined, taints: undefined },
      { name: 'general-1', zone: 'zone-b', dedicated: undefined, taints: undefined },
      { name: 'tikv-0', zone: 'us-west-2a', dedicated: 'tikv', taints },
      { name: 'tikv-1', zone: 'us-west-2b', dedicated: 'tikv', taints },
      { name: 'tikv-2', zone: 'us-west-2a', dedicated: 'tikv', taints },
    ]);
    expect(new Set(w.store.list('Node').map((n) => n.status?.addresses?.[0]?.address)).size).toBe(5);
  });

  it.each([
    { name: 'a pod without a toleration stays off the tainted pool', spec: {}, pool: 'general' },
    { name: 'a pod selecting the pool and tolerating its taint lands in it', spec: { nodeSelector: { dedicated: 'tikv' }, tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'tikv', effect: 'NoSchedule' }] }, pool: 'tikv' },
    { name: 'an Exists toleration of the key tolerates any value', spec: { nodeSelector: { dedicated: 'tikv' }, tolerations: [{ key: 'dedicated', operator: 'Exists' }] }, pool: 'tikv' },
  ])('$name', async ({ spec, pool }) => {
    // Prepare
    const w = world([GENERAL, TIKV_POOL]);

    // Act
    w.store.create('Pod', pod('p', spec));
    await w.clock.advance(10);

    // Assess
    expect(w.nodeOf('p')?.startsWith(`${pool}-`)).toBe(true);
  });

  it.each([
    { name: 'a pod selecting the tainted pool without tolerating it is Pending with the scheduler\'s message', spec: { nodeSelector: { dedicated: 'tikv' } }, message: "0/5 nodes are available: 2 node(s) didn't match Pod's node affinity/selector, 3 node(s) had untolerated taint {dedicated: tikv}." },
    { name: 'a pod selecting a label no pool has is Pending', spec: { nodeSelector: { dedicated: 'tiflash' } }, message: "0/5 nodes are available: 2 node(s) didn't match Pod's node affinity/selector, 3 node(s) had untolerated taint {dedicated: tikv}." },
  ])('$name', async ({ spec, message }) => {
    // Prepare
    const w = world([GENERAL, TIKV_POOL]);

    // Act
    w.store.create('Pod', pod('p', spec));
    await w.clock.advance(10);

    // Assess
    expect(w.nodeOf('p')).toBeUndefined();
    expect(w.scheduled('p')).toMatchObject({ status: 'False', reason: 'Unschedulable', message });
  });
});

describe('required pod anti-affinity', () => {
  const antiAffinity = (topologyKey: string) => ({
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'pd' } }, topologyKey }] } },
  });

  it.each([
    { name: 'pods that must not share a host land on different hosts, though the spread prefers the emptiest', pools: [{ name: 'n', count: 3 }], busy: ['n-1', 'n-2'], topologyKey: 'kubernetes.io/hostname', pods: 3, distinct: 3 },
    { name: 'pods that must not share a zone land in different zones, though the spread prefers zone-a', pools: [{ name: 'n', count: 6 }], busy: ['n-1', 'n-2', 'n-4', 'n-5'], topologyKey: 'topology.kubernetes.io/zone', pods: 3, distinct: 3 },
  ])('$name', async ({ pools, busy, topologyKey, pods, distinct }) => {
    // Prepare
    const w = world(pools);
    // Fill the busy nodes, so spreading alone would put every pod on the idle ones.
    for (const node of busy) for (let i = 0; i < 4; i++) w.store.create('Pod', pod(`filler-${node}-${i}`, { nodeSelector: { 'kubernetes.io/hostname': node } }));
    await w.clock.advance(10);

    // Act
    for (let i = 0; i < pods; i++) w.store.create('Pod', pod(`pd-${i}`, antiAffinity(topologyKey), { app: 'pd' }));
    await w.clock.advance(10);

    // Assess
    const nodes = Array.from({ length: pods }, (_, i) => w.nodeOf(`pd-${i}`));
    const domains = nodes.map((n) => w.store.mustGet('Node', undefined, n ?? '').metadata.labels?.[topologyKey]);
    expect(new Set(domains).size).toBe(distinct);
  });

  it('one pod more than there are hosts is Pending with the anti-affinity message', async () => {
    // Prepare
    const w = world([{ name: 'n', count: 2 }]);

    // Act
    for (let i = 0; i < 3; i++) w.store.create('Pod', pod(`pd-${i}`, antiAffinity('kubernetes.io/hostname'), { app: 'pd' }));
    await w.clock.advance(10);

    // Assess
    expect(w.nodeOf('pd-2')).toBeUndefined();
    expect(w.scheduled('pd-2')?.message).toBe("0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.");
  });

  it('a running pod\'s anti-affinity keeps the pods it selects out of its host, even if they have none', async () => {
    // Prepare
    const w = world([{ name: 'n', count: 1 }]);
    w.store.create('Pod', pod('guard', antiAffinity('kubernetes.io/hostname')));
    await w.clock.advance(10);

    // Act
    w.store.create('Pod', pod('pd-0', {}, { app: 'pd' }));
    await w.clock.advance(10);

    // Assess
    expect(w.nodeOf('guard')).toBe('n-0');
    expect(w.scheduled('pd-0')?.message).toBe("0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules.");
  });
});

describe('node info', () => {
  it.each([
    { name: 'nodes of a count report the server release', nodes: 2 as number | readonly NodePool[] },
    { name: 'nodes of pools report the server release', nodes: [TIKV_POOL, GENERAL] as number | readonly NodePool[] },
  ])('$name', ({ nodes }) => {
    // Prepare
    const store = new ObjectStore(new VirtualClock(Date.UTC(2026, 0, 1)));

    // Act
    createNodes(store, nodes);

    // Assess: status.nodeInfo.kubeletVersion is what /version answers (gitVersion), on every node.
    const versions = store.list('Node').map((n) => n.status.nodeInfo.kubeletVersion);
    expect(versions.length).toBeGreaterThan(0);
    expect(new Set(versions)).toEqual(new Set([SIM_VERSION.gitVersion]));
  });
});
