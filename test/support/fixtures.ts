/**
 * Snapshot builders for rule and engine tests: a base object plus small change functions, e.g.
 * `tidbCluster(paused(), healthy())` or `snapshot(withCluster(tc), at(T0 + 5_000))`.
 */

import type { DeadlineSpec } from '../../lib/model/action.js';
import type { TidbCluster, TidbClusterStatus } from '../../lib/model/kube.js';
import type { Snapshot } from '../../lib/model/snapshot.js';
import { DEFAULT_STEP_CONFIG } from '../../lib/platform/config.js';
import { toKubeTime } from '../../lib/reconcile/condition.js';
import { NO_OWNED_OBJECTS, type Observation } from '../../lib/step/ports.js';

/** The start of virtual time in these tests. */
export const T0 = Date.UTC(2026, 0, 1);
/** The test cluster's key. */
export const KEY = 'eks-test/demo/basic';
/** The test cluster's key, in parts. */
export const REF = { k8sCluster: 'eks-test', namespace: 'demo', name: 'basic' } as const;

/** A change to a value of type T; builders apply them in order. */
export type Change<T> = (value: T) => T;

const apply = <T>(base: T, changes: readonly Change<T>[]): T => changes.reduce((v, change) => change(v), base);

/** A basic TidbCluster (PD 3, TiKV 3, TiDB 2, resourceVersion `100`, no status) with `changes` applied. */
export function tidbCluster(...changes: Change<TidbCluster>[]): TidbCluster {
  const base: TidbCluster = {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'TidbCluster',
    metadata: { name: REF.name, namespace: REF.namespace, resourceVersion: '100', uid: 'uid-basic', generation: 1 },
    spec: {
      version: 'v8.5.0',
      pd: { baseImage: 'pingcap/pd', replicas: 3 },
      tikv: { baseImage: 'pingcap/tikv', replicas: 3 },
      tidb: { baseImage: 'pingcap/tidb', replicas: 2 },
    },
  };
  return apply(base, changes);
}

/** Sets `spec.paused`. */
export const paused =
  (value = true): Change<TidbCluster> =>
  (tc) => ({ ...tc, spec: { ...tc.spec, paused: value } });

/** Replaces the spec's components (e.g. `{ pd: undefined }` removes PD). */
export const withSpec =
  (spec: Partial<TidbCluster['spec']>): Change<TidbCluster> =>
  (tc) => ({ ...tc, spec: { ...tc.spec, ...spec } });

/** Replaces the status. */
export const withStatus =
  (status: TidbClusterStatus): Change<TidbCluster> =>
  (tc) => ({ ...tc, status });

/** Changes the status with `change`. */
export const changeStatus =
  (change: (status: TidbClusterStatus) => TidbClusterStatus): Change<TidbCluster> =>
  (tc) => ({ ...tc, status: change(tc.status ?? {}) });

const sts = (name: string, replicas: number) => ({
  replicas,
  readyReplicas: replicas,
  currentRevision: `${name}-rev1`,
  updateRevision: `${name}-rev1`,
});

/**
 * The status of a converged basic cluster: every member healthy, every store Up, StatefulSets at one
 * revision, and (with `ready`) the Ready condition True since `readySinceMs`.
 */
export function healthyStatus(options: { ready?: boolean; readySinceMs?: number } = {}): TidbClusterStatus {
  const since = toKubeTime(options.readySinceMs ?? T0 - 3_600_000);
  // PD member ids above 2^53, as real PD hands them out.
  const pdMember = (i: number) => ({
    name: `basic-pd-${i}`,
    id: `1281830999663832596${i}`,
    clientURL: `http://basic-pd-${i}:2379`,
    health: true,
  });
  const store = (id: number) => ({
    id: String(id),
    ip: `10.0.0.${id}`,
    podName: `basic-tikv-${id - 1}`,
    leaderCount: 10,
    state: 'Up',
  });
  const pdMembers = Object.fromEntries([0, 1, 2].map((i) => [`basic-pd-${i}`, pdMember(i)]));
  const stores = Object.fromEntries([1, 2, 3].map((id) => [String(id), store(id)]));
  const tidbMember = (i: number) => ({ name: `basic-tidb-${i}`, health: true });
  const tidbMembers = Object.fromEntries([0, 1].map((i) => [`basic-tidb-${i}`, tidbMember(i)]));
  const status: TidbClusterStatus = {
    pd: { members: pdMembers, statefulSet: sts('basic-pd', 3), phase: 'Normal', synced: true },
    tikv: { stores, statefulSet: sts('basic-tikv', 3), phase: 'Normal', synced: true },
    tidb: { members: tidbMembers, statefulSet: sts('basic-tidb', 2), phase: 'Normal' },
  };
  if (options.ready === false) return status;
  const ready = { type: 'Ready', status: 'True', reason: 'Ready', message: 'TiDB cluster is fully up and running' };
  return { ...status, conditions: [{ ...ready, lastUpdateTime: since, lastTransitionTime: since }] };
}

/** Gives the cluster the converged status (Ready condition included unless `ready: false`). */
export const healthy = (options: { ready?: boolean; readySinceMs?: number } = {}): Change<TidbCluster> =>
  withStatus(healthyStatus(options));

/** A snapshot of the basic cluster at T0 with a clean persisted state, with `changes` applied. */
export function snapshot(...changes: Change<Snapshot>[]): Snapshot {
  const base: Snapshot = {
    key: KEY,
    ref: REF,
    nowMs: T0,
    cluster: tidbCluster(),
    owned: NO_OWNED_OBJECTS,
    pd: undefined,
    state: { fence: 1, failures: 0, nextWakeAtMs: undefined, lastOutcome: undefined, deadlines: [] },
    config: DEFAULT_STEP_CONFIG.reconcile,
  };
  return apply(base, changes);
}

/** Sets the snapshot's cluster (undefined: it no longer exists). */
export const withCluster =
  (cluster: TidbCluster | undefined): Change<Snapshot> =>
  (s) => ({ ...s, cluster });

/** Sets the snapshot's time. */
export const at =
  (nowMs: number): Change<Snapshot> =>
  (s) => ({ ...s, nowMs });

/** Adds persisted deadlines. */
export const withDeadlines =
  (...deadlines: DeadlineSpec[]): Change<Snapshot> =>
  (s) => ({ ...s, state: { ...s.state, deadlines: [...s.state.deadlines, ...deadlines] } });

/** What an Observer returns for `cluster` (no owned objects, PD not read). */
export function observationOf(cluster: TidbCluster | undefined): Observation {
  return { cluster, owned: NO_OWNED_OBJECTS, pd: undefined };
}
