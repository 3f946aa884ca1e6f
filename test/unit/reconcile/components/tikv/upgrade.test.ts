/**
 * Fixture H — TiKV upgrader (TiDB Operator v1's `pkg/manager/member/tikv_upgrader_test.go`), on the shared walk with
 * TiKV's hooks, plus pain points P1 (a scheduler PD lost is added again), P4 (a single store
 * restarts without eviction) and the leaders-back wait. Stores "1"→tikv-0, "2"→tikv-1, "3"→tikv-2,
 * 10 leaders each, Up; StatefulSet between revisions "1" → "2".
 */
import { describe, expect, it } from '@jest/globals';

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { TidbCluster, TidbClusterStatus } from '../../../../../lib/model/kube.js';
import type { PdStore } from '../../../../../lib/model/pd.js';
import type { Snapshot, TikvLeaderRead } from '../../../../../lib/model/snapshot.js';
import { retry } from '../../../../../lib/reconcile/engine/outcome.js';
import { planMemberUpgrade } from '../../../../../lib/reconcile/member/upgrade.js';
import {
  T0,
  changeStatus,
  pdMemberView,
  pdViewOf,
  snapshot,
  tidbCluster,
  withCluster,
  withOwned,
  withPd,
  type Change,
} from '../../../../support/fixtures.js';
import { tikvPods, tikvRule, tikvSetOf } from '../../../../support/tikv-upgrade.js';

type TikvStatus = NonNullable<TidbClusterStatus['tikv']>;
type StoreRow = { leaderCount?: number; before?: number; state?: string };

const MINUTE = 60_000;
const iso = (ms: number): string => new Date(ms).toISOString();

/** Fixture H's status.tikv: synced, phase Upgrade, stores 1..3 on tikv-0..2 with `stores` overrides. */
function fixtureH(o: { phase?: string; stores?: Record<string, StoreRow>; peerStores?: boolean; replicas?: number } = {}): Change<TidbCluster> {
  const replicas = o.replicas ?? 3;
  const stores = Object.fromEntries(
    Array.from({ length: replicas }, (_, i) => {
      const id = String(i + 1);
      const row = o.stores?.[id] ?? {};
      const store = {
        id,
        podName: `basic-tikv-${i}`,
        ip: `basic-tikv-${i}.basic-tikv-peer.demo.svc`,
        leaderCount: row.leaderCount ?? 10,
        state: row.state ?? 'Up',
        ...(row.before === undefined ? {} : { leaderCountBeforeUpgrade: row.before }),
      };
      return [id, store];
    }),
  );
  const tikv: TikvStatus = {
    phase: o.phase ?? 'Upgrade',
    synced: true,
    bootStrapped: true,
    stores,
    ...(o.peerStores === true ? { peerStores: { '99': { id: '99', podName: 'peer-0', ip: 'peer-0', leaderCount: 1, state: 'Up' } } } : {}),
    statefulSet: { replicas, currentRevision: '1', updateRevision: '2' },
  };
  return changeStatus((s) => ({ ...s, pd: { ...s.pd, phase: 'Normal', synced: true }, tikv }));
}

const annotateTc = (annotations: Record<string, string>): Change<TidbCluster> => (tc) => ({ ...tc, metadata: { ...tc.metadata, annotations } });

const pdStore = (id: string, state: PdStore['state'] = 'Up'): PdStore => ({
  id,
  address: `basic-tikv-${Number(id) - 1}.basic-tikv-peer.demo.svc:20160`,
  state,
  leaderCount: 10,
  regionCount: 30,
  labels: {},
});

/** PD with three healthy members, stores 1..3 (states overridable) and the given evict-leader schedulers. */
const pd = (o: { schedulers?: string[]; states?: Record<string, PdStore['state']> } = {}): Change<Snapshot> =>
  withPd({
    ...pdViewOf([0, 1, 2].map((i) => pdMemberView(`basic-pd-${i}`)), 'basic-pd-0'),
    stores: ['1', '2', '3'].map((id) => pdStore(id, o.states?.[id])),
    schedulers: (o.schedulers ?? []).map((id) => `evict-leader-scheduler-${id}`),
  });

