/**
 * The simulated kubelet runs a pod's init containers as the real one (lib/sim/kubelet-init.ts):
 * one at a time, in order, the containers only after every one exited 0; the pod Pending with
 * `Init:i/n` meanwhile; a failing one restarted with back-off (`Init:CrashLoopBackOff`), or with
 * restartPolicy Never left terminated and the pod Failed (`Init:Error`).
 */
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { SimControllers } from '../../lib/sim/controllers/index.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { POD_PRINTER } from '../../lib/sim/printers/pod.js';
import type { ContainerRuntime, ProcessHooks, SimProcess } from '../../lib/sim/runtime.js';
import { ObjectStore } from '../../lib/sim/store.js';

const START_MS = Date.UTC(2026, 0, 1);
const NS = 'demo';

/** An init container of image `gate` runs until the gate opens, then exits 0. */
class GateRuntime implements ContainerRuntime {
  open = false;
  private readonly waiting: ProcessHooks[] = [];
  start(): SimProcess | undefined {
    return undefined;
  }
  startInit(pod: KubeObject, hooks: ProcessHooks): SimProcess | undefined {
    const image = ((pod.spec?.initContainers ?? []) as { name: string; image: string }[]).find((c) => c.name === hooks.container)?.image;
    if (image !== 'gate') return undefined;
    this.waiting.push(hooks);
    return { isReady: () => false, exitReason: () => (this.open ? { reason: 'Completed', exitCode: 0 } : undefined), stop: () => undefined };
  }
  release(): void {
    this.open = true;
    for (const h of this.waiting) h.onChange();
  }
}

function world() {
  const clock = new VirtualClock(START_MS);
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: NS } });
  const gate = new GateRuntime();
  const controllers = new SimControllers(store, { podStartupMs: 1000, nodes: 1, runtimes: [gate] });
  controllers.start();
  const pod = (): KubeObject => store.mustGet('Pod', NS, 'p');
  const status = (): string => String(POD_PRINTER.cells(pod(), clock.nowMs())[2]);
  return { clock, store, gate, controllers, pod, status };
}

function createPod(w: ReturnType<typeof world>, initImages: string[], restartPolicy = 'Always'): void {
  const initContainers = initImages.map((image, i) => ({ name: `init-${i}`, image }));
  w.store.create('Pod', { metadata: { name: 'p', namespace: NS }, spec: { restartPolicy, initContainers, containers: [{ name: 'main', image: 'nginx:1.27' }] } });
}

type Status = { name: string; ready: boolean; restartCount: number; state: Record<string, { reason?: string; exitCode?: number }> };
const initStatuses = (p: KubeObject): Status[] => (p.status?.initContainerStatuses ?? []) as Status[];
const mainState = (p: KubeObject): Record<string, { reason?: string }> => ((p.status?.containerStatuses ?? []) as Status[])[0]?.state ?? {};
const conditionOf = (p: KubeObject, type: string) => ((p.status?.conditions ?? []) as { type: string; status: string; reason?: string; message?: string }[]).find((c) => c.type === type);

describe('the kubelet runs init containers before the containers', () => {
  it('one at a time in order: Pending and Init:0/2 while the first runs, the containers PodInitializing; then Running', async () => {
    // Arrange
    const w = world();
    createPod(w, ['gate', 'busybox:1.36']);

    // Act
    await w.clock.advance(30_000);

    // Assert: the first runs, the second and the container wait.
    expect(w.pod().status?.phase).toBe('Pending');
    expect(w.status()).toBe('Init:0/2');
    expect(initStatuses(w.pod()).map((s) => Object.keys(s.state)[0])).toEqual(['running', 'waiting']);
    expect(initStatuses(w.pod())[1]?.state['waiting']?.reason).toBe('PodInitializing');
    expect(mainState(w.pod())['waiting']?.reason).toBe('PodInitializing');
    expect(conditionOf(w.pod(), 'Initialized')).toMatchObject({ status: 'False', reason: 'ContainersNotInitialized', message: 'containers with incomplete status: [init-0 init-1]' });

    // Act: the first finishes.
    w.gate.release();
    await w.clock.advance(1_000);

    // Assert: both completed (ready), the container runs.
    expect(initStatuses(w.pod()).map((s) => [s.state['terminated']?.reason, s.state['terminated']?.exitCode, s.ready])).toEqual([['Completed', 0, true], ['Completed', 0, true]]);
    expect(Object.keys(mainState(w.pod()))).toEqual(['running']);
    expect(w.pod().status?.phase).toBe('Running');
    expect(conditionOf(w.pod(), 'Initialized')?.status).toBe('True');
    expect(w.status()).toBe('Running');
  });

  it.each([
    { name: 'restartPolicy Always: restarted with back-off, Init:CrashLoopBackOff, the pod stays Pending', restartPolicy: 'Always', phase: 'Pending', printed: 'Init:CrashLoopBackOff' },
    { name: 'restartPolicy OnFailure: the same', restartPolicy: 'OnFailure', phase: 'Pending', printed: 'Init:CrashLoopBackOff' },
    { name: 'restartPolicy Never: left terminated, Init:Error, the pod Failed', restartPolicy: 'Never', phase: 'Failed', printed: 'Init:Error' },
  ])('a failing init container — $name; the container never starts', async ({ restartPolicy, phase, printed }) => {
    // Arrange
    const w = world();
    w.controllers.kubelet.breakImage('broken:1', true);
    createPod(w, ['broken:1'], restartPolicy);

    // Act
    await w.clock.advance(60_000);

    // Assert
    expect(w.pod().status?.phase).toBe(phase);
    expect(w.status()).toBe(printed);
    expect(mainState(w.pod())['waiting']?.reason).toBe('PodInitializing');
    const restarts = initStatuses(w.pod())[0]?.restartCount ?? 0;
    expect(restartPolicy === 'Never' ? restarts === 0 : restarts >= 2).toBe(true);
  });

  it('a healed init container completes on its next restart and the pod starts', async () => {
    // Arrange
    const w = world();
    w.controllers.kubelet.breakImage('broken:1', true);
    createPod(w, ['broken:1']);
    await w.clock.advance(30_000);

    // Act
    w.controllers.kubelet.breakImage('broken:1', false);
    await w.clock.advance(5 * 60_000);

    // Assert
    expect(w.status()).toBe('Running');
    expect(initStatuses(w.pod())[0]?.state['terminated']?.exitCode).toBe(0);
  });

  it('a pod without init containers reports none and is Initialized at once', async () => {
    // Arrange
    const w = world();
    createPod(w, []);

    // Act
    await w.clock.advance(10_000);

    // Assert
    expect(w.pod().status?.initContainerStatuses).toBeUndefined();
    expect(conditionOf(w.pod(), 'Initialized')?.status).toBe('True');
    expect(w.status()).toBe('Running');
  });
});
