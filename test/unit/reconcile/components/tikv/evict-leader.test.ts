/**
 * The evict-leader cleanup (P2, P3, P15): a scheduler of one of our stores that no upgrade or
 * scale-in targets is removed; one that is targeted stays — the store being evicted before its
 * restart, the store restarting until it is Up again, a store being scaled in.
 */
import { describe, expect, it } from '@jest/globals';

import type { TidbCluster, TidbClusterStatus } from '../../../../../lib/model/kube.js';
import type { PdStore } from '../../../../../lib/model/pd.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { goDurationMs, planEvictLeaderCleanup } from '../../../../../lib/reconcile/components/tikv/evict-leader.js';
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

const iso = (ms: number): string => new Date(ms).toISOString();
const END_AT = 'tidb.pingcap.com/tikv-evict-leader-end-at';

/** status.tikv with stores 1..3 on tikv-0..2 (state Up unless `states` says), update revision `update`. */
function tikvStatus(o: { phase?: string; update?: string; states?: Record<string, string>; before?: Record<string, number>; leaders?: Record<string, number> } = {}): Change<TidbCluster> {
  const stores = Object.fromEntries(
    ['1', '2', '3'].map((id, i) => [
      id,
      {
        id,
        podName: `basic-tikv-${i}`,
        ip: `basic-tikv-${i}.basic-tikv-peer.demo.svc`,
        leaderCount: o.leaders?.[id] ?? 300,
        state: o.states?.[id] ?? 'Up',
        ...(o.before?.[id] === undefined ? {} : { leaderCountBeforeUpgrade: o.before[id] }),
      },
    ]),
  );
  const tikv: TikvStatus = { phase: o.phase ?? 'Normal', synced: true, stores, statefulSet: { replicas: 3, currentRevision: '1', updateRevision: o.update ?? '1' } };
  return changeStatus((s) => ({ ...s, tikv }));
}

const pdStore = (id: string, state: PdStore['state'], address?: string): PdStore => ({
  id,
  address: address ?? `basic-tikv-${Number(id) - 1}.basic-tikv-peer.demo.svc:20160`,
  state,
  leaderCount: 10,
  regionCount: 30,
  labels: {},
});

const pd = (schedulers: string[], stores: PdStore[] = ['1', '2', '3'].map((id) => pdStore(id, 'Up'))): Change<Snapshot> =>
  withPd({ ...pdViewOf([0, 1, 2].map((i) => pdMemberView(`basic-pd-${i}`)), 'basic-pd-0'), stores, schedulers: schedulers.map((id) => `evict-leader-scheduler-${id}`) });

const cleanup = tikvRule(planEvictLeaderCleanup);

const podPatch = (name: string, annotations: Record<string, string | null>) =>
  expect.objectContaining({ kind: 'patch', ref: { kind: 'Pod', namespace: 'demo', name }, patch: { metadata: { annotations } } });

type Row = { name: string; tc: TidbCluster; changes: Change<Snapshot>[]; actions: unknown[] };

