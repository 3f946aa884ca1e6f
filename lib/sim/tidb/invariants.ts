/**
 * Invariant monitors the simulator evaluates continuously, whatever drives it. Each reports
 * `{name, violations: [{atMs, message}]}` with `atMs` the virtual clock's time when it happened:
 * - `pd-quorum-kept`: PD lost its raft majority, and the members down without an injected fault
 *   (pods deleted, restarted or misconfigured by the reconciler) are what tipped it. Deleting the
 *   TidbCluster is the user's act: pods whose deletion follows from it (the garbage collector
 *   taking its StatefulSets, then their pods) are not counted against the reconciler, nor are pods
 *   deleted by an injected fault or deleted while down because of one — any other deletion (of a
 *   pod, or of a StatefulSet whose TidbCluster stays) is, except a StatefulSet whose TidbCluster
 *   asks for that component to be suspended (`suspendAction.suspendStatefulSet`, the user's act too);
 * - `no-data-loss`: a region lost every replica (all its stores' volumes deleted);
 * - `one-pod-down-for-upgrade`: two PD, two TiKV, two TiFlash or two TiDB pods of one set were
 *   down for a rolling update at the same time;
 * - `no-tidb-upgrade-during-tikv-upgrade`: a TiDB pod was restarted for a rolling update while the
 *   cluster's TiKV StatefulSet was between revisions;
 * - `no-ddl-left-paused-after-upgrade`: TiDB's smooth-upgrade mode (DDL paused) is still on
 *   `evictLeaderGraceMs` after a TiDB rollout completed;
 * - `no-evict-leader-left-after-upgrade`: an evict-leader scheduler that existed when a TiKV rollout
 *   completed is still there `evictLeaderGraceMs` later;
 * - `pvc-deleted-only-after-tombstone`: a PVC was deleted while the store on it was not Tombstone;
 * - `no-store-deleted-below-max-replicas`: a TiKV store was taken Offline while the other TiKV
 *   stores PD reports Up were fewer than `max-replicas` (its regions have nowhere safe to go).
 * - `ticdc-capture-drained-before-stop`: a TiCDC capture stopped with tables still on it (and another
 *   capture alive to take them) before its graceful-shutdown timeout ran out (see
 *   `invariant-captures.ts`); stops caused by an injected fault or a teardown are not counted.
 * - `region-majority`: a region lost the majority of its replicas on live stores, and the stores down
 *   without an injected fault are what tipped it (see `invariant-regions.ts`).
 */
import type { Clock } from '../../platform/clock.js';
import type { KubeObject } from '../object.js';
import type { ObjectStore, StoreEvent } from '../store.js';
import type { TidbSimKnobs } from './knobs.js';
import type { ClusterRegistry, ClusterState } from './registry.js';
import { CaptureWatch } from './invariant-captures.js';
import { RegionMajorityWatch } from './invariant-regions.js';
import { UpgradeWatch } from './invariant-upgrades.js';
import { dataUidOfClaim } from './pod-info.js';

/** One violation. */
export type Violation = { atMs: number; message: string };

/** One monitor's findings, as the scenario report lists them. */
export type InvariantReport = { name: string; violations: Violation[] };

/** The monitors' names, in report order. */
export const INVARIANT_NAMES = [
  'pd-quorum-kept',
  'no-data-loss',
  'one-pod-down-for-upgrade',
  'no-evict-leader-left-after-upgrade',
  'pvc-deleted-only-after-tombstone',
  'no-store-deleted-below-max-replicas',
  'no-tidb-upgrade-during-tikv-upgrade',
  'no-ddl-left-paused-after-upgrade',
  'ticdc-capture-drained-before-stop',
  'region-majority',
] as const;

/** A monitor's name. */
export type InvariantName = (typeof INVARIANT_NAMES)[number];

/** What the monitors watch. */
export type MonitorDeps = { store: ObjectStore; clusters: ClusterRegistry; clock: Clock; knobs: TidbSimKnobs; isFaulted(pod: KubeObject): boolean };

