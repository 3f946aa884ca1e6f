/**
 * A TidbCluster without PD that names another in `spec.cluster` (TiDB Operator's heterogeneous
 * clusters) is observed through that cluster's PD, and its PD calls go there too.
 */
import { describe, expect, it } from '@jest/globals';

import type { KubeObject } from '../../../lib/kube/port.js';
import type { PdPort } from '../../../lib/pd/port.js';
import { TransientError } from '../../../lib/platform/errors.js';
import type { ClusterClients, ClusterTarget } from '../../../lib/wiring/clients.js';
import { LiveExecutor } from '../../../lib/wiring/executor.js';
import { ObservedIndex } from '../../../lib/wiring/observed.js';
import { LiveObserver } from '../../../lib/wiring/observer.js';
import { pdTargetOf } from '../../../lib/wiring/pd-target.js';
import { FakeKube } from './runtime-fakes.js';

const REF = { k8sCluster: 'eks', namespace: 'demo', name: 'hetero' };
const REQUEST = { key: 'eks/demo/hetero', ref: REF, fence: 1, nowMs: 0 };

function cluster(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', metadata: { name: 'hetero', namespace: 'demo', uid: 'uid-hetero', resourceVersion: '1' }, spec: { version: 'v8.5.0', ...spec } } as KubeObject;
}

/** Clients that record which PD each call was meant for (every call fails, as an unreachable PD). */
function recordingClients(kube: FakeKube): { clients: ClusterClients; targets: string[] } {
  const targets: string[] = [];
  const pd = (target: ClusterTarget): PdPort =>
    new Proxy({} as PdPort, {
      get: () => async () => {
        targets.push(`${target.namespace}/${target.tcName}`);
        throw new TransientError('PD unreachable');
      },
    });
  const unreachable = <T extends object>(): T =>
    new Proxy({} as T, {
      get: () => async () => {
        throw new TransientError('unreachable');
      },
    });
  return { clients: { kube, pd, tikv: unreachable, tidb: unreachable, ticdc: unreachable, pump: unreachable, tiflash: unreachable, tiproxy: unreachable }, targets };
}

describe('a cluster on another cluster\'s PD', () => {
  it.each([
    { name: 'its own PD when it has one', spec: { pd: { replicas: 3 }, cluster: { name: 'main' } }, want: 'demo/hetero' },
    { name: 'the named cluster\'s PD, in its own namespace by default', spec: { cluster: { name: 'main' }, tikv: { replicas: 1 } }, want: 'demo/main' },
    { name: 'the named cluster\'s PD in the namespace it names', spec: { cluster: { name: 'main', namespace: 'tidb' }, tikv: { replicas: 1 } }, want: 'tidb/main' },
  ])('is observed through $name', async ({ spec, want }) => {
    // Prepare
    const kube = new FakeKube([cluster(spec)]);
    const { clients, targets } = recordingClients(kube);
    // Act
    const observation = await new LiveObserver(clients).observe({ ...REQUEST, signal: new AbortController().signal });
    // Assess
    expect(new Set(targets)).toEqual(new Set([want]));
    expect(observation.components.pd.error).toContain('PD unreachable');
  });

  it('a cluster with neither PD nor a reference reads no PD', async () => {
    const kube = new FakeKube([cluster({ tikv: { replicas: 1 } })]);
    const { clients, targets } = recordingClients(kube);
    const observation = await new LiveObserver(clients).observe({ ...REQUEST, signal: new AbortController().signal });
    expect(targets).toEqual([]);
    expect(observation.components.pd.error).toBeUndefined();
  });

  it('its PD calls go to the PD it was observed through', async () => {
    // Prepare: one observation records where its PD is, for the step's fence
    const kube = new FakeKube([cluster({ cluster: { name: 'main' }, tikv: { replicas: 1 } })]);
    const { clients, targets } = recordingClients(kube);
    const index = new ObservedIndex();
    await new LiveObserver(clients, index).observe({ ...REQUEST, signal: new AbortController().signal });
    targets.length = 0;
    // Act
    const sent = new LiveExecutor(clients, index).execute({ key: REQUEST.key, ref: REF, fence: 1, action: { kind: 'pd.deleteStore', id: '7' }, signal: new AbortController().signal } as never);
    // Assess
    await expect(sent).rejects.toThrow('PD unreachable');
    expect(targets).toEqual(['demo/main']);
  });

  it('pdTargetOf keeps the TLS of the cluster itself', () => {
    const tc = cluster({ cluster: { name: 'main' } }) as never;
    expect(pdTargetOf(tc, { namespace: 'demo', tcName: 'hetero', tls: true })).toEqual({ namespace: 'demo', tcName: 'main', tls: true });
  });
});
