import { describe, expect, it } from '@jest/globals';

import type { Action, DeadlineSpec } from '../../../../lib/model/action.js';
import type { TidbCluster, TidbClusterStatus } from '../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../lib/model/snapshot.js';
import { toKubeTime } from '../../../../lib/reconcile/cluster/condition.js';
import { complete, fail, retry } from '../../../../lib/reconcile/engine/outcome.js';
import { planTikvFailover } from '../../../support/store-rules.js';
import {
  T0,
  pdMemberView,
  pdViewOf,
  ruleInputOf,
  snapshot,
  testPod,
  testPvc,
  tidbCluster,
  withCluster,
  withConfig,
  withDeadlines,
  withOwned,
  withPd,
  type Change,
} from '../../../support/fixtures.js';

type TikvStatus = NonNullable<TidbClusterStatus['tikv']>;
type Store = NonNullable<TikvStatus['stores']>[string];
type FailureStores = NonNullable<TikvStatus['failureStores']>;

const MIN = 60_000;
const PERIOD_MS = 60 * MIN;
const CLUSTER = { kind: 'TidbCluster', namespace: 'demo', name: 'basic' } as const;
/** The Warning marking a store's pod a failure, reported once (the executor skips it while a recent Event has it). */
const unhealthy = (pod: number, id: string): Action => ({
  kind: 'event',
  type: 'Warning',
  reason: 'Unhealthy',
  message: `tikv pod[basic-tikv-${pod}] is unhealthy, msg:store[${id}] is Down`,
  object: CLUSTER,
  once: true,
});

/** Store `id` of pod basic-tikv-`pod`: Up, or Down since `downSinceMs` (null: no transition time). */
function store(id: string, pod: number, downSinceMs?: number | null): Store {
  const base = { id, podName: `basic-tikv-${pod}`, ip: `10.0.1.${pod}`, leaderCount: 0 };
  if (downSinceMs === undefined) return { ...base, state: 'Up', lastTransitionTime: toKubeTime(T0 - 120 * MIN) };
  return { ...base, state: 'Down', ...(downSinceMs === null ? {} : { lastTransitionTime: toKubeTime(downSinceMs) }) };
}
const recorded = (id: string, pod: number) => ({ [id]: { podName: `basic-tikv-${pod}`, storeID: id, pvcUIDSet: {}, createdAt: toKubeTime(T0 - 10 * MIN) } });

/**
 * Fixture F: `spec.tikv.replicas` 6, `maxFailoverCount` 3 (unless given), synced; the StatefulSet
 * has every pod started (6 + failure stores); stores as given, the rest of the 6 Up.
 */
function fixtureF(o: { stores: Store[]; failures?: FailureStores; uid?: string; max?: number; synced?: boolean }): TidbCluster {
  const failures = o.failures ?? {};
  const listed = new Set(o.stores.map((s) => s.podName));
  const others = [0, 1, 2, 3, 4, 5].filter((i) => !listed.has(`basic-tikv-${i}`)).map((i) => store(String(100 + i), i));
  const stores = Object.fromEntries([...o.stores, ...others].map((s) => [s.id, s]));
  const replicas = 6 + Object.keys(failures).length;
  const tikv: TikvStatus = {
    synced: o.synced ?? true,
    phase: 'Normal',
    statefulSet: { replicas, readyReplicas: replicas - 1, currentRevision: 'rev-1', updateRevision: 'rev-1' },
    stores,
    ...(Object.keys(failures).length > 0 ? { failureStores: failures } : {}),
    ...(o.uid === undefined ? {} : { failoverUID: o.uid }),
  };
  return tidbCluster(
    (tc) => ({ ...tc, spec: { ...tc.spec, tikv: { ...tc.spec.tikv, replicas: 6, maxFailoverCount: o.max ?? 3 } } }),
    (tc) => ({ ...tc, status: { ...tc.status, tikv } }),
  );
}

const healthyPd = withPd(pdViewOf([0, 1, 2].map((i) => pdMemberView(`basic-pd-${i}`)), 'basic-pd-0'));
const failover = (tc: TidbCluster, ...changes: Change<Snapshot>[]) =>
  planTikvFailover(ruleInputOf(snapshot(withCluster(tc), withConfig({ failoverPeriodMs: { ...snapshot().config.failoverPeriodMs, tikv: PERIOD_MS } }), healthyPd, ...changes)));
