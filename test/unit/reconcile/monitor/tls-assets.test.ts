import { describe, expect, it } from '@jest/globals';

import type { Action, CreateAction, SecretCopyAction } from '../../../../lib/model/action.js';
import type { KubeObject } from '../../../../lib/model/kube.js';
import { planTidbMonitor } from '../../../../lib/reconcile/monitor/recipe.js';
import type { ObservedCluster } from '../../../../lib/reconcile/monitor/snapshot.js';
import { TLS_ASSETS_RESYNC_MS } from '../../../../lib/reconcile/monitor/tls-assets.js';
import { cluster, monitor, observed, snapshot } from './fixtures.js';

const KEYS = ['ca.crt', 'tls.crt', 'tls.key'];
const copyOf = (actions: readonly Action[]) => actions.filter((a): a is SecretCopyAction => a.kind === 'secret.copy');

/** The live objects a first step of `clusters` creates, with every StatefulSet ready. */
function settled(clusters: ObservedCluster[]): Record<string, KubeObject[]> {
  const live: Record<string, KubeObject[]> = {};
  for (const a of planTidbMonitor(snapshot(monitor(), clusters)).actions.filter((x): x is CreateAction => x.kind === 'create')) {
    const status = a.ref.kind === 'StatefulSet' ? { status: { replicas: 1, readyReplicas: 1, observedGeneration: 1 } } : {};
    (live[a.ref.kind] ??= []).push({ ...a.object, metadata: { ...a.object.metadata, resourceVersion: '1', generation: 1 }, ...status });
  }
  return live;
}

describe('TidbMonitor: the TLS assets Secret holds each TLS cluster\'s client certificate, as v1\'s syncAssetSecret', () => {
  it.each([
    { name: 'no TLS cluster: the Secret is kept empty', clusters: [observed(cluster('basic', 'demo'))], sources: [] },
    {
      name: 'one TLS cluster: its client Secret, keys renamed secret_<ns>_<secret>_<key>',
      clusters: [observed(cluster('basic', 'demo', true), 'basic', 'demo', KEYS)],
      sources: [{ namespace: 'demo', name: 'basic-cluster-client-secret', keyPrefix: 'secret_demo_basic-cluster-client-secret_' }],
    },
    {
      name: 'clusters across namespaces: only the TLS ones, each from its own namespace, in spec order',
      clusters: [observed(cluster('a', 'ns1', true), 'a', 'ns1', KEYS), observed(cluster('b', 'ns2'), 'b', 'ns2'), observed(cluster('c', 'ns3', true), 'c', 'ns3', KEYS)],
      sources: [
        { namespace: 'ns1', name: 'a-cluster-client-secret', keyPrefix: 'secret_ns1_a-cluster-client-secret_' },
        { namespace: 'ns3', name: 'c-cluster-client-secret', keyPrefix: 'secret_ns3_c-cluster-client-secret_' },
      ],
    },
  ])('$name', ({ clusters, sources }) => {
    // Act
    const plan = planTidbMonitor(snapshot(monitor(), clusters));

    // Assert: one copy, first of all writes, owned by the monitor.
    const copies = copyOf(plan.actions);
    expect(copies).toHaveLength(1);
    expect(plan.actions[0]).toBe(copies[0]);
    expect(copies[0]?.sources).toEqual(sources);
    expect(copies[0]?.ref).toEqual({ kind: 'Secret', namespace: 'demo', name: 'tidbmonitor-basic-tls-assets' });
    expect(copies[0]?.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'TidbMonitor', name: 'basic', uid: 'tm-uid', controller: true })]);
    expect(copies[0]?.metadata.labels).toMatchObject({ 'app.kubernetes.io/component': 'monitor', 'app.kubernetes.io/instance': 'basic' });
  });

  it('the certificate files prometheus.yml names are the keys the copy writes', () => {
    // Act
    const plan = planTidbMonitor(snapshot(monitor(), [observed(cluster('basic', 'demo', true), 'basic', 'demo', KEYS)]));

    // Assert
    const yml = ((plan.actions.find((a) => a.kind === 'create' && a.ref.kind === 'ConfigMap') as CreateAction).object['data'] as Record<string, string>)['prometheus.yml'] ?? '';
    const prefix = copyOf(plan.actions)[0]?.sources[0]?.keyPrefix ?? 'none';
    for (const key of KEYS) expect(yml).toContain(`/var/lib/cluster-assets-tls/${prefix}${key}`);
  });

  it.each([
    { name: 'a settled monitor of a TLS cluster looks again after the resync period (a rotated certificate is copied)', tls: true, outcome: { kind: 'retry', afterMs: TLS_ASSETS_RESYNC_MS } },
    { name: 'a settled monitor of plain clusters is complete', tls: false, outcome: { kind: 'complete' } },
  ])('$name', ({ tls, outcome }) => {
    // Arrange
    const clusters = [observed(cluster('basic', 'demo', tls), 'basic', 'demo', tls ? KEYS : undefined)];

    // Act
    const plan = planTidbMonitor(snapshot(monitor(), clusters, settled(clusters)));

    // Assert: the copy is planned again (it writes only when the data differ), nothing else is created.
    expect(copyOf(plan.actions)).toHaveLength(1);
    expect(plan.actions.filter((a) => a.kind === 'create')).toEqual([]);
    expect(plan.outcome).toMatchObject(outcome);
  });

  it('a TLS cluster whose client Secret is missing plans no copy and fails, retried', () => {
    // Act
    const plan = planTidbMonitor(snapshot(monitor(), [observed(cluster('basic', 'demo', true))]));

    // Assert
    expect(copyOf(plan.actions)).toEqual([]);
    expect(plan.outcome).toMatchObject({ kind: 'fail', terminal: false });
  });
});
