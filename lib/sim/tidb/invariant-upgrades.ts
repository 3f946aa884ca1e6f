/**
 * The rolling-update monitors. A PD, PD microservice (tso, scheduling), TiKV, TiFlash, TiDB or TiProxy pod is "down for an upgrade" from the moment its
 * deletion begins while it is on an old revision of its StatefulSet (and no injected fault had
 * taken it down) until a pod of that name is Ready again; two at once in one set is a violation,
 * and so is a TiDB pod going down so while its cluster's TiKV StatefulSet is between revisions.
 * When a TiKV set's rollout completes, no evict-leader scheduler may exist `evictLeaderGraceMs`
 * later — whenever it was added — unless a new rollout began or a scale-in is removing the store;
 * when a TiDB set's rollout completes, the smooth-upgrade mode must be off by then.
 */
import type { TimerHandle } from '../../platform/clock.js';
import type { KubeObject } from '../object.js';
import { isPodReady } from '../pod-status.js';
import type { StoreEvent } from '../store.js';
import type { InvariantName, MonitorDeps } from './invariants.js';

const UPGRADE_COMPONENTS = new Set(['pd', 'tikv', 'tiflash', 'tidb', 'tiproxy', 'tso', 'scheduling']);
const ROLLOUT_COMPONENTS = new Set(['tikv', 'tidb']);

type Rollout = { inProgress: boolean; epoch: number };

function setOf(pod: KubeObject): string | undefined {
  const ref = pod.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === 'StatefulSet');
  return ref ? `${pod.metadata.namespace ?? ''}/${ref.name}` : undefined;
}

function ordinal(podName: string): number {
  return Number(/-(\d+)$/.exec(podName)?.[1] ?? -1);
}

/** Watches pods and StatefulSets for the rolling-update invariants. */
export class UpgradeWatch {
  private readonly down = new Map<string, Set<string>>();
  private readonly rollouts = new Map<string, Rollout>();
  private readonly timers = new Set<TimerHandle>();

  constructor(
    private readonly deps: MonitorDeps,
    private readonly violate: (name: InvariantName, message: string) => void,
  ) {}

  /** Feeds one store event. */
  onStoreEvent(ev: StoreEvent): void {
    if (ev.kind === 'Pod') this.onPod(ev);
    if (ev.kind === 'StatefulSet' && ev.type !== 'DELETED') this.onSet(ev.object);
  }

  /** Cancels pending checks. */
  stop(): void {
    for (const t of this.timers) this.deps.clock.clearTimer(t);
    this.timers.clear();
  }

  private onPod(ev: StoreEvent): void {
    const pod = ev.object;
    const key = setOf(pod);
    if (!key || !UPGRADE_COMPONENTS.has(pod.metadata.labels?.['app.kubernetes.io/component'] ?? '')) return;
    const down = this.down.get(key) ?? new Set<string>();
    this.down.set(key, down);
    const name = pod.metadata.name ?? '';
    if (ev.type !== 'DELETED' && !pod.metadata.deletionTimestamp && isPodReady(pod)) {
      down.delete(name);
      return;
    }
    const starting = ev.type === 'DELETED' ? !ev.previous?.metadata.deletionTimestamp : ev.type === 'MODIFIED' && !ev.previous?.metadata.deletionTimestamp && pod.metadata.deletionTimestamp !== undefined;
    if (!starting || !this.isUpgradeRestart(pod, key)) return;
    down.add(name);
    if (pod.metadata.labels?.['app.kubernetes.io/component'] === 'tidb') this.checkTikvAtRest(pod);
    if (down.size >= 2) this.violate('one-pod-down-for-upgrade', `${down.size} pods of StatefulSet ${key} down for a rolling update at once: ${[...down].sort().join(', ')}`);
  }

  /** Deleted on an old revision during a rollout, and not by an injected fault. */
  private isUpgradeRestart(pod: KubeObject, key: string): boolean {
    const [namespace = '', name = ''] = key.split('/');
    const set = this.deps.store.get('StatefulSet', namespace, name);
    const update = set?.status?.updateRevision as string | undefined;
    const revision = pod.metadata.labels?.['controller-revision-hash'];
    return update !== undefined && revision !== undefined && revision !== update && !this.deps.isFaulted(pod);
  }

