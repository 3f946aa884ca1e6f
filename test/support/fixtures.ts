/**
 * Snapshot builders for rule and engine tests: a base object plus small change functions, e.g.
 * `tidbCluster(paused(), healthy())` or `snapshot(withCluster(tc), at(T0 + 5_000))`.
 */

import type { DeadlineSpec } from '../../lib/model/action.js';
import type { TidbCluster, TidbClusterStatus } from '../../lib/model/kube.js';
import { OBSERVED_COMPONENTS, splitByComponent, type ObservedComponents, type Snapshot } from '../../lib/model/snapshot.js';
import { DEFAULT_STEP_CONFIG } from '../../lib/platform/config.js';
import { toKubeTime } from '../../lib/reconcile/cluster/condition.js';
import { NO_COMPONENTS, NO_OWNED_OBJECTS, type Observation } from '../../lib/step/ports.js';

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
    components: NO_COMPONENTS,
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
  return { cluster, owned: NO_OWNED_OBJECTS, components: NO_COMPONENTS };
}

// --- admission and discovery ---

type ReconcileConfig = import('../../lib/model/config.js').ReconcileConfig;

/** Sets `metadata.generation` (the API server bumps it on every spec change). */
export const atGeneration =
  (generation: number): Change<TidbCluster> =>
  (tc) => ({ ...tc, metadata: { ...tc.metadata, generation } });

/** Changes the spec with `change`, for fields `withSpec` cannot reach (e.g. `spec.pd.replicas`). */
export const changeSpec =
  (change: (spec: TidbCluster['spec']) => TidbCluster['spec']): Change<TidbCluster> =>
  (tc) => ({ ...tc, spec: change(tc.spec) });

/** Overrides reconcile settings (e.g. `{ discoveryImage: '…' }`). */
export const withConfig =
  (config: Partial<ReconcileConfig>): Change<Snapshot> =>
  (s) => ({ ...s, config: { ...s.config, ...config } });

// --- PD member manager fixtures (pods, PVCs, PD views) ---

type IPod = import('kubernetes-models/v1/Pod').IPod;
type IPersistentVolumeClaim = import('kubernetes-models/v1/PersistentVolumeClaim').IPersistentVolumeClaim;
type OwnedObjects = import('../../lib/model/kube.js').OwnedObjects;
type PdMember = import('../../lib/model/pd.js').PdMember;
type PdView = import('../../lib/model/pd.js').PdView;
type RuleInput = import('../../lib/reconcile/engine/rule.js').RuleInput;

/** A PD member as PD reports it, with the client URL of a pod of cluster `tc` in namespace `ns`. */
export function pdMemberView(
  name: string,
  options: { id?: string; health?: boolean; ready?: boolean; tc?: string; ns?: string } = {},
): PdMember {
  const tc = options.tc ?? REF.name;
  const ns = options.ns ?? REF.namespace;
  const host = `${name}.${tc}-pd-peer.${ns}.svc`;
  return {
    name,
    id: options.id ?? `${name.length}${name.replace(/\D/g, '')}00`,
    clientUrls: [`http://${host}:2379`],
    peerUrls: [`http://${host}:2380`],
    health: options.health ?? true,
    ...(options.ready === undefined ? {} : { ready: options.ready }),
  };
}

/** A PD view with `members` and the leader named `leader` (none when undefined). */
export function pdViewOf(members: readonly PdMember[], leader?: string, clusterId = '6800000000000000001'): PdView {
  const found = members.find((m) => m.name === leader);
  return {
    clusterId,
    members,
    leader: found ? { name: found.name, id: found.id } : undefined,
    stores: [],
    // PD without a store answers "TiKV cluster not bootstrapped".
    bootstrapped: false,
    schedulers: [],
    storesRead: true,
    config: { replication: { maxReplicas: 3, locationLabels: [] } },
  };
}

/** Sets what PD reports (undefined with `pdError`: PD unreachable). */
export const withPd =
  (pd: PdView | undefined, pdError?: string): Change<Snapshot> =>
  (s) => {
    const { error: _error, errorKind: _kind, ...rest } = s.components.pd;
    return { ...s, components: { ...s.components, pd: { ...rest, view: pd, ...(pdError === undefined ? {} : { error: pdError }) } } };
  };

