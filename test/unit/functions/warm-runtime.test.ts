/**
 * What a warm container keeps between invocations: each invocation's ports (`stepPorts`) are new,
 * but the PD cluster ids read before belong to the runtime, so a warm step at rest does not ask PD
 * for its id again — and a second runtime (another simulated world) keeps ids of its own.
 */
import { describe, expect, it } from '@jest/globals';

import type { KubeObject } from '../../../lib/kube/port.js';
import type { PdMembers, PdPort } from '../../../lib/pd/port.js';
import type { ClusterClients, DeadlineClients } from '../../../lib/wiring/clients.js';
import { stepPorts, type Runtime } from '../../../lib/wiring/ports.js';
import { fakeClients, fakeRuntime, tidbCluster } from './runtime-fakes.js';

const REQUEST = { key: 'eks-test/demo/basic', ref: { k8sCluster: 'eks-test', namespace: 'demo', name: 'basic' }, fence: 1, nowMs: 0 };

/** A healthy three-member PD that counts its cluster-id reads; `clusterId` is what it answers. */
function countingPd(clusterId: string): { pd: PdPort; clusterReads: () => number } {
  let reads = 0;
  const members: PdMembers = { members: ['0', '1', '2'].map((i) => ({ name: `basic-pd-${i}`, memberId: `10${i}`, peerUrls: [], clientUrls: [] })) };
  const pd = new Proxy({} as PdPort, {
    get: (_target, name) => {
      if (name === 'getMembers') return async () => members;
      if (name === 'getHealth') return async () => members.members.map((m) => ({ name: m.name, memberId: m.memberId, clientUrls: [], health: true }));
      if (name === 'getCluster') return async () => (reads++, { id: clusterId, maxPeerCount: 3 });
      return async () => Promise.reject(new Error(`PD ${String(name)} is not expected at rest`));
    },
  });
  return { pd, clusterReads: () => reads };
}

/** A PD-only cluster `basic` (its rules read no stores). */
function pdOnlyCluster(): KubeObject {
  const cluster = tidbCluster('basic');
  return { ...cluster, spec: { version: 'v8.5.0', pd: { baseImage: 'pingcap/pd', replicas: 3 } } };
}

/** `runtime` with its component clients' PD replaced by `pd`. */
function withPd(runtime: Runtime, pd: PdPort): Runtime {
  const inner = fakeClients(runtime.clients.kube);
  const clients: ClusterClients = { ...inner, pd: () => pd };
  const deadlineClients: DeadlineClients = { ...clients, withDeadline: () => clients };
  return { ...runtime, clients: deadlineClients };
}

/** One invocation's observation of `basic` (new ports, as each Lambda invocation gets). */
async function observeOnce(runtime: Runtime): Promise<string | undefined> {
  const ports = stepPorts(runtime, runtime.clock.nowMs() + 60_000);
  const observation = await ports.observer.observe({ ...REQUEST, signal: new AbortController().signal });
  expect(observation.components.pd.error).toBeUndefined();
  return (observation.components.pd.view as { clusterId?: string } | undefined)?.clusterId;
}

describe('a warm runtime keeps PD cluster ids across invocations', () => {
  it('the second invocation of one runtime reads the id from its cache, not from PD', async () => {
    // Prepare
    const counting = countingPd('6801');
    const runtime = withPd(fakeRuntime([pdOnlyCluster()]).runtime, counting.pd);

    // Act
    const ids = [await observeOnce(runtime), await observeOnce(runtime)];

    // Assess
    expect(ids).toEqual(['6801', '6801']);
    expect(counting.clusterReads()).toBe(1);
  });

  it('two runtimes with the same member ids keep their own ids (two worlds in one process)', async () => {
    // Prepare
    const [first, second] = [countingPd('6801'), countingPd('9902')];
    const runtimes = [withPd(fakeRuntime([pdOnlyCluster()]).runtime, first.pd), withPd(fakeRuntime([pdOnlyCluster()]).runtime, second.pd)];

    // Act
    const ids = [];
    for (const runtime of [...runtimes, ...runtimes]) ids.push(await observeOnce(runtime));

    // Assess
    expect(ids).toEqual(['6801', '9902', '6801', '9902']);
    expect([first.clusterReads(), second.clusterReads()]).toEqual([1, 1]);
  });
});
