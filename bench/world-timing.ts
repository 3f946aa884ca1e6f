/**
 * The physical minimum of an operation, measured in the run itself: how long the simulated world
 * took for what no reconciler can shorten — a pod created or restarted until its process is up,
 * a TiKV store's leaders evicted, a TiCDC capture's tables drained, a PD leader transferred. Pod
 * startup, process boot, start-script retries, joining and region loading are all in it; every
 * step, wait and requeue of a reconciler is not. How the pieces combine (in parallel, one after
 * another) is the benchmark's to say; this probe only records them.
 *
 * A pod is up, by component, when what TiDB Operator checks of it holds in the world:
 * - PD: its member serves while PD has quorum; ready `pdRegionLoadMs` after it began serving, as
 *   the simulated `/pd/api/v2/ready` (the PD upgrader waits for that);
 * - TiKV, TiFlash: its pod is Ready and PD reports its store Up (as the upgrader checks; PD keeps a
 *   restarting store Up until it has missed heartbeats for `storeDisconnectMs`);
 * - TiCDC: its pod is Ready and its capture is registered;
 * - Pump: its pod is Ready and its node is alive and online in the binlog registry;
 * - TiDB: its pod is Ready (its readiness probe; it listens only once PD and a TiKV store serve).
 * For every component but PD, ready is up.
 *
 * A restart counts from the pod's termination (its deletion timestamp: the graceful shutdown is the
 * world's time too); a PD leader that moves while the old leader still serves is a transfer, and
 * each costs PD's transfer time (`pdLeaderTransferMs`). An eviction runs from the evict-leader
 * scheduler's creation to the PD tick that leaves the store no leader; a drain from the capture's
 * drain call until its tables are gone (the world moves them linearly over `ticdcDrainMs`).
 *
 * Recorded from the world's own signals: the object store's pod events, the simulated PD's change
 * notifications (members, stores, captures and Pump nodes all report through it) and its ticks.
 */
import type { SimStack } from '../lib/local/sim-stack.js';
import type { KubeObject } from '../lib/sim/object.js';
import type { ClusterState } from '../lib/sim/tidb/registry.js';

/** The components whose pods the probe times. */
export const TIMED_COMPONENTS = ['pd', 'tikv', 'tiflash', 'pump', 'tidb', 'ticdc'] as const;
/** One of `TIMED_COMPONENTS`. */
export type TimedComponent = (typeof TIMED_COMPONENTS)[number];

/** One pod's life events, in virtual ms since the run's start. */
type PodLife = { component: TimedComponent; created: number[]; terminating: number[]; up: number[]; ready: number[]; podReady: boolean; isUp: boolean };

/** A span of the world's own time (eviction, drain), in virtual ms since the run's start. */
export type Span = { readonly startMs: number; endMs: number | undefined };

const isTimed = (c: string | undefined): c is TimedComponent => (TIMED_COMPONENTS as readonly string[]).includes(c ?? '');

/** Records, per pod of one cluster, when it was created, deleted, up and ready, and the cluster's evictions, drains and PD leader transfers. */
export class WorldTimingProbe {
  private readonly pods = new Map<string, PodLife>();
  private readonly unsubscribes: (() => void)[] = [];
  private readonly servingSince = new Map<string, number>();
  private readonly transfers: number[] = [];
  private readonly evictions = new Map<string, Span>();
  private readonly closedEvictions: Span[] = [];
  private readonly drains = new Map<string, Span>();
  private leader: string | undefined;
  private cluster: ClusterState | undefined;

  constructor(
    private readonly stack: SimStack,
    private readonly t0: number,
  ) {
    const { namespace, name } = stack.scenario.cluster.metadata;
    this.unsubscribes.push(
      stack.world.store.subscribe((ev) => {
        const labels = ev.object.metadata?.labels ?? {};
        const component = labels['app.kubernetes.io/component'];
        if (ev.kind !== 'Pod' || ev.object.metadata?.namespace !== namespace || labels['app.kubernetes.io/instance'] !== name || !isTimed(component)) return;
        const life = this.life(ev.object.metadata.name ?? '', component);
        if (ev.type === 'ADDED') life.created.push(this.now());
        // The termination starts at the deletion timestamp (or at the deletion, without a grace period).
        const terminating = ev.object.metadata?.deletionTimestamp !== undefined && ev.previous?.metadata?.deletionTimestamp === undefined;
        if ((ev.type === 'MODIFIED' && terminating) || (ev.type === 'DELETED' && (ev.previous ?? ev.object).metadata?.deletionTimestamp === undefined)) {
          life.terminating.push(this.now());
        }
        life.podReady = ev.type !== 'DELETED' && isPodReady(ev.object);
        this.attach(namespace, name);
        this.check();
      }),
    );
  }