/** Evaluates every invariant as the world changes. */
export class InvariantMonitor {
  private readonly violations = new Map<InvariantName, Violation[]>(INVARIANT_NAMES.map((n) => [n, []]));
  private readonly hadQuorum = new Map<ClusterState, boolean>();
  /** The persisted state of every store seen, to catch the moment one is taken Offline. */
  private readonly storeMeta = new Map<string, string>();
  private readonly unsubscribes: (() => void)[] = [];
  private readonly upgrades: UpgradeWatch;
  private readonly captures: CaptureWatch;
  private readonly regions: RegionMajorityWatch;
  /** Uids of objects whose deletion follows from a TidbCluster's deletion (the cluster's included). */
  private readonly tornDown = new Set<string>();
  /**
   * `namespace/name` of pods whose deletion is not the reconciler's — a teardown's, or one of a pod
   * deleted or already down because of an injected fault — until a pod of that name is created again.
   */
  private readonly excusedPods = new Set<string>();

  constructor(private readonly deps: MonitorDeps) {
    this.upgrades = new UpgradeWatch(deps, (name, message) => this.violate(name, message));
    this.captures = new CaptureWatch(deps, (namespace, podName) => this.isExcused(namespace, podName), (name, message) => this.violate(name, message));
    this.regions = new RegionMajorityWatch((namespace, podName) => this.isExcused(namespace, podName), (message) => this.violate('region-majority', message));
  }

  /** Subscribes to the store and to every cluster (present and future). */
  start(): void {
    this.unsubscribes.push(this.deps.store.subscribe((ev) => this.onStoreEvent(ev)));
    for (const c of this.deps.clusters.all()) this.watchCluster(c);
    this.unsubscribes.push(this.deps.clusters.onCreate((c) => this.watchCluster(c)));
  }

  /** Unsubscribes everything. */
  stop(): void {
    for (const u of this.unsubscribes.splice(0)) u();
    this.upgrades.stop();
  }

  /** Every monitor with its violations so far. */
  report(): InvariantReport[] {
    return INVARIANT_NAMES.map((name) => ({ name, violations: [...(this.violations.get(name) ?? [])] }));
  }

  /** Records a violation at the virtual clock's current time. */
  violate(name: InvariantName, message: string): void {
    this.violations.get(name)?.push({ atMs: this.deps.clock.nowMs(), message });
  }

  private watchCluster(c: ClusterState): void {
    this.hadQuorum.set(c, c.pd.members.hasQuorum());
    this.unsubscribes.push(c.pd.onChange(() => this.checkQuorum(c)));
    this.unsubscribes.push(c.pd.onChange(() => this.checkStoreRemovals(c)));
    this.unsubscribes.push(c.pd.onChange(() => this.regions.check(c)));
    this.unsubscribes.push(this.captures.watch(c));
    this.unsubscribes.push(
      c.pd.onRegionLost((r) => this.violate('no-data-loss', `region ${r.id} of ${c.namespace}/${c.name} lost every replica (stores ${r.peers.join(', ')} lost their data)`)),
    );
  }

  /** On losing quorum: would the members down without an injected fault have kept it? */
  private checkQuorum(c: ClusterState): void {
    const has = c.pd.members.hasQuorum();
    const had = this.hadQuorum.get(c) ?? false;
    this.hadQuorum.set(c, has);
    if (has || !had) return;
    const members = c.pd.members.list();
    const serving = members.filter((m) => m.serving).length;
    const down = members.filter((m) => !m.serving);
    // Members may be named by FQDN (spec.clusterDomain): the pod is the first label.
    const byOperator = down.filter((m) => !this.isExcused(c.namespace, m.name.split('.')[0] ?? m.name));
    if (serving + byOperator.length <= members.length / 2) return;
    this.violate('pd-quorum-kept', `PD of ${c.namespace}/${c.name} lost quorum: ${serving}/${members.length} members serving; down without an injected fault: ${byOperator.map((m) => m.name).join(', ')}`);
  }

  /** A TiKV store that just went Offline: were enough other TiKV stores Up to take its replicas? */
  private checkStoreRemovals(c: ClusterState): void {
    const stores = c.pd.stores.list();
    for (const store of stores) {
      const key = `${c.namespace}/${c.name}/${store.id}`;
      const before = this.storeMeta.get(key);
      this.storeMeta.set(key, store.meta);
      if (store.engine !== 'tikv' || store.meta !== 'Offline' || before === 'Offline') continue;
      const up = stores.filter((s) => s !== store && s.engine === 'tikv' && c.pd.stores.stateName(s) === 'Up').length;
      const max = c.pd.config.maxReplicas;
      if (up < max) this.violate('no-store-deleted-below-max-replicas', `store ${store.id} (${store.address}) of ${c.namespace}/${c.name} was deleted with ${up} other TiKV stores Up, fewer than max-replicas ${max}`);
    }
  }

