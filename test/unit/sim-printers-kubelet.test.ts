/**
 * The pod printer over the simulated kubelet's own statuses: what `kubectl get pods` shows as a pod
 * is created, starts, crash-loops and is deleted — the columns a user watches on a real node.
 */
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { Kubelet } from '../../lib/sim/kubelet.js';
import { createNodes } from '../../lib/sim/nodes.js';
import { POD_PRINTER } from '../../lib/sim/printers/pod.js';
import { ObjectStore } from '../../lib/sim/store.js';

const NS = 'demo';

function world() {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: NS } });
  createNodes(store, 3);
  const kubelet = new Kubelet(store, { podStartupMs: 5000, runtimes: [] });
  kubelet.start();
  /** READY, STATUS, RESTARTS and AGE of pod `name` now. */
  const printed = (name: string): unknown[] => POD_PRINTER.cells(store.mustGet('Pod', NS, name), clock.nowMs()).slice(1, 5);
  return { clock, store, kubelet, printed };
}

const newPod = (name: string, image: string) => ({ metadata: { name, namespace: NS }, spec: { containers: [{ name: 'main', image }], terminationGracePeriodSeconds: 30 } });

describe('kubectl get pods over the simulated kubelet', () => {
  it('a healthy pod: ContainerCreating, then Running and ready; Terminating once deleted', async () => {
    // Prepare
    const w = world();
    w.store.create('Pod', newPod('p', 'nginx:1.27'));

    // Act
    await w.clock.advance(1000);
    const creating = w.printed('p');
    await w.clock.advance(5000);
    const running = w.printed('p');
    w.store.delete('Pod', NS, 'p', {});
    await w.clock.advance(1);
    const terminating = w.printed('p');

    // Assess
    expect(creating).toEqual(['0/1', 'ContainerCreating', '0', '1s']);
    expect(running).toEqual(['1/1', 'Running', '0', '6s']);
    expect(terminating).toEqual(['0/1', 'Terminating', '0', '6s']);
  });

  it('a broken image: CrashLoopBackOff, its restarts with the time since the last one ended', async () => {
    // Prepare
    const w = world();
    w.kubelet.breakImage('pingcap/pd:v99', true);
    w.store.create('Pod', newPod('p', 'pingcap/pd:v99'));

    // Act: the third restart is at 38 s (back-off 10 s, 20 s); look 5 s after it.
    await w.clock.advance(43_000);

    // Assess
    const [ready, status, restarts, age] = w.printed('p');
    expect([ready, status, age]).toEqual(['0/1', 'CrashLoopBackOff', '43s']);
    // RESTARTS reads the time since the container's last exit (lastState.terminated.finishedAt).
    expect(restarts).toBe('3 (4s ago)');
  });
});