  /** Stops recording. */
  stop(): void {
    for (const u of this.unsubscribes.splice(0)) u();
  }

  /** What one PD leader transfer takes in this world (it takes effect that long after the call). */
  get pdLeaderTransferMs(): number {
    return this.stack.sim.knobs.pdLeaderTransferMs;
  }

  /** For each pod of `component` created in [fromMs, toMs]: creation → first up after it (pods never up by `toMs` are left out). */
  startsMs(component: TimedComponent, fromMs: number, toMs: number): number[] {
    return this.lives(component).flatMap((life) =>
      life.created.filter((t) => t >= fromMs && t <= toMs).flatMap((c) => {
        const up = life.up.find((t) => t >= c && t <= toMs);
        return up === undefined ? [] : [up - c];
      }),
    );
  }

  /** The world's time for pods of `component` started together in [fromMs, toMs]: the slowest creation → up; 0 when none. */
  parallelStartMs(component: TimedComponent, fromMs: number, toMs: number): number {
    return Math.max(0, ...this.startsMs(component, fromMs, toMs));
  }

  /** For each termination of a `component` pod in [fromMs, toMs]: termination → its replacement ready. */
  restartsMs(component: TimedComponent, fromMs: number, toMs: number): number[] {
    return this.lives(component).flatMap((life) =>
      life.terminating.filter((t) => t >= fromMs && t <= toMs).flatMap((d) => {
        const ready = life.ready.find((t) => t >= d && t <= toMs);
        return ready === undefined ? [] : [ready - d];
      }),
    );
  }

  /** PD leader transfers (the leader moving off a member that still serves) in [fromMs, toMs]. */
  transfersIn(fromMs: number, toMs: number): number {
    return this.transfers.filter((t) => t >= fromMs && t <= toMs).length;
  }

  /**
   * The world's time for PD pods restarted one after another in [fromMs, toMs]: their restarts add
   * up, with PD's transfer time for each leader transfer in the window.
   */
  sequentialRestartMs(fromMs: number, toMs: number): number {
    const restarts = this.restartsMs('pd', fromMs, toMs).reduce((a, b) => a + b, 0);
    return restarts + this.transfersIn(fromMs, toMs) * this.pdLeaderTransferMs;
  }

  /** Leader evictions begun in [fromMs, toMs] that ended by `toMs`: each one's duration. */
  evictionsMs(fromMs: number, toMs: number): number[] {
    return spansIn([...this.closedEvictions, ...this.evictions.values()], fromMs, toMs);
  }

  /** TiCDC capture drains begun in [fromMs, toMs] that ended by `toMs`: each one's duration. */
  drainsMs(fromMs: number, toMs: number): number[] {
    return spansIn([...this.drains.values()], fromMs, toMs);
  }

  private now(): number {
    return this.stack.clock.nowMs() - this.t0;
  }

  private lives(component: TimedComponent): PodLife[] {
    return [...this.pods.values()].filter((l) => l.component === component);
  }

  private life(podName: string, component: TimedComponent): PodLife {
    let life = this.pods.get(podName);
    if (!life) this.pods.set(podName, (life = { component, created: [], terminating: [], up: [], ready: [], podReady: false, isUp: false }));
    return life;
  }

  /** Starts listening to the cluster's PD once its state exists, and to its ticks (evictions end on one). */
  private attach(namespace: string, name: string): void {
    if (this.cluster) return;
    const cluster = this.stack.sim.cluster(namespace, name);
    if (!cluster) return;
    this.cluster = cluster;
    const pd = cluster.pd;
    const tick = pd.tick.bind(pd);
    // The tick loop calls `this.tick()`, so an own property sees every tick; removed on stop.
    Object.defineProperty(pd, 'tick', { configurable: true, writable: true, value: () => (tick(), this.check()) });
    this.unsubscribes.push(pd.onChange(() => this.check()), () => delete (pd as { tick?: unknown }).tick);
  }

