/**
 * The physical minimum of an operation, measured in the run itself: how long the simulated world
 * took for what no reconciler can shorten — a pod created or restarted until its PD member serves
 * (and, for an upgrade, answers ready). Pod startup, process boot, the start script's discovery
 * retries, joining and region loading are all in it; every step, wait and requeue of ours is not.
 * Pods that start together count once (the slowest); pods that must start one after another add up.
 *
 * A restart counts from the pod's termination (its deletion timestamp: the graceful shutdown is the
 * world's time too); a PD leader that moves while the old leader still serves is a transfer, and
 * each adds PD's transfer time (`pdLeaderTransferMs`), as a leader must leave a pod before it restarts.
 *
 * Recorded from the world's own signals: the object store's pod events, and the simulated PD's
 * change notifications (a member serving while PD has quorum is up; ready `pdRegionLoadMs` after it
 * began serving, as the simulated `/pd/api/v2/ready`).
 */
import type { SimStack } from '../lib/local/sim-stack.js';

/** One pod's life events, in virtual ms since the run's start. */
type PodLife = { created: number[]; terminating: number[]; up: number[]; ready: number[] };

/** Records, per pod of one cluster's PD, when it was created, deleted, up and ready. */
export class PdStartupProbe {
  private readonly pods = new Map<string, PodLife>();
  private readonly unsubscribes: (() => void)[] = [];
  private readonly servingSince = new Map<string, number>();
  private readonly transfers: number[] = [];
  private leader: string | undefined;
  private watchingPd = false;

  constructor(
    private readonly stack: SimStack,
    private readonly t0: number,
  ) {
    const { namespace, name } = stack.scenario.cluster.metadata;
    const prefix = `${name}-pd-`;
    this.unsubscribes.push(
      stack.world.store.subscribe((ev) => {
        const podName = ev.object.metadata?.name ?? '';
        if (ev.kind !== 'Pod' || ev.object.metadata?.namespace !== namespace || !podName.startsWith(prefix)) return;
        const life = this.life(podName);
        if (ev.type === 'ADDED') life.created.push(this.now());
        // The termination starts at the deletion timestamp (or at the deletion, without a grace period).
        const terminating = ev.object.metadata?.deletionTimestamp !== undefined && ev.previous?.metadata?.deletionTimestamp === undefined;
        if ((ev.type === 'MODIFIED' && terminating) || (ev.type === 'DELETED' && (ev.previous ?? ev.object).metadata?.deletionTimestamp === undefined)) {
          life.terminating.push(this.now());
        }
        this.watchPd(namespace, name);
      }),
    );
  }

  /** Stops recording. */
  stop(): void {
    for (const u of this.unsubscribes.splice(0)) u();
  }

  /**
   * The world's time for pods started together in [fromMs, toMs]: for each pod created in the
   * window, creation → first up after it; the slowest counts. 0 when none was created.
   */
  parallelStartMs(fromMs: number, toMs: number): number {
    let slowest = 0;
    for (const life of this.pods.values()) {
      for (const c of life.created.filter((t) => t >= fromMs && t <= toMs)) {
        const up = life.up.find((t) => t >= c && t <= toMs);
        if (up !== undefined) slowest = Math.max(slowest, up - c);
      }
    }
    return slowest;
  }

  /**
   * The world's time for pods restarted one after another in [fromMs, toMs]: for each pod whose
   * termination started in the window, termination → its replacement ready; the restarts add up,
   * with PD's transfer time for each leader transfer in the window.
   */
  sequentialRestartMs(fromMs: number, toMs: number): number {
    let total = this.transfers.filter((t) => t >= fromMs && t <= toMs).length * this.stack.sim.knobs.pdLeaderTransferMs;
    for (const life of this.pods.values()) {
      for (const d of life.terminating.filter((t) => t >= fromMs && t <= toMs)) {
        const ready = life.ready.find((t) => t >= d && t <= toMs);
        if (ready !== undefined) total += ready - d;
      }
    }
    return total;
  }

  private now(): number {
    return this.stack.clock.nowMs() - this.t0;
  }

  private life(podName: string): PodLife {
    let life = this.pods.get(podName);
    if (!life) this.pods.set(podName, (life = { created: [], terminating: [], up: [], ready: [] }));
    return life;
  }

  private watchPd(namespace: string, name: string): void {
    if (this.watchingPd) return;
    const cluster = this.stack.sim.cluster(namespace, name);
    if (!cluster) return;
    this.watchingPd = true;
    const loadMs = this.stack.sim.knobs.pdRegionLoadMs;
    const check = (): void => {
      const quorum = cluster.pd.members.hasQuorum();
      const leader = cluster.pd.members.leader();
      const previous = this.leader === undefined ? undefined : cluster.pd.members.get(this.leader);
      if (leader !== undefined && previous !== undefined && leader.name !== previous.name && previous.serving) this.transfers.push(this.now());
      if (leader !== undefined) this.leader = leader.name;
      for (const m of cluster.pd.members.list()) {
        const up = m.serving && quorum;
        const since = this.servingSince.get(m.name);
        if (up && since === undefined) {
          const at = this.now();
          this.servingSince.set(m.name, at);
          const life = this.life(podOfMember(m.name));
          life.up.push(at);
          // Ready once it has served for the region-load time (a member up later than that is ready at once).
          life.ready.push(Math.max(at, m.servingSinceMs - this.t0 + loadMs));
        }
        if (!up && since !== undefined) this.servingSince.delete(m.name);
      }
    };
    this.unsubscribes.push(cluster.pd.onChange(check));
    check();
  }
}

/** A PD member's pod: the member name up to its first dot (members may carry the peer service's domain). */
function podOfMember(member: string): string {
  return member.split('.')[0] ?? member;
}