/** Sets how reading PD failed (with `withPd(undefined, error)`). */
export const withPdErrorKind =
  (errorKind: 'noLeader' | 'unreachable'): Change<Snapshot> =>
  (s) => ({ ...s, components: { ...s.components, pd: { ...s.components.pd, errorKind } } });

const appended = (to: OwnedObjects, added: OwnedObjects): OwnedObjects =>
  Object.fromEntries(Object.entries(to).map(([kind, items]) => [kind, [...items, ...added[kind as keyof OwnedObjects]]])) as unknown as OwnedObjects;

/**
 * Adds owned objects of one kind, where the observer puts them: an observed component's (by its
 * component label) under `components[name].objects`, any other in `owned`.
 */
export const withOwned =
  <K extends keyof OwnedObjects>(kind: K, ...objects: OwnedObjects[K][number][]): Change<Snapshot> =>
  (s) => {
    const { rest, byComponent } = splitByComponent({ ...NO_OWNED_OBJECTS, [kind]: objects }, OBSERVED_COMPONENTS);
    const components = Object.fromEntries(
      OBSERVED_COMPONENTS.map((name) => [name, { ...s.components[name], objects: appended(s.components[name].objects, byComponent[name]) }]),
    ) as unknown as ObservedComponents;
    return { ...s, owned: appended(s.owned, rest), components };
  };

/** Options of a test pod. */
export type PodOptions = {
  revision?: string;
  ready?: boolean;
  readySinceMs?: number;
  claims?: readonly string[];
  uid?: string;
  createdAtMs?: number;
  deleting?: boolean;
  component?: string;
  instance?: string;
  /** Extra labels (e.g. the id labels the PodLabels rule writes). */
  labels?: Record<string, string>;
  /** The node it runs on (default `node-0`: a Running pod is scheduled); null for a pod never scheduled. */
  nodeName?: string | null;
};

/** A pod of the basic cluster (`component` label default `pd`), Ready unless said otherwise. */
export function testPod(name: string, o: PodOptions = {}): IPod {
  const labels: Record<string, string> = {
    'app.kubernetes.io/name': 'tidb-cluster',
    'app.kubernetes.io/managed-by': 'tidb-operator',
    'app.kubernetes.io/instance': o.instance ?? REF.name,
    'app.kubernetes.io/component': o.component ?? 'pd',
    ...(o.revision === undefined ? {} : { 'controller-revision-hash': o.revision }),
    ...(o.labels ?? {}),
  };
  const ready = o.ready ?? true;
  const since = toKubeTime(o.readySinceMs ?? T0 - 3_600_000);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: REF.namespace,
      uid: o.uid ?? `uid-${name}`,
      resourceVersion: '7',
      labels,
      creationTimestamp: toKubeTime(o.createdAtMs ?? T0 - 86_400_000),
      ...(o.deleting === true ? { deletionTimestamp: toKubeTime(T0) } : {}),
    },
    spec: {
      ...(o.nodeName === null ? {} : { nodeName: o.nodeName ?? 'node-0' }),
      containers: [{ name: 'pd', image: 'pingcap/pd:v8.5.0' }],
      volumes: (o.claims ?? []).map((claimName, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName } })),
    },
    status: { phase: o.nodeName === null ? 'Pending' : 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: since }] },
  };
}

/** A PVC of the basic cluster labelled for pod `podName`. */
export function testPvc(
  name: string,
  podName: string,
  o: { uid?: string; annotations?: Record<string, string>; deleting?: boolean; resourceVersion?: string } = {},
): IPersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name,
      namespace: REF.namespace,
      uid: o.uid ?? `uid-${name}`,
      resourceVersion: o.resourceVersion ?? '9',
      labels: { 'app.kubernetes.io/instance': REF.name, 'app.kubernetes.io/component': 'pd', 'tidb.pingcap.com/pod-name': podName },
      ...(o.annotations === undefined ? {} : { annotations: o.annotations }),
      ...(o.deleting === true ? { deletionTimestamp: toKubeTime(T0) } : {}),
    },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  };
}

