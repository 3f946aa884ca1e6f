import { describe, expect, it } from '@jest/globals';

import type { TidbCluster } from '../../../../../lib/model/kube.js';
import type { PdStore } from '../../../../../lib/model/pd.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { nodeStoreLabels, planTikvStoreLabels } from '../../../../../lib/reconcile/components/tikv/store-labels.js';
import { changeSpec, changeStatus, pdViewOf, ruleInputOf, snapshot, tidbCluster, withCluster, withOwned, withPd, type Change } from '../../../../support/fixtures.js';
import { onNode, pdStore, testNode, tikvInputOf, tikvPod, withNodes, withStores } from '../../../../support/tikv-rules.js';

const bootstrapped = changeStatus((s) => ({ ...s, tikv: { ...s.tikv, bootStrapped: true, synced: true } }));
const storeLabels = (labels: string[]): Change<TidbCluster> => changeSpec((spec) => ({ ...spec, tikv: { replicas: 3, ...spec.tikv, storeLabels: labels } }));
const ZONED = { 'topology.kubernetes.io/zone': 'us-west-2a', 'kubernetes.io/hostname': 'tikv-0', rack: 'r1' };

function world(tc: TidbCluster, locationLabels: string[], stores: PdStore[], ...changes: Change<Snapshot>[]): Snapshot {
  const view = withStores(pdViewOf([]), ...stores);
  const pd = { ...view, config: { replication: { maxReplicas: view.config?.replication.maxReplicas ?? 3, locationLabels } } };
  return snapshot(withCluster(tc), withPd(pd), withOwned('Pod', onNode(tikvPod(0), 'tikv-0'), onNode(tikvPod(1), 'tikv-1')), ...changes);
}

const labelsOf = (s: Snapshot) =>
  planTikvStoreLabels(tikvInputOf(ruleInputOf(s))).actions.map((a) => (a.kind === 'pd.setStoreLabels' ? [a.storeId, a.labels] : [a.kind]));

describe('store labels from node topology (v1 setStoreLabelsForTiKV, §2.2)', () => {
  it.each<{ name: string; s: Snapshot; expected: unknown[] }>([
    {
      name: "PD's location-labels zone and host are read from the node's topology labels and posted",
      s: world(tidbCluster(bootstrapped), ['zone', 'host'], [pdStore('1')], withNodes(testNode('tikv-0', ZONED))),
      expected: [['1', { zone: 'us-west-2a', host: 'tikv-0' }]],
    },
    {
      name: 'spec.tikv.storeLabels add keys read by their own name',
      s: world(tidbCluster(bootstrapped, storeLabels(['rack'])), ['zone'], [pdStore('1')], withNodes(testNode('tikv-0', ZONED))),
      expected: [['1', { zone: 'us-west-2a', rack: 'r1' }]],
    },
    {
      name: 'a store already labelled as its node is left alone (labels PD has beyond the keys do not count)',
      s: world(tidbCluster(bootstrapped), ['zone', 'host'], [pdStore('1', 'Up', { labels: { zone: 'us-west-2a', host: 'tikv-0', disk: 'ssd' } })], withNodes(testNode('tikv-0', ZONED))),
      expected: [],
    },
    {
      name: 'one store differing in one value is posted, another already right is not',
      s: world(
        tidbCluster(bootstrapped),
        ['zone'],
        [pdStore('1', 'Up', { labels: { zone: 'old' } }), pdStore('2', 'Up', { labels: { zone: 'us-west-2b' } })],
        withNodes(testNode('tikv-0', ZONED), testNode('tikv-1', { 'topology.kubernetes.io/zone': 'us-west-2b' })),
      ),
      expected: [['1', { zone: 'us-west-2a' }]],
    },
    { name: 'no label wanted: nothing', s: world(tidbCluster(bootstrapped), [], [pdStore('1')], withNodes(testNode('tikv-0', ZONED))), expected: [] },
    { name: 'not bootstrapped: nothing', s: world(tidbCluster(), ['zone'], [pdStore('1')], withNodes(testNode('tikv-0', ZONED))), expected: [] },
    { name: 'the node has none of the keys: nothing', s: world(tidbCluster(bootstrapped), ['rack'], [pdStore('1')], withNodes(testNode('tikv-0', { other: 'x' }))), expected: [] },
    { name: 'the node was not read: nothing', s: world(tidbCluster(bootstrapped), ['zone'], [pdStore('1')]), expected: [] },
    {
      name: "a Tombstone and another cluster's store are not labelled",
      s: world(tidbCluster(bootstrapped), ['zone'], [pdStore('1', 'Tombstone'), pdStore('7', 'Up', { host: 'basic-tikv-1.other-tikv-peer.demo.svc' })], withNodes(testNode('tikv-0', ZONED), testNode('tikv-1', ZONED))),
      expected: [],
    },
  ])('$name', ({ s, expected }) => {
    // Act / Assess
    expect(labelsOf(s)).toEqual(expected);
  });

  it('a refusal is a Warning FailedSetStoreLabels naming labels, store and pod (the step goes on)', () => {
    // Act
    const [action] = planTikvStoreLabels(tikvInputOf(ruleInputOf(world(tidbCluster(bootstrapped), ['zone', 'host'], [pdStore('1')], withNodes(testNode('tikv-0', ZONED)))))).actions;

    // Assess
    expect(action?.kind === 'pd.setStoreLabels' ? action.onError : undefined).toEqual({
      kind: 'event',
      type: 'Warning',
      reason: 'FailedSetStoreLabels',
      message: 'failed to set labels map[host:tikv-0 zone:us-west-2a] for store (id: 1, pod: demo/basic-tikv-0): ',
      object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' },
    });
  });

  it.each<{ name: string; labels: Record<string, string>; keys: string[]; expected: Record<string, string> }>([
    { name: 'the key itself wins over its Kubernetes label', labels: { zone: 'mine', 'topology.kubernetes.io/zone': 'k8s' }, keys: ['zone'], expected: { zone: 'mine' } },
    { name: 'region from the stable label first', labels: { 'topology.kubernetes.io/region': 'r', 'failure-domain.beta.kubernetes.io/region': 'old' }, keys: ['region'], expected: { region: 'r' } },
    { name: 'zone from the beta label when the stable one is missing', labels: { 'failure-domain.beta.kubernetes.io/zone': 'z' }, keys: ['zone'], expected: { zone: 'z' } },
    { name: 'host from kubernetes.io/hostname', labels: { 'kubernetes.io/hostname': 'n1' }, keys: ['host'], expected: { host: 'n1' } },
    { name: 'a key the node has no value for is left out', labels: {}, keys: ['zone', 'rack'], expected: {} },
  ])('node labels for store label keys: $name', ({ labels, keys, expected }) => {
    // Act / Assess
    expect(nodeStoreLabels(labels, keys)).toEqual(expected);
  });
});