describe('TikvEvictLeaderCleanup', () => {
  it.each<Row>([
    {
      name: 'P2: after the upgrade (every pod updated, phase Normal) a scheduler left behind is removed and its pod gets end-at',
      tc: tidbCluster(tikvStatus()),
      changes: [tikvPods(['1', '1', '1']), pd(['3'])],
      actions: [{ kind: 'pd.endEvictLeader', storeId: '3' }, podPatch('basic-tikv-2', { [END_AT]: iso(T0) })],
    },
    {
      name: 'the store being evicted before its restart keeps its scheduler',
      tc: tidbCluster(tikvStatus({ phase: 'Upgrade', update: '2' })),
      changes: [tikvPods(['1', '1', '2'], { 'basic-tikv-1': { evictLeaderBeginTime: iso(T0) } }), pd(['2'])],
      actions: [],
    },
    {
      name: 'the next store to restart keeps a scheduler even before its annotation is written',
      tc: tidbCluster(tikvStatus({ phase: 'Upgrade', update: '2' })),
      changes: [tikvPods(['1', '1', '2']), pd(['2'])],
      actions: [],
    },
    {
      name: 'a store of a pod not next to restart, without the annotation, loses its scheduler',
      tc: tidbCluster(tikvStatus({ phase: 'Upgrade', update: '2' })),
      changes: [tikvPods(['1', '1', '2']), pd(['1'])],
      actions: [{ kind: 'pd.endEvictLeader', storeId: '1' }, podPatch('basic-tikv-0', { [END_AT]: iso(T0) })],
    },
    {
      name: 'P3: the restarted pod is not Ready yet: its scheduler stays',
      tc: tidbCluster(tikvStatus({ phase: 'Upgrade', update: '2' })),
      changes: [tikvPods(['1', '1', '2'], {}, [2]), pd(['3'])],
      actions: [],
    },
    {
      name: 'P3: the restarted pod is Ready but its store is not Up yet: its scheduler stays',
      tc: tidbCluster(tikvStatus({ phase: 'Upgrade', update: '2' })),
      changes: [tikvPods(['1', '1', '2']), pd(['3'], [pdStore('1', 'Up'), pdStore('2', 'Up'), pdStore('3', 'Disconnected')])],
      actions: [],
    },
    {
      name: 'P3: the restarted pod is Ready and its store Up: the scheduler goes, end-at is recorded',
      tc: tidbCluster(tikvStatus({ phase: 'Upgrade', update: '2' })),
      changes: [tikvPods(['1', '2', '2']), pd(['3'])],
      actions: [{ kind: 'pd.endEvictLeader', storeId: '3' }, podPatch('basic-tikv-2', { [END_AT]: iso(T0) })],
    },
    {
      name: 'P15: after a rollback the pod evicted for the abandoned target is on the update revision: scheduler removed, stale begin time dropped',
      tc: tidbCluster(tikvStatus({ phase: 'Upgrade', update: '1' })),
      changes: [tikvPods(['1', '1', '2'], { 'basic-tikv-1': { evictLeaderBeginTime: iso(T0 - 60_000) } }), pd(['2'])],
      actions: [{ kind: 'pd.endEvictLeader', storeId: '2' }, podPatch('basic-tikv-1', { [END_AT]: iso(T0), evictLeaderBeginTime: null })],
    },
    {
      name: 'a store being scaled in (pod annotated scale-in-time) keeps its scheduler',
      tc: tidbCluster(tikvStatus()),
      changes: [tikvPods(['1', '1', '1'], { 'basic-tikv-2': { 'tidb.pingcap.com/scale-in-time': iso(T0) } }), pd(['3'])],
      actions: [],
    },
    {
      name: 'an Offline store (its deletion under way) keeps its scheduler',
      tc: tidbCluster(tikvStatus()),
      changes: [tikvPods(['1', '1', '1']), pd(['3'], [pdStore('1', 'Up'), pdStore('2', 'Up'), pdStore('3', 'Offline')])],
      actions: [],
    },
    {
      name: 'a Tombstone store of ours without a pod loses its scheduler',
      tc: tidbCluster(tikvStatus()),
      changes: [tikvPods(['1', '1', '1']), pd(['7'], [pdStore('1', 'Up'), pdStore('2', 'Up'), pdStore('3', 'Up'), pdStore('7', 'Tombstone', 'basic-tikv-3.basic-tikv-peer.demo.svc:20160')])],
      actions: [{ kind: 'pd.endEvictLeader', storeId: '7' }],
    },
    {
      name: 'a scheduler of a store that is not ours (another cluster on the same PD) is left alone',
      tc: tidbCluster(tikvStatus()),
      changes: [tikvPods(['1', '1', '1']), pd(['9'], [pdStore('1', 'Up'), pdStore('2', 'Up'), pdStore('3', 'Up'), pdStore('9', 'Up', 'other-tikv-0.other-tikv-peer.demo.svc:20160')])],
      actions: [],
    },
    {
      name: 'nothing is done when PD could not be read',
      tc: tidbCluster(tikvStatus()),
      changes: [tikvPods(['1', '1', '1']), withPd(undefined, 'PD unreachable')],
      actions: [],
    },
  ])('$name', ({ tc, changes, actions }) => {
    // Act
    const decision = cleanup(snapshot(withCluster(tc), withOwned('StatefulSet', tikvSetOf(tc)), ...changes));
    // Assess
    expect(decision.actions).toEqual(actions);
  });

  it.each([
    { name: 'leaders back (2/3 of before) and no scheduler: leaderCountBeforeUpgrade is cleared', leaders: 200, schedulers: [] as string[], cleared: true },
    { name: 'leaders not back within the wait: leaderCountBeforeUpgrade stays', leaders: 100, schedulers: [] as string[], cleared: false },
    { name: 'the scheduler is only being removed this step: leaderCountBeforeUpgrade stays', leaders: 300, schedulers: ['3'], cleared: false },
  ])('$name', ({ leaders, schedulers, cleared }) => {
    // Prepare
    const tc = tidbCluster(tikvStatus({ before: { '3': 300 }, leaders: { '3': leaders } }));
    // Act
    const decision = cleanup(snapshot(withCluster(tc), withOwned('StatefulSet', tikvSetOf(tc)), tikvPods(['1', '1', '1'], { 'basic-tikv-2': { [END_AT]: iso(T0) } }), pd(schedulers)));
    // Assess
    expect(decision.status?.tikv?.stores?.['3']?.leaderCountBeforeUpgrade).toBe(cleared ? undefined : 300);
  });
});

describe('goDurationMs', () => {
  it.each([
    { name: 'minutes', text: '1500m', ms: 90_000_000 },
    { name: 'seconds', text: '400s', ms: 400_000 },
    { name: 'hours and minutes', text: '1h30m', ms: 5_400_000 },
    { name: 'milliseconds', text: '250ms', ms: 250 },
    { name: 'not a duration', text: '10 minutes', ms: undefined },
    { name: 'absent', text: undefined, ms: undefined },
  ])('$name', ({ text, ms }) => {
    // Act, Assess
    expect(goDurationMs(text)).toBe(ms);
  });
});
