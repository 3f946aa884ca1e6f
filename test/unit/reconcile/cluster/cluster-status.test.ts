import { describe, expect, it } from '@jest/globals';

import type { TidbCluster, TidbClusterStatus } from '../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../lib/model/snapshot.js';
import { pdReadFailure, planClusterStatus, planReadyCondition } from '../../../../lib/reconcile/cluster/cluster-status.js';
import { setCondition, toKubeTime } from '../../../../lib/reconcile/cluster/condition.js';
import { complete } from '../../../../lib/reconcile/engine/outcome.js';
import { T0, changeStatus, healthy, healthyStatus, snapshot, tidbCluster, withCluster, withSpec, type Change } from '../../../support/fixtures.js';

const ready = (tc: TidbCluster) => planReadyCondition(tc.spec, tc.status ?? {});

const unhealthyPd: Change<TidbCluster> = changeStatus((s) => ({
  ...s,
  pd: { ...s.pd, members: { ...s.pd?.members, 'basic-pd-1': { name: 'basic-pd-1', id: '2', clientURL: 'x', health: false } } },
}));
const storeDown: Change<TidbCluster> = changeStatus((s) => ({
  ...s,
  tikv: { ...s.tikv, stores: { ...s.tikv?.stores, '2': { id: '2', ip: 'x', podName: 'basic-tikv-1', leaderCount: 0, state: 'Disconnected' } } },
}));
const tidbDown: Change<TidbCluster> = changeStatus((s) => ({
  ...s,
  tidb: { ...s.tidb, members: { ...s.tidb?.members, 'basic-tidb-1': { name: 'basic-tidb-1', health: false } } },
}));
const pdRolling: Change<TidbCluster> = changeStatus((s) => ({
  ...s,
  pd: { ...s.pd, statefulSet: { replicas: 3, currentRevision: 'basic-pd-rev1', updateRevision: 'basic-pd-rev2' } },
}));

describe('the Ready condition, as TiDB Operator computes it (checked in order, first reason wins)', () => {
  it.each<{ name: string; cluster: TidbCluster; status: string; reason: string; message: string }>([
    {
      name: 'a new cluster with no component status yet is not ready: PD is not healthy',
      cluster: tidbCluster(),
      status: 'False',
      reason: 'PDUnhealthy',
      message: 'PD(s) are not healthy',
    },
    {
      name: 'an invalid spec says so first, whatever the members look like',
      cluster: tidbCluster(healthy(), (t) => ({ ...t, status: { ...t.status, conditions: [{ type: 'InvalidSpec', status: 'True', reason: 'FailedValidation', message: 'generation 3: spec.pd.replicas: must be >= 0' }] } })),
      status: 'False',
      reason: 'InvalidSpec',
      message: 'the spec is invalid: spec.pd.replicas: must be >= 0',
    },
    {
      name: 'a converged cluster is ready',
      cluster: tidbCluster(healthy()),
      status: 'True',
      reason: 'Ready',
      message: 'TiDB cluster is fully up and running',
    },
    { name: 'a StatefulSet between revisions comes first', cluster: tidbCluster(healthy(), unhealthyPd, pdRolling), status: 'False', reason: 'StatefulSetNotUpToDate', message: 'Statefulset(s) are in progress' },
    { name: 'an unhealthy PD member', cluster: tidbCluster(healthy(), unhealthyPd, storeDown), status: 'False', reason: 'PDUnhealthy', message: 'PD(s) are not healthy' },
    { name: 'a TiKV store not Up', cluster: tidbCluster(healthy(), storeDown, tidbDown), status: 'False', reason: 'TiKVStoreNotUp', message: 'TiKV store(s) are not up' },
    { name: 'an unhealthy TiDB member', cluster: tidbCluster(healthy(), tidbDown), status: 'False', reason: 'TiDBUnhealthy', message: 'TiDB(s) are not healthy' },
    {
      name: 'fewer PD members than desired (spec scaled out)',
      cluster: tidbCluster(healthy(), withSpec({ pd: { replicas: 5 } })),
      status: 'False',
      reason: 'PDUnhealthy',
      message: 'PD(s) are not healthy',
    },
    {
      name: 'a deleted PD failure member raises the desired count (as PDStsDesiredReplicas)',
      cluster: tidbCluster(healthy(), changeStatus((s) => ({ ...s, pd: { ...s.pd, failureMembers: { 'basic-pd-3': { memberDeleted: true } } } }))),
      status: 'False',
      reason: 'PDUnhealthy',
      message: 'PD(s) are not healthy',
    },
    {
      name: 'a TiFlash in the spec without stores',
      cluster: tidbCluster(healthy(), withSpec({ tiflash: { replicas: 1, storageClaims: [] } })),
      status: 'False',
      reason: 'TiFlashStoreNotUp',
      message: 'TiFlash store(s) are not up',
    },
    {
      name: 'a TiCDC in the spec without captures',
      cluster: tidbCluster(healthy(), withSpec({ ticdc: { replicas: 1 } })),
      status: 'False',
      reason: 'TiCDCCaptureNotReady',
      message: 'TiCDC capture(s) are not ready',
    },
    {
      name: 'components not in the spec are not checked',
      cluster: tidbCluster(withSpec({ pd: undefined, tikv: undefined, tidb: undefined })),
      status: 'True',
      reason: 'Ready',
      message: 'TiDB cluster is fully up and running',
    },
  ])('$name', ({ cluster, status, reason, message }) => {
    // Act
    const condition = ready(cluster);
    // Assess
    expect(condition).toEqual({ type: 'Ready', status, reason, message });
  });
});