  /** A TiDB pod restarted for its upgrade: the cluster's TiKV StatefulSet must not be between revisions. */
  private checkTikvAtRest(pod: KubeObject): void {
    const instance = pod.metadata.labels?.['app.kubernetes.io/instance'] ?? '';
    const tikv = this.deps.store
      .list('StatefulSet', pod.metadata.namespace)
      .find((s) => s.metadata.labels?.['app.kubernetes.io/component'] === 'tikv' && s.metadata.labels['app.kubernetes.io/instance'] === instance);
    const s = tikv?.status ?? {};
    if (!tikv || s.currentRevision === undefined || s.currentRevision === s.updateRevision) return;
    this.violate('no-tidb-upgrade-during-tikv-upgrade', `${pod.metadata.name ?? ''} restarted for a rolling update while ${pod.metadata.namespace ?? ''}/${tikv.metadata.name ?? ''} is between revisions ${String(s.currentRevision)} and ${String(s.updateRevision)}`);
  }

  private onSet(set: KubeObject): void {
    const key = `${set.metadata.namespace ?? ''}/${set.metadata.name ?? ''}`;
    const replicas = typeof set.spec?.replicas === 'number' ? set.spec.replicas : 1;
    // Pods scaled away never come back Ready: they are no longer down for the upgrade.
    for (const pod of this.down.get(key) ?? []) if (ordinal(pod) >= replicas) this.down.get(key)?.delete(pod);
    const component = set.metadata.labels?.['app.kubernetes.io/component'] ?? '';
    if (!ROLLOUT_COMPONENTS.has(component)) return;
    const s = set.status ?? {};
    const complete = s.currentRevision !== undefined && s.currentRevision === s.updateRevision && s.updatedReplicas === replicas && s.readyReplicas === replicas;
    const rollout = this.rollouts.get(key) ?? { inProgress: false, epoch: 0 };
    this.rollouts.set(key, rollout);
    if (!complete) {
      rollout.inProgress = true;
      return;
    }
    if (!rollout.inProgress) return;
    rollout.inProgress = false;
    rollout.epoch++;
    if (component === 'tikv') this.scheduleEvictCheck(set, rollout, rollout.epoch);
    else this.scheduleDdlCheck(set, rollout, rollout.epoch);
  }

  private scheduleDdlCheck(set: KubeObject, rollout: Rollout, epoch: number): void {
    const handle = this.deps.clock.setTimer(() => {
      this.timers.delete(handle);
      if (rollout.epoch !== epoch || rollout.inProgress) return;
      const cluster = this.deps.clusters.find(set.metadata.namespace ?? '', set.metadata.labels?.['app.kubernetes.io/instance'] ?? '');
      if (!cluster?.smoothUpgrade.ddlPaused) return;
      this.violate('no-ddl-left-paused-after-upgrade', `TiDB smooth-upgrade mode (DDL paused) still on ${Math.round(this.deps.knobs.evictLeaderGraceMs / 1000)}s after the rollout of ${set.metadata.namespace ?? ''}/${set.metadata.name ?? ''} completed`);
    }, this.deps.knobs.evictLeaderGraceMs);
    this.timers.add(handle);
  }

  private scheduleEvictCheck(set: KubeObject, rollout: Rollout, epoch: number): void {
    const handle = this.deps.clock.setTimer(() => {
      this.timers.delete(handle);
      if (rollout.epoch !== epoch || rollout.inProgress) return;
      const instance = set.metadata.labels?.['app.kubernetes.io/instance'] ?? '';
      const cluster = this.deps.clusters.find(set.metadata.namespace ?? '', instance);
      if (!cluster) return;
      const left = [...cluster.pd.evicting.keys()].filter((id) => !this.isScalingIn(set, cluster.pd.stores.get(id))).map((id) => `evict-leader-scheduler-${id}`);
      if (left.length > 0) this.violate('no-evict-leader-left-after-upgrade', `${left.join(', ')} still present ${Math.round(this.deps.knobs.evictLeaderGraceMs / 1000)}s after the rollout of ${set.metadata.namespace ?? ''}/${set.metadata.name ?? ''} completed`);
    }, this.deps.knobs.evictLeaderGraceMs);
    this.timers.add(handle);
  }

  /**
   * A store a scale-in is removing may keep its scheduler: it is Offline already, or its pod carries
   * the `tidb.pingcap.com/scale-in-time` annotation (leaders are evicted before the store is deleted).
   * Any other scheduler there at the check — added before the rollout completed or after — is left behind.
   */
  private isScalingIn(set: KubeObject, store: { meta: string; podName: string } | undefined): boolean {
    if (store === undefined || store.meta === 'Offline' || store.meta === 'Tombstone') return store !== undefined;
    const pod = this.deps.store.get('Pod', set.metadata.namespace ?? '', store.podName);
    return pod?.metadata.annotations?.[SCALE_IN_TIME] !== undefined;
  }
}

/** The pod annotation a TiKV scale-in sets when it starts evicting a store's leaders (as TiDB Operator). */
const SCALE_IN_TIME = 'tidb.pingcap.com/scale-in-time';
