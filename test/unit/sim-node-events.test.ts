/**
 * The node lifecycle and taint eviction controllers' Events when a host dies and comes back, as
 * `pkg/controller/util/node/controller_utils.go` (RecordNodeStatusChange, MarkPodsNotReady) and
 * `pkg/controller/tainteviction/taint_eviction.go` (emitPodDeletionEvent) record them.
 */
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { SimControllers } from '../../lib/sim/controllers/index.js';
import { ObjectStore } from '../../lib/sim/store.js';

const NS = 'demo';

function world() {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const store = new ObjectStore(clock);
  // Events about a Node (cluster-scoped) are recorded in `default`, which every cluster has.
  for (const name of ['default', NS]) store.create('Namespace', { metadata: { name } });
  const controllers = new SimControllers(store, { podStartupMs: 1000, nodes: 3 });
  controllers.start();
  const events = (kind: string, name: string): [string, string, string, string, number][] =>
    store
      .list('Event', undefined, (e) => (e.involvedObject as { kind: string; name: string }).kind === kind && (e.involvedObject as { name: string }).name === name)
      .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
      .map((e) => [String(e.type), String(e.reason), String(e.message), String((e.source as { component: string }).component), Number(e.count)]);
  return { clock, store, controllers, events };
}

describe('node lifecycle Events', () => {
  it.each([
    {
      name: 'a host down past the grace period: the Node NotReady, its pod NodeNotReady, then evicted; back: NodeReady',
      downForMs: 400_000,
      node: [
        ['Normal', 'NodeNotReady', 'Node node-0 status is now: NodeNotReady', 'node-controller', 1],
        ['Normal', 'NodeReady', 'Node node-0 status is now: NodeReady', 'node-controller', 1],
      ],
      pod: [
        ['Warning', 'NodeNotReady', 'Node is not ready', 'node-controller', 1],
        ['Normal', 'TaintManagerEviction', 'Marking for deletion Pod demo/p', 'taint-eviction-controller', 1],
      ],
    },
    { name: 'a host back within the grace period leaves no Event', downForMs: 30_000, node: [], pod: [] },
  ])('$name', async ({ downForMs, node, pod }) => {
    // Prepare
    const w = world();
    w.store.create('Pod', { metadata: { name: 'p', namespace: NS }, spec: { containers: [{ name: 'main', image: 'nginx:1.27' }], tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }] } });
    await w.clock.advance(2_000);

    // Act
    w.controllers.kubelet.setNodeDown('node-0', true);
    await w.clock.advance(downForMs);
    w.controllers.kubelet.setNodeDown('node-0', false);
    await w.clock.advance(10);

    // Assess
    expect(w.events('Node', 'node-0')).toEqual(node);
    expect(w.events('Pod', 'p').filter(([, reason]) => reason === 'NodeNotReady' || reason === 'TaintManagerEviction')).toEqual(pod);
  });
});