const leaders = (reads: Record<string, TikvLeaderRead>): Change<Snapshot> => (s) => ({ ...s, tikvLeaders: reads });

const upgrade = tikvRule(planMemberUpgrade);

function run(tc: TidbCluster, live: IStatefulSet, ...changes: Change<Snapshot>[]) {
  return upgrade(snapshot(withCluster(tc), withOwned('StatefulSet', live), ...changes));
}

const partitionWrite = (partition: number) =>
  expect.objectContaining({ kind: 'update', object: expect.objectContaining({ spec: expect.objectContaining({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition } } }) }) });

const beginTime = (pod: string, ms: number) => ({ [pod]: { evictLeaderBeginTime: iso(ms) } });
const EVICTING_1 = 'upgradeTiKVPod: evicting leader of pod basic-tikv-1 for tc demo/basic';
const HELD_1 = 'TiKV pod basic-tikv-1 of demo/basic is not restarted for the upgrade while another store is not Up: store 1 (basic-tikv-0) is Down';

type Row = {
  name: string;
  tc: TidbCluster;
  live: (tc: TidbCluster) => IStatefulSet;
  changes: Change<Snapshot>[];
  actions: unknown[];
  outcome: unknown;
  beforeUpgrade?: Record<string, number | undefined>;
};

const mid = (tc: TidbCluster) => tikvSetOf(tc, { partition: 2, currentRevision: '1', updateRevision: '2' });
const start = (tc: TidbCluster) => tikvSetOf(tc, { partition: 3, currentRevision: '1', updateRevision: '2' });

