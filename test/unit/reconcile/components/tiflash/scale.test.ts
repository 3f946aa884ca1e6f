import { describe, expect, it } from '@jest/globals';

import type { Action } from '../../../../../lib/model/action.js';
import type { TidbCluster } from '../../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { fail, retry } from '../../../../../lib/reconcile/engine/outcome.js';
import { planMemberScale } from '../../../../../lib/reconcile/member/scale.js';
import { tiflashComponent } from '../../../../../lib/reconcile/components/tiflash/recipe.js';
import { T0, changeStatus, pdViewOf, ruleInputOf, snapshot, testPvc, tidbCluster, withCluster, withOwned, withPd, type Change } from '../../../../support/fixtures.js';
import { pdStore, withStores } from '../../../../support/tikv-rules.js';
import { tiflashPod, tiflashRule, tiflashSetOf, tiflashStore, withTiflash } from '../../../../support/tiflash-rules.js';

const planTiflashScale = tiflashRule(planMemberScale);
const written = (actions: readonly Action[]) => actions.map((a) => ('ref' in a ? `${a.kind} ${a.ref.kind}/${a.ref.name}` : JSON.stringify(a)));
type Stores = NonNullable<NonNullable<TidbCluster['status']>['tiflash']>['stores'];

/** TiFlash 2 → 1: synced, the live set at 2, the given stores and tombstones. */
function scalingIn(o: { stores?: Stores; tombstones?: Stores }): TidbCluster {
  return tidbCluster(
    withTiflash(1),
    changeStatus((s) => ({ ...s, tiflash: { synced: true, phase: 'Scale', stores: o.stores ?? {}, ...(o.tombstones ? { tombstoneStores: o.tombstones } : {}) } })),
  );
}
const store = (ordinal: number, state: string) => ({ [`10${ordinal}`]: tiflashStore(ordinal, state) });
const world = (tc: TidbCluster, pod: ReturnType<typeof tiflashPod>): Change<Snapshot>[] => [
  withCluster(tc),
  withOwned('StatefulSet', tiflashSetOf(tidbCluster(withTiflash(2)), { replicas: 2 })),
  withOwned('Pod', tiflashPod(0, { claims: ['data0-basic-tiflash-0'] }), pod),
  withOwned('PersistentVolumeClaim', testPvc('data0-basic-tiflash-1', 'basic-tiflash-1')),
];
const labelled = (id: string) => (pod: ReturnType<typeof tiflashPod>) => ({ ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata?.labels, 'tidb.pingcap.com/store-id': id } } });
const pod1 = (o: Parameters<typeof tiflashPod>[1] = {}) => tiflashPod(1, { claims: ['data0-basic-tiflash-1'], ...o });