  private check(): void {
    const cluster = this.cluster;
    if (!cluster) return;
    this.checkPd(cluster);
    const signals = componentSignals(cluster);
    for (const [podName, life] of this.pods) {
      if (life.component === 'pd') continue;
      const up = life.podReady && (life.component === 'tidb' || signals.has(podName));
      if (up && !life.isUp) {
        life.up.push(this.now());
        life.ready.push(this.now());
      }
      life.isUp = up;
    }
    this.checkEvictions(cluster);
    this.checkDrains(cluster);
  }

  private checkPd(cluster: ClusterState): void {
    const members = cluster.pd.members;
    const quorum = members.hasQuorum();
    const leader = members.leader();
    const previous = this.leader === undefined ? undefined : members.get(this.leader);
    if (leader !== undefined && previous !== undefined && leader.name !== previous.name && previous.serving) this.transfers.push(this.now());
    if (leader !== undefined) this.leader = leader.name;
    for (const m of members.list()) {
      const up = m.serving && quorum;
      const since = this.servingSince.get(m.name);
      if (up && since === undefined) {
        const at = this.now();
        this.servingSince.set(m.name, at);
        const life = this.life(podOfMember(m.name), 'pd');
        life.up.push(at);
        // Ready once it has served for the region-load time (a member up later than that is ready at once).
        life.ready.push(Math.max(at, m.servingSinceMs - this.t0 + this.stack.sim.knobs.pdRegionLoadMs));
      }
      if (!up && since !== undefined) this.servingSince.delete(m.name);
    }
  }

  private checkEvictions(cluster: ClusterState): void {
    const pd = cluster.pd;
    for (const [storeId, entry] of pd.evicting) {
      if (!this.evictions.has(storeId)) this.evictions.set(storeId, { startMs: entry.sinceMs - this.t0, endMs: undefined });
      const span = this.evictions.get(storeId);
      if (span && span.endMs === undefined && pd.book.leaderCount(storeId) === 0) span.endMs = this.now();
    }
    for (const [storeId, span] of this.evictions) {
      if (pd.evicting.has(storeId)) continue;
      // The scheduler is gone: a span it never finished ends here (the leaders stopped leaving).
      span.endMs ??= this.now();
      this.closedEvictions.push(span);
      this.evictions.delete(storeId);
    }
  }

  private checkDrains(cluster: ClusterState): void {
    for (const capture of cluster.captures.alive()) {
      if (!capture.drain || this.drains.has(capture.id)) continue;
      const startMs = capture.drain.startMs - this.t0;
      this.drains.set(capture.id, { startMs, endMs: startMs + (capture.drain.startTables > 0 ? this.stack.sim.knobs.ticdcDrainMs : 0) });
    }
  }
}

/** The pods whose own process is up by its component's signal (PD and TiDB aside): stores Up in PD, captures registered, Pump nodes online. */
function componentSignals(cluster: ClusterState): Set<string> {
  const pods = new Set<string>();
  for (const s of cluster.pd.stores.list()) if (cluster.pd.stores.stateName(s) === 'Up') pods.add(s.podName);
  for (const c of cluster.captures.alive()) pods.add(c.podName);
  for (const n of cluster.pumps.list()) if (n.alive && n.state === 'online') pods.add(n.nodeId.split(':')[0] ?? n.nodeId);
  return pods;
}

function spansIn(spans: readonly Span[], fromMs: number, toMs: number): number[] {
  return spans.flatMap((s) => (s.startMs >= fromMs && s.endMs !== undefined && s.endMs <= toMs ? [s.endMs - s.startMs] : []));
}

function isPodReady(pod: KubeObject): boolean {
  const conditions = (pod.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** A PD member's pod: the member name up to its first dot (members may carry the peer service's domain). */
function podOfMember(member: string): string {
  return member.split('.')[0] ?? member;
}