const tikvOf = (status: TidbClusterStatus | undefined): TikvStatus => status?.tikv ?? {};
const deadline = (pod: number, sinceMs: number): DeadlineSpec => ({ component: 'tikv', member: `basic-tikv-${pod}`, kind: 'failover', sinceMs, deadlineAtMs: sinceMs + PERIOD_MS });
const put = (d: DeadlineSpec): Action => ({ kind: 'state.putDeadline', deadline: d });

type Row = { name: string; tc: TidbCluster; failureStores: string[]; uid: 'set' | 'empty' | string; events: Action[] };

describe('Fixture F — store failover: marking Down stores past the period', () => {
  it.each<Row>([
    {
      name: 'F S62: stores 1 (Down −70m) and 2 (Down −61m): both recorded in one step, failoverUID set',
      tc: fixtureF({ stores: [store('1', 1, T0 - 70 * MIN), store('2', 2, T0 - 61 * MIN)] }),
      failureStores: ['1', '2'],
      uid: 'set',
      events: [unhealthy(1, '1'), unhealthy(2, '2')],
    },
    { name: 'F S63: store 1 Up: nothing', tc: fixtureF({ stores: [store('1', 1)] }), failureStores: [], uid: 'empty', events: [] },
    { name: 'F S64: store Down for 30m of a 1h period: nothing yet', tc: fixtureF({ stores: [store('1', 1, T0 - 30 * MIN)] }), failureStores: [], uid: 'empty', events: [] },
    { name: 'F S65: store Down with no transition time: skipped', tc: fixtureF({ stores: [store('1', 1, null)] }), failureStores: [], uid: 'empty', events: [] },
    {
      name: 'F S66: store 1 Down −70m already recorded (same pod): not recorded twice, failoverUID set',
      tc: fixtureF({ stores: [store('1', 1, T0 - 70 * MIN)], failures: recorded('1', 1) }),
      failureStores: ['1'],
      uid: 'set',
      events: [],
    },
    {
      name: 'F S67: 2 recorded + store 3 (pod 0) Down −70m: 3 failure stores',
      tc: fixtureF({ stores: [store('3', 0, T0 - 70 * MIN)], failures: { ...recorded('1', 1), ...recorded('2', 2) }, uid: 'uid-0' }),
      failureStores: ['1', '2', '3'],
      uid: 'uid-0',
      events: [unhealthy(0, '3')],
    },
    {
      name: 'F S68: 2 recorded + stores 3, 4 Down −70m: the limit (3) admits one',
      tc: fixtureF({ stores: [store('3', 0, T0 - 70 * MIN), store('4', 3, T0 - 70 * MIN)], failures: { ...recorded('1', 1), ...recorded('2', 2) }, uid: 'uid-0' }),
      failureStores: ['1', '2', '3'],
      uid: 'uid-0',
      events: [unhealthy(0, '3')],
    },
    {
      name: 'F S69: 3 recorded + 3 Down: stays 3, failoverUID set before the limit check',
      tc: fixtureF({
        stores: [store('3', 0, T0 - 70 * MIN), store('4', 3, T0 - 70 * MIN), store('5', 4, T0 - 70 * MIN)],
        failures: { ...recorded('1', 1), ...recorded('2', 2), ...recorded('6', 5) },
      }),
      failureStores: ['1', '2', '6'],
      uid: 'set',
      events: [],
    },
    {
      name: 'F S70: as S69 with maxFailoverCount 0: stays 3, failoverUID empty',
      tc: fixtureF({
        stores: [store('3', 0, T0 - 70 * MIN), store('4', 3, T0 - 70 * MIN), store('5', 4, T0 - 70 * MIN)],
        failures: { ...recorded('1', 1), ...recorded('2', 2), ...recorded('6', 5) },
        max: 0,
      }),
      failureStores: ['1', '2', '6'],
      uid: 'empty',
      events: [],
    },
    {
      name: 'F S71: failoverUID preset, 2 Down stores: both recorded, UID unchanged',
      tc: fixtureF({ stores: [store('1', 1, T0 - 70 * MIN), store('2', 2, T0 - 61 * MIN)], uid: 'failover-uid-test' }),
      failureStores: ['1', '2'],
      uid: 'failover-uid-test',
      events: [unhealthy(1, '1'), unhealthy(2, '2')],
    },
  ])('$name', ({ tc, failureStores, uid, events }) => {
    // Act
    const decision = failover(tc);

    // Assess
    const tikv = tikvOf(decision.status ?? tc.status);
    expect(Object.keys(tikv.failureStores ?? {}).sort()).toEqual(failureStores);
    if (uid === 'set') expect(tikv.failoverUID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    else if (uid === 'empty') expect(tikv.failoverUID ?? '').toBe('');
    else expect(tikv.failoverUID).toBe(uid);
    expect(decision.actions.filter((a) => a.kind === 'event')).toEqual(events);
  });

  it('records the pod, store id, the pod\'s PVC uids and when', () => {
    // Prepare
    const tc = fixtureF({ stores: [store('1', 1, T0 - 70 * MIN)] });
    const pvc = { ...testPvc('tikv-basic-tikv-1', 'basic-tikv-1', { uid: 'pvc-uid-1' }) };

    // Act
    const decision = failover(tc, withOwned('PersistentVolumeClaim', pvc));

    // Assess
    expect(tikvOf(decision.status).failureStores?.['1']).toEqual({ podName: 'basic-tikv-1', storeID: '1', pvcUIDSet: { 'pvc-uid-1': {} }, createdAt: toKubeTime(T0) });
    expect(decision.outcome).toEqual(retry(1_000, 'marking 1 TiKV store(s) as failure'));
    expect(decision.stop).toBe(true);
  });

  it('the failover UID is the same for the same step (a replayed step writes the same status)', () => {
    // Prepare
    const tc = fixtureF({ stores: [store('1', 1, T0 - 70 * MIN)] });

    // Act
    const [a, b] = [failover(tc), failover(tc)];

    // Assess
    expect(tikvOf(a.status).failoverUID).toBe(tikvOf(b.status).failoverUID);
  });
});

describe('store failover deadlines: persisted, woken at, deleted once nothing waits', () => {
  it('a store Down within the period has its deadline persisted and the key woken at it', () => {
    // Act
    const decision = failover(fixtureF({ stores: [store('1', 1, T0 - 30 * MIN)] }));

    // Assess
    expect(decision.actions).toEqual([put(deadline(1, T0 - 30 * MIN))]);
    expect(decision.wakeAtMs).toBe(T0 + 30 * MIN);
    expect(decision.status).toBeUndefined();
  });

  it('a deadline already persisted is not written again', () => {
    // Act
    const decision = failover(fixtureF({ stores: [store('1', 1, T0 - 30 * MIN)] }), withDeadlines(deadline(1, T0 - 30 * MIN)));

    // Assess
    expect(decision.actions).toEqual([]);
    expect(decision.wakeAtMs).toBe(T0 + 30 * MIN);
  });

  it('the deadline of a store Up again is deleted', () => {
    // Act
    const decision = failover(fixtureF({ stores: [store('1', 1), store('2', 2, T0 - 1 * MIN)] }), withDeadlines(deadline(1, T0 - 30 * MIN)));

    // Assess
    expect(decision.actions).toEqual([{ kind: 'state.deleteDeadline', deadline: { component: 'tikv', member: 'basic-tikv-1', kind: 'failover' } }, put(deadline(2, T0 - 1 * MIN))]);
  });

  it('a Disconnected store wakes the key when PD will call it Down (last heartbeat + max-store-down-time, from PD)', () => {
    // Prepare
    const disconnected = { ...store('1', 1), state: 'Disconnected' };
    const view = pdViewOf([0, 1, 2].map((i) => pdMemberView(`basic-pd-${i}`)), 'basic-pd-0');
    const pd = withPd({
      ...view,
      stores: [{ id: '1', address: 'basic-tikv-1.basic-tikv-peer.demo.svc:20160', state: 'Disconnected', leaderCount: 0, regionCount: 3, labels: {}, lastHeartbeatAtMs: T0 - 40_000 }],
      config: { replication: { maxReplicas: 3, locationLabels: [] }, ...view.config, schedule: { maxStoreDownTimeMs: 2 * MIN } },
    });

    // Act
    const decision = failover(fixtureF({ stores: [disconnected] }), pd);

    // Assess
    expect(decision.wakeAtMs).toBe(T0 - 40_000 + 2 * MIN + 1_000);
    expect(decision.actions).toEqual([]);
    expect(decision.status).toBeUndefined();
  });

  it('every store still Up but one pod not Ready: the key is woken when PD will call that store Down', () => {
    // Prepare: all six stores Up (all stores ready: failover proper does not run), basic-tikv-1 not Ready
    const view = pdViewOf([0, 1, 2].map((i) => pdMemberView(`basic-pd-${i}`)), 'basic-pd-0');
    const pd = withPd({
      ...view,
      stores: [{ id: '1', address: 'basic-tikv-1.basic-tikv-peer.demo.svc:20160', state: 'Up', leaderCount: 0, regionCount: 3, labels: {}, lastHeartbeatAtMs: T0 - 5_000 }],
      config: { replication: { maxReplicas: 3, locationLabels: [] }, ...view.config, schedule: { maxStoreDownTimeMs: 2 * MIN } },
    });
    const pods = withOwned('Pod', ...[0, 1, 2, 3, 4, 5].map((i) => testPod(`basic-tikv-${i}`, { component: 'tikv', ready: i !== 1 })));

    // Act
    const decision = failover(fixtureF({ stores: [store('1', 1)] }), pd, pods);

    // Assess
    expect(decision.wakeAtMs).toBe(T0 - 5_000 + 2 * MIN + 1_000);
    expect(decision.status).toBeUndefined();
  });

  it('a Disconnected store gives no wake-up when PD did not report max-store-down-time', () => {
    // Act
    const decision = failover(fixtureF({ stores: [{ ...store('1', 1), state: 'Disconnected' }] }));

    // Assess
    expect(decision.wakeAtMs).toBeUndefined();
  });

  it('a store of an ordinal no longer desired (scaled in) gets no deadline', () => {
    // Prepare
    const tc = fixtureF({ stores: [store('9', 7, T0 - 70 * MIN)] });

    // Act
    const decision = failover(tc);

    // Assess
    expect(decision.actions).toEqual([]);
    expect(decision.status).toBeUndefined();
  });
});

describe('store failover never acts without PD vouching for the stores (P9)', () => {
  const due = fixtureF({ stores: [store('1', 1, T0 - 70 * MIN)] });
  it.each([
    { name: 'PD unreadable', changes: [withPd(undefined, 'connect ECONNREFUSED')], why: 'PD could not be read (connect ECONNREFUSED)' },
    { name: 'PD without a leader', changes: [withPd(pdViewOf([0, 1, 2].map((i) => pdMemberView(`basic-pd-${i}`))))], why: 'PD has no leader' },
    {
      name: 'PD with 1 of 3 members healthy',
      changes: [withPd(pdViewOf([0, 1, 2].map((i) => pdMemberView(`basic-pd-${i}`, { health: i === 0 })), 'basic-pd-0'))],
      why: 'PD has no quorum: 1/3 members healthy',
    },
  ])('$name: a due store is not marked, the rule holds', ({ changes, why }) => {
    // Act
    const decision = failover(due, ...changes);

    // Assess
    expect(decision.status).toBeUndefined();
    expect(decision.actions.filter((a) => a.kind === 'event')).toEqual([]);
    expect(decision.outcome).toEqual(fail(`TiKV failover held: ${why}`));
  });

  it('status not synced from PD: held', () => {
    // Act
    const decision = failover(fixtureF({ stores: [store('1', 1, T0 - 70 * MIN)], synced: false }));

    // Assess
    expect(decision.status).toBeUndefined();
    expect(decision.outcome).toEqual(fail('TiKV failover held: status.tikv.synced is not true'));
  });

  it('without autoFailover nothing is marked and deadlines are dropped', () => {
    // Act
    const decision = failover(due, withConfig({ autoFailover: false }), withDeadlines(deadline(1, T0 - 70 * MIN)));

    // Assess
    expect(decision.status).toBeUndefined();
    expect(decision.actions).toEqual([{ kind: 'state.deleteDeadline', deadline: { component: 'tikv', member: 'basic-tikv-1', kind: 'failover' } }]);
    expect(decision.outcome).toEqual(complete());
  });

  it('not every pod started (a replacement being created): no new mark this step', () => {
    // Prepare
    const tc = fixtureF({ stores: [store('1', 1, T0 - 70 * MIN)] });
    const starting: TidbCluster = { ...tc, status: { ...tc.status, tikv: { ...tikvOf(tc.status), statefulSet: { replicas: 5 } } } };

    // Act
    const decision = failover(starting);

    // Assess
    expect(decision.status).toBeUndefined();
  });
});
