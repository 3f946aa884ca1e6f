import { describe, expect, it } from '@jest/globals';

import type { TidbCluster, TidbClusterStatus } from '../../../../../lib/model/kube.js';
import { planTidbFailover } from '../../../../../lib/reconcile/components/tidb/failover.js';
import { toKubeTime } from '../../../../../lib/reconcile/cluster/condition.js';
import { T0, changeSpec, changeStatus, healthyStatus, ruleInputOf, snapshot, tidbCluster, withCluster, withConfig, withDeadlines, withOwned, type Change } from '../../../../support/fixtures.js';
import { tidbPod, tidbRule, tidbSetOf } from '../../../../support/tidb-rules.js';

type TidbStatus = NonNullable<TidbClusterStatus['tidb']>;
const failover = tidbRule(planTidbFailover);
const FIVE_MINUTES = 5 * 60_000;

/** Fixture K: `spec.tidb.replicas` (default 2), maxFailoverCount 3, members with the given health; no transition time (long past). */
function fixtureK(o: { replicas?: number; members: boolean[]; failures?: string[]; max?: number; sinceMs?: number }): Change<TidbCluster>[] {
  const replicas = o.replicas ?? 2;
  const members = Object.fromEntries(
    o.members.map((health, i) => [
      `basic-tidb-${i}`,
      { name: `basic-tidb-${i}`, health, ...(o.sinceMs === undefined ? {} : { lastTransitionTime: toKubeTime(o.sinceMs) }) },
    ]),
  );
  const failureMembers = Object.fromEntries((o.failures ?? []).map((name) => [name, { podName: name, createdAt: toKubeTime(T0 - 60_000) }]));
  const desired = replicas + (o.failures ?? []).length;
  const tidb: TidbStatus = {
    members,
    phase: 'Normal',
    statefulSet: { replicas: desired, readyReplicas: desired },
    ...(o.failures === undefined ? {} : { failureMembers }),
  };
  // PD and TiKV available (three healthy members, three Up stores), as TiDB failover needs.
  const { pd, tikv } = healthyStatus();
  return [changeSpec((spec) => ({ ...spec, tidb: { ...spec.tidb, replicas, maxFailoverCount: o.max ?? 3 } })), changeStatus((s) => ({ ...s, pd, tikv, tidb }))];
}

function run(tc: TidbCluster, pods: { ordinal: number; scheduled?: boolean; ready?: boolean }[], ...extra: Parameters<typeof snapshot>) {
  const set = tidbSetOf(tc, { replicas: tc.status?.tidb?.statefulSet?.replicas ?? 2 });
  return failover(ruleInputOf(snapshot(withCluster(tc), withOwned('StatefulSet', set), withOwned('Pod', ...pods.map((p) => tidbPod(p.ordinal, p))), ...extra)));
}

const failureNames = (status: TidbClusterStatus | undefined, fallback: TidbCluster) => Object.keys((status ?? fallback.status)?.tidb?.failureMembers ?? {}).sort();

describe('TiDB failover while PD or TiKV is unavailable (beyond v1, whose TiDB sync never runs then)', () => {
  it.each([
    { name: 'two of three PD members unhealthy: no member recorded, however long it is unhealthy', change: (s: TidbClusterStatus): TidbClusterStatus => ({ ...s, pd: { ...s.pd, members: Object.fromEntries(Object.entries(s.pd?.members ?? {}).map(([n, m], i) => [n, { ...m, health: i === 0 }])) } }), why: 'PD is not available' },
    { name: 'no TiKV store Up: no member recorded', change: (s: TidbClusterStatus): TidbClusterStatus => ({ ...s, tikv: { ...s.tikv, stores: Object.fromEntries(Object.entries(s.tikv?.stores ?? {}).map(([id, st]) => [id, { ...st, state: 'Disconnected' }])) } }), why: 'TiKV is not available' },
  ])('$name', ({ change, why }) => {
    // Prepare: tidb-0 unhealthy long past its failover period
    const tc = tidbCluster(...fixtureK({ members: [false, true] }), changeStatus(change));
    // Act
    const decision = run(tc, [{ ordinal: 0 }, { ordinal: 1 }]);
    // Assess
    expect(failureNames(decision.status, tc)).toEqual([]);
    expect(decision.actions).toEqual([]);
    expect(decision.outcome).toEqual({ kind: 'complete', message: `TiDB failover held: ${why}, so a replacement could not serve either` });
  });
});