describe('TiFlash scale-in: the store goes to Tombstone before the PVCs are marked (no leader eviction)', () => {
  it.each<{ name: string; tc: TidbCluster; pod: ReturnType<typeof tiflashPod>; actions: string[]; outcome: unknown; nowMs?: number }>([
    {
      name: 'store Up: delete it in PD and wait, replicas stay',
      tc: scalingIn({ stores: store(1, 'Up') }),
      pod: pod1(),
      actions: ['{"kind":"pd.deleteStore","storeId":"101"}'],
      outcome: retry(5_000, 'TiFlash demo/basic-tiflash-1 store 101 is still in cluster, state: Up'),
    },
    {
      name: 'store Offline: no second delete, wait',
      tc: scalingIn({ stores: store(1, 'Offline') }),
      pod: pod1(),
      actions: [],
      outcome: retry(5_000, 'TiFlash demo/basic-tiflash-1 store 101 is still in cluster, state: Offline'),
    },
    {
      name: 'store Tombstone and the pod carries its id: PVCs marked, replicas 1',
      tc: scalingIn({ tombstones: store(1, 'Tombstone') }),
      pod: labelled('101')(pod1()),
      actions: ['patch PersistentVolumeClaim/data0-basic-tiflash-1', 'update StatefulSet/basic-tiflash'],
      outcome: retry(5_000, 'scaling TiFlash in to 1'),
    },
    {
      name: 'a Tombstone of an older store of that pod name is not this pod\'s: a Ready pod without store is an error',
      tc: scalingIn({ tombstones: store(1, 'Tombstone') }),
      pod: labelled('205')(pod1()),
      actions: [],
      outcome: fail('tiflash demo/basic-tiflash-1 no store found in cluster'),
    },
    {
      name: 'no store and the pod never got Ready, created a minute ago: wait out 5 resync periods',
      tc: scalingIn({}),
      pod: pod1({ ready: false, createdAtMs: T0 - 60_000 }),
      actions: [],
      outcome: retry(90_000, 'TiFlash demo/basic-tiflash-1 is not ready, wait for some resync periods to synced its status'),
    },
    {
      name: 'no store and the pod not Ready for longer than 5 resync periods: it never joined, PVCs marked',
      tc: scalingIn({}),
      pod: pod1({ ready: false, createdAtMs: T0 - 3_600_000 }),
      actions: ['patch PersistentVolumeClaim/data0-basic-tiflash-1', 'update StatefulSet/basic-tiflash'],
      outcome: retry(5_000, 'scaling TiFlash in to 1'),
    },
  ])('$name', ({ tc, pod, actions, outcome }) => {
    // Act
    const decision = planTiflashScale(ruleInputOf(snapshot(...world(tc, pod))));
    // Assess
    expect(written(decision.actions)).toEqual(actions);
    expect(decision.outcome).toEqual(outcome);
  });

  it('an Offline store whose learners have not all moved: the wait says how many region replicas are left', () => {
    // Prepare
    const tc = scalingIn({ stores: store(1, 'Offline') });
    const pdView = withStores(pdViewOf([]), { ...pdStore('101', 'Offline', { host: 'basic-tiflash-1.basic-tiflash-peer.demo.svc', labels: { engine: 'tiflash' } }), regionCount: 1234 });
    // Act
    const decision = planTiflashScale(ruleInputOf(snapshot(...world(tc, pod1()), withPd(pdView))));
    // Assess
    expect(decision.actions).toEqual([]);
    expect(decision.outcome).toEqual(retry(5_000, 'TiFlash demo/basic-tiflash-1 store 101 is still in cluster, state: Offline, 1234 regions left'));
  });

  it('a scale-out first deletes the defer-deleting PVCs of the ordinal it adds, then adds it', () => {
    // Prepare
    const tc = tidbCluster(withTiflash(2), changeStatus((s) => ({ ...s, tiflash: { synced: true, phase: 'Scale' } })));
    const marked = testPvc('data0-basic-tiflash-1', 'basic-tiflash-1', { annotations: { 'tidb.pingcap.com/pvc-defer-deleting': '2025-12-31T00:00:00Z' } });
    const base = [withCluster(tc), withOwned('StatefulSet', tiflashSetOf(tidbCluster(withTiflash(1)), { replicas: 1 }))];
    // Act
    const first = planTiflashScale(ruleInputOf(snapshot(...base, withOwned('PersistentVolumeClaim', marked))));
    const then = planTiflashScale(ruleInputOf(snapshot(...base)));
    // Assess
    expect(written(first.actions)).toEqual(['delete PersistentVolumeClaim/data0-basic-tiflash-1']);
    expect(written(then.actions)).toEqual(['update StatefulSet/basic-tiflash']);
  });
});

describe('TiFlash pods carry their store id (so a Tombstone is matched by id, P13)', () => {
  const planStoreIds = tiflashRule((input) => {
    const rule = tiflashComponent.hooks.extra.find((r) => r.name === 'TiflashStoreIds');
    if (!rule) throw new Error('TiFlash declares its store ids');
    return rule.plan(input);
  });
  const host = 'basic-tiflash-1.basic-tiflash-peer.demo.svc';
  const ids = { 'tidb.pingcap.com/store-id': '101', 'tidb.pingcap.com/cluster-id': '6800000000000000001' };
  const recordedStore: Change<Snapshot> = (x) => ({ ...x, state: { ...x.state, storeIds: [{ component: 'tiflash', podName: 'basic-tiflash-1', storeId: '101' }] } });

  it.each<{ name: string; pod: ReturnType<typeof tiflashPod>; stores: ReturnType<typeof pdStore>[]; recorded: boolean; actions: unknown[] }>([
    {
      name: 'a pod whose store PD lists: recorded in the state table, and its store-id and cluster-id labels written',
      pod: pod1(),
      stores: [pdStore('101', 'Up', { host })],
      recorded: false,
      actions: [
        { kind: 'state.putStoreId', record: { component: 'tiflash', podName: 'basic-tiflash-1', storeId: '101' } },
        { kind: 'patch', ref: { kind: 'Pod', namespace: 'demo', name: 'basic-tiflash-1' }, patchType: 'merge', patch: { metadata: { labels: ids } }, resourceVersion: '7' },
      ],
    },
    { name: 'recorded and labelled already: nothing', pod: { ...pod1(), metadata: { ...pod1().metadata, labels: { ...pod1().metadata?.labels, ...ids } } }, stores: [pdStore('101', 'Up', { host })], recorded: true, actions: [] },
    { name: 'a pod with no store yet: nothing', pod: pod1(), stores: [], recorded: false, actions: [] },
  ])('$name', ({ pod, stores, recorded, actions }) => {
    // Prepare
    const tc = tidbCluster(withTiflash(2), changeStatus((s) => ({ ...s, tiflash: { synced: true } })));
    const changes = [withCluster(tc), withOwned('Pod', pod), withPd(withStores(pdViewOf([]), ...stores)), ...(recorded ? [recordedStore] : [])];
    // Act
    const decision = planStoreIds(ruleInputOf(snapshot(...changes)));
    // Assess
    expect(decision.actions).toEqual(actions);
  });
});
