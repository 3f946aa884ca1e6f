/**
 * The two rolling-update monitors. A PD, TiKV or TiFlash pod is "down for an upgrade" from the moment its
 * deletion begins while it is on an old revision of its StatefulSet (and no injected fault had
 * taken it down) until a pod of that name is Ready again; two at once in one set is a violation.
 * When a TiKV set's rollout completes, the evict-leader schedulers that exist then must be gone
 * `evictLeaderGraceMs` later (unless a new rollout began or the store is being removed).
 */
import type { TimerHandle } from '../../platform/clock.js';
import type { KubeObject } from '../object.js';
import { isPodReady } from '../pod-status.js';
import type { StoreEvent } from '../store.js';
import type { InvariantName, MonitorDeps } from './invariants.js';

const UPGRADE_COMPONENTS = new Set(['pd', 'tikv', 'tiflash']);

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

  private onSet(set: KubeObject): void {
    const key = `${set.metadata.namespace ?? ''}/${set.metadata.name ?? ''}`;
    const replicas = typeof set.spec?.replicas === 'number' ? set.spec.replicas : 1;
    // Pods scaled away never come back Ready: they are no longer down for the upgrade.
    for (const pod of this.down.get(key) ?? []) if (ordinal(pod) >= replicas) this.down.get(key)?.delete(pod);
    if (set.metadata.labels?.['app.kubernetes.io/component'] !== 'tikv') return;
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
    this.scheduleEvictCheck(set, rollout, rollout.epoch, this.deps.clock.nowMs());
  }

  private scheduleEvictCheck(set: KubeObject, rollout: Rollout, epoch: number, finishedAtMs: number): void {
    const handle = this.deps.clock.setTimer(() => {
      this.timers.delete(handle);
      if (rollout.epoch !== epoch || rollout.inProgress) return;
      const instance = set.metadata.labels?.['app.kubernetes.io/instance'] ?? '';
      const cluster = this.deps.clusters.find(set.metadata.namespace ?? '', instance);
      if (!cluster) return;
      const left = [...cluster.pd.evicting].filter(([id, e]) => e.sinceMs <= finishedAtMs && cluster.pd.stores.get(id)?.meta !== 'Offline').map(([id]) => `evict-leader-scheduler-${id}`);
      if (left.length > 0) this.violate('no-evict-leader-left-after-upgrade', `${left.join(', ')} still present ${Math.round(this.deps.knobs.evictLeaderGraceMs / 1000)}s after the rollout of ${set.metadata.namespace ?? ''}/${set.metadata.name ?? ''} completed`);
    }, this.deps.knobs.evictLeaderGraceMs);
    this.timers.add(handle);
  }
}
