/**
 * The world's kubelet and node lifecycle keep Kubernetes' own timing: readiness probes as
 * pkg/kubelet/prober/worker.go runs them (defaults of SetDefaults_Probe), the restart back-off of
 * pkg/kubelet/kuberuntime/kuberuntime_manager.go (doBackOff) over client-go's flowcontrol.Backoff,
 * the node-monitor grace period of pkg/controller/nodelifecycle, and the DefaultTolerationSeconds
 * admission plugin's tolerations.
 */
import { describe, it, expect } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { CrashBackoff } from '../../lib/sim/crash-backoff.js';
import { Kubelet } from '../../lib/sim/kubelet.js';
import { createNodes } from '../../lib/sim/nodes.js';
import type { KubeObject } from '../../lib/sim/object.js';
import type { ContainerRuntime, ProcessHooks, SimProcess } from '../../lib/sim/runtime.js';
import { ObjectStore } from '../../lib/sim/store.js';

const START_MS = Date.UTC(2026, 0, 1);
const NS = 'demo';

class ScriptedProcess implements SimProcess {
  ready = true;
  constructor(readonly hooks: ProcessHooks) {}
  isReady(): boolean {
    return this.ready;
  }
  exitReason(): undefined {
    return undefined;
  }
  stop(): void {
    // Nothing runs behind it.
  }
}

class ScriptedRuntime implements ContainerRuntime {
  readonly started: ScriptedProcess[] = [];
  start(_pod: KubeObject, hooks: ProcessHooks): SimProcess {
    const p = new ScriptedProcess(hooks);
    this.started.push(p);
    return p;
  }
}

/** A kubelet (pods start 5 s after binding) and three nodes; `readyTimes` records each Ready flip (ms since start). */
function world() {
  const clock = new VirtualClock(START_MS);
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: NS } });
  createNodes(store, 3);
  const runtime = new ScriptedRuntime();
  const kubelet = new Kubelet(store, { podStartupMs: 5000, runtimes: [runtime] });
  kubelet.start();
  const flips: { atMs: number; ready: string }[] = [];
  store.subscribe((ev) => {
    const ready = (c: KubeObject | undefined): string | undefined => (c?.status?.conditions as { type: string; status: string }[] | undefined)?.find((x) => x.type === 'Ready')?.status;
    if (ev.kind === 'Pod' && ready(ev.object) !== ready(ev.previous)) flips.push({ atMs: clock.nowMs() - START_MS, ready: ready(ev.object) ?? '' });
  });
  return { clock, store, kubelet, runtime, flips };
}

function probedPod(probe: Record<string, unknown> | undefined): KubeObject {
  return { metadata: { name: 'p', namespace: NS }, spec: { containers: [{ name: 'main', image: 'scripted:1', ...(probe ? { readinessProbe: { tcpSocket: { port: 80 }, ...probe } } : {}) }] } };
}