describe('Fixture H — TiKV upgrader (leader eviction around each restart)', () => {
  it.each<Row>([
    {
      name: 'H S96: tikv-2 evicting for 1m and its /metrics shows 0 leaders: partition 2',
      tc: tidbCluster(fixtureH()),
      live: start,
      changes: [tikvPods(['1', '1', '1'], beginTime('basic-tikv-2', T0 - MINUTE)), pd({ schedulers: ['3'] }), leaders({ 'basic-tikv-2': { leaderCount: 0 } })],
      actions: [partitionWrite(2)],
      outcome: retry(5_000, 'upgrading TiKV: partition 2'),
    },
    {
      name: 'H S97: tikv-2 updated and Up, tikv-1 evicted to 0 leaders: partition 1',
      tc: tidbCluster(fixtureH()),
      live: mid,
      changes: [tikvPods(['1', '1', '2'], beginTime('basic-tikv-1', T0 - MINUTE)), pd({ schedulers: ['2'] }), leaders({ 'basic-tikv-1': { leaderCount: 0 } })],
      actions: [partitionWrite(1)],
      outcome: retry(5_000, 'upgrading TiKV: partition 1'),
    },
    {
      name: 'H S104 (beyond v1, where it needs tikv-check-all-stores-up-before-upgrade: "true"): another store Down holds the restart by default: a Warning once, no eviction',
      tc: tidbCluster(fixtureH({ stores: { '1': { state: 'Down' } } })),
      live: mid,
      changes: [tikvPods(['1', '1', '2']), pd({ states: { '1': 'Down' } })],
      actions: [expect.objectContaining({ kind: 'event', type: 'Warning', reason: 'UpgradeWaitsForStore', message: HELD_1, once: true })],
      outcome: retry(5_000, HELD_1),
    },
    {
      name: 'H S105: with tikv-check-all-stores-up-before-upgrade: "false", a store Down still begins eviction (v1\'s default): count recorded, scheduler added, pod annotated',
      tc: tidbCluster(fixtureH({ stores: { '1': { state: 'Down' } } }), annotateTc({ 'tidb.pingcap.com/tikv-check-all-stores-up-before-upgrade': 'false' })),
      live: mid,
      changes: [tikvPods(['1', '1', '2']), pd({ states: { '1': 'Down' } })],
      actions: [
        { kind: 'pd.beginEvictLeader', storeId: '2' },
        expect.objectContaining({ kind: 'patch', ref: { kind: 'Pod', namespace: 'demo', name: 'basic-tikv-1' }, patch: { metadata: { annotations: { evictLeaderBeginTime: iso(T0) } } } }),
      ],
      outcome: retry(0, EVICTING_1),
      beforeUpgrade: { '2': 10 },
    },
    {
      name: 'H S105a: a Down store already failed over holds nothing: its replacement carries its replicas; eviction begins',
      tc: tidbCluster(fixtureH({ stores: { '1': { state: 'Down' } } }), changeStatus((s) => ({ ...s, tikv: { ...s.tikv, failureStores: { 'basic-tikv-0': { podName: 'basic-tikv-0', storeID: '1' } } } }))),
      live: mid,
      changes: [tikvPods(['1', '1', '2']), pd({ states: { '1': 'Down' } })],
      actions: [{ kind: 'pd.beginEvictLeader', storeId: '2' }, expect.objectContaining({ kind: 'patch', ref: { kind: 'Pod', namespace: 'demo', name: 'basic-tikv-1' } })],
      outcome: retry(0, EVICTING_1),
      beforeUpgrade: { '2': 10 },
    },
    {
      name: 'H S105b (beyond v1): tikv-1 down already (not Ready, store Disconnected) restarts at once: no eviction, no scheduler, even with another store Down',
      tc: tidbCluster(fixtureH({ stores: { '1': { state: 'Down' }, '2': { state: 'Disconnected' } } })),
      live: mid,
      changes: [tikvPods(['1', '1', '2'], {}, [1]), pd({ states: { '1': 'Down', '2': 'Disconnected' } })],
      actions: [partitionWrite(1)],
      outcome: retry(5_000, 'upgrading TiKV: partition 1'),
    },
    {
      name: 'H S105c: tikv-1 not Ready but its store still Up is evicted as usual (it may hold leaders)',
      tc: tidbCluster(fixtureH()),
      live: mid,
      changes: [tikvPods(['1', '1', '2'], {}, [1]), pd()],
      actions: [{ kind: 'pd.beginEvictLeader', storeId: '2' }, expect.objectContaining({ kind: 'patch', ref: { kind: 'Pod', namespace: 'demo', name: 'basic-tikv-1' } })],
      outcome: retry(0, EVICTING_1),
      beforeUpgrade: { '2': 10 },
    },
    {
      name: 'H S106: tikv-1 evicting since now with 10 leaders: poll, partition stays',
      tc: tidbCluster(fixtureH()),
      live: mid,
      changes: [tikvPods(['1', '1', '2'], beginTime('basic-tikv-1', T0)), pd({ schedulers: ['2'] }), leaders({ 'basic-tikv-1': { leaderCount: 10 } })],
      actions: [],
      outcome: retry(5_000, `${EVICTING_1}: 10 leaders left`),
    },
    {
      name: 'H S107: the leader count cannot be read: poll, partition stays',
      tc: tidbCluster(fixtureH()),
      live: mid,
      changes: [tikvPods(['1', '1', '2'], beginTime('basic-tikv-1', T0)), pd({ schedulers: ['2'] }), leaders({ 'basic-tikv-1': { error: 'HTTP 503' } })],
      actions: [],
      outcome: retry(5_000, `${EVICTING_1}: leader count unknown (HTTP 503)`),
    },
    {
      name: 'H S109: evicting since 2000m (past the 1500m evictLeaderTimeout) with leaders left: partition 1',
      tc: tidbCluster(fixtureH()),
      live: mid,
      changes: [tikvPods(['1', '1', '2'], beginTime('basic-tikv-1', T0 - 2000 * MINUTE)), pd({ schedulers: ['2'] }), leaders({ 'basic-tikv-1': { leaderCount: 10 } })],
      actions: [partitionWrite(1)],
      outcome: retry(5_000, 'upgrading TiKV: partition 1'),
    },
    {
      name: 'H S110 / P4: a single store and no peer store restarts without eviction: partition 0',
      tc: tidbCluster(fixtureH({ replicas: 1 }), (tc) => ({ ...tc, spec: { ...tc.spec, tikv: { ...tc.spec.tikv, replicas: 1 } } })),
      live: (tc) => tikvSetOf(tc, { replicas: 1, partition: 1, currentRevision: '1', updateRevision: '2' }),
      changes: [tikvPods(['1']), pd()],
      actions: [partitionWrite(0)],
      outcome: retry(5_000, 'upgrading TiKV: partition 0'),
    },
    {
      name: 'H S117: tikv-2 has 1000 of 2000 leaders back and its wait has just begun: hold on tikv-2',
      tc: tidbCluster(fixtureH({ stores: { '3': { leaderCount: 1000, before: 2000 } } })),
      live: mid,
      changes: [tikvPods(['1', '1', '2']), pd()],
      actions: [],
      outcome: retry(5_000, 'waiting to end evict leader of pod basic-tikv-2 for tc demo/basic: 1000 of 2000 leaders back'),
    },
    {
      name: 'H S118: the 400 s leaders-back wait of tikv-2 is over; tikv-1 evicted: partition 1',
      tc: tidbCluster(fixtureH({ stores: { '3': { leaderCount: 1000, before: 2000 } } })),
      live: mid,
      changes: [
        tikvPods(['1', '1', '2'], { ...beginTime('basic-tikv-1', T0 - MINUTE), 'basic-tikv-2': { 'tidb.pingcap.com/tikv-evict-leader-end-at': iso(T0 - 401_000) } }),
        pd({ schedulers: ['2'] }),
        leaders({ 'basic-tikv-1': { leaderCount: 0 } }),
      ],
      actions: [partitionWrite(1)],
      outcome: retry(5_000, 'upgrading TiKV: partition 1'),
    },
    {
      name: 'H S119: 1500 of 2000 leaders back (at least 2/3): partition 1',
      tc: tidbCluster(fixtureH({ stores: { '3': { leaderCount: 1500, before: 2000 } } })),
      live: mid,
      changes: [tikvPods(['1', '1', '2'], beginTime('basic-tikv-1', T0 - MINUTE)), pd({ schedulers: ['2'] }), leaders({ 'basic-tikv-1': { leaderCount: 0 } })],
      actions: [partitionWrite(1)],
      outcome: retry(5_000, 'upgrading TiKV: partition 1'),
    },
    {
      name: 'H S120: fewer than 200 leaders before the upgrade are not waited for: partition 1',
      tc: tidbCluster(fixtureH({ stores: { '3': { leaderCount: 10, before: 100 } } })),
      live: mid,
      changes: [tikvPods(['1', '1', '2'], beginTime('basic-tikv-1', T0 - MINUTE)), pd({ schedulers: ['2'] }), leaders({ 'basic-tikv-1': { leaderCount: 0 } })],
      actions: [partitionWrite(1)],
      outcome: retry(5_000, 'upgrading TiKV: partition 1'),
    },
    {
      name: 'P1: tikv-1 is annotated but PD lost its scheduler: it is added again at once, the annotation kept',
      tc: tidbCluster(fixtureH()),
      live: mid,
      changes: [tikvPods(['1', '1', '2'], beginTime('basic-tikv-1', T0 - 11 * MINUTE)), pd(), leaders({ 'basic-tikv-1': { leaderCount: 10 } })],
      actions: [{ kind: 'pd.beginEvictLeader', storeId: '2' }],
      outcome: retry(0, `${EVICTING_1}: PD lost evict-leader-scheduler-2, adding it again`),
    },
    {
      name: 'P3: tikv-2 restarted but its store is not Up again: hold on tikv-2, nothing evicted next',
      tc: tidbCluster(fixtureH({ stores: { '3': { state: 'Disconnected' } } })),
      live: mid,
      changes: [tikvPods(['1', '1', '2']), pd({ schedulers: ['3'], states: { '3': 'Disconnected' } })],
      actions: [],
      outcome: retry(5_000, "tidbcluster: [demo/basic]'s upgraded tikv pod: [basic-tikv-2] is not all ready"),
    },
  ])('$name', ({ tc, live, changes, actions, outcome, beforeUpgrade }) => {
    // Act
    const decision = run(tc, live(tc), ...changes);
    // Assess
    expect(decision.actions).toEqual(actions);
    expect(decision.outcome).toEqual(outcome);
    for (const [id, count] of Object.entries(beforeUpgrade ?? {})) expect(decision.status?.tikv?.stores?.[id]?.leaderCountBeforeUpgrade).toBe(count);
  });
});