describe('Ready tells the truth when PD cannot be read (beyond TiDB Operator, which keeps the last health)', () => {
  const unreadable = (pdError: string, pdErrorKind?: 'noLeader' | 'unreachable') => (x: Snapshot): Snapshot => ({ ...x, components: { ...x.components, pd: { ...x.components.pd, view: undefined, error: pdError, ...(pdErrorKind ? { errorKind: pdErrorKind } : {}) } } });
  const unread = (x: Snapshot): Snapshot => ({ ...x, components: { ...x.components, pd: { ...x.components.pd, view: undefined } } });
  it.each<{ name: string; cluster: TidbCluster; changes: ((x: Snapshot) => Snapshot)[]; status: string; reason: string }>([
    { name: 'a healthy status but PD unreachable: False, PDUnreachable', cluster: tidbCluster(healthy()), changes: [unreadable('HTTP 503: no endpoints', 'unreachable')], status: 'False', reason: 'PDUnreachable' },
    { name: 'a healthy status but PD answered "no leader": False, PDQuorumLost', cluster: tidbCluster(healthy()), changes: [unreadable('HTTP 503: no leader', 'noLeader')], status: 'False', reason: 'PDQuorumLost' },
    { name: 'an error of unknown kind counts as unreachable', cluster: tidbCluster(healthy()), changes: [unreadable('timeout')], status: 'False', reason: 'PDUnreachable' },
    { name: "v1's StatefulSetNotUpToDate still comes first where it applies", cluster: tidbCluster(healthy(), pdRolling), changes: [unreadable('x', 'noLeader')], status: 'False', reason: 'StatefulSetNotUpToDate' },
    { name: 'PD read: the status decides, as TiDB Operator', cluster: tidbCluster(healthy()), changes: [], status: 'True', reason: 'Ready' },
    {
      name: 'no PD in the spec: nothing was to be read',
      cluster: tidbCluster(withSpec({ pd: undefined, tikv: undefined, tidb: undefined })),
      changes: [unread],
      status: 'True',
      reason: 'Ready',
    },
  ])('$name', ({ cluster, changes, status, reason }) => {
    // Prepare
    const s = snapshot(withCluster(cluster), ...changes);
    // Act
    const decision = planClusterStatus({ snapshot: s, cluster, status: cluster.status ?? {} });
    // Assess
    const condition = (decision.status?.conditions ?? cluster.status?.conditions ?? []).find((c) => c.type === 'Ready');
    expect({ status: condition?.status, reason: condition?.reason }).toEqual({ status, reason });
  });

  it('pdReadFailure: undefined when PD was read or not asked, else the observed kind (unreachable by default)', () => {
    expect(pdReadFailure(snapshot())).toBeUndefined();
    expect(pdReadFailure(snapshot(unread))).toBeUndefined();
    expect(pdReadFailure(snapshot(unreadable('e')))).toBe('unreachable');
    expect(pdReadFailure(snapshot(unreadable('e', 'noLeader')))).toBe('noLeader');
  });
});