describe('kubelet: readiness probes follow the pod spec (prober/worker.go)', () => {
  it.each([
    // Containers start at 5 s; their process is ready from the start and turns unready at 100 s.
    { name: 'without a probe the container is Ready as soon as it runs', probe: undefined, readyAtMs: 5000, unreadyAtMs: undefined },
    { name: 'defaults (period 10 s, failure 3): Ready at the first probe, unready at the third failed probe', probe: {}, readyAtMs: 5000, unreadyAtMs: 125_000 },
    { name: 'initialDelaySeconds 10: no probe before 10 s after the start', probe: { initialDelaySeconds: 10 }, readyAtMs: 15_000, unreadyAtMs: 125_000 },
    { name: 'successThreshold 2 with period 5 s: Ready at the second success', probe: { periodSeconds: 5, successThreshold: 2 }, readyAtMs: 10_000, unreadyAtMs: 110_000 },
    { name: 'failureThreshold 1: unready at the first failed probe', probe: { periodSeconds: 20, failureThreshold: 1 }, readyAtMs: 5000, unreadyAtMs: 105_000 },
  ])('$name', async ({ probe, readyAtMs, unreadyAtMs }) => {
    // Prepare
    const w = world();
    w.store.create('Pod', probedPod(probe));
    await w.clock.advance(100_000);

    // Act
    const process = w.runtime.started[0] as ScriptedProcess;
    process.ready = false;
    process.hooks.onChange();
    await w.clock.advance(100_000);

    // Assess
    const expected = [{ atMs: 0, ready: 'False' }, { atMs: readyAtMs, ready: 'True' }, ...(unreadyAtMs === undefined ? [] : [{ atMs: unreadyAtMs, ready: 'False' }])];
    expect(w.flips).toEqual(expected);
  });

  it('a readiness blip shorter than the failure threshold never makes the pod unready', async () => {
    // Prepare
    const w = world();
    w.store.create('Pod', probedPod({}));
    await w.clock.advance(20_000);
    const process = w.runtime.started[0] as ScriptedProcess;

    // Act: unready for 15 s (probes at 25 s and 35 s fail), then ready again.
    await w.clock.advance(2000);
    process.ready = false;
    process.hooks.onChange();
    await w.clock.advance(15_000);
    process.ready = true;
    process.hooks.onChange();
    await w.clock.advance(60_000);

    // Assess
    expect(w.flips).toEqual([{ atMs: 0, ready: 'False' }, { atMs: 5000, ready: 'True' }]);
  });

  it('the API server fills in the probe defaults (SetDefaults_Probe)', () => {
    // Prepare
    const w = world();

    // Act
    const pod = w.store.create('Pod', probedPod({ initialDelaySeconds: 10 }));

    // Assess
    expect(pod.spec.containers[0].readinessProbe).toEqual({ tcpSocket: { port: 80 }, initialDelaySeconds: 10, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  });
});

describe('kubelet: crash-loop back-off (kuberuntime_manager.go doBackOff, flowcontrol.Backoff)', () => {
  it.each([
    { name: 'the first exit restarts at once', exitsAtMs: [0], restartAtMs: 0 },
    { name: 'the second exit waits 10 s', exitsAtMs: [0, 1000], restartAtMs: 11_000 },
    { name: 'the delay doubles: 10 s, 20 s, 40 s', exitsAtMs: [0, 1000, 12_000, 33_000], restartAtMs: 73_000 },
    { name: 'the delay stops at 300 s', exitsAtMs: [0, 1, 10_002, 30_003, 70_004, 150_005, 310_006, 610_007, 910_008], restartAtMs: 1_210_008 },
    { name: 'a container that ran 10 minutes since its last restart starts over at once', exitsAtMs: [0, 1000, 611_001], restartAtMs: 611_001 },
  ])('$name', ({ exitsAtMs, restartAtMs }) => {
    // Prepare: each exit is followed by a restart as soon as the back-off allows.
    const backoff = new CrashBackoff();
    let restartedAtMs = 0;
    // Act
    for (const exitMs of exitsAtMs) {
      restartedAtMs = backoff.restartAtMs(exitMs);
      backoff.restarted(exitMs, restartedAtMs);
    }
    // Assess
    expect(restartedAtMs).toBe(restartAtMs);
  });

  it('a container is in back-off only until its delay has passed since it exited', () => {
    // Prepare
    const backoff = new CrashBackoff();
    backoff.restarted(0, 0);
    // Act / Assess
    expect([backoff.isInBackOff(5000, 14_999), backoff.isInBackOff(5000, 15_000), backoff.currentDelayMs]).toEqual([true, false, 10_000]);
  });
});

describe('node lifecycle: a lost node (node_lifecycle_controller.go, defaults 50 s / 300 s)', () => {
  it('its pods stay Ready, and the Node Ready, until the node-monitor grace period (50 s) has passed', async () => {
    // Prepare
    const w = world();
    w.store.create('Pod', probedPod(undefined));
    await w.clock.advance(10_000);
    const node = w.store.mustGet('Pod', NS, 'p').spec.nodeName as string;
    const nodeReady = (): string | undefined => (w.store.mustGet('Node', undefined, node).status.conditions as { type: string; status: string }[]).find((c) => c.type === 'Ready')?.status;

    // Act
    w.kubelet.setNodeDown(node, true);
    await w.clock.advance(49_999);
    const during = { node: nodeReady(), flips: w.flips.length };
    await w.clock.advance(1);

    // Assess
    expect(during).toEqual({ node: 'True', flips: 2 });
    expect(nodeReady()).toBe('Unknown');
    expect(w.flips.at(-1)).toEqual({ atMs: 60_000, ready: 'False' });
    expect(w.store.mustGet('Node', undefined, node).spec.taints).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' })]));
  });

  it('a node back before the grace period leaves no trace on the Node or the pod', async () => {
    // Prepare
    const w = world();
    w.store.create('Pod', probedPod(undefined));
    await w.clock.advance(10_000);
    const node = w.store.mustGet('Pod', NS, 'p').spec.nodeName as string;

    // Act
    w.kubelet.setNodeDown(node, true);
    await w.clock.advance(30_000);
    w.kubelet.setNodeDown(node, false);
    await w.clock.advance(60_000);

    // Assess
    expect(w.store.mustGet('Node', undefined, node).spec.taints).toBeUndefined();
    expect(w.flips).toEqual([{ atMs: 0, ready: 'False' }, { atMs: 5000, ready: 'True' }]);
  });

  it.each([
    { name: 'a pod without tolerations gets both for 300 s', tolerations: undefined, added: ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'] },
    {
      name: 'a pod tolerating unreachable NoExecute keeps its own and gets not-ready only',
      tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 }],
      added: ['node.kubernetes.io/not-ready'],
    },
    { name: 'a pod tolerating every taint gets none', tolerations: [{ operator: 'Exists' }], added: [] },
    {
      name: 'a NoSchedule toleration of the taint does not count',
      tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoSchedule' }],
      added: ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'],
    },
  ])('DefaultTolerationSeconds admission: $name', ({ tolerations, added }) => {
    // Prepare
    const w = world();
    const pod = probedPod(undefined);
    if (tolerations) pod.spec.tolerations = tolerations;

    // Act
    const stored = w.store.create('Pod', pod);

    // Assess
    const extra = (stored.spec.tolerations as { key?: string; tolerationSeconds?: number }[]).slice(tolerations?.length ?? 0);
    expect(extra).toEqual(added.map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 })));
  });
});