  /** Whether a pod's process being down is not the reconciler's doing: an injected fault, or a teardown. */
  private isExcused(namespace: string, podName: string): boolean {
    const pod = this.deps.store.get('Pod', namespace, podName);
    if (!pod) return this.excusedPods.has(`${namespace}/${podName}`);
    return this.deps.isFaulted(pod) || this.tornDown.has(pod.metadata.uid ?? '');
  }

  private onStoreEvent(ev: StoreEvent): void {
    this.trackDeletions(ev);
    this.captures.onStoreEvent(ev);
    if (ev.kind === 'PersistentVolumeClaim' && isDeletionStart(ev)) this.checkPvcDeletion(ev.object);
    this.upgrades.onStoreEvent(ev);
  }

  /**
   * A TidbCluster's deletion starts a teardown; an object whose deletion starts while one of its
   * owners is torn down (what the garbage collector does) is torn down with it. A pod's deletion is
   * excused when it is torn down or faulted at the time (its member was not serving because of
   * the fault, or the fault deleted it).
   */
  private trackDeletions(ev: StoreEvent): void {
    const key = `${ev.object.metadata.namespace ?? ''}/${ev.object.metadata.name ?? ''}`;
    if (ev.kind === 'Pod' && ev.type === 'ADDED') this.excusedPods.delete(key);
    if (!isDeletionStart(ev)) return;
    const owners = ev.object.metadata.ownerReferences ?? [];
    const tornDown = ev.kind === 'TidbCluster' || owners.some((r) => this.tornDown.has(r.uid)) || this.isSuspendedByUser(ev.kind, ev.object);
    if (tornDown) this.tornDown.add(ev.object.metadata.uid ?? '');
    if (ev.kind === 'Pod' && (tornDown || this.deps.isFaulted(ev.previous ?? ev.object))) this.excusedPods.add(key);
  }

  /** Whether `obj` is a StatefulSet whose TidbCluster asks for its component to be suspended. */
  private isSuspendedByUser(kind: string, obj: KubeObject): boolean {
    if (kind !== 'StatefulSet') return false;
    const owner = (obj.metadata.ownerReferences ?? []).find((r) => r.kind === 'TidbCluster' && r.controller === true);
    const tc = owner ? this.deps.store.get('TidbCluster', obj.metadata.namespace, owner.name) : undefined;
    const component = obj.metadata.labels?.['app.kubernetes.io/component'];
    if (!tc || tc.metadata.uid !== owner?.uid || component === undefined) return false;
    type Action = { suspendStatefulSet?: boolean } | undefined;
    const spec = (tc.spec ?? {}) as { suspendAction?: Action } & Record<string, { suspendAction?: Action } | undefined>;
    const section = spec[component];
    if (section === undefined) return false;
    return (section.suspendAction ?? spec.suspendAction)?.suspendStatefulSet === true;
  }

  private checkPvcDeletion(pvc: KubeObject): void {
    for (const c of this.deps.clusters.all()) {
      const store = c.pd.stores.byData(dataUidOfClaim(this.deps.store, pvc));
      if (!store || store.meta === 'Tombstone') continue;
      const state = c.pd.stores.stateName(store);
      this.violate('pvc-deleted-only-after-tombstone', `PVC ${pvc.metadata.namespace ?? ''}/${pvc.metadata.name ?? ''} deleted while store ${store.id} (${store.address}) was ${state}`);
    }
  }
}

/** The event where an object's deletion begins (deletionTimestamp set, or removed outright). */
export function isDeletionStart(ev: StoreEvent): boolean {
  if (ev.type === 'DELETED') return !ev.previous?.metadata.deletionTimestamp;
  return ev.type === 'MODIFIED' && !ev.previous?.metadata.deletionTimestamp && ev.object.metadata.deletionTimestamp !== undefined;
}
