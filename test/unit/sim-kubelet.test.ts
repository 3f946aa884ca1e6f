import { describe, it, expect } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { Kubelet } from '../../lib/sim/kubelet.js';
import { createNodes } from '../../lib/sim/nodes.js';
import type { KubeObject } from '../../lib/sim/object.js';
import type { ContainerRuntime, ProcessHooks, SimProcess } from '../../lib/sim/runtime.js';
import { ObjectStore } from '../../lib/sim/store.js';

const START_MS = Date.UTC(2026, 0, 1);
const NS = 'demo';

/** A kubelet and three nodes on a virtual clock, with no other controller. */
function world(runtimes: ContainerRuntime[] = []) {
  const clock = new VirtualClock(START_MS);
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: NS } });
  createNodes(store, 3);
  const kubelet = new Kubelet(store, { podStartupMs: 5000, runtimes });
  kubelet.start();
  const pod = (name: string): KubeObject => store.mustGet('Pod', NS, name);
  const sinceMs = (): number => clock.nowMs() - START_MS;
  return { clock, store, kubelet, pod, sinceMs };
}

function newPod(name: string, spec: Record<string, unknown> = {}, image = 'nginx:1.27'): KubeObject {
  return { metadata: { name, namespace: NS }, spec: { containers: [{ name: 'main', image }], ...spec } };
}

const condition = (pod: KubeObject, type: string): Record<string, unknown> | undefined =>
  (pod.status?.conditions as Record<string, unknown>[] | undefined)?.find((c) => c.type === type);

/** A process the test drives: readiness and exit are set from outside. */
class ScriptedProcess implements SimProcess {
  ready = false;
  exit: { reason: string; exitCode: number } | undefined;
  stopped = false;
  constructor(readonly hooks: ProcessHooks) {}
  isReady(): boolean {
    return this.ready;
  }
  exitReason(): { reason: string; exitCode: number } | undefined {
    return this.exit;
  }
  stop(): void {
    this.stopped = true;
  }
}

class ScriptedRuntime implements ContainerRuntime {
  readonly started: ScriptedProcess[] = [];
  start(pod: KubeObject, hooks: ProcessHooks): SimProcess | undefined {
    if (!((pod.spec?.containers ?? []) as { image: string }[]).some((c) => c.image.startsWith('scripted'))) return undefined;
    const p = new ScriptedProcess(hooks);
    this.started.push(p);
    return p;
  }
}

describe('kubelet: scheduling', () => {
  it.each([
    { name: 'pods spread over the nodes with the fewest pods first', spec: {}, count: 6, nodes: ['node-0', 'node-1', 'node-2', 'node-0', 'node-1', 'node-2'] },
    { name: 'a nodeSelector on the zone label is honoured', spec: { nodeSelector: { 'topology.kubernetes.io/zone': 'zone-b' } }, count: 2, nodes: ['node-1', 'node-1'] },
    {
      name: 'required node affinity on the hostname label is honoured',
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['node-0', 'node-1'] }] }],
            },
          },
        },
      },
      count: 2,
      nodes: ['node-2', 'node-2'],
    },
  ])('$name', async ({ spec, count, nodes }) => {
    // Prepare
    const w = world();

    // Act
    for (let i = 0; i < count; i++) {
      w.store.create('Pod', newPod(`p${i}`, spec));
      await w.clock.advance(1);
    }

    // Assess
    expect(Array.from({ length: count }, (_, i) => w.pod(`p${i}`).spec.nodeName)).toEqual(nodes);
  });

  it('a pod no node fits stays Pending with PodScheduled=False, reason Unschedulable', async () => {
    // Prepare
    const w = world();

    // Act
    w.store.create('Pod', newPod('p', { nodeSelector: { 'topology.kubernetes.io/zone': 'zone-z' } }));
    await w.clock.advance(10_000);

    // Assess
    const pod = w.pod('p');
    expect(pod.spec.nodeName).toBeUndefined();
    expect(pod.status.phase).toBe('Pending');
    expect(condition(pod, 'PodScheduled')).toMatchObject({
      status: 'False',
      reason: 'Unschedulable',
      message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
    });
  });

  it('a NotReady node gets no new pods', async () => {
    // Prepare: the Node turns NotReady once the node-monitor grace period (50 s) has passed.
    const w = world();
    w.kubelet.setNodeDown('node-0', true);
    await w.clock.advance(50_000);

    // Act
    for (const name of ['a', 'b', 'c']) w.store.create('Pod', newPod(name));
    await w.clock.advance(1);

    // Assess
    expect(['a', 'b', 'c'].map((n) => w.pod(n).spec.nodeName)).not.toContain('node-0');
  });
});

