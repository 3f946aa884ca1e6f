/**
 * Builders for TidbDashboard and TidbNGMonitoring snapshots: a TidbCluster (TLS optional), the two
 * objects as TiDB Operator's examples write them, a StatefulSet with a status, and readers of a
 * plan's writes, status and Events.
 */
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { Action } from '../../../../lib/model/action.js';
import type { TidbCluster } from '../../../../lib/model/kube.js';
import type { Plan } from '../../../../lib/model/plan.js';
import type { DashboardSnapshot } from '../../../../lib/reconcile/tidb-dashboard/snapshot.js';
import type { TidbDashboard, TidbDashboardSpec } from '../../../../lib/reconcile/tidb-dashboard/types.js';
import type { NgMonitoringSnapshot } from '../../../../lib/reconcile/tidb-ng-monitoring/snapshot.js';
import type { TidbNGMonitoring, TidbNGMonitoringSpec } from '../../../../lib/reconcile/tidb-ng-monitoring/types.js';

/** The cluster `basic` in `demo` at v8.5.7, with cluster TLS and TiDB client TLS when asked. */
export function cluster(opts: { tls?: boolean; tidbClientTls?: boolean } = {}): TidbCluster {
  return {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'TidbCluster',
    metadata: { name: 'basic', namespace: 'demo', uid: 'tc-uid' },
    spec: { version: 'v8.5.7', ...(opts.tls ? { tlsCluster: { enabled: true } } : {}), tidb: { replicas: 1, ...(opts.tidbClientTls ? { tlsClient: { enabled: true } } : {}) } },
  } as TidbCluster;
}

/** examples/basic/tidb-dashboard.yaml in `demo`, `spec` merged over it. */
export function dashboard(spec: Partial<TidbDashboardSpec> = {}): TidbDashboard {
  return {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'TidbDashboard',
    metadata: { name: 'basic', namespace: 'demo', uid: 'td-uid', resourceVersion: '7' },
    spec: { baseImage: 'pingcap/tidb-dashboard', version: 'v8.5.7', clusters: [{ name: 'basic' }], requests: { storage: '10Gi' }, ...spec },
  };
}

/** examples/tngm/tidb-ng-monitoring.yaml in `demo`, `spec` merged over it. */
export function ngMonitoring(spec: Partial<TidbNGMonitoringSpec> = {}): TidbNGMonitoring {
  return {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'TidbNGMonitoring',
    metadata: { name: 'basic', namespace: 'demo', uid: 'tngm-uid', resourceVersion: '9' },
    spec: { clusters: [{ name: 'basic' }], ngMonitoring: { requests: { storage: '10Gi' }, version: 'nightly', baseImage: 'pingcap/ng-monitoring' }, ...spec },
  };
}

/** A StatefulSet as the API server returns it after `written`, with a status: ready or not, at one revision or two. */
export function liveSts(written: IStatefulSet, status: { ready: boolean; upgrading?: boolean }): IStatefulSet {
  return {
    ...written,
    metadata: { ...written.metadata, resourceVersion: '11', generation: 1 },
    status: { replicas: 1, readyReplicas: status.ready ? 1 : 0, updatedReplicas: 1, observedGeneration: 1, currentRevision: 'r1', updateRevision: status.upgrading ? 'r2' : 'r1' },
  };
}

/** A dashboard snapshot. */
export function dashboardSnap(td: TidbDashboard | undefined, over: Partial<DashboardSnapshot> = {}): DashboardSnapshot {
  return { nowMs: 0, td, tc: cluster(), service: undefined, sts: undefined, pods: [], secrets: {}, ...over };
}

/** An ng-monitoring snapshot. */
export function ngmSnap(tngm: TidbNGMonitoring | undefined, over: Partial<NgMonitoringSnapshot> = {}): NgMonitoringSnapshot {
  return { nowMs: 0, tngm, tc: cluster(), service: undefined, configMaps: [], sts: undefined, pods: [], secrets: {}, ...over };
}

/** `verb Kind/name` of each write (Events left out). */
export function writes(plan: Plan): string[] {
  return plan.actions.filter((a) => a.kind !== 'event').map((a) => `${a.kind} ${'ref' in a ? `${a.ref.kind}/${a.ref.name}` : ''}`);
}

/** The object a write of `kind` named `name` carries. */
export function written<T>(plan: Plan, kind: string, name: string): T {
  const action = plan.actions.find((a): a is Extract<Action, { object: unknown }> => 'object' in a && 'ref' in a && a.ref.kind === kind && a.ref.name === name);
  if (action === undefined) throw new Error(`no write of ${kind}/${name}`);
  return action.object as T;
}

/** `type reason: message` of each Event. */
export function events(plan: Plan): string[] {
  return plan.actions.flatMap((a) => (a.kind === 'event' ? [`${a.type} ${a.reason}: ${a.message}`] : []));
}
