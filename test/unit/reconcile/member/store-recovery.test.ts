import { describe, expect, it } from '@jest/globals';

import type { TidbCluster, TidbClusterStatus } from '../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../lib/model/snapshot.js';
import { toKubeTime } from '../../../../lib/reconcile/cluster/condition.js';
import { retry } from '../../../../lib/reconcile/engine/outcome.js';
import { TIKV_STORES } from '../../../../lib/reconcile/member/store-access.js';
import { shouldRecoverStores } from '../../../../lib/reconcile/member/store-failover.js';
import { planTikvRecovery, tikvInputOf } from '../../../support/store-rules.js';
import { T0, ruleInputOf, snapshot, testPod, tidbCluster, withCluster, withOwned, type Change } from '../../../support/fixtures.js';

type TikvStatus = NonNullable<TidbClusterStatus['tikv']>;
type Store = NonNullable<TikvStatus['stores']>[string];

const store = (id: string, pod: number, state = 'Up'): Store => ({ id, podName: `basic-tikv-${pod}`, ip: `10.0.1.${pod}`, leaderCount: 1, state, lastTransitionTime: toKubeTime(T0 - 60_000) });
const failure = (id: string, pod: number) => ({ [id]: { podName: `basic-tikv-${pod}`, storeID: id, pvcUIDSet: {}, createdAt: toKubeTime(T0 - 600_000) } });

/** TiKV with `replicas` in the spec (plus `spec` fields), stores and failure stores as given, UID `uid-1`. */
function cluster(o: { replicas?: number; stores: Store[]; failures: NonNullable<TikvStatus['failureStores']>; spec?: object }): TidbCluster {
  const tikv: TikvStatus = { synced: true, stores: Object.fromEntries(o.stores.map((s) => [s.id, s])), failureStores: o.failures, failoverUID: 'uid-1' };
  return tidbCluster(
    (tc) => ({ ...tc, spec: { ...tc.spec, tikv: { ...tc.spec.tikv, replicas: o.replicas ?? 3, ...o.spec } } }),
    (tc) => ({ ...tc, status: { ...tc.status, tikv } }),
  );
}
const pods = (...ready: boolean[]): Change<Snapshot> =>
  withOwned('Pod', ...ready.map((r, i) => testPod(`basic-tikv-${i}`, { component: 'tikv', ready: r })));
const input = (tc: TidbCluster, ...changes: Change<Snapshot>[]) => ruleInputOf(snapshot(withCluster(tc), ...changes));

describe('shouldRecover for stores: every desired ordinal Ready with an Up store', () => {
  const recovered = [store('1', 0), store('2', 1), store('3', 2), store('4', 3)];
  it.each([
    { name: 'no failure stores: false', tc: cluster({ stores: recovered, failures: {} }), changes: [pods(true, true, true, true)], expected: false },
    { name: 'pods 0–2 Ready with Up stores (the failover pod 3 is not looked at): true', tc: cluster({ stores: recovered, failures: failure('2', 1) }), changes: [pods(true, true, true, false)], expected: true },
    { name: 'pod 1 not Ready: false', tc: cluster({ stores: recovered, failures: failure('2', 1) }), changes: [pods(true, false, true, true)], expected: false },
    { name: 'pod 2 missing: false', tc: cluster({ stores: recovered, failures: failure('2', 1) }), changes: [pods(true, true)], expected: false },
    { name: 'store of pod 1 Down: false', tc: cluster({ stores: [store('1', 0), store('2', 1, 'Down'), store('3', 2), store('4', 3)], failures: failure('2', 1) }), changes: [pods(true, true, true, true)], expected: false },
    { name: 'pod 2 Ready but no store for it: false', tc: cluster({ stores: [store('1', 0), store('2', 1), store('4', 3)], failures: failure('2', 1) }), changes: [pods(true, true, true, true)], expected: false },
    {
      name: 'pod 1 has a new Up store and its old Down one: false (every store of the pod must be Up)',
      tc: cluster({ stores: [...recovered, store('5', 1, 'Down')], failures: failure('5', 1) }),
      changes: [pods(true, true, true, true)],
      expected: false,
    },
  ])('$name', ({ tc, changes, expected }) => {
    // Act / Assess
    expect(shouldRecoverStores(TIKV_STORES, tikvInputOf(input(tc, ...changes)))).toBe(expected);
  });
});

describe('store recovery happens only when asked (P11)', () => {
  const healthyAgain = [store('1', 0), store('2', 1), store('3', 2), store('4', 3)];
  const tikvOf = (status: TidbClusterStatus | undefined): TikvStatus => status?.tikv ?? {};

  it('without recoverFailover or a matching recoverByUID the failure stores stay, though every desired store is Up', () => {
    // Act
    const decision = planTikvRecovery(input(cluster({ stores: healthyAgain, failures: failure('2', 1) }), pods(true, true, true, true)));

    // Assess
    expect(decision.status).toBeUndefined();
    expect(decision.outcome.kind).toBe('complete');
  });

  it.each([
    { name: 'recoverFailover: true', spec: { recoverFailover: true } },
    { name: 'failover.recoverByUID equal to status.tikv.failoverUID', spec: { failover: { recoverByUID: 'uid-1' } } },
  ])('$name and every desired ordinal Ready and Up: failureStores and failoverUID cleared', ({ spec }) => {
    // Act
    const decision = planTikvRecovery(input(cluster({ stores: healthyAgain, failures: failure('2', 1), spec }), pods(true, true, true, true)));

    // Assess
    expect(tikvOf(decision.status).failureStores).toBeUndefined();
    expect(tikvOf(decision.status).failoverUID).toBeUndefined();
    expect(tikvOf(decision.status).stores).toEqual(Object.fromEntries(healthyAgain.map((s) => [s.id, s])));
    expect(decision.outcome).toEqual(retry(5_000, 'TiKV recovered: failure stores cleared'));
    expect(decision.stop).toBe(true);
  });

  it('a recoverByUID of an earlier failover does not recover this one', () => {
    // Act
    const decision = planTikvRecovery(input(cluster({ stores: healthyAgain, failures: failure('2', 1), spec: { failover: { recoverByUID: 'uid-0' } } }), pods(true, true, true, true)));

    // Assess
    expect(decision.status).toBeUndefined();
  });

  it('asked, but a desired store is still Down: nothing yet', () => {
    // Act
    const down = [store('1', 0), store('2', 1, 'Down'), store('3', 2), store('4', 3)];
    const decision = planTikvRecovery(input(cluster({ stores: down, failures: failure('2', 1), spec: { recoverFailover: true } }), pods(true, true, true, true)));

    // Assess
    expect(decision.status).toBeUndefined();
  });

  it('a failure store of an ordinal no longer desired (scaled in below it) is dropped, the others kept', () => {
    // Prepare
    const tc = cluster({ replicas: 2, stores: [store('1', 0), store('2', 1, 'Down'), store('3', 2, 'Down')], failures: { ...failure('2', 1), ...failure('3', 2) } });

    // Act
    const decision = planTikvRecovery(input(tc, pods(true, false, false)));

    // Assess
    expect(Object.keys(tikvOf(decision.status).failureStores ?? {})).toEqual(['2']);
    expect(tikvOf(decision.status).failoverUID).toBe('uid-1');
    expect(decision.stop).toBe(true);
  });
});