describe('kubelet: pod lifecycle', () => {
  it('a pod is Pending (ContainerCreating) until podStartupMs, then Running and Ready with IPs and conditions', async () => {
    // Prepare
    const w = world();
    w.store.create('Pod', newPod('p'));

    // Act
    await w.clock.advance(4999);
    const before = w.pod('p');
    await w.clock.advance(1);
    const after = w.pod('p');

    // Assess
    expect(before.status).toMatchObject({ phase: 'Pending', hostIP: '192.168.0.10', containerStatuses: [{ name: 'main', ready: false, state: { waiting: { reason: 'ContainerCreating' } } }] });
    expect(condition(before, 'Ready')).toMatchObject({ status: 'False', reason: 'ContainersNotReady' });
    expect(after.status).toMatchObject({ phase: 'Running', podIP: expect.stringMatching(/^10\./), startTime: '2026-01-01T00:00:00Z' });
    expect(after.status.containerStatuses).toEqual([
      expect.objectContaining({ name: 'main', image: 'nginx:1.27', ready: true, started: true, restartCount: 0, state: { running: { startedAt: '2026-01-01T00:00:05Z' } } }),
    ]);
    expect(after.status.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`)).toEqual(['Initialized=True', 'Ready=True', 'ContainersReady=True', 'PodScheduled=True']);
  });

  it('a pod whose claim is not Bound stays ContainerCreating', async () => {
    // Prepare
    const w = world();
    w.store.create('PersistentVolumeClaim', { metadata: { name: 'data', namespace: NS }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });

    // Act
    w.store.create('Pod', newPod('p', { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }] }));
    await w.clock.advance(60_000);

    // Assess
    expect(w.pod('p').spec.nodeName).toBeDefined();
    expect(w.pod('p').status).toMatchObject({ phase: 'Pending', containerStatuses: [{ state: { waiting: { reason: 'ContainerCreating' } } }] });
  });

  it('without a readiness probe, a running container is Ready whatever its process reports', async () => {
    // Prepare
    const runtime = new ScriptedRuntime();
    const w = world([runtime]);
    // Act
    w.store.create('Pod', newPod('p', {}, 'scripted:1'));
    await w.clock.advance(6000);
    // Assess
    expect((runtime.started[0] as ScriptedProcess).ready).toBe(false);
    expect(condition(w.pod('p'), 'Ready')).toMatchObject({ status: 'True' });
  });

  it('with a readiness probe, Ready follows the process, and lastTransitionTime moves only when the status flips', async () => {
    // Prepare
    const runtime = new ScriptedRuntime();
    const w = world([runtime]);
    const probed = newPod('p', {}, 'scripted:1');
    probed.spec.containers[0].readinessProbe = { tcpSocket: { port: 80 }, periodSeconds: 5 };
    w.store.create('Pod', probed);
    await w.clock.advance(6000);
    const unready = condition(w.pod('p'), 'Ready');
    const process = runtime.started[0] as ScriptedProcess;

    // Act: the process turns ready at 12 s; the next probe (every 5 s from the start at 5 s) is at 15 s.
    await w.clock.advance(6000);
    process.ready = true;
    process.hooks.onChange();
    await w.clock.advance(2999);
    const beforeProbe = condition(w.pod('p'), 'Ready');
    await w.clock.advance(1);
    const ready = condition(w.pod('p'), 'Ready');

    // Assess
    expect(unready).toMatchObject({ status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z' });
    expect(beforeProbe).toMatchObject({ status: 'False' });
    expect(ready).toMatchObject({ status: 'True', lastTransitionTime: '2026-01-01T00:00:15Z' });
    expect(condition(w.pod('p'), 'Initialized')).toMatchObject({ lastTransitionTime: '2026-01-01T00:00:00Z' });
  });

  it('a graceful deletion stops the processes and removes the pod after the stop time', async () => {
    // Prepare
    const runtime = new ScriptedRuntime();
    const w = world([runtime]);
    w.store.create('Pod', newPod('p', {}, 'scripted:1'));
    await w.clock.advance(6000);

    // Act
    w.store.delete('Pod', NS, 'p');
    await w.clock.advance(999);
    const during = w.store.get('Pod', NS, 'p');
    await w.clock.advance(1);

    // Assess
    expect(runtime.started[0]?.stopped).toBe(true);
    expect(during?.metadata.deletionTimestamp).toBeDefined();
    expect(w.store.get('Pod', NS, 'p')).toBeUndefined();
  });
});

describe('kubelet: crashes and faults', () => {
  it('a broken image crash-loops: restart at once, then back-off 10 s, 20 s, 40 s', async () => {
    // Prepare
    const w = world();
    w.kubelet.breakImage('pingcap/pd:v99', true);
    const restarts: { atMs: number; count: number }[] = [];
    w.store.subscribe((ev) => {
      const count = ev.object.status?.containerStatuses?.[0]?.restartCount;
      const before = ev.previous?.status?.containerStatuses?.[0]?.restartCount ?? 0;
      if (ev.kind === 'Pod' && typeof count === 'number' && count > before) restarts.push({ atMs: w.sinceMs(), count });
    });

    // Act
    w.store.create('Pod', newPod('p', {}, 'pingcap/pd:v99'));
    await w.clock.advance(60_000);

    // Assess
    expect(restarts).toEqual([
      { atMs: 6000, count: 1 },
      { atMs: 17_000, count: 2 },
      { atMs: 38_000, count: 3 },
    ]);
    await w.clock.advance(500);
    expect(w.pod('p').status.containerStatuses[0]).toMatchObject({
      ready: false,
      state: { waiting: { reason: 'CrashLoopBackOff', message: expect.stringContaining('back-off 40s') } },
      lastState: { terminated: { exitCode: 1, reason: 'Error' } },
    });
    expect(w.pod('p').status.phase).toBe('Running');
  });

  it('a process that exits is restarted with a new process', async () => {
    // Prepare
    const runtime = new ScriptedRuntime();
    const w = world([runtime]);
    w.store.create('Pod', newPod('p', {}, 'scripted:1'));
    await w.clock.advance(6000);
    const first = runtime.started[0] as ScriptedProcess;

    // Act
    first.exit = { reason: 'OOMKilled', exitCode: 137 };
    first.hooks.onChange();
    await w.clock.advance(1);

    // Assess
    expect(runtime.started).toHaveLength(2);
    expect(w.pod('p').status.containerStatuses[0]).toMatchObject({ restartCount: 1, lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } }, state: { running: {} } });
  });

  it('in CrashLoopBackOff the pod is Running with Ready and ContainersReady False; restarted without a probe it is Ready before its process is', async () => {
    // Prepare: the second exit puts the container in back-off (10 s).
    const runtime = new ScriptedRuntime();
    const w = world([runtime]);
    w.store.create('Pod', newPod('p', {}, 'scripted:1'));
    await w.clock.advance(6000);
    for (let i = 0; i < 2; i++) {
      const p = runtime.started[i] as ScriptedProcess;
      p.exit = { reason: 'Error', exitCode: 1 };
      p.hooks.onChange();
      await w.clock.advance(1);
    }

    // Act
    const waiting = w.pod('p');
    await w.clock.advance(10_000);
    const restarted = w.pod('p');

    // Assess
    expect(waiting.status).toMatchObject({ phase: 'Running', containerStatuses: [{ ready: false, started: false, state: { waiting: { reason: 'CrashLoopBackOff' } } }] });
    expect(condition(waiting, 'Ready')).toMatchObject({ status: 'False', reason: 'ContainersNotReady' });
    expect(condition(waiting, 'ContainersReady')).toMatchObject({ status: 'False', reason: 'ContainersNotReady' });
    expect((runtime.started[2] as ScriptedProcess).ready).toBe(false);
    expect(restarted.status.containerStatuses[0]).toMatchObject({ ready: true, restartCount: 2, state: { running: {} } });
    expect(condition(restarted, 'Ready')).toMatchObject({ status: 'True' });
    expect(condition(restarted, 'ContainersReady')).toMatchObject({ status: 'True' });
  });

  it('a process down leaves the pod Running but not Ready, with no restart, until healed', async () => {
    // Prepare
    const w = world();
    w.store.create('Pod', newPod('p'));
    await w.clock.advance(6000);

    // Act
    w.kubelet.setProcessDown(NS, 'p', true);
    await w.clock.advance(60_000);
    const down = w.pod('p');
    w.kubelet.setProcessDown(NS, 'p', false);
    await w.clock.advance(1);

    // Assess
    expect(down.status).toMatchObject({ phase: 'Running', containerStatuses: [{ ready: false, restartCount: 0, state: { running: {} } }] });
    expect(condition(down, 'Ready')).toMatchObject({ status: 'False' });
    expect(condition(w.pod('p'), 'Ready')).toMatchObject({ status: 'True' });
  });

  it('a node down makes its pods unready after the grace period and keeps a deleted pod Terminating until force-deleted', async () => {
    // Prepare
    const w = world();
    w.store.create('Pod', newPod('p'));
    await w.clock.advance(6000);
    const node = w.pod('p').spec.nodeName as string;

    // Act
    w.kubelet.setNodeDown(node, true);
    await w.clock.advance(50_000);
    const unready = w.pod('p');
    w.store.delete('Pod', NS, 'p');
    await w.clock.advance(120_000);
    const terminating = w.store.get('Pod', NS, 'p');
    w.store.delete('Pod', NS, 'p', { gracePeriodSeconds: 0 });

    // Assess: MarkPodsNotReady flips the Ready condition only; container statuses stay as last posted.
    expect(unready.status).toMatchObject({ phase: 'Running', containerStatuses: [{ ready: true }] });
    expect(condition(unready, 'Ready')).toMatchObject({ status: 'False' });
    expect(w.store.mustGet('Node', undefined, node).spec.taints).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' })]));
    expect(terminating?.metadata.deletionTimestamp).toBeDefined();
    expect(w.store.get('Pod', NS, 'p')).toBeUndefined();
  });

  it.each([
    // The taint goes on 50 s after the host died (node-monitor grace period); tolerations count from then.
    { name: 'a pod on an unreachable node is evicted after the grace period and the default 300 s, and stays Terminating', tolerations: undefined, evictedAfterMs: 350_000 },
    {
      name: 'a pod tolerating the unreachable taint for 60 s is evicted 60 s after the taint',
      tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }],
      evictedAfterMs: 110_000,
    },
    { name: 'a pod tolerating every taint for ever is never evicted', tolerations: [{ operator: 'Exists' }], evictedAfterMs: undefined },
  ])('$name', async ({ tolerations, evictedAfterMs }) => {
    // Prepare
    const w = world();
    w.store.create('Pod', newPod('p', tolerations ? { tolerations } : {}));
    await w.clock.advance(6000);
    let deletedAtMs: number | undefined;
    w.store.subscribe((ev) => {
      if (ev.kind === 'Pod' && ev.object.metadata.deletionTimestamp && !ev.previous?.metadata.deletionTimestamp) deletedAtMs = w.sinceMs() - 6000;
    });

    // Act
    w.kubelet.setNodeDown(w.pod('p').spec.nodeName, true);
    await w.clock.advance(600_000);

    // Assess
    expect(deletedAtMs).toBe(evictedAfterMs);
    expect(w.store.get('Pod', NS, 'p')).toBeDefined();
  });
});