describe('ClusterStatus rule: conditions change only when the Ready status or reason changes', () => {
  const NOW = T0 + 42_000;
  const since = toKubeTime(T0 - 3_600_000);

  it('a steady ready cluster leaves the status unchanged (nothing to write)', () => {
    // Prepare
    const cluster = tidbCluster(healthy());
    // Act
    const decision = planClusterStatus({ snapshot: snapshot(withCluster(cluster)), cluster, status: cluster.status ?? {} });
    // Assess
    expect(decision).toEqual({ outcome: complete() });
  });

  it('a cluster turning unready gets a new condition with lastTransitionTime now', () => {
    const cluster = tidbCluster(healthy(), tidbDown);
    const s = snapshot(withCluster(cluster), (x) => ({ ...x, nowMs: NOW }));
    const decision = planClusterStatus({ snapshot: s, cluster, status: cluster.status ?? {} });
    expect(decision.status?.conditions).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'TiDBUnhealthy',
        message: 'TiDB(s) are not healthy',
        lastUpdateTime: toKubeTime(NOW),
        lastTransitionTime: toKubeTime(NOW),
      },
    ]);
    expect(decision.outcome).toEqual(complete());
  });

  it('a new reason with the same status keeps lastTransitionTime', () => {
    const unready = { type: 'Ready', status: 'False', reason: 'PDUnhealthy', message: 'x', lastUpdateTime: since, lastTransitionTime: since };
    const next = setCondition([unready], { type: 'Ready', status: 'False', reason: 'TiKVStoreNotUp', message: 'y' }, NOW);
    expect(next).toEqual([{ ...unready, reason: 'TiKVStoreNotUp', message: 'y', lastUpdateTime: toKubeTime(NOW) }]);
  });

  it('the same status and reason with another message is left as is (as TiDB Operator)', () => {
    const conditions = [{ type: 'Ready', status: 'False', reason: 'PDUnhealthy', message: 'x', lastTransitionTime: since }];
    expect(setCondition(conditions, { type: 'Ready', status: 'False', reason: 'PDUnhealthy', message: 'other' }, NOW)).toBe(conditions);
  });

  it('other condition types are kept', () => {
    const other = { type: 'Other', status: 'True', reason: 'X', message: 'x' } as unknown as NonNullable<TidbClusterStatus['conditions']>[number];
    const status: TidbClusterStatus = { ...healthyStatus({ ready: false }), conditions: [other] };
    const cluster = tidbCluster((tc) => ({ ...tc, status }));
    const decision = planClusterStatus({ snapshot: snapshot(withCluster(cluster), (x) => ({ ...x, nowMs: NOW })), cluster, status });
    expect(decision.status?.conditions?.map((c) => c.type)).toEqual(['Other', 'Ready']);
  });

  it('kube time has whole seconds in UTC', () => {
    expect(toKubeTime(Date.UTC(2026, 0, 1, 12, 30, 5, 999))).toBe('2026-01-01T12:30:05Z');
  });
});