/** The rule input for a snapshot: its cluster and that cluster's status. */
export function ruleInputOf(s: Snapshot): RuleInput {
  const cluster = s.cluster ?? tidbCluster();
  return { snapshot: s, cluster, status: cluster.status ?? {} };
}

type IStatefulSet = import('kubernetes-models/apps/v1/StatefulSet').IStatefulSet;
// (ES imports are hoisted; this one sits with the PD fixtures it serves.)
import { desiredDiscoveryObjects } from '../../lib/reconcile/cluster/discovery.js';
import { desiredPdStatefulSet, planPdConfigMapObject } from './pd-rules.js';
import { pdClientService, pdPeerService } from '../../lib/reconcile/components/pd/services.js';

/** Options of a live PD StatefulSet: its spec numbers and the status the controller reported. */
export type PdSetOptions = {
  replicas?: number;
  partition?: number;
  currentRevision?: string;
  updateRevision?: string;
  readyReplicas?: number;
  statusReplicas?: number;
  resourceVersion?: string;
};

/**
 * The `<tc>-pd` StatefulSet as the PD rules would have written it for `tc` (so its last-applied
 * record matches), with `o` applied and a controller status (both revisions `rev-1` by default).
 */
export function pdSetOf(tc: TidbCluster, o: PdSetOptions = {}): IStatefulSet {
  const replicas = o.replicas ?? tc.spec.pd?.replicas ?? 3;
  const input = ruleInputOf(snapshot(withCluster(tc)));
  const built = desiredPdStatefulSet(input, { replicas, partition: o.partition ?? replicas });
  return {
    ...built,
    metadata: { ...built.metadata, resourceVersion: o.resourceVersion ?? '50', generation: 1, uid: 'uid-sts-pd' },
    status: {
      replicas: o.statusReplicas ?? replicas,
      readyReplicas: o.readyReplicas ?? replicas,
      currentRevision: o.currentRevision ?? 'rev-1',
      updateRevision: o.updateRevision ?? o.currentRevision ?? 'rev-1',
      observedGeneration: 1,
    },
  };
}

/** `convergedPdObjects` with the cluster itself: a converged world for `tc`. */
export function convergedPd(tc: TidbCluster): Change<Snapshot>[] {
  return [withCluster(tc), ...convergedPdObjects(tc)];
}

/**
 * Every object the registered rules create for a 3-member PD cluster `tc` (discovery and PD), with
 * all three pods on one revision and PD healthy with basic-pd-1 leading.
 */
export function convergedPdObjects(tc: TidbCluster): Change<Snapshot>[] {
  const members = [0, 1, 2].map((i) => pdMemberView(`basic-pd-${i}`, { ready: true }));
  // The pods carry the ids the PodLabels rule writes: PD's cluster id (pdViewOf's) and their member id.
  const idLabels = (m: PdMember | undefined): Record<string, string> => ({ 'tidb.pingcap.com/cluster-id': '6800000000000000001', ...(m ? { 'tidb.pingcap.com/member-id': m.id } : {}) });
  const discovery = desiredDiscoveryObjects(tc, snapshot().config);
  const of = (kind: string): never[] => discovery.filter((o) => o.kind === kind) as never[];
  return [
    withOwned('ServiceAccount', ...of('ServiceAccount')),
    withOwned('Role', ...of('Role')),
    withOwned('RoleBinding', ...of('RoleBinding')),
    withOwned('Deployment', ...of('Deployment')),
    withOwned('Service', ...of('Service'), pdClientService(tc), pdPeerService(tc)),
    withOwned('ConfigMap', planPdConfigMapObject(ruleInputOf(snapshot(withCluster(tc)))).configMap),
    withOwned('StatefulSet', pdSetOf(tc)),
    withOwned('Pod', ...[0, 1, 2].map((i) => testPod(`basic-pd-${i}`, { revision: 'rev-1', claims: [`pd-basic-pd-${i}`], labels: idLabels(members[i]) }))),
    withPd(pdViewOf(members, 'basic-pd-1')),
  ];
}
