import { describe, expect, it } from '@jest/globals';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { TidbClusterStatus } from '../../../../../lib/model/kube.js';
import { toKubeTime } from '../../../../../lib/reconcile/cluster/condition.js';
import { dependenciesBackAtMs, tidbFailoverSinceMs } from '../../../../../lib/reconcile/components/tidb/failover-clock.js';
import { planTidbFailover } from '../../../../../lib/reconcile/components/tidb/failover.js';
import { T0, changeSpec, changeStatus, healthyStatus, ruleInputOf, snapshot, tidbCluster, withCluster, withOwned } from '../../../../support/fixtures.js';
import { tidbPod, tidbRule, tidbSetOf } from '../../../../support/tidb-rules.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Healthy PD and TiKV whose members (`pdSinceMs`, per member) and stores (`tikvSinceMs`) last changed then. */
function statusWith(pdSinceMs: number[], tikvSinceMs: number): TidbClusterStatus {
  const s = healthyStatus();
  const members = Object.fromEntries(Object.entries(s.pd?.members ?? {}).map(([n, m], i) => [n, { ...m, lastTransitionTime: toKubeTime(pdSinceMs[i] ?? 0) }]));
  const stores = Object.fromEntries(Object.entries(s.tikv?.stores ?? {}).map(([id, st]) => [id, { ...st, lastTransitionTime: toKubeTime(tikvSinceMs) }]));
  return { ...s, pd: { ...s.pd, members }, tikv: { ...s.tikv, stores } };
}

/** A TiDB pod whose `tidb` container runs since `runningSinceMs` (or waits in back-off) and last exited at `lastExitAtMs`. */
function podWith(o: { runningSinceMs?: number; lastExitAtMs?: number }): IPod {
  const pod = tidbPod(0);
  const state = o.runningSinceMs === undefined ? { waiting: { reason: 'CrashLoopBackOff' } } : { running: { startedAt: toKubeTime(o.runningSinceMs) } };
  const lastState = o.lastExitAtMs === undefined ? {} : { terminated: { exitCode: 1, reason: 'Error', finishedAt: toKubeTime(o.lastExitAtMs) } };
  const containerStatuses = [{ name: 'tidb', image: 'pingcap/tidb:v8.5.0', imageID: '', ready: false, restartCount: 3, state, lastState }];
  return { ...pod, status: { ...pod.status, containerStatuses } } as IPod;
}

// PD came back at T0 - 10m (its second member, the quorum-th, turned healthy then); TiKV never left.
const BACK = T0 - 10 * MINUTE;
const status = statusWith([T0 - HOUR, BACK, T0 - 5 * MINUTE], T0 - 2 * HOUR);

describe('when a TiDB failover period starts', () => {
  it('PD is back from the moment its quorum-th member turned healthy, TiKV from its first Up store', () => {
    // Act
    const back = dependenciesBackAtMs(tidbCluster(), status);
    // Assess
    expect(back).toBe(BACK);
  });

  it.each([
    { name: 'a member unhealthy since before PD came back, its TiDB never restarted: counted from PD’s return', pod: podWith({ runningSinceMs: T0 - 2 * HOUR }), unhealthySinceMs: T0 - HOUR, expected: BACK },
    { name: 'a member that turned unhealthy after PD came back: counted from then', pod: podWith({ runningSinceMs: T0 - 2 * HOUR }), unhealthySinceMs: T0 - MINUTE, expected: T0 - MINUTE },
    { name: 'a TiDB that exited while PD was away and waits in back-off: no candidate yet', pod: podWith({ lastExitAtMs: BACK - MINUTE }), unhealthySinceMs: T0 - HOUR, expected: undefined },
    { name: 'a TiDB that exited while PD was away and started again since: counted from its start', pod: podWith({ lastExitAtMs: BACK - MINUTE, runningSinceMs: T0 - 2 * MINUTE }), unhealthySinceMs: T0 - HOUR, expected: T0 - 2 * MINUTE },
    { name: 'a TiDB that exits again after PD came back (genuinely broken): counted from PD’s return, not from each restart', pod: podWith({ lastExitAtMs: T0 - MINUTE }), unhealthySinceMs: T0 - HOUR, expected: BACK },
  ])('$name', ({ pod, unhealthySinceMs, expected }) => {
    // Act
    const since = tidbFailoverSinceMs(tidbCluster(), status, pod, unhealthySinceMs);
    // Assess
    expect(since).toBe(expected);
  });

  it('no TiDB is recorded as a failure the moment PD returns while it waits in back-off from a crash during the outage', () => {
    // Prepare: tidb-0 unhealthy for an hour; PD back an hour ago too late for it: it exited during the outage.
    const tidb = { members: { 'basic-tidb-0': { name: 'basic-tidb-0', health: false, lastTransitionTime: toKubeTime(T0 - HOUR) }, 'basic-tidb-1': { name: 'basic-tidb-1', health: true } }, phase: 'Normal', statefulSet: { replicas: 2, readyReplicas: 1 } };
    const tc = tidbCluster(changeSpec((spec) => ({ ...spec, tidb: { ...spec.tidb, replicas: 2, maxFailoverCount: 3 } })), changeStatus(() => ({ ...status, tidb })));
    const crashLooping = { ...podWith({ lastExitAtMs: BACK - MINUTE }), metadata: tidbPod(0).metadata };
    const failover = tidbRule(planTidbFailover);
    // Act
    const held = failover(ruleInputOf(snapshot(withCluster(tc), withOwned('StatefulSet', tidbSetOf(tc, { replicas: 2 })), withOwned('Pod', crashLooping, tidbPod(1)))));
    const brokenAfter = failover(ruleInputOf(snapshot(withCluster(tc), withOwned('StatefulSet', tidbSetOf(tc, { replicas: 2 })), withOwned('Pod', { ...podWith({ lastExitAtMs: T0 - 30_000 }), metadata: tidbPod(0).metadata }, tidbPod(1)))));
    // Assess
    expect(held.status?.tidb?.failureMembers ?? {}).toEqual({});
    expect(Object.keys(brokenAfter.status?.tidb?.failureMembers ?? {})).toEqual(['basic-tidb-0']);
  });
});
