/**
 * Reading the TiDB servers: only running pods are asked, a TiDB verdict is a view entry, and a
 * failure of our own path is the component's error (the observation itself still succeeds).
 */
import { describe, expect, it } from '@jest/globals';

import type { TidbProbe, TidbStatusPort } from '../../../lib/components/port.js';
import type { KubeObject, ObjectList, OwnedKind } from '../../../lib/kube/port.js';
import { LABEL } from '../../../lib/model/labels.js';
import { NO_OWNED_OBJECTS } from '../../../lib/step/ports.js';
import { LiveObserver } from '../../../lib/wiring/observer.js';
import { readTidbServers } from '../../../lib/wiring/tidb-view.js';
import { FakeKube, fakeClients, tidbCluster } from './runtime-fakes.js';

const pod = (name: string, o: { running?: boolean; deleting?: boolean } = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'demo',
    labels: { [LABEL.instance]: 'basic', [LABEL.managedBy]: 'tidb-operator', [LABEL.component]: 'tidb' },
    ...(o.deleting === true ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  status: o.running === false ? { phase: 'Pending' } : { phase: 'Running', podIP: '10.0.0.9' },
});

/** A status port answering from `verdicts`, remembering whom it was asked about. */
class FakeTidb implements TidbStatusPort {
  readonly asked: string[] = [];
  constructor(private readonly verdicts: Record<string, TidbProbe>) {}
  async getStatus(): Promise<never> {
    throw new Error('not used');
  }
  async probe(podName: string): Promise<TidbProbe> {
    this.asked.push(podName);
    return this.verdicts[podName] ?? { healthy: false, detail: 'no answer' };
  }
  async setLabels(): Promise<void> {}
  async startUpgrade(): Promise<void> {}
  async finishUpgrade(): Promise<void> {}
}

describe('readTidbServers', () => {
  it('asks only running pods that are not being deleted, and keeps each verdict', async () => {
    // Prepare
    const tidb = new FakeTidb({ 'basic-tidb-0': { healthy: true }, 'basic-tidb-1': { healthy: false, detail: 'HTTP 500' } });
    const objects = { ...NO_OWNED_OBJECTS, Pod: [pod('basic-tidb-0'), pod('basic-tidb-1'), pod('basic-tidb-2', { running: false }), pod('basic-tidb-3', { deleting: true })] } as never;
    // Act
    const view = await readTidbServers(objects, tidb);
    // Assess
    expect(tidb.asked.sort()).toEqual(['basic-tidb-0', 'basic-tidb-1']);
    expect(view.servers).toEqual({ 'basic-tidb-0': { healthy: true }, 'basic-tidb-1': { healthy: false, detail: 'HTTP 500' } });
  });
});

class ListingKube extends FakeKube {
  constructor(
    clusters: KubeObject[],
    private readonly objects: KubeObject[],
  ) {
    super(clusters);
  }
  override async listOwned(_namespace?: string, kind?: OwnedKind): Promise<ObjectList> {
    return { items: this.objects.filter((o) => o.kind === kind), resourceVersion: '1' };
  }
}

describe('LiveObserver: TiDB', () => {
  it('a TiDB pod that cannot be reached through our own path is TiDB\'s error, not the step\'s', async () => {
    // Act: the fake clients' TiDB status port always fails to connect.
    const kube = new ListingKube([tidbCluster('basic')], [pod('basic-tidb-0')]);
    const observation = await new LiveObserver(fakeClients(kube)).observe({
      key: 'eks/demo/basic',
      ref: { k8sCluster: 'eks', namespace: 'demo', name: 'basic' },
      fence: 1,
      nowMs: 0,
      signal: new AbortController().signal,
    });
    // Assess
    expect(observation.components.tidb).toEqual(expect.objectContaining({ view: undefined, error: expect.stringContaining('no endpoints available'), errorKind: 'unreachable' }));
    expect(observation.components.tidb.objects.Pod.map((p) => p.metadata?.name)).toEqual(['basic-tidb-0']);
  });
});