describe('TiDB failover (Fixture K)', () => {
  it.each([
    { name: 'S139 both healthy: nothing recorded', members: [true, true], pods: [{ ordinal: 0 }, { ordinal: 1 }], expected: [] as string[] },
    { name: 'S140 tidb-0 unhealthy and scheduled: recorded', members: [false, true], pods: [{ ordinal: 0 }, { ordinal: 1 }], expected: ['basic-tidb-0'] },
    { name: 'S141 tidb-0 unhealthy, PodScheduled Unknown: not recorded', members: [false, true], pods: [{ ordinal: 0, scheduled: false }, { ordinal: 1 }], expected: [] },
    { name: 'S142 both unhealthy and scheduled: one per step', members: [false, false], pods: [{ ordinal: 0 }, { ordinal: 1 }], expected: ['basic-tidb-0'] },
  ])('$name', ({ members, pods, expected }) => {
    // Prepare
    const tc = tidbCluster(...fixtureK({ members }));
    // Act
    const decision = run(tc, pods);
    // Assess
    expect(decision.outcome.kind).not.toBe('fail');
    expect(failureNames(decision.status, tc)).toEqual(expected);
  });

  it.each([
    { name: 'S143 five unhealthy, three recorded: capped at maxFailoverCount 3', max: 3 },
    { name: 'S144 the same with maxFailoverCount 0: the records are kept, none added', max: 0 },
  ])('$name', ({ max }) => {
    // Prepare
    const failures = ['basic-tidb-0', 'basic-tidb-1', 'basic-tidb-2'];
    const tc = tidbCluster(...fixtureK({ replicas: 2, members: [false, false, false, false, false], failures, max }));
    // Act
    const decision = run(tc, [0, 1, 2, 3, 4].map((ordinal) => ({ ordinal })));
    // Assess
    expect(failureNames(decision.status, tc)).toEqual(failures);
    expect(decision.actions.filter((a) => a.kind === 'event')).toEqual([]);
  });

  it.each([
    { name: 'S145 one failure member, replicas 1', replicas: 1, failures: ['basic-tidb-1'] },
    { name: 'S145 two failure members, replicas 3', replicas: 3, failures: ['basic-tidb-3', 'basic-tidb-4'] },
    { name: 'S145 one failure member, replicas 4', replicas: 4, failures: ['basic-tidb-4'] },
    { name: 'S145 two failure members, replicas 5', replicas: 5, failures: ['basic-tidb-5', 'basic-tidb-6'] },
  ])('$name: every desired ordinal Ready and healthy clears the failure members, spec unchanged', ({ replicas, failures }) => {
    // Prepare: the failover pods are unhealthy; they do not count.
    const members = [...Array.from({ length: replicas }, () => true), ...failures.map(() => false)];
    const tc = tidbCluster(...fixtureK({ replicas, members, failures }));
    // Act
    const decision = run(tc, members.map((_, ordinal) => ({ ordinal, ready: ordinal < replicas })));
    // Assess
    expect(decision.status?.tidb?.failureMembers).toBeUndefined();
    expect(failureNames(decision.status, tc)).toEqual([]);
    expect(decision.actions).toEqual([]);
  });

  it('a recorded member healthy again leaves the failure members', () => {
    // Prepare: tidb-1 was recorded and is healthy now; tidb-0 is not (so no recovery).
    const tc = tidbCluster(...fixtureK({ replicas: 2, members: [false, true, true], failures: ['basic-tidb-1'], sinceMs: T0 - 60_000 }));
    // Act
    const decision = run(tc, [{ ordinal: 0, ready: false }, { ordinal: 1 }, { ordinal: 2 }]);
    // Assess
    expect(failureNames(decision.status, tc)).toEqual([]);
  });

  it('a member unhealthy for less than tidbFailoverPeriod gets its deadline persisted and the key woken at it', () => {
    // Prepare: tidb-1 unhealthy since one minute ago.
    const since = T0 - 60_000;
    const tc = tidbCluster(...fixtureK({ members: [true, false], sinceMs: since }));
    // Act
    const decision = run(tc, [{ ordinal: 0 }, { ordinal: 1 }]);
    // Assess
    expect(decision.status).toBeUndefined();
    expect(decision.actions).toEqual([
      { kind: 'state.putDeadline', deadline: { component: 'tidb', member: 'basic-tidb-1', kind: 'failover', sinceMs: since, deadlineAtMs: since + FIVE_MINUTES } },
    ]);
    expect(decision.wakeAtMs).toBe(since + FIVE_MINUTES);
  });

  it('at its deadline the member is recorded, with an Unhealthy Warning, and its deadline deleted', () => {
    // Prepare
    const since = T0 - FIVE_MINUTES;
    const tc = tidbCluster(...fixtureK({ members: [true, false], sinceMs: since }));
    const deadline = { component: 'tidb', member: 'basic-tidb-1', kind: 'failover', sinceMs: since, deadlineAtMs: T0 };
    // Act
    const decision = run(tc, [{ ordinal: 0 }, { ordinal: 1 }], withDeadlines(deadline));
    // Assess
    expect(failureNames(decision.status, tc)).toEqual(['basic-tidb-1']);
    expect(decision.actions).toEqual([
      expect.objectContaining({ kind: 'event', type: 'Warning', reason: 'Unhealthy', message: 'tidb[basic-tidb-1] is unhealthy' }),
      { kind: 'state.deleteDeadline', deadline: { component: 'tidb', member: 'basic-tidb-1', kind: 'failover' } },
    ]);
    expect(decision.outcome.kind).toBe('retry');
  });

  it('without auto failover nothing is recorded', () => {
    const tc = tidbCluster(...fixtureK({ members: [false, true] }));
    const decision = run(tc, [{ ordinal: 0 }, { ordinal: 1 }], withConfig({ autoFailover: false }));
    expect(decision.status).toBeUndefined();
    expect(decision.actions).toEqual([]);
  });

  it('while a pod has not started (StatefulSet short of the desired replicas) nothing is recorded', () => {
    const tc = tidbCluster(...fixtureK({ members: [false, true] }), changeStatus((s) => ({ ...s, tidb: { ...s.tidb, statefulSet: { replicas: 1 } } })));
    const decision = run(tc, [{ ordinal: 0 }, { ordinal: 1 }]);
    expect(failureNames(decision.status, tc)).toEqual([]);
  });
});
